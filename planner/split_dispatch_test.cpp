// The dispatch loop (docs/vyre-0.7.2.md §6.8): the upstream dispatch tests of §8 on fake executors, the
// error catalogue (docs/vyre-0.7.2.md §6.13), the §10 divergences that the vyre-0.7.2 profile must reproduce, and the
// replaceable rules a mutant uses.
#include "planner/split_dispatch.hpp"

#include <gtest/gtest.h>

#include "ir/abi.hpp"
#include "ir/builder.hpp"
#include "ir/equality.hpp"
#include "planner/segment_plan.hpp"
#include "planner/split_errors.hpp"
#include "planner/testing/fake_executors.hpp"

namespace gridcheck::planner {
namespace {

using ir::Buf;
using ir::Builder;
using ir::Program;
using ir::ScalarType;
using testing::as_words;
using testing::LambdaExecutor;
using testing::MiniExecutor;
using testing::words;
using Words = std::vector<std::uint32_t>;

std::uint32_t word0(const Bytes& b) { return as_words(b).at(0); }

// Two Return-only segments around one fence; `buf` (read_write, count 4) is a passthrough in both.
Program two_return_segments() {
  Builder b;
  b.read_write("buf", 0, ScalarType::U32, 4);
  return b.wrapped({b.ret(), b.grid_sync(), b.ret()});
}

// A fake backend that applies `step` to word 0 of its single input and returns it.
LambdaExecutor word_step_executor(std::function<std::uint32_t(std::uint32_t)> step) {
  return LambdaExecutor([step](const Program& p, std::span<const Bytes* const> inputs, const LaunchConfig&,
                               std::vector<Bytes>& outputs) -> std::optional<LaunchError> {
    if (inputs.size() != 1 || p.buffers().size() != 1)
      return LaunchError{LaunchErrorKind::InvalidProgram, "expected exactly one buffer", {}, std::nullopt};
    outputs.resize(1);
    outputs[0] = *inputs[0];
    Words w = as_words(outputs[0]);
    w[0] = step(w[0]);
    outputs[0] = words(w);
    return std::nullopt;
  });
}

// ------------------------------------------------------------------ upstream tests (docs/vyre-0.7.2.md §8)

TEST(Planner_Dispatch, SplitLoopsTheWholeSequenceFixpointIterationsTimes) {
  const Program program = two_return_segments();
  const std::vector<Bytes> inputs{words({0, 0, 0, 0})};
  LambdaExecutor adds_one = word_step_executor([](std::uint32_t v) { return v + 1; });
  SplitRun run = run_split(vyre_0_7_2(), program, inputs, RunConfig{std::nullopt, std::nullopt, 3}, adds_one);
  ASSERT_TRUE(run.ok()) << run.failure->diagnostic.message;
  EXPECT_EQ(adds_one.launch_count, 6);
  EXPECT_EQ(run.launch_count(), 6u);
  EXPECT_EQ(run.passes, 3u);
  EXPECT_EQ(word0(*run.output("buf")), 6u);
  for (const LaunchConfig& c : adds_one.configs) EXPECT_EQ(c.fixpoint_iterations, 1u) << "each segment runs once";
  EXPECT_EQ(run.launches[2].pass, 1u);
  EXPECT_EQ(run.launches[3].segment, 1u);
}

TEST(Planner_Dispatch, WithoutAFixpointTheSequenceRunsOnce) {
  const Program program = two_return_segments();
  const std::vector<Bytes> inputs{words({0, 0, 0, 0})};
  LambdaExecutor adds_one = word_step_executor([](std::uint32_t v) { return v + 1; });
  SplitRun run = run_split(vyre_0_7_2(), program, inputs, RunConfig{}, adds_one);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(adds_one.launch_count, 2);
  EXPECT_EQ(word0(*run.output("buf")), 2u);
  EXPECT_EQ(word0(inputs[0]), 0u) << "the caller's bytes are borrowed, never written";
}

TEST(Planner_Dispatch, OuterLoopExitsEarlyWhenTheAccumulatorReachesAFixpoint) {
  const Program program = two_return_segments();
  const std::vector<Bytes> inputs{words({0, 0, 0, 0})};
  LambdaExecutor saturating = word_step_executor([](std::uint32_t v) { return std::min<std::uint32_t>(v + 1, 3); });
  SplitRun run = run_split(vyre_0_7_2(), program, inputs, RunConfig{std::nullopt, std::nullopt, 10}, saturating);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(saturating.launch_count, 6);
  EXPECT_EQ(run.passes, 3u);
  EXPECT_TRUE(run.converged_early);
  EXPECT_EQ(word0(*run.output("buf")), 3u);
}

TEST(Planner_Dispatch, ANonConvergingAccumulatorRunsTheFullIterationBudget) {
  const Program program = two_return_segments();
  const std::vector<Bytes> inputs{words({0, 0, 0, 0})};
  LambdaExecutor saturating = word_step_executor([](std::uint32_t v) { return std::min<std::uint32_t>(v + 1, 255); });
  SplitRun run = run_split(vyre_0_7_2(), program, inputs, RunConfig{std::nullopt, std::nullopt, 4}, saturating);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(saturating.launch_count, 8);
  EXPECT_FALSE(run.converged_early);
  EXPECT_EQ(word0(*run.output("buf")), 8u);
}

TEST(Planner_Dispatch, TwoPassesRunEvenWhenTheFirstPassChangesNothing) {
  // Pass 1 is never compared with the initial state.
  const Program program = two_return_segments();
  const std::vector<Bytes> inputs{words({5, 0, 0, 0})};
  LambdaExecutor identity = word_step_executor([](std::uint32_t v) { return v; });
  SplitRun run = run_split(vyre_0_7_2(), program, inputs, RunConfig{std::nullopt, std::nullopt, 7}, identity);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run.passes, 2u);
  EXPECT_EQ(identity.launch_count, 4);
}

TEST(Planner_Dispatch, SplitSeedsTheFirstAtomicOutputWithoutCallerBytes) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  const Program program = b.wrapped({b.let("prior", b.atomic_add(out, b.u32(0), b.u32(1))), b.grid_sync(), b.ret()});
  MiniExecutor mini;
  SplitRun run = run_split(vyre_0_7_2(), program, {}, RunConfig{}, mini);
  ASSERT_TRUE(run.ok()) << run.failure->diagnostic.message;
  ASSERT_EQ(mini.launches.size(), 2u);
  ASSERT_EQ(mini.launches[0].inputs.size(), 1u);
  EXPECT_EQ(mini.launches[0].inputs[0], words({0})) << "seeded with zeros of the static length";
  EXPECT_TRUE(mini.launches[1].program.buffers().empty());
  EXPECT_EQ(as_words(*run.output("out")), Words{1});
}

