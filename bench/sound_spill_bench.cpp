// What the sound split's spills cost (issue "The sound planner profile"): the same programs run
//  - unsplit under true grid sync (R, interp::run_reference: the floor),
//  - through the vyre-0.7.2 split (only where it is correct: nothing live across a fence),
//  - through the sound split,
// each split on H-cpu (props::InterpExecutor behind a byte-counting executor). Counters per run:
// launches, bytes moved between host and launches (every input and output byte of every launch),
// scratch bytes (the spill buffers), and the split's planning time alone (BM_SoundPlan).
//
// Programs (4096 invocations: 64 workgroups of 64):
//   baseline/F      F fences, nothing live across them (vyre and sound agree)
//   locals/K        K u32 locals loaded before one fence and summed after it
//   workgroup/W     a workgroup buffer of W words written before one fence, read after it
//   returns         a quarter of the invocations return before the fence (returned flags)
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "ir/grid_inference.hpp"
#include "ir/builder.hpp"
#include "planner/profile.hpp"
#include "planner/segment_plan.hpp"
#include "planner/split_dispatch.hpp"
#include "props/oracle/interp_executor.hpp"

namespace {

using namespace gridcheck;

constexpr std::uint32_t kWorkgroups = 64;
constexpr std::uint32_t kSize = 64;
constexpr std::uint32_t kInvocations = kWorkgroups * kSize;

// Counts the bytes every launch takes in and gives back.
class CountingExecutor final : public planner::Executor {
 public:
  std::string name() const override { return "counting(interp)"; }
  std::optional<planner::LaunchError> launch(const ir::Program& program, std::span<const planner::Bytes* const> inputs,
                                             const planner::LaunchConfig& config,
                                             std::vector<planner::Bytes>& outputs) override {
    for (const planner::Bytes* b : inputs) bytes += b->size();
    auto error = inner.launch(program, inputs, config, outputs);
    for (const planner::Bytes& b : outputs) bytes += b.size();
    ++launches;
    return error;
  }
  props::InterpExecutor inner;
  std::uint64_t bytes = 0;
  std::uint64_t launches = 0;
};

ir::Program baseline(int fences) {
  ir::Builder b({kSize, 1, 1});
  auto a = b.read("a", 0, ir::ScalarType::U32, kInvocations);
  auto out = b.output("out", 1, ir::ScalarType::U32, kInvocations);
  std::vector<ir::S> body;
  for (int k = 0; k <= fences; ++k) {
    if (k > 0) body.push_back(b.grid_sync());
    body.push_back(b.store(out, b.gid(), b.load(out, b.gid()) + b.load(a, (b.gid() + b.u32(k)) % b.u32(kInvocations))));
  }
  return b.wrapped(body);
}

ir::Program locals(int k) {
  ir::Builder b({kSize, 1, 1});
  auto a = b.read("a", 0, ir::ScalarType::U32, kInvocations);
  auto out = b.output("out", 1, ir::ScalarType::U32, kInvocations);
  std::vector<ir::S> body;
  for (int i = 0; i < k; ++i)
    body.push_back(b.let(fmt::format("v{}", i), b.load(a, (b.gid() + b.u32(i)) % b.u32(kInvocations))));
  body.push_back(b.grid_sync());
  ir::E sum = b.u32(0);
  for (int i = 0; i < k; ++i) sum = sum + b.var(fmt::format("v{}", i));
  body.push_back(b.store(out, b.gid(), sum));
  return b.wrapped(body);
}

ir::Program workgroup(std::uint32_t words) {
  ir::Builder b({kSize, 1, 1});
  auto a = b.read("a", 0, ir::ScalarType::U32, kInvocations);
  auto out = b.output("out", 1, ir::ScalarType::U32, kInvocations);
  auto sh = b.workgroup("sh", words, ir::ScalarType::U32);
  std::vector<ir::S> body;
  for (std::uint32_t j = 0; j < words; j += kSize)
    body.push_back(b.store(sh, b.lid() + b.u32(j), b.load(a, b.gid())));
  body.push_back(b.grid_sync());
  body.push_back(b.barrier());
  body.push_back(b.store(out, b.gid(), b.load(sh, (b.lid() + b.u32(1)) % b.u32(words))));
  return b.wrapped(body);
}

ir::Program returns() {
  ir::Builder b({kSize, 1, 1});
  auto a = b.read("a", 0, ir::ScalarType::U32, kInvocations);
  auto out = b.output("out", 1, ir::ScalarType::U32, kInvocations);
  return b.wrapped({b.if_(b.gid() % b.u32(4) == b.u32(0), {b.ret()}), b.grid_sync(),
                    b.store(out, b.gid(), b.load(a, b.gid()) + b.u32(1))});
}

std::vector<planner::Bytes> inputs() {
  planner::Bytes a(kInvocations * 4);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(i * 7);
  return {a};
}

void run_split(benchmark::State& state, const planner::Profile& profile, const ir::Program& program) {
  const std::vector<planner::Bytes> in = inputs();
  const planner::RunConfig config{ir::Grid{kWorkgroups, 1, 1}, std::nullopt, 1};
  std::uint64_t bytes = 0, launches = 0, scratch = 0;
  const ir::Result<planner::SplitPlan> plan = planner::plan_split(profile, program);
  if (plan)
    for (const planner::ScratchBuffer& s : plan->scratch)
      scratch += (s.words_per_invocation * kInvocations + s.words_per_workgroup * kWorkgroups) * 4;
  for (auto _ : state) {
    CountingExecutor executor;
    const planner::SplitRun run = planner::run_split(profile, program, in, config, executor);
    if (!run.ok()) state.SkipWithError(run.failure->diagnostic.message.c_str());
    bytes = executor.bytes;
    launches = executor.launches;
    benchmark::DoNotOptimize(run);
  }
  state.counters["launches"] = static_cast<double>(launches);
  state.counters["bytes_moved"] = static_cast<double>(bytes);
  state.counters["scratch_bytes"] = static_cast<double>(scratch);
}

void run_reference(benchmark::State& state, const ir::Program& program) {
  const std::vector<planner::Bytes> in = inputs();
  for (auto _ : state) {
    const interp::RunResult r = interp::run_reference(program, in, ir::Grid{kWorkgroups, 1, 1});
    if (!r.ok()) state.SkipWithError("R failed");
    benchmark::DoNotOptimize(r);
  }
}

void BM_Baseline_R(benchmark::State& s) { run_reference(s, baseline(static_cast<int>(s.range(0)))); }
void BM_Baseline_Vyre(benchmark::State& s) { run_split(s, planner::vyre_0_7_2(), baseline(static_cast<int>(s.range(0)))); }
void BM_Baseline_Sound(benchmark::State& s) { run_split(s, planner::sound(), baseline(static_cast<int>(s.range(0)))); }
BENCHMARK(BM_Baseline_R)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Baseline_Vyre)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Baseline_Sound)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond);

