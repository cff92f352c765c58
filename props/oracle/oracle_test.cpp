#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"

#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "planner/split_dispatch.hpp"
#include "props/gen/case_generator.hpp"
#include "props/oracle/interp_executor.hpp"

namespace gridcheck::props {
namespace {

using ir::ScalarType;

// These tests are about the vyre-0.7.2 split (the default profile is sound).
OracleOptions vyre_only() {
  OracleOptions o;
  o.profiles = {&planner::vyre_0_7_2()};
  return o;
}

ir::Case make_case(ir::Program p, std::array<std::uint32_t, 3> grid) {
  ir::Case c;
  c.program = std::move(p);
  c.grid = grid;
  return c;
}

ir::InputData values(std::string buffer, std::vector<std::uint32_t> words) {
  ir::InputData in;
  in.buffer = std::move(buffer);
  in.values = std::move(words);
  return in;
}

TEST(Props_Oracle, A1ReadWriteCallerBytesDivergeUnderVyre) {
  ir::Builder b;
  auto buf = b.read_write("buf", 0, ScalarType::U32, 4);
  ir::Case c = make_case(b.wrapped({b.store(buf, b.u32(0), b.u32(9)), b.grid_sync()}), {1, 1, 1});
  c.inputs.push_back(values("buf", {1, 2, 3, 4}));
  const CaseReport report = evaluate_case(c, vyre_only());
  ASSERT_EQ(report.reference_verdict, ir::Verdict::Ok);
  const OracleOutcome* cpu = report.find("H-cpu", "vyre-0.7.2");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->verdict, ir::Verdict::Diverge) << cpu->message;
  EXPECT_EQ(cpu->detail, "planner");
  ASSERT_TRUE(cpu->divergence.has_value());
  EXPECT_EQ(cpu->divergence->final_diff.element_index, 1u);
  EXPECT_EQ(cpu->divergence->final_diff.expected_word, 2u);
  EXPECT_EQ(cpu->divergence->final_diff.actual_word, 0u);
  EXPECT_EQ(cpu->divergence->final_diff.differing_elements, 3u);
  ASSERT_TRUE(cpu->divergence->segment.has_value());
  EXPECT_EQ(*cpu->divergence->segment, 0u);
}

TEST(Props_Oracle, A1TwinWithTheBufferReadMatches) {
  ir::Builder b;
  auto buf = b.read_write("buf", 0, ScalarType::U32, 4);
  ir::Case c = make_case(
      b.wrapped({b.store(buf, b.u32(0), b.load(buf, b.u32(0)) + b.u32(9)), b.grid_sync()}), {1, 1, 1});
  c.inputs.push_back(values("buf", {1, 2, 3, 4}));
  const CaseReport report = evaluate_case(c, vyre_only());
  const OracleOutcome* cpu = report.find("H-cpu", "vyre-0.7.2");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->verdict, ir::Verdict::Match) << cpu->message;
}

TEST(Props_Oracle, C1WorkgroupMemoryAcrossAFenceDiverges) {
  ir::Builder b({4, 1, 1});
  auto sh = b.workgroup("sh", 4, ScalarType::U32);
  auto out = b.output("out", 0, ScalarType::U32, 4);
  ir::Case c = make_case(b.wrapped({b.store(sh, b.lid(), b.gid() * b.u32(2) + b.u32(1)), b.grid_sync(),
                                    b.store(out, b.gid(), b.load(sh, b.lid()))}),
                         {1, 1, 1});
  const CaseReport report = evaluate_case(c, vyre_only());
  ASSERT_EQ(report.reference_verdict, ir::Verdict::Ok);
  EXPECT_EQ(report.reference.outputs[0].bytes[4], 3u);  // R keeps workgroup memory: 2·1+1
  EXPECT_EQ(report.find("H-cpu", "vyre-0.7.2")->verdict, ir::Verdict::Diverge);
}

TEST(Props_Oracle, RacyCaseIsInvalidNotDiverge) {
  ir::Builder b({4, 1, 1});
  auto out = b.output("out", 0, ScalarType::U32, 4);
  ir::Case c = make_case(b.wrapped({b.store(out, b.u32(0), b.gid())}), {1, 1, 1});
  const CaseReport report = evaluate_case(c, vyre_only());
  EXPECT_EQ(report.reference_verdict, ir::Verdict::Invalid);
  EXPECT_EQ(report.find("H-cpu", "vyre-0.7.2")->verdict, ir::Verdict::Invalid);
}

TEST(Props_Oracle, RaceFreeTwinOfTheRacyCaseMatches) {
  ir::Builder b({4, 1, 1});
  auto out = b.output("out", 0, ScalarType::U32, 4);
  ir::Case c = make_case(b.wrapped({b.store(out, b.gid(), b.gid())}), {1, 1, 1});
  const CaseReport report = evaluate_case(c, vyre_only());
  EXPECT_EQ(report.reference_verdict, ir::Verdict::Ok);
  EXPECT_EQ(report.find("H-cpu", "vyre-0.7.2")->verdict, ir::Verdict::Match);
}