TEST(Planner_Dispatch, SplitPreservesEarlierSegmentOutputSlotsEndToEnd) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  const Program program = b.wrapped({b.region("a", {b.store(out, b.u32(0), b.u32(0xAA))}), b.grid_sync(),
                                     b.region("b", {b.store(out, b.u32(2), b.u32(0xBB))})});
  MiniExecutor mini;
  SplitRun run = run_split(vyre_0_7_2(), program, {}, RunConfig{}, mini);
  ASSERT_TRUE(run.ok()) << run.failure->diagnostic.message;
  const Bytes& bytes = *run.output("out");
  ASSERT_EQ(bytes.size(), 16u);
  EXPECT_EQ(bytes[0], 0xAA);
  EXPECT_EQ(bytes[8], 0xBB);
  EXPECT_EQ(as_words(bytes), (Words{0xAA, 0, 0xBB, 0}));
}

TEST(Planner_Dispatch, SplitIntoPreservesTheCallerOutputSlotAfterNamedOutputCollection) {
  const Program program = two_return_segments();
  const std::vector<Bytes> inputs{words({2, 0, 0, 0})};
  LambdaExecutor doubles = word_step_executor([](std::uint32_t v) { return v * 2; });
  std::vector<Bytes> outputs(1);
  outputs[0].reserve(64);
  const std::uint8_t* slot = outputs[0].data();
  SplitRun run = run_split_into(vyre_0_7_2(), program, inputs, RunConfig{}, doubles, outputs);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run.launch_count(), 2u);
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(as_words(outputs[0]), (Words{8, 0, 0, 0}));
  EXPECT_EQ(outputs[0].data(), slot) << "the caller's output slot keeps its allocation";
  EXPECT_EQ(run.output_names, (std::vector<std::string>{"buf"}));
  EXPECT_TRUE(run.outputs.empty()) << "run_split_into fills the caller's slots";
}

