// The sound profile as a whole (docs/DESIGN.md §4): registered as the default, its plan (golden text with the
// spill buffers and the IR of each segment), whole buffers between segments, the launch grid and the
// scratch sizes, exact convergence, refusals. End-to-end equality with R lives in props/ (it needs the
// interpreter); here the planner's MiniExecutor runs a u32 case.
#include "planner/sound_profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "ir/grid_inference.hpp"
#include "ir/text/printer.hpp"
#include "planner/exact_convergence.hpp"
#include "planner/plan_render.hpp"
#include "planner/segment_plan.hpp"
#include "planner/split_dispatch.hpp"
#include "planner/stmt_queries.hpp"
#include "planner/testing/fake_executors.hpp"
#include "planner/testing/ir_text.hpp"

namespace gridcheck::planner {
namespace {

using testing::as_words;
using testing::parse;
using testing::words;

constexpr std::string_view kReturnsAndSharedMemory =
    "workgroup_size 2 1 1\n"
    "buffer a: u32[4] read binding 0\n"
    "buffer out: u32[4] read_write binding 1 output live_out range 4..12\n"
    "buffer sh: u32[2] workgroup\n"
    "kernel {\n"
    "  let acc = a[gid.x] + a[3 - gid.x]\n"
    "  sh[lid.x] = acc\n"
    "  if acc > 5 {\n"
    "    return\n"
    "  }\n"
    "  grid_sync\n"
    "  barrier\n"
    "  out[gid.x] = acc + sh[1 - lid.x]\n"
    "}\n";

TEST(Planner_Sound, IsRegisteredFirstAndIsTheDefault) {
  EXPECT_EQ(find_profile("sound"), &sound());
  EXPECT_EQ(&default_profile(), &sound());
  EXPECT_EQ(find_profile("vyre-0.7.2"), &vyre_0_7_2());
  const std::vector<std::string_view> names = profile_names();
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[0], "sound");
  EXPECT_NE(std::find(names.begin(), names.end(), "vyre-0.7.2"), names.end());
}

TEST(Planner_Sound, PlanShowsTheSpillBuffersTheirRolesAndTheSegmentCode) {
  ir::Result<SplitPlan> plan = plan_split(sound(), parse(kReturnsAndSharedMemory));
  ASSERT_TRUE(plan.ok());
  RenderOptions options;
  options.print_program = [](const ir::Program& p) { return ir::print(p); };
  EXPECT_EQ(render_plan_text(*plan, options),
      "plan (sound): 1 fence, 2 segments\n"
      "caller inputs: a\n"
      "final outputs: out\n"
      "scratch: __gc_spill_u32 (u32[1 per invocation]: 1 local live across a fence)\n"
      "scratch: __gc_returned (u32[1 per invocation]: returned-before-the-fence flags)\n"
      "scratch: __gc_wg_sh (u32[2 per workgroup]: workgroup memory `sh` live across a fence)\n"
      "\n"
      "segment 0 of 2\n"
      "  inputs:  a, __gc_spill_u32, __gc_returned, __gc_wg_sh\n"
      "  outputs: __gc_spill_u32, __gc_returned, __gc_wg_sh\n"
      "  lets:    (none)\n"
      "  buffers:\n"
      "    buffer          binding  access      kind      count    input  output  rule\n"
      "    a               0        read        readonly  4        yes    no      read only\n"
      "    sh              -        workgroup   shared    2        no     no      workgroup memory\n"
      "    __gc_spill_u32  2        read_write  global    runtime  yes    yes     scratch: spill\n"
      "    __gc_returned   3        read_write  global    runtime  yes    yes     scratch: spill\n"
      "    __gc_wg_sh      4        read_write  global    runtime  yes    yes     scratch: spill\n"
      "  omitted: out\n"
      "  ir:\n"
      "    workgroup_size 2 1 1\n"
      "\n"
      "    buffer a: u32[4] read binding 0\n"
      "    buffer sh: u32[2] workgroup\n"
      "    buffer __gc_spill_u32: u32[] read_write binding 2\n"
      "    buffer __gc_returned: u32[] read_write binding 3\n"
      "    buffer __gc_wg_sh: u32[] read_write binding 4\n"
      "\n"
      "    kernel {\n"
      "      let __gc_inv = gid.x + num_wg.x * wg_size.x * (gid.y + num_wg.y * wg_size.y * gid.z)\n"
      "      let __gc_ret = false\n"
      "      let acc = a[gid.x] + a[3 - gid.x]\n"
      "      sh[lid.x] = acc\n"
      "      if acc > 5 {\n"
      "        __gc_ret = true\n"
      "      }\n"
      "      if !__gc_ret {\n"
      "        __gc_spill_u32[__gc_inv] = acc\n"
      "      }\n"
      "      __gc_returned[__gc_inv] = select(__gc_ret, 1, 0)\n"
      "      barrier\n"
      "      loop __gc_j in 0..(2 + wg_size.x * wg_size.y * wg_size.z - 1) / (wg_size.x * wg_size.y * wg_size.z) {\n"
      "        let __gc_e = __gc_j * (wg_size.x * wg_size.y * wg_size.z) + (lid.x + wg_size.x * (lid.y + wg_size.y * lid.z))\n"
      "        if __gc_e < 2 {\n"
      "          __gc_wg_sh[(wgid.x + num_wg.x * (wgid.y + num_wg.y * wgid.z)) * 2 + __gc_e] = sh[__gc_e]\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "\n"
      "segment 1 of 2\n"
      "  inputs:  out, __gc_spill_u32, __gc_returned, __gc_wg_sh\n"
      "  outputs: out\n"
      "  lets:    (none)\n"
      "  buffers:\n"
      "    buffer          binding  access      kind      count    input  output  rule\n"
      "    out             1        read_write  global    4        yes    yes     written: consumes the live value\n"
      "    sh              -        workgroup   shared    2        no     no      workgroup memory\n"
      "    __gc_spill_u32  2        read        readonly  runtime  yes    no      scratch: restore\n"
      "    __gc_returned   3        read        readonly  runtime  yes    no      scratch: restore\n"
      "    __gc_wg_sh      4        read        readonly  runtime  yes    no      scratch: restore\n"
      "  omitted: a\n"
      "  ir:\n"
      "    workgroup_size 2 1 1\n"
      "\n"
      "    buffer out: u32[4] read_write binding 1\n"
      "    buffer sh: u32[2] workgroup\n"
      "    buffer __gc_spill_u32: u32[] read binding 2\n"
      "    buffer __gc_returned: u32[] read binding 3\n"
      "    buffer __gc_wg_sh: u32[] read binding 4\n"
      "\n"
      "    kernel {\n"
      "      let __gc_inv = gid.x + num_wg.x * wg_size.x * (gid.y + num_wg.y * wg_size.y * gid.z)\n"
      "      let __gc_ret = __gc_returned[__gc_inv] != 0\n"
      "      loop __gc_j in 0..(2 + wg_size.x * wg_size.y * wg_size.z - 1) / (wg_size.x * wg_size.y * wg_size.z) {\n"
      "        let __gc_e = __gc_j * (wg_size.x * wg_size.y * wg_size.z) + (lid.x + wg_size.x * (lid.y + wg_size.y * lid.z))\n"
      "        if __gc_e < 2 {\n"
      "          sh[__gc_e] = __gc_wg_sh[(wgid.x + num_wg.x * (wgid.y + num_wg.y * wgid.z)) * 2 + __gc_e]\n"
      "        }\n"
      "      }\n"
      "      barrier\n"
      "      let acc = __gc_spill_u32[__gc_inv]\n"
      "      barrier\n"
      "      if !__gc_ret {\n"
      "        out[gid.x] = acc + sh[1 - lid.x]\n"
      "      }\n"
      "    }\n");
  const nlohmann::json j = plan_to_json(*plan);
  ASSERT_EQ(j["scratch"].size(), 3u);
  EXPECT_EQ(j["scratch"][2]["name"], "__gc_wg_sh");
  EXPECT_EQ(j["scratch"][2]["words_per_workgroup"], 2);
}

TEST(Planner_Sound, AFenceFreeProgramIsOneSegmentThatPassesWholeBuffers) {
  ir::Result<SplitPlan> plan =
      plan_split(sound(), parse("workgroup_size 1 1 1\n"
                                "buffer out: u32[4] read_write binding 0 output live_out range 4..8\n"
                                "kernel {\n  out[1] = 7\n}\n"));
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->contains_fence);  // every dispatch goes through the plan (grid, output ranges)
  ASSERT_EQ(plan->segments.size(), 1u);
  EXPECT_TRUE(plan->scratch.empty());
  ASSERT_EQ(plan->segments[0].program.buffers().size(), 1u);
  EXPECT_FALSE(plan->segments[0].program.buffers()[0].output_byte_range.has_value());
}