void BM_Locals_R(benchmark::State& s) { run_reference(s, locals(static_cast<int>(s.range(0)))); }
void BM_Locals_Sound(benchmark::State& s) { run_split(s, planner::sound(), locals(static_cast<int>(s.range(0)))); }
BENCHMARK(BM_Locals_R)->Arg(1)->Arg(4)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Locals_Sound)->Arg(1)->Arg(4)->Arg(16)->Unit(benchmark::kMillisecond);

void BM_Workgroup_R(benchmark::State& s) { run_reference(s, workgroup(static_cast<std::uint32_t>(s.range(0)))); }
void BM_Workgroup_Sound(benchmark::State& s) {
  run_split(s, planner::sound(), workgroup(static_cast<std::uint32_t>(s.range(0))));
}
BENCHMARK(BM_Workgroup_R)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Workgroup_Sound)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond);

void BM_Returns_R(benchmark::State& s) { run_reference(s, returns()); }
void BM_Returns_Sound(benchmark::State& s) { run_split(s, planner::sound(), returns()); }
BENCHMARK(BM_Returns_R)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Returns_Sound)->Unit(benchmark::kMillisecond);

// Planning alone: the sound lowering (spill analysis, guards, validation of every segment) against
// vyre's, on a program with F fences and a local live across all of them.
ir::Program many_fences(int fences) {
  ir::Builder b({kSize, 1, 1});
  auto a = b.read("a", 0, ir::ScalarType::U32, kInvocations);
  auto out = b.output("out", 1, ir::ScalarType::U32, kInvocations);
  std::vector<ir::S> body{b.let("acc", b.load(a, b.gid()))};
  for (int k = 0; k < fences; ++k) {
    body.push_back(b.grid_sync());
    body.push_back(b.let(fmt::format("t{}", k), b.load(a, (b.gid() + b.u32(k)) % b.u32(kInvocations))));
    body.push_back(b.assign("acc", b.var("acc") + b.var(fmt::format("t{}", k))));
    body.push_back(b.store(out, b.gid(), b.var("acc")));
  }
  return b.wrapped(body);
}

void plan(benchmark::State& state, const planner::Profile& profile) {
  const ir::Program program = many_fences(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(planner::plan_split(profile, program));
}
void BM_Plan_Vyre(benchmark::State& s) { plan(s, planner::vyre_0_7_2()); }
void BM_Plan_Sound(benchmark::State& s) { plan(s, planner::sound()); }
BENCHMARK(BM_Plan_Vyre)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Plan_Sound)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