TEST(Planner_Dispatch, SplitReusesTheIntermediateOutputSlotBetweenSegments) {
  const Program program = two_return_segments();
  const std::vector<Bytes> inputs{words({0, 0, 0, 0})};
  std::vector<const std::uint8_t*> slot_at_entry;
  std::vector<const std::uint8_t*> slot_at_exit;
  LambdaExecutor recorder([&](const Program&, std::span<const Bytes* const> in, const LaunchConfig&,
                              std::vector<Bytes>& outputs) -> std::optional<LaunchError> {
    slot_at_entry.push_back(outputs.empty() ? nullptr : outputs[0].data());
    outputs.resize(1);
    outputs[0].assign(in[0]->begin(), in[0]->end());
    slot_at_exit.push_back(outputs[0].data());
    return std::nullopt;
  });
  std::vector<const std::uint8_t*> live_after;
  RunOptions options;
  options.observer = [&](const SegmentEvent& e) { live_after.push_back(e.live->at("buf").bytes().data()); };
  SplitRun run =
      run_split(vyre_0_7_2(), program, inputs, RunConfig{std::nullopt, std::nullopt, 3}, recorder, options);
  ASSERT_TRUE(run.ok());
  ASSERT_EQ(slot_at_entry.size(), 4u) << "identity converges after two passes";
  EXPECT_EQ(slot_at_entry[0], nullptr);
  EXPECT_EQ(slot_at_entry[1], slot_at_exit[0]) << "a borrowed promotion copies, so the slot keeps its allocation";
  EXPECT_NE(live_after[0], slot_at_exit[0]);
  EXPECT_EQ(live_after[1], slot_at_exit[1]) << "an owned entry takes the executor's allocation";
  EXPECT_EQ(slot_at_entry[2], live_after[0]) << "and the slot gets the previous owned allocation back";
}

TEST(Planner_Dispatch, AProgramWithoutAFenceIsDispatchedOnceWithTheCallerConfig) {
  Builder b;
  Buf buf = b.read_write("buf", 0, ScalarType::U32, 4);
  const Program program = b.wrapped({b.store(buf, b.u32(0), b.load(buf, b.u32(0)) + b.u32(1))});
  MiniExecutor mini;
  const std::vector<Bytes> inputs{words({1, 0, 0, 0})};
  const RunConfig config{std::array<std::uint32_t, 3>{2, 1, 1}, std::nullopt, 3};
  SplitRun run = run_split(vyre_0_7_2(), program, inputs, config, mini);
  ASSERT_TRUE(run.ok());
  EXPECT_FALSE(run.split);
  ASSERT_EQ(mini.launches.size(), 1u);
  EXPECT_EQ(mini.launches[0].config.fixpoint_iterations, 3u) << "the executor repeats the whole program itself";
  EXPECT_EQ(mini.launches[0].config.grid_override, config.grid);
  EXPECT_TRUE(ir::structurally_equal(mini.launches[0].program, program)) << "the source, unrewritten";
  EXPECT_EQ(as_words(*run.output("buf")), (Words{1 + 3 * 2, 0, 0, 0}));
}

TEST(Planner_Dispatch, WithoutAnExplicitGridEachSegmentGetsNoGridOverride) {
  // G1 under vyre-0.7.2: the backend infers each segment's grid from the segment itself.
  const Program program = two_return_segments();
  const std::vector<Bytes> inputs{words({0, 0, 0, 0})};
  LambdaExecutor adds_one = word_step_executor([](std::uint32_t v) { return v + 1; });
  ASSERT_TRUE(run_split(vyre_0_7_2(), program, inputs, RunConfig{}, adds_one).ok());
  for (const LaunchConfig& c : adds_one.configs) EXPECT_FALSE(c.grid_override.has_value());

  LambdaExecutor with_grid = word_step_executor([](std::uint32_t v) { return v + 1; });
  const RunConfig config{std::array<std::uint32_t, 3>{16, 1, 1}, std::array<std::uint32_t, 3>{32, 1, 1}, std::nullopt};
  ASSERT_TRUE(run_split(vyre_0_7_2(), program, inputs, config, with_grid).ok());
  for (const LaunchConfig& c : with_grid.configs) {
    EXPECT_EQ(c.grid_override, config.grid);
    EXPECT_EQ(c.workgroup_override, config.workgroup_override);
  }
}

