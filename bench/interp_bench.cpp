// Google Benchmark suite of the reference interpreter (work-items per second):
//   BM_InterpLcg/N[/races]     the bench/README.md kernel: 8 LCG steps, 2 loads, 1 store, workgroup 64
//   BM_InterpReduce/N[/races]  local-memory tree reduction, workgroup 64, 7 barriers
//   BM_NativeLcg/N, BM_NativeLcgScalar/N, BM_NativeReduce/N   the same kernels as C++ loops
// N = 65,536 / 262,144 / 1,048,576. Peak memory and the Oclgrind comparison: bench/interp_vs_oclgrind.sh.

#include <benchmark/benchmark.h>

#include "bench/interp_kernels.hpp"

namespace {

using namespace gridcheck;

void run_interp(benchmark::State& state, std::string_view kernel) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  interp::RunOptions options;
  options.detect_races = state.range(1) != 0;
  const ir::Program program = kernel == "lcg" ? bench::lcg_program(n) : bench::reduce_program(n);
  auto prepared = interp::prepare(program, options);
  if (!prepared) {
    state.SkipWithError("the benchmark program does not prepare");
    return;
  }
  std::vector<interp::Bytes> buffers = bench::kernel_buffers(kernel, n);
  for (auto _ : state) {
    const interp::RunResult r = interp::execute(*prepared, buffers, {n / bench::kWorkgroup, 1, 1}, 1, options);
    if (!r.ok()) state.SkipWithError("the benchmark run failed");
    benchmark::DoNotOptimize(buffers.back().data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * n);
}

void BM_InterpLcg(benchmark::State& state) { run_interp(state, "lcg"); }
void BM_InterpReduce(benchmark::State& state) { run_interp(state, "reduce"); }

template <bool kScalar>
void BM_NativeLcgImpl(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::uint32_t> a(n), b(n, 7), out(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<std::uint32_t>(i);
  for (auto _ : state) {
    const auto [mul, add] = bench::lcg_constants();
    if (kScalar) bench::native_lcg_scalar(a.data(), b.data(), out.data(), n, mul, add);
    else bench::native_lcg(a.data(), b.data(), out.data(), n, mul, add);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void BM_NativeReduce(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::uint32_t> in(n), out(n / bench::kWorkgroup);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<std::uint32_t>(i);
  for (auto _ : state) {
    bench::native_reduce(in.data(), out.data(), n);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void sizes_and_races(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "races"});
  for (std::int64_t races : {0, 1})
    for (std::int64_t n : {65536, 262144, 1048576}) b->Args({n, races});
  b->Unit(benchmark::kMillisecond);
}

void sizes(benchmark::internal::Benchmark* b) {
  b->ArgName("n");
  for (std::int64_t n : {65536, 262144, 1048576}) b->Arg(n);
  b->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK(BM_InterpLcg)->Apply(sizes_and_races);
BENCHMARK(BM_InterpReduce)->Apply(sizes_and_races);
BENCHMARK(BM_NativeLcgImpl<false>)->Name("BM_NativeLcg")->Apply(sizes);
BENCHMARK(BM_NativeLcgImpl<true>)->Name("BM_NativeLcgScalar")->Apply(sizes);
BENCHMARK(BM_NativeReduce)->Apply(sizes);

BENCHMARK_MAIN();