TEST(Planner_Sound, ALocalAccumulatedBeforeAFenceSurvivesItEndToEnd) {  // docs/vyre-0.7.2.md#d1
  const ir::Program p = parse("workgroup_size 4 1 1\n"
                              "buffer a: u32[4] read binding 0\n"
                              "buffer out: u32[4] read_write binding 1 output live_out\n"
                              "kernel {\n"
                              "  let acc = 0\n"
                              "  loop i in 0..4 {\n"
                              "    acc = acc + a[i]\n"
                              "  }\n"
                              "  grid_sync\n"
                              "  out[gid.x] = acc\n"
                              "}\n");
  const std::vector<Bytes> inputs{words({1, 2, 3, 4})};
  for (const Profile* profile : {&sound(), &vyre_0_7_2()}) {
    testing::MiniExecutor executor;
    const SplitRun run = run_split(*profile, p, inputs, RunConfig{ir::Grid{1, 1, 1}, std::nullopt, 1}, executor);
    ASSERT_TRUE(run.ok()) << profile->name << ": " << run.failure->diagnostic.message;
    const std::uint32_t expected = profile == &sound() ? 10 : 0;  // vyre re-runs `let acc = 0`
    EXPECT_EQ(as_words(*run.output("out")), std::vector<std::uint32_t>(4, expected)) << profile->name;
  }
}