TEST(Planner_Dispatch, TheObserverSeesTheLiveMapAfterEachSegment) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 2);
  const Program program =
      b.wrapped({b.store(out, b.u32(0), b.u32(1)), b.grid_sync(), b.store(out, b.u32(1), b.u32(2))});
  MiniExecutor mini;
  std::vector<std::pair<std::size_t, Words>> seen;
  RunOptions options;
  options.observer = [&](const SegmentEvent& e) {
    EXPECT_EQ(e.launch, seen.size());
    EXPECT_EQ(e.planned->output_names, (std::vector<std::string>{"out"}));
    seen.emplace_back(e.segment, as_words(e.live->at("out").bytes()));
  };
  SplitRun run = run_split(vyre_0_7_2(), program, {}, RunConfig{}, mini, options);
  ASSERT_TRUE(run.ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], (std::pair<std::size_t, Words>{0, {1, 0}}));
  EXPECT_EQ(seen[1], (std::pair<std::size_t, Words>{1, {1, 2}}));
}

// -------------------------------------------------------------- error catalogue (docs/vyre-0.7.2.md §6.13)

TEST(Planner_Dispatch, ACallerInputCountMismatchIsS004) {
  const Program program = two_return_segments();
  LambdaExecutor never = word_step_executor([](std::uint32_t v) { return v; });
  SplitRun run = run_split(vyre_0_7_2(), program, {}, RunConfig{}, never);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.failure->diagnostic.code, "S004");
  EXPECT_EQ(run.failure->diagnostic.message, "the split takes 1 caller input(s) (`buf`) but 0 were given");
  EXPECT_EQ(never.launch_count, 0);
}

TEST(Planner_Dispatch, ASeededNameTheSourceDoesNotDeclareIsS005) {
  // Only reachable through a profile whose segment input names invent a buffer: segments clear
  // is_output, the source keeps it, which tells the two apart here.
  Profile p = vyre_0_7_2();
  p.table.input_names = [](const ir::Program& program) {
    std::vector<std::string> names = vyre_input_names(program);
    const bool is_segment = std::none_of(program.buffers().begin(), program.buffers().end(),
                                         [](const ir::BufferDecl& d) { return d.is_output; });
    if (is_segment) names.push_back("phantom");
    return names;
  };
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  MiniExecutor mini;
  SplitRun run = run_split(p, b.wrapped({b.store(out, b.u32(0), b.u32(1)), b.grid_sync()}), {}, RunConfig{}, mini);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.failure->diagnostic.code, "S005");
  EXPECT_EQ(run.failure->diagnostic.message, "segment input `phantom` is not declared in the source program");
  EXPECT_TRUE(mini.launches.empty());
}

TEST(Planner_Dispatch, ASeededBackendAllocatedBufferWithoutASizeIsS006) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32);  // runtime-sized, no range
  const Program program = b.wrapped({b.let("p", b.atomic_add(out, b.u32(0), b.u32(1))), b.grid_sync()});
  MiniExecutor mini;
  SplitRun run = run_split(vyre_0_7_2(), program, {}, RunConfig{}, mini);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.failure->diagnostic.code, "S006");
  EXPECT_TRUE(mini.launches.empty()) << "seeding happens before any launch";
}

TEST(Planner_Dispatch, ASeedUsesTheRangeEndWithoutAStaticCount) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32);
  b.decl(out).output_byte_range = ir::ByteRange{0, 8};
  const Program program = b.wrapped({b.let("p", b.atomic_add(out, b.u32(1), b.u32(5))), b.grid_sync()});
  MiniExecutor mini;
  SplitRun run = run_split(vyre_0_7_2(), program, {}, RunConfig{}, mini);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(mini.launches[0].inputs[0], Bytes(8, 0));
  EXPECT_EQ(as_words(*run.output("out")), (Words{0, 5}));
}

TEST(Planner_Dispatch, ASegmentInputWithoutBytesIsS007) {
  // docs/vyre-0.7.2.md#s10-b: a read-only live_out buffer is neither a caller input nor seeded.
  Builder b;
  Buf ro = b.read("ro", 0, ScalarType::U32, 1);
  b.decl(ro).pipeline_live_out = true;
  Buf out = b.output("out", 1, ScalarType::U32, 1);
  const Program program = b.wrapped({b.store(out, b.u32(0), b.u32(1)), b.grid_sync(),
                                     b.store(out, b.u32(0), b.load(ro, b.u32(0)))});
  MiniExecutor mini;
  SplitRun run = run_split(vyre_0_7_2(), program, {}, RunConfig{}, mini);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.failure->diagnostic.code, "S007");
  EXPECT_EQ(run.failure->diagnostic.message,
            "segment 1 of 2 input `ro` has no bytes from caller input or a prior segment output");
  EXPECT_EQ(run.failure->segment, std::optional<std::size_t>{1});
  EXPECT_EQ(mini.launches.size(), 1u);
}