TEST(Props_Oracle, ExpectationsAreChecked) {
  ir::Builder b;
  auto buf = b.read_write("buf", 0, ScalarType::U32, 4);
  ir::Case c = make_case(b.wrapped({b.store(buf, b.u32(0), b.u32(9)), b.grid_sync()}), {1, 1, 1});
  c.inputs.push_back(values("buf", {1, 2, 3, 4}));
  c.expectations.push_back({ir::Oracle::Reference, "", ir::Verdict::Ok, "", {}});
  c.expectations.push_back({ir::Oracle::SplitCpu, "vyre-0.7.2", ir::Verdict::Diverge, "planner", {}});
  c.outputs.push_back({ir::Oracle::Reference, "", "buf", std::vector<std::uint32_t>{9, 2, 3, 4}, std::nullopt, {}});
  c.outputs.push_back({ir::Oracle::SplitCpu, "vyre-0.7.2", "buf", std::vector<std::uint32_t>{9, 0, 0, 0}, std::nullopt, {}});
  const CaseReport report = evaluate_case(c, vyre_only());
  EXPECT_TRUE(check_expectations(c, report).empty());
  c.outputs.push_back({ir::Oracle::Reference, "", "buf", std::vector<std::uint32_t>{9, 2, 3, 5}, std::nullopt, {}});
  c.expectations.push_back({ir::Oracle::SplitCpu, "vyre-0.7.2", ir::Verdict::Match, "", {}});
  EXPECT_EQ(check_expectations(c, report).size(), 2u);
}

// A stand-in for H-gpu: the split over the interpreter without the race detector (one schedule's
// bytes, as a GPU gives), optionally with one output word corrupted (a lowering bug).
GpuSplitRunner fake_gpu(bool corrupt_first_word) {
  return [corrupt_first_word](const planner::Profile& profile, const ir::Program& program,
                              std::span<const planner::Bytes> inputs, const planner::RunConfig& config) {
    InterpExecutor executor;
    planner::SplitRun run = planner::run_split(profile, program, inputs, config, executor);
    if (corrupt_first_word && run.ok() && !run.outputs.empty() && !run.outputs[0].empty()) run.outputs[0][0] ^= 0xFF;
    return run;
  };
}

// The segment launch reads rw1[0] in every invocation after another stores it (a let propagated
// into the segment): R is race-free, the vyre split is not. H-gpu alone (H-cpu not reported) must
// still say so, since the GPU's bytes are one schedule's (fuzz-G1+G2-aaa8a418).
ir::Case segment_race_case() {
  ir::Builder b;
  auto rw = b.read_write("rw1", 2, ScalarType::U32, 2);
  ir::Case c = make_case(b.wrapped({b.if_(b.boolean(true), std::vector<ir::S>{b.ret()}), b.grid_sync(),
                                    b.store(rw, b.u32(0), b.u32(0)), b.let("r1", b.load(rw, b.u32(0)))}),
                         {2, 1, 1});
  c.inputs.push_back(values("rw1", {0, 0}));
  return c;
}

TEST(Props_Oracle, GpuAloneInheritsTheSegmentRaceOfTheSplit) {
  OracleOptions options = vyre_only();
  options.cpu = false;
  options.gpu = fake_gpu(false);
  const CaseReport report = evaluate_case(segment_race_case(), options);
  ASSERT_EQ(report.reference_verdict, ir::Verdict::Ok);
  EXPECT_EQ(report.find("H-cpu", "vyre-0.7.2"), nullptr);
  const OracleOutcome* gpu = report.find("H-gpu", "vyre-0.7.2");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->verdict, ir::Verdict::Diverge) << gpu->message;
  EXPECT_EQ(gpu->detail, "planner");
}

TEST(Props_Oracle, GpuAloneTwinUnderSoundMatches) {
  OracleOptions options;
  options.cpu = false;
  options.gpu = fake_gpu(false);
  const CaseReport report = evaluate_case(segment_race_case(), options);
  const OracleOutcome* gpu = report.find("H-gpu", "sound");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->verdict, ir::Verdict::Match) << gpu->message;
}

TEST(Props_Oracle, GpuAloneBlamesTheLoweringWhenTheSplitIsRight) {
  ir::Builder b({4, 1, 1});
  auto out = b.output("out", 0, ScalarType::U32, 4);
  const ir::Case c = make_case(b.wrapped({b.store(out, b.gid(), b.gid()), b.grid_sync()}), {1, 1, 1});
  OracleOptions options;
  options.cpu = false;
  options.gpu = fake_gpu(true);
  const CaseReport report = evaluate_case(c, options);
  const OracleOutcome* gpu = report.find("H-gpu", "sound");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->verdict, ir::Verdict::Diverge) << gpu->message;
  EXPECT_EQ(gpu->detail, "lowering/driver");
}

}  // namespace
}  // namespace gridcheck::props