TEST(Planner_Sound, EveryLaunchUsesTheWholeProgramsGridAndScratchSizedForIt) {  // docs/vyre-0.7.2.md#g1
  const ir::Program p = parse(kReturnsAndSharedMemory);
  auto run_with = [&](std::optional<ir::Grid> grid) {
    std::vector<std::pair<LaunchConfig, std::vector<std::size_t>>> launches;
    testing::LambdaExecutor executor([&](const ir::Program& segment, std::span<const Bytes* const> inputs,
                                         const LaunchConfig& config, std::vector<Bytes>& outputs) {
      std::vector<std::size_t> sizes;
      for (const Bytes* b : inputs) sizes.push_back(b->size());
      launches.emplace_back(config, sizes);
      outputs.clear();
      std::size_t next = 0;
      for (const ir::BufferDecl& d : segment.buffers()) {  // echo every read_write input
        if (d.access == ir::BufferAccess::Workgroup) continue;
        const bool input = d.access != ir::BufferAccess::WriteOnly;
        if (d.access == ir::BufferAccess::ReadWrite) outputs.push_back(*inputs[next]);
        if (input) ++next;
      }
      return std::optional<LaunchError>{};
    });
    const SplitRun run = run_split(sound(), p, std::vector<Bytes>{words({1, 2, 3, 9})}, RunConfig{grid, {}, 1}, executor);
    EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.failure->diagnostic.message);
    return launches;
  };
  // Explicit grid: 3 workgroups of 2 = 6 invocations; inputs of segment 0: a, spill, returned, wg copy.
  const auto explicit_grid = run_with(ir::Grid{3, 1, 1});
  ASSERT_EQ(explicit_grid.size(), 2u);
  for (const auto& [config, sizes] : explicit_grid) EXPECT_EQ(config.grid_override, (ir::Grid{3, 1, 1}));
  EXPECT_EQ(explicit_grid[0].second, (std::vector<std::size_t>{16, 6 * 4, 6 * 4, 3 * 2 * 4}));
  // `grid auto`: the reference grid of the whole program (docs/semantics.md §3.1): max count 4, workgroup
  // memory forces the full span, 4 / 2 = 2 workgroups — for both segments, whatever each declares.
  const auto auto_grid = run_with(std::nullopt);
  ASSERT_EQ(auto_grid.size(), 2u);
  for (const auto& [config, sizes] : auto_grid) EXPECT_EQ(config.grid_override, (ir::Grid{2, 1, 1}));
  EXPECT_EQ(auto_grid[0].second, (std::vector<std::size_t>{16, 4 * 4, 4 * 4, 2 * 2 * 4}));
}