TEST(Planner_Dispatch, AnExecutorReturningTheWrongOutputCountIsS008) {
  const Program program = two_return_segments();
  const std::vector<Bytes> inputs{words({0, 0, 0, 0})};
  LambdaExecutor broken([](const Program&, std::span<const Bytes* const>, const LaunchConfig&,
                           std::vector<Bytes>& outputs) -> std::optional<LaunchError> {
    outputs.assign(2, Bytes(16, 0));
    return std::nullopt;
  });
  SplitRun run = run_split(vyre_0_7_2(), program, inputs, RunConfig{}, broken);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.failure->diagnostic.code, "S008");
}

TEST(Planner_Dispatch, AnOutputNoSegmentTouchesIsS009) {
  // docs/vyre-0.7.2.md#b1: natively the output would read back as zeros.
  Builder b;
  b.output("never", 0, ScalarType::U32, 4);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  MiniExecutor mini;
  SplitRun run =
      run_split(vyre_0_7_2(), b.wrapped({b.store(out, b.u32(0), b.u32(1)), b.grid_sync()}), {}, RunConfig{}, mini);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.failure->diagnostic.code, "S009");
  EXPECT_EQ(run.failure->diagnostic.message, "final output `never` was not produced by any split segment");
}

TEST(Planner_Dispatch, AZeroFixpointIsS010SplitOrNot) {
  LambdaExecutor never = word_step_executor([](std::uint32_t v) { return v; });
  const std::vector<Bytes> inputs{words({0, 0, 0, 0})};
  SplitRun split = run_split(vyre_0_7_2(), two_return_segments(), inputs, RunConfig{std::nullopt, std::nullopt, 0}, never);
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.failure->diagnostic.code, "S010");
  Builder b;
  b.read_write("buf", 0, ScalarType::U32, 4);
  SplitRun unsplit = run_split(vyre_0_7_2(), b.wrapped({b.ret()}), inputs, RunConfig{std::nullopt, std::nullopt, 0}, never);
  ASSERT_FALSE(unsplit.ok());
  EXPECT_EQ(unsplit.failure->diagnostic.code, "S010");
  EXPECT_EQ(never.launch_count, 0);
}

TEST(Planner_Dispatch, AnInvalidProgramLaunchErrorIsPrefixedOthersPassThrough) {
  const Program program = two_return_segments();
  const std::vector<Bytes> inputs{words({0, 0, 0, 0})};
  int calls = 0;
  LambdaExecutor fails_second([&](const Program&, std::span<const Bytes* const> in, const LaunchConfig&,
                                  std::vector<Bytes>& outputs) -> std::optional<LaunchError> {
    if (++calls == 2) return LaunchError{LaunchErrorKind::InvalidProgram, "v105: empty entry", {3, 4}, std::nullopt};
    outputs.assign(1, *in[0]);
    return std::nullopt;
  });
  SplitRun run = run_split(vyre_0_7_2(), program, inputs, RunConfig{}, fails_second);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.failure->diagnostic.code, "S011");
  EXPECT_EQ(run.failure->diagnostic.message, "grid-sync split segment 1 of 2 dispatch failed: v105: empty entry");
  EXPECT_EQ(run.failure->diagnostic.loc, (ir::SourceLoc{3, 4}));
  ASSERT_TRUE(run.failure->launch_error.has_value());
  EXPECT_EQ(run.failure->launch_error->kind, LaunchErrorKind::InvalidProgram);

  LambdaExecutor traps([](const Program&, std::span<const Bytes* const>, const LaunchConfig&,
                          std::vector<Bytes>&) -> std::optional<LaunchError> {
    return LaunchError{LaunchErrorKind::Trap, "i32 division by zero", {}, std::array<std::uint32_t, 3>{5, 0, 0}};
  });
  run = run_split(vyre_0_7_2(), program, inputs, RunConfig{}, traps);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.failure->diagnostic.message, "i32 division by zero");
  EXPECT_EQ(run.failure->launch_error->invocation, (std::array<std::uint32_t, 3>{5, 0, 0}));
  EXPECT_EQ(run.failure->segment, std::optional<std::size_t>{0});
}

