#include "props/oracle/waves_oracle.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "ir/text/printer.hpp"
#include "props/gen/dag_rapidcheck.hpp"
#include "props/gen/dag_test_support.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"

namespace gridcheck::props {
namespace {

using testing::plan_of;
using testing::Read;
using testing::two_wave_dag;

/// R, H-cpu and R-waves under vyre-0.7.2.
CaseReport evaluate(const ir::Case& c) {
  OracleOptions options;
  options.profiles = {&planner::vyre_0_7_2()};
  return evaluate_case(c, options);
}

std::string verdict_of(const OracleOutcome* s) {
  if (s == nullptr) return "<absent>";
  return std::string(ir::name_of(s->verdict)) + (s->detail.empty() ? "" : " " + s->detail);
}

TEST(Props_DagOracle, ACorrectPlanMatchesTheWavesOneByOne) {
  const ir::Case c = fuse_dag(two_wave_dag(), plan_of({{0}, {1}}, 1), "test");
  const CaseReport r = evaluate(c);
  EXPECT_EQ(r.reference_verdict, ir::Verdict::Ok) << r.reference_detail;
  EXPECT_EQ(verdict_of(r.find("H-cpu", "vyre-0.7.2")), "match");
  EXPECT_EQ(verdict_of(waves_outcome(r)), "match") << waves_outcome(r)->message;
  EXPECT_EQ(verdict_of(waves_outcome(r, "vyre-0.7.2")), "match");
  EXPECT_EQ(waves_outcome(r)->launches, 2u);
  // w1[gid] = w0[(gid + 1) % 4] + 100, w0 = in0 * 3 + 1 = [16, 19, 22, 25]
  const interp::OutputBuffer* w1 = r.reference.output("w1");
  ASSERT_NE(w1, nullptr);
  const std::vector<std::uint8_t> expected = {119, 0, 0, 0, 122, 0, 0, 0, 125, 0, 0, 0, 116, 0, 0, 0};
  EXPECT_EQ(w1->bytes, expected);
}

TEST(Props_DagOracle, DependentWavesInOnePhaseRaceUnderR) {
  const ir::Case c = fuse_dag(two_wave_dag(), plan_of({{0, 1}}, 0), "test");
  const CaseReport r = evaluate(c);
  EXPECT_EQ(r.reference_verdict, ir::Verdict::Invalid);
  EXPECT_EQ(r.reference_detail, "race");
  const OracleOutcome* kernel = waves_outcome(r);
  EXPECT_EQ(verdict_of(kernel), "diverge megakernel race");
  EXPECT_NE(kernel->message.find("same-phase 0>1"), std::string::npos) << kernel->message;
  // The waves' bytes are the outcome's outputs (what the fusion should give).
  ASSERT_EQ(kernel->output_names.size(), 2u);
  EXPECT_EQ(kernel->output_names[1], "w1");
  // vyre's own plan for the same waves is correct.
  EXPECT_EQ(verdict_of(waves_outcome(r, "vyre-0.7.2")), "match");
}

TEST(Props_DagOracle, GroupsInTheWrongOrderGiveOtherBytes) {
  const ir::Case c = fuse_dag(two_wave_dag(), plan_of({{1}, {0}}, 1), "test");
  const CaseReport r = evaluate(c);
  EXPECT_EQ(r.reference_verdict, ir::Verdict::Ok);
  EXPECT_EQ(verdict_of(r.find("H-cpu", "vyre-0.7.2")), "match");  // the split is faithful to the fusion
  const OracleOutcome* kernel = waves_outcome(r);
  EXPECT_EQ(verdict_of(kernel), "diverge megakernel bytes");
  ASSERT_TRUE(kernel->divergence.has_value());
  EXPECT_EQ(kernel->divergence->final_diff.buffer, "w1");
  EXPECT_EQ(kernel->divergence->final_diff.expected_word, 119u);
  EXPECT_EQ(kernel->divergence->final_diff.actual_word, 100u);
  EXPECT_NE(kernel->message.find("reversed 0>1"), std::string::npos) << kernel->message;
}

TEST(Props_DagOracle, AWaveThePlanLeavesOutGivesOtherBytes) {
  const CaseReport r = evaluate(fuse_dag(two_wave_dag(), plan_of({{0}}, 0), "test"));
  EXPECT_EQ(verdict_of(waves_outcome(r)), "diverge megakernel bytes");
  EXPECT_NE(waves_outcome(r)->message.find("missing 1"), std::string::npos);
}

TEST(Props_DagOracle, APlannerThatRefusesAnAcyclicDagDiverges) {
  planner::Profile refusing = planner::vyre_0_7_2();
  refusing.name = "refusing";
  refusing.megakernel = [](std::size_t, std::span<const planner::WaveDependency>, planner::BarrierScratch&) {
    return MegakernelPlan(planner::MegakernelError::cycle(1));
  };
  OracleOptions options;
  options.profiles = {&refusing};
  const CaseReport r = evaluate_case(fuse_dag(two_wave_dag(), plan_of({{0}, {1}}, 1), "test"), options);
  EXPECT_EQ(verdict_of(waves_outcome(r)), "match");
  const OracleOutcome* replanned = waves_outcome(r, "refusing");
  EXPECT_EQ(verdict_of(replanned), "diverge megakernel refused");
  EXPECT_NE(replanned->message.find("S103"), std::string::npos) << replanned->message;
}

// Twins that must stay silent: a harmless merge (the consumer reads only its own invocation's
// slot and runs after the producer in program order) computes the waves' bytes, and the oracle
// must not call it wrong; the same merge in the other order does give other bytes.
TEST(Props_DagOracle, AHarmlessMergeIsNotFlaggedButTheReverseMergeIs) {
  const WaveDag own = two_wave_dag(Read::OwnSlot);
  const CaseReport harmless = evaluate(fuse_dag(own, plan_of({{0, 1}}, 0), "test"));
  EXPECT_EQ(harmless.reference_verdict, ir::Verdict::Ok);
  EXPECT_EQ(verdict_of(waves_outcome(harmless)), "match") << waves_outcome(harmless)->message;
  const CaseReport reversed = evaluate(fuse_dag(own, plan_of({{1, 0}}, 0), "test"));
  EXPECT_EQ(reversed.reference_verdict, ir::Verdict::Ok);
  EXPECT_EQ(verdict_of(waves_outcome(reversed)), "diverge megakernel bytes");
}

TEST(Props_DagOracle, AWaveThatRacesOnItsOwnIsTheGeneratorsFaultNotThePlans) {
  const WaveDag racy = two_wave_dag(Read::OtherInvocation, /*racy_producer=*/true);
  const CaseReport r = evaluate(fuse_dag(racy, plan_of({{0}, {1}}, 1), "test"));
  EXPECT_EQ(r.reference_verdict, ir::Verdict::Invalid);
  EXPECT_EQ(verdict_of(waves_outcome(r)), "invalid race") << waves_outcome(r)->message;
}

TEST(Props_DagOracle, AMalformedDagCaseIsInvalidWithItsCode) {
  ir::Case c = fuse_dag(two_wave_dag(), plan_of({{0}, {1}}, 1), "test");
  for (auto& [k, v] : c.meta)
    if (k == "dag_edges") v = "0>1 1>0";
  EXPECT_EQ(verdict_of(waves_outcome(evaluate(c))), "invalid G204");
}

TEST(Props_DagOracle, CasesWithoutDagMetaGetNoWavesOutcome) {
  ir::Case c = fuse_dag(two_wave_dag(), plan_of({{0}, {1}}, 1), "test");
  c.meta.clear();
  EXPECT_EQ(waves_outcome(evaluate(c)), nullptr);
}

TEST(Props_DagOracle, RecordedExpectationsReplay) {
  ir::Case c = fuse_dag(two_wave_dag(), plan_of({{1}, {0}}, 1), "test");
  const CaseReport r = evaluate(c);
  record_expectations(c, r);
  bool waves_line = false;
  for (const ir::Expectation& e : c.expectations)
    if (e.oracle == ir::Oracle::Waves && e.profile.empty() && e.verdict == ir::Verdict::Diverge) waves_line = true;
  EXPECT_TRUE(waves_line) << ir::print(c);
  EXPECT_TRUE(check_expectations(c, evaluate(c)).empty());
  // A wrong recorded verdict is reported.
  for (ir::Expectation& e : c.expectations)
    if (e.oracle == ir::Oracle::Waves && e.profile.empty()) e.verdict = ir::Verdict::Match;
  EXPECT_EQ(check_expectations(c, evaluate(c)).size(), 1u);
}

// The central property: for every registered profile, the fused program of its megakernel plan
// gives R exactly the bytes of the waves run one by one, and the split agrees with R.
RC_GTEST_PROP(Props_Dag, EveryProfilesFusedPlanMatchesTheWavesOneByOne, ()) {
  const GeneratedDag g = *gen_dag();
  for (std::string_view name : planner::profile_names()) {
    const planner::Profile& profile = *planner::find_profile(name);
    OracleOptions options;
    options.profiles = {&profile};
    const ir::Case c = fuse_dag(g.dag, profile);
    const CaseReport r = evaluate_case(c, options);
    RC_ASSERT(r.reference_verdict == ir::Verdict::Ok);
    const OracleOutcome* kernel = waves_outcome(r);
    RC_ASSERT(kernel != nullptr);
    if (kernel->verdict != ir::Verdict::Match) RC_FAIL(std::string(name) + ": " + kernel->message);
    const OracleOutcome* cpu = r.find("H-cpu", name);
    RC_ASSERT(cpu != nullptr);
    if (cpu->verdict != ir::Verdict::Match) RC_FAIL(std::string(name) + " H-cpu: " + cpu->message);
  }
}

}  // namespace
}  // namespace gridcheck::props