TEST(Planner_Sound, FinalOutputsAreSlicedOnlyAtTheEnd) {  // docs/vyre-0.7.2.md#g3
  const ir::Program p = parse(kReturnsAndSharedMemory);
  const SplitPlan plan = plan_split(sound(), p).value();
  LiveMap live;
  live.emplace("out", LiveBuffer::owned(words({10, 11, 12, 13})));
  std::vector<Bytes> outputs;
  ASSERT_FALSE(collect_final_sliced(p, plan, live, outputs).has_value());
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(as_words(outputs[0]), (std::vector<std::uint32_t>{11, 12}));  // bytes 4..12
}

TEST(Planner_Sound, FinalOutputsAreHandedOverNotCopied) {
  const ir::Program p = parse(
      "buffer a: u32[4] read binding 0\n"
      "buffer out: u32[4] read_write binding 1 output\n"
      "kernel {\n"
      "  out[gid.x] = a[gid.x]\n"
      "  grid_sync\n"
      "}\n");
  const SplitPlan plan = plan_split(sound(), p).value();
  LiveMap live;
  live.emplace("out", LiveBuffer::owned(words({10, 11, 12, 13})));
  const std::uint8_t* live_bytes = live.at("out").bytes().data();
  std::vector<Bytes> outputs{Bytes(16, 0)};  // a caller slot of the right size is not reused
  ASSERT_FALSE(collect_final_sliced(p, plan, live, outputs).has_value());
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].data(), live_bytes);
  EXPECT_EQ(as_words(outputs[0]), (std::vector<std::uint32_t>{10, 11, 12, 13}));
  EXPECT_TRUE(live.empty());
}

TEST(Planner_Sound, AFinalOutputThatIsNotLiveIsS009) {
  const ir::Program p = parse(kReturnsAndSharedMemory);
  const SplitPlan plan = plan_split(sound(), p).value();
  LiveMap live;
  std::vector<Bytes> outputs;
  const std::optional<ir::Diagnostic> error = collect_final_sliced(p, plan, live, outputs);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code, "S009");
}

TEST(Planner_Sound, ExactConvergenceStopsOnlyOnAByteEqualPass) {  // docs/vyre-0.7.2.md#f3
  const Bytes caller = words({1});
  LiveMap live;
  live.emplace("in", LiveBuffer::borrowed(caller));
  live.emplace("x", LiveBuffer::owned(words({5, 6})));
  ExactConvergence c;
  c.start(live);
  EXPECT_FALSE(c.converged(live));  // the first pass is never compared with the initial state
  EXPECT_TRUE(c.converged(live));
  live.at("x").owned_bytes()[7] ^= 1;  // one bit
  EXPECT_FALSE(c.converged(live));
  live.emplace("y", LiveBuffer::owned({}));  // a new entry is a change too
  EXPECT_FALSE(c.converged(live));
  EXPECT_TRUE(c.converged(live));
}

TEST(Planner_Sound, ExactConvergenceComparesWithThePreviousPassOnly) {
  // The snapshot is overwritten in place while the names stay the same: each pass is compared with
  // the one before it, whatever its length, and a name that goes or comes is a change.
  LiveMap live;
  live.emplace("x", LiveBuffer::owned(words({1})));
  live.emplace("z", LiveBuffer::owned(words({9})));
  ExactConvergence c;
  c.start(live);
  EXPECT_FALSE(c.converged(live));                        // A
  live.at("x").owned_bytes() = words({2, 3});             // B: longer
  EXPECT_FALSE(c.converged(live));
  live.at("x").owned_bytes() = words({1});                // A again: not B
  EXPECT_FALSE(c.converged(live));
  EXPECT_TRUE(c.converged(live));                         // A, A
  live.erase("z");
  EXPECT_FALSE(c.converged(live)) << "an entry gone";
  EXPECT_TRUE(c.converged(live));
  live.emplace("w", LiveBuffer::owned(words({1})));
  EXPECT_FALSE(c.converged(live)) << "an entry come";
  live.erase("w");
  live.emplace("v", LiveBuffer::owned(words({1})));
  EXPECT_FALSE(c.converged(live)) << "the same count under another name";
  EXPECT_TRUE(c.converged(live));
}