TEST(Planner_Dispatch, AnEmptySegmentListIsS003) {
  Profile p = vyre_0_7_2();
  p.split.cut = [](const ir::Program&, std::span<const ir::StmtId>) { return std::vector<SegmentNodes>{}; };
  LambdaExecutor never = word_step_executor([](std::uint32_t v) { return v; });
  const std::vector<Bytes> inputs{words({0, 0, 0, 0})};
  SplitRun run = run_split(p, two_return_segments(), inputs, RunConfig{}, never);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.failure->diagnostic.code, "S003");
}

// ------------------------------------------------- docs/vyre-0.7.2.md §10 divergences, reproduced on purpose

TEST(Planner_Dispatch, A1CallerBytesOfAWrittenButUnreadReadWriteBufferAreLost) {
  Builder b;
  Buf buf = b.read_write("buf", 0, ScalarType::U32, 4);
  MiniExecutor mini;
  const std::vector<Bytes> inputs{words({1, 2, 3, 4})};
  SplitRun run = run_split(vyre_0_7_2(), b.wrapped({b.store(buf, b.u32(0), b.u32(9)), b.grid_sync()}), inputs,
                           RunConfig{}, mini);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(as_words(*run.output("buf")), (Words{9, 0, 0, 0})) << "N = R = [9,2,3,4]";
}

TEST(Planner_Dispatch, A4AFirstWriterOutputIsZeroedAgainOnEveryFixpointPass) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 2);
  Buf flag = b.read_write("flag", 1, ScalarType::U32, 1);
  const Program program = b.wrapped({b.if_(b.load(flag, b.u32(0)) == b.u32(0), {b.store(out, b.u32(0), b.u32(1))}),
                                     b.grid_sync(), b.store(flag, b.u32(0), b.u32(1)),
                                     b.store(out, b.u32(1), b.load(out, b.u32(0)) + b.u32(1))});
  MiniExecutor mini;
  const std::vector<Bytes> inputs{words({0})};
  SplitRun run = run_split(vyre_0_7_2(), program, inputs, RunConfig{std::nullopt, std::nullopt, 2}, mini);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(as_words(*run.output("out")), (Words{0, 1})) << "N = [1,2]";
}

TEST(Planner_Dispatch, F1APlainWriteOnlyBufferKeepsOnlyTheLastSegmentsSlots) {
  Builder b;
  Buf out = b.write_only("out", 0, ScalarType::U32, 4);
  MiniExecutor mini;
  SplitRun run = run_split(vyre_0_7_2(),
                           b.wrapped({b.store(out, b.u32(0), b.u32(0xAA)), b.grid_sync(),
                                      b.store(out, b.u32(2), b.u32(0xBB))}),
                           {}, RunConfig{}, mini);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(as_words(*run.output("out")), (Words{0, 0, 0xBB, 0})) << "N = [0xAA,0,0xBB,0]";
}

