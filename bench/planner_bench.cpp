// Planner speed (bench/, never in timed tests):
//  - BM_PlanSplit: plan_split under vyre-0.7.2 for programs with 10 / 100 / 1,000 fences and 100
//    buffers (40 read, 40 read_write, 20 output; every segment loads, stores, accumulates into an
//    output and uses a propagated let);
//  - BM_MegakernelPlan: the barrier planner on 10k / 100k / 1M waves with 4 dependencies per wave
//    (each on a random earlier wave within a window of 1,024), with reused scratch and fresh.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ir/builder.hpp"
#include "planner/megakernel_barrier.hpp"
#include "planner/segment_plan.hpp"

namespace {

using namespace gridcheck;

ir::Program program_with_fences(int fences) {
  ir::Builder b({64, 1, 1});
  std::vector<ir::Buf> reads, rws, outs;
  std::uint32_t binding = 0;
  for (int i = 0; i < 40; ++i) reads.push_back(b.read(fmt::format("in{}", i), binding++, ir::ScalarType::U32, 4096));
  for (int i = 0; i < 40; ++i) rws.push_back(b.read_write(fmt::format("rw{}", i), binding++, ir::ScalarType::U32, 4096));
  for (int i = 0; i < 20; ++i) outs.push_back(b.output(fmt::format("out{}", i), binding++, ir::ScalarType::U32, 4096));
  std::vector<ir::S> body;
  body.push_back(b.let("base", b.gid() * b.u32(2)));
  for (int k = 0; k <= fences; ++k) {
    if (k > 0) body.push_back(b.grid_sync());
    const std::string t = fmt::format("t{}", k);
    body.push_back(b.let(t, b.load(reads[k % 40], b.gid()) + b.var("base")));
    body.push_back(b.store(rws[k % 40], b.gid(), b.var(t) + b.load(rws[(k + 1) % 40], b.gid())));
    body.push_back(b.if_(b.gid() < b.buf_len(outs[k % 20]), {b.store(outs[k % 20], b.gid(), b.var(t))}));
  }
  return b.wrapped(body);
}

void BM_PlanSplit(benchmark::State& state) {
  const ir::Program program = program_with_fences(static_cast<int>(state.range(0)));
  std::size_t segments = 0;
  for (auto _ : state) {
    auto plan = planner::plan_split(planner::vyre_0_7_2(), program);
    segments = plan->segments.size();
    benchmark::DoNotOptimize(plan);
  }
  state.counters["segments"] = static_cast<double>(segments);
  state.counters["segments/s"] =
      benchmark::Counter(static_cast<double>(segments) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PlanSplit)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

std::vector<planner::WaveDependency> dag(std::size_t waves, std::size_t per_wave, std::size_t window) {
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&] {  // splitmix64
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  std::vector<planner::WaveDependency> deps;
  deps.reserve(waves * per_wave);
  for (std::size_t w = 1; w < waves; ++w) {
    const std::size_t lo = w > window ? w - window : 0;
    for (std::size_t e = 0; e < per_wave; ++e) deps.push_back({lo + next() % (w - lo), w});
  }
  return deps;
}

void BM_MegakernelPlan(benchmark::State& state) {
  const auto waves = static_cast<std::size_t>(state.range(0));
  const bool reuse = state.range(1) != 0;
  const auto deps = dag(waves, 4, 1024);
  planner::BarrierScratch scratch;
  std::size_t groups = 0;
  for (auto _ : state) {
    auto plan = reuse ? planner::plan_megakernel_barriers_with_scratch(waves, deps, scratch)
                      : planner::plan_megakernel_barriers(waves, deps);
    groups = plan->groups.size();
    benchmark::DoNotOptimize(plan);
  }
  state.counters["groups"] = static_cast<double>(groups);
  state.counters["edges/s"] = benchmark::Counter(static_cast<double>(deps.size()) * static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MegakernelPlan)
    ->ArgsProduct({{10'000, 100'000, 1'000'000}, {1, 0}})
    ->ArgNames({"waves", "reuse_scratch"})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