TEST(Planner_Sound, RefusesReservedNamesBeforeAnythingRuns) {
  const ir::Result<SplitPlan> plan = plan_split(
      sound(), parse("workgroup_size 1 1 1\nbuffer out: u32[1] read_write binding 0\n"
                     "kernel {\n  let __gc_inv = 1\n  grid_sync\n  out[0] = __gc_inv\n}\n"));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.diagnostics().all().front().code, "SR001");
  testing::MiniExecutor executor;
  const SplitRun run = run_split(sound(), parse("workgroup_size 1 1 1\nbuffer out: u32[1] read_write binding 0\n"
                                                "kernel {\n  let __gc_x = 1\n  out[0] = __gc_x\n}\n"),
                                 std::vector<Bytes>{words({0})}, RunConfig{}, executor);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.failure->diagnostic.code, "SR001");
  EXPECT_TRUE(executor.launches.empty());
}

TEST(Planner_Sound, AReservedBufferOrLoopNameIsRefusedAndAnOrdinaryOneIsNot) {
  const std::string buffer_named = "workgroup_size 1 1 1\nbuffer __gc_out: u32[1] read_write binding 0\n"
                                   "kernel {\n  __gc_out[0] = 1\n  grid_sync\n  __gc_out[0] = 2\n}\n";
  const std::string loop_named = "workgroup_size 1 1 1\nbuffer out: u32[1] read_write binding 0\n"
                                 "kernel {\n  loop __gc_i in 0..2 {\n    out[0] = __gc_i\n  }\n  grid_sync\n}\n";
  const std::string ordinary = "workgroup_size 1 1 1\nbuffer out: u32[1] read_write binding 0\n"
                               "kernel {\n  loop gc_i in 0..2 {\n    out[0] = gc_i\n  }\n  grid_sync\n}\n";
  for (const std::string& text : {buffer_named, loop_named}) {
    EXPECT_TRUE(binds_name_starting_with(parse(text), "__gc_"));
    const ir::Result<SplitPlan> plan = plan_split(sound(), parse(text));
    ASSERT_FALSE(plan.ok()) << text;
    EXPECT_EQ(plan.diagnostics().all().front().code, "SR001");
  }
  EXPECT_FALSE(binds_name_starting_with(parse(ordinary), "__gc_"));
  EXPECT_TRUE(plan_split(sound(), parse(ordinary)).ok());
}

TEST(Planner_Sound, ASegmentThatDoesNotValidateIsRefused) {
  SplitPlan plan = plan_split(sound(), parse(kReturnsAndSharedMemory)).value();
  EXPECT_TRUE(check_segments_validate(ir::Program{}, plan).empty());
  // Each segment that validated keeps the type table ir::typecheck gives it, for the executor.
  ASSERT_GE(plan.segments.size(), 2u);
  for (const PlannedSegment& segment : plan.segments) {
    ASSERT_TRUE(segment.types.has_value());
    EXPECT_EQ(segment.types->expr_types, ir::typecheck(segment.program).value().expr_types);
  }
  plan.segments[1].program = parse("workgroup_size 1 1 1\nkernel {\n  let x = 1\n  let x = 2\n}\n");
  const ir::Diagnostics refusal = check_segments_validate(ir::Program{}, plan);
  ASSERT_EQ(refusal.size(), 1u);
  EXPECT_EQ(refusal.all().front().code, "SR900");
  EXPECT_FALSE(plan.segments[1].types.has_value()) << "a refused segment keeps no type table";
}

TEST(Planner_SoundProfile, OnlyAProfileThatPlansWithTheSegmentValidatingCheckHasItsPlansValidated) {
  EXPECT_TRUE(plans_validated_segments(sound()));
  EXPECT_FALSE(plans_validated_segments(vyre_0_7_2()));  // the silent twin: vyre checks nothing
  Profile other_check = sound();
  other_check.table.check = [](const ir::Program&, const SplitPlan&) { return ir::Diagnostics{}; };
  EXPECT_FALSE(plans_validated_segments(other_check));
  Profile other_planner = sound();
  other_planner.plan = [](const Profile& self, const ir::Program& source) { return compose_split_plan(self, source); };
  EXPECT_FALSE(plans_validated_segments(other_planner)) << "a planner of its own need not call the check";
  Profile renamed = sound();
  renamed.name = "sound-copy";
  EXPECT_TRUE(plans_validated_segments(renamed));
}

}  // namespace
}  // namespace gridcheck::planner