TEST(Planner_Dispatch, D2APropagatedAtomicLetIsReExecuted) {
  Builder b({4, 1, 1});
  Buf ctr = b.output("ctr", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  const Program program =
      b.wrapped({b.let("slot", b.atomic_add(ctr, b.u32(0), b.u32(1))), b.grid_sync(), b.store(out, b.var("slot"), b.gid())});
  MiniExecutor mini;
  SplitRun run = run_split(vyre_0_7_2(), program, {}, RunConfig{}, mini);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(as_words(*run.output("ctr")), Words{8}) << "N: 4";
  EXPECT_EQ(as_words(*run.output("out")), (Words{0, 0, 0, 0})) << "slots 4..7 are out of bounds";
}

TEST(Planner_Dispatch, G2AReturnBeforeAFenceEndsOnlyTheCurrentSegment) {
  Builder b({4, 1, 1});
  Buf flag = b.read("flag", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  const Program program = b.wrapped({b.if_(b.load(flag, b.u32(0)) == b.u32(1), {b.ret()}), b.grid_sync(),
                                     b.store(out, b.gid(), b.u32(5))});
  MiniExecutor mini;
  const std::vector<Bytes> inputs{words({1})};
  SplitRun run = run_split(vyre_0_7_2(), program, inputs, RunConfig{}, mini);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(as_words(*run.output("out")), (Words{5, 5, 5, 5})) << "N = [0,0,0,0]";
}

// ------------------------------------------------------------ replaceable rules (mutant seams)

TEST(Planner_Dispatch, DroppingTheAccumulatorRowLosesEarlierSlots) {
  Profile m1 = vyre_0_7_2();
  m1.name = "M1";
  m1.table.role = [](const RoleFacts& f) {
    RoleFacts no_history = f;
    if (no_history.first_writer == FirstWriter::Earlier) no_history.first_writer = FirstWriter::This;
    if (!no_history.writes && no_history.first_writer == FirstWriter::This) no_history.first_writer = FirstWriter::None;
    return vyre_0_7_2_role(no_history);
  };
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  const Program program =
      b.wrapped({b.store(out, b.u32(0), b.u32(0xAA)), b.grid_sync(), b.store(out, b.u32(2), b.u32(0xBB))});
  MiniExecutor mini;
  SplitRun run = run_split(m1, program, {}, RunConfig{}, mini);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(as_words(*run.output("out")), (Words{0, 0, 0xBB, 0}));
}

TEST(Planner_Dispatch, ForgettingZeroSeedingSurfacesAsAMissingInput) {
  Profile m9 = vyre_0_7_2();
  m9.dispatch.seed_inputs = [](const ir::Program&, const SplitPlan&, LiveMap&) { return std::optional<ir::Diagnostic>{}; };
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  MiniExecutor mini;
  SplitRun run = run_split(m9, b.wrapped({b.let("p", b.atomic_add(out, b.u32(0), b.u32(1))), b.grid_sync()}), {},
                           RunConfig{}, mini);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.failure->diagnostic.code, "S007");
}

TEST(Planner_Dispatch, ConvergenceAndScheduleAreProfileRules) {
  const Program program = two_return_segments();
  const std::vector<Bytes> inputs{words({0, 0, 0, 0})};
  // M8: never stop early.
  Profile m8 = vyre_0_7_2();
  struct Never final : Convergence {
    void start(const LiveMap&) override {}
    bool converged(const LiveMap&) override { return false; }
  };
  m8.dispatch.convergence = [] { return std::make_unique<Never>(); };
  LambdaExecutor saturating = word_step_executor([](std::uint32_t v) { return std::min<std::uint32_t>(v + 1, 3); });
  SplitRun run = run_split(m8, program, inputs, RunConfig{std::nullopt, std::nullopt, 10}, saturating);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(saturating.launch_count, 20);
  // M4: each segment relaunched N times by the executor, one pass.
  Profile m4 = vyre_0_7_2();
  m4.dispatch.schedule = [](std::uint32_t n) { return PassSchedule{1, n}; };
  LambdaExecutor adds_one = word_step_executor([](std::uint32_t v) { return v + 1; });
  run = run_split(m4, program, inputs, RunConfig{std::nullopt, std::nullopt, 3}, adds_one);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(adds_one.launch_count, 2);
  for (const LaunchConfig& c : adds_one.configs) EXPECT_EQ(c.fixpoint_iterations, 3u);
}

TEST(Planner_Dispatch, AGuardOfItsOwnRunsBeforeEveryLaunchOfEveryPass) {
  // The built-in guard is pure and checked once per segment and run; any other guard is called
  // before each launch, as before, and may stop a later pass.
  const Program program = two_return_segments();
  const std::vector<Bytes> inputs{words({0, 0, 0, 0})};
  Profile counted = vyre_0_7_2();
  int calls = 0;
  counted.dispatch.launch_guard = [&calls](const SplitPlan& plan, std::size_t k) {
    ++calls;
    return vyre_launch_guard(plan, k);
  };
  LambdaExecutor adds_one = word_step_executor([](std::uint32_t v) { return v + 1; });
  SplitRun run = run_split(counted, program, inputs, RunConfig{std::nullopt, std::nullopt, 3}, adds_one);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(adds_one.launch_count, 6);
  EXPECT_EQ(calls, 6) << "three passes of two segments";

  Profile stops = vyre_0_7_2();  // lets the first pass and one launch of the second through
  calls = 0;
  stops.dispatch.launch_guard = [&calls](const SplitPlan& plan, std::size_t k) -> std::optional<ir::Diagnostic> {
    if (++calls < 4) return std::nullopt;
    return split_error::segment_still_has_fence(k, plan.segments.size());
  };
  LambdaExecutor counting = word_step_executor([](std::uint32_t v) { return v + 1; });
  run = run_split(stops, program, inputs, RunConfig{std::nullopt, std::nullopt, 3}, counting);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.failure->diagnostic.code, "S012");
  EXPECT_EQ(run.failure->pass, 1u);
  EXPECT_EQ(run.failure->segment, std::optional<std::size_t>{1});
  EXPECT_EQ(counting.launch_count, 3);
}

TEST(Planner_Dispatch, FinalOutputsFromTheLastSegmentOnlyIsAProfileRule) {
  Profile m0 = vyre_0_7_2();
  m0.dispatch.collect_final = [](const ir::Program& source, const SplitPlan& plan, LiveMap& live,
                                 std::vector<Bytes>& outputs) -> std::optional<ir::Diagnostic> {
    const auto& last = plan.segments.back().output_names;
    outputs.clear();
    for (const std::string& name : plan.final_outputs) {
      const bool from_last = std::find(last.begin(), last.end(), name) != last.end();
      outputs.push_back(from_last ? live.at(name).bytes()
                                  : Bytes(source.find_buffer(name)->static_byte_len(), 0));
    }
    return std::nullopt;
  };
  Builder b;
  Buf early = b.output("early", 0, ScalarType::U32, 1);
  Buf late = b.output("late", 1, ScalarType::U32, 1);
  MiniExecutor mini;
  SplitRun run = run_split(m0,
                           b.wrapped({b.store(early, b.u32(0), b.u32(7)), b.grid_sync(),
                                      b.store(late, b.u32(0), b.u32(8))}),
                           {}, RunConfig{}, mini);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(as_words(*run.output("early")), Words{0});
  EXPECT_EQ(as_words(*run.output("late")), Words{8});
}

TEST(Planner_Dispatch, TheSeedLengthIsAReplaceableRule) {
  // M10: seed with the output_byte_range slice length instead of the full allocation.
  Profile m10 = vyre_0_7_2();
  m10.dispatch.seed_inputs = [](const ir::Program& source, const SplitPlan& plan, LiveMap& live) {
    return seed_backend_allocated_inputs(source, plan, live, [](const ir::BufferDecl& d) -> std::optional<std::uint64_t> {
      if (d.output_byte_range) return d.output_byte_range->end - d.output_byte_range->begin;
      return ir::backend_allocation_bytes(d);
    });
  };
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  b.decl(out).output_byte_range = ir::ByteRange{4, 12};
  const Program program = b.wrapped({b.let("p", b.atomic_add(out, b.u32(0), b.u32(1))), b.grid_sync()});
  MiniExecutor vyre_run, mutant_run;
  ASSERT_TRUE(run_split(vyre_0_7_2(), program, {}, RunConfig{}, vyre_run).ok());
  ASSERT_TRUE(run_split(m10, program, {}, RunConfig{}, mutant_run).ok());
  EXPECT_EQ(vyre_run.launches[0].inputs[0].size(), 16u);
  EXPECT_EQ(mutant_run.launches[0].inputs[0].size(), 8u);
}

TEST(Planner_Dispatch, TheRefreshStepIsAReplaceableRule) {
  // Copy instead of swap: same bytes, but the executor's allocation never moves into the live map.
  Profile copying = vyre_0_7_2();
  copying.dispatch.refresh = [](const SplitPlan& plan, std::size_t k, std::vector<Bytes>& outputs, LiveMap& live) {
    return refresh_named_outputs_with(plan, k, outputs, live, [](LiveBuffer& entry, Bytes& produced) {
      entry = LiveBuffer::owned(produced);
    });
  };
  const Program program = two_return_segments();
  const std::vector<Bytes> inputs{words({0, 0, 0, 0})};
  std::vector<const std::uint8_t*> produced;
  std::vector<const std::uint8_t*> live_after;
  LambdaExecutor adds_one([&](const Program&, std::span<const Bytes* const> in, const LaunchConfig&,
                              std::vector<Bytes>& outputs) -> std::optional<LaunchError> {
    outputs.resize(1);
    outputs[0].assign(in[0]->begin(), in[0]->end());
    outputs[0][0] += 1;
    produced.push_back(outputs[0].data());
    return std::nullopt;
  });
  RunOptions options;
  options.observer = [&](const SegmentEvent& e) { live_after.push_back(e.live->at("buf").bytes().data()); };
  SplitRun run = run_split(copying, program, inputs, RunConfig{std::nullopt, std::nullopt, 2}, adds_one, options);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(word0(*run.output("buf")), 4u);
  ASSERT_EQ(live_after.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NE(live_after[i], produced[i]);
}

}  // namespace
}  // namespace gridcheck::planner
