// The Z3 proof of the buffer-role rewrite: the vyre 0.7.2 and 0.6.1 rules are refuted with the
// spec's counterexamples, the sound rule is proved (bounded and inductive), and the Z3 encoding
// agrees with the model's simulator on every small pattern.
#include <gtest/gtest.h>

#include <chrono>

#include "planner/sound_role_rule.hpp"
#include "props/prove/role_proof.hpp"
#include "props/prove/role_variants.hpp"

namespace gridcheck::props {
namespace {

const ScenarioResult* scenario(const ProofReport& report, std::string_view id) {
  for (const ScenarioResult& s : report.scenarios)
    if (s.id == id) return &s;
  return nullptr;
}

bool found(const ProofReport& report, std::string_view id) {
  const ScenarioResult* s = scenario(report, id);
  return s != nullptr && s->counterexample.has_value();
}

const ProofReport& vyre_report() {
  static const ProofReport report = prove_role_rule(planner::vyre_0_7_2_role, "vyre-0.7.2");
  return report;
}
const ProofReport& v061_report() {
  static const ProofReport report = prove_role_rule(vyre_0_6_1_role, "0.6.1");
  return report;
}
const ProofReport& sound_report() {
  static const ProofReport report = prove_role_rule(planner::sound_role, "sound");
  return report;
}

TEST(RoleProof_Sound, BoundedForEightSegmentsThreePassesAndInductive) {
  const ProofReport& r = sound_report();
  EXPECT_TRUE(r.model_errors.empty());
  ASSERT_EQ(r.bounded.size(), 8u * 3u);
  for (const BoundedResult& b : r.bounded)
    EXPECT_EQ(b.outcome.verdict, QueryVerdict::Holds) << "K=" << b.segments << " N=" << b.passes;
  EXPECT_EQ(r.inductive.base.verdict, QueryVerdict::Holds);
  EXPECT_EQ(r.inductive.step.verdict, QueryVerdict::Holds);
  EXPECT_EQ(r.inductive.final_output.verdict, QueryVerdict::Holds);
  EXPECT_TRUE(r.inductive.step_satisfiable);
  EXPECT_TRUE(r.proven());
  EXPECT_FALSE(r.first.has_value());
  for (const ScenarioResult& s : r.scenarios) EXPECT_FALSE(s.counterexample.has_value()) << s.id;
}

TEST(RoleProof_Vyre072, RefutedWithSpecSection10Counterexamples) {
  const ProofReport& r = vyre_report();
  EXPECT_TRUE(r.model_errors.empty());
  EXPECT_TRUE(r.refuted());
  EXPECT_FALSE(r.proven());
  EXPECT_NE(r.inductive.step.verdict, QueryVerdict::Holds);
  for (std::string_view id : {"A1", "A2", "A3", "A4", "F1", "B1"}) EXPECT_TRUE(found(r, id)) << id;
  // The accumulator row (H2) keeps multi-segment outputs.
  EXPECT_FALSE(found(r, "H2"));
  ASSERT_TRUE(r.first.has_value());
  EXPECT_TRUE(r.first->violation);
}

TEST(RoleProof_Vyre072, FixpointCounterexampleNeedsTwoPasses) {
  const ProofReport& r = vyre_report();
  const ScenarioResult* a4 = scenario(r, "A4");
  ASSERT_TRUE(a4 && a4->counterexample);
  EXPECT_EQ(a4->counterexample->pattern.passes, 2u);
  // With one pass, 0.7.2 gets outputs (is_output + live_out) right in every pattern except B1 (the
  // minimised counterexample references nothing); with two passes A4 appears.
  const RoleTable table = RoleTable::tabulate(planner::vyre_0_7_2_role);
  const std::uint32_t output = *model_decl_index(ir::BufferAccess::ReadWrite, true, true);
  for (std::uint32_t k = 2; k <= 6; ++k) {
    const std::optional<Pattern> one_pass = find_bounded_counterexample(table, k, 1, ProofOptions{}, output);
    ASSERT_TRUE(one_pass.has_value());
    EXPECT_EQ(simulate(table, *one_pass).first.kind, ViolationKind::FinalMissing) << one_pass->to_string();
    for (std::uint32_t j = 0; j < k; ++j) EXPECT_FALSE(one_pass->reads[j] || one_pass->writes[j]) << one_pass->to_string();
  }
  // Every one-pass pattern that references the output somewhere is handled correctly.
  for (std::uint32_t k = 2; k <= 3; ++k) {
    for_each_pattern(output, k, 1, [&](const Pattern& p) {
      bool referenced = false;
      for (std::uint32_t j = 0; j < k; ++j) referenced = referenced || p.reads[j] || p.writes[j];
      if (referenced) {
        EXPECT_FALSE(simulate(table, p).first) << p.to_string();
      }
    });
    // With two passes, some referencing pattern breaks.
    bool broken = false;
    for_each_pattern(output, k, 2, [&](const Pattern& p) {
      if (p.writes[0] && simulate(table, p).first) broken = true;
    });
    EXPECT_TRUE(broken) << "K=" << k;
    EXPECT_TRUE(find_bounded_counterexample(table, k, 2, ProofOptions{}, output).has_value()) << "K=" << k;
  }
}

TEST(RoleProof_V061, RecallZeroCounterexample) {
  const ProofReport& r = v061_report();
  EXPECT_TRUE(r.model_errors.empty());
  EXPECT_TRUE(r.refuted());
  ASSERT_TRUE(found(r, "H2"));
  const Counterexample& cx = *scenario(r, "H2")->counterexample;
  EXPECT_EQ(cx.pattern.declaration().name(), "read_write+output+live_out");
  EXPECT_TRUE(cx.pattern.writes[0]);
  EXPECT_TRUE(cx.pattern.element_write[0][0]);
  EXPECT_EQ(cx.violation.kind, ViolationKind::FinalWrong);
}

// The Z3 encoding and the simulator are two renderings of one model: on every small pattern, Z3
// finds a counterexample for a (class, K, N) exactly when the simulator finds a violating pattern.
TEST(RoleProof_Encoding, Z3AgreesWithTheSimulatorOnEverySmallPattern) {
  for (const char* name : {"vyre-0.7.2", "0.6.1", "sound"}) {
    const RoleTable table = RoleTable::tabulate(*role_rule_by_name(name));
    RoleProver prover(table);
    for (std::uint32_t decl = 0; decl < kModelDeclCount; ++decl) {
      if (!model_decls()[decl].in_scope) continue;
      for (auto [k, n] : {std::pair{1u, 1u}, {2u, 1u}, {3u, 1u}, {1u, 2u}, {2u, 2u}}) {
        bool simulated = false;
        for_each_pattern(decl, k, n, [&](const Pattern& p) { simulated = simulated || bool(simulate(table, p).first); });
        const std::optional<Pattern> z3 = prover.find_counterexample(k, n, decl);
        EXPECT_EQ(z3.has_value(), simulated)
            << name << " " << model_decls()[decl].name() << " K=" << k << " N=" << n;
        if (z3) {
          EXPECT_TRUE(simulate(table, *z3).first) << z3->to_string();
        }
      }
    }
  }
}

TEST(RoleProof_Suite, DeterministicUnderTheFixedSeed) {
  // Same seed, same answers and the same minimised counterexamples (docs/engineering.md#l7).
  ProofOptions o;
  o.max_segments = 4;
  const ProofReport a = prove_role_rule(planner::vyre_0_7_2_role, "a", o);
  const ProofReport b = prove_role_rule(planner::vyre_0_7_2_role, "b", o);
  ASSERT_EQ(a.scenarios.size(), b.scenarios.size());
  for (std::size_t i = 0; i < a.scenarios.size(); ++i) {
    ASSERT_EQ(a.scenarios[i].counterexample.has_value(), b.scenarios[i].counterexample.has_value());
    if (a.scenarios[i].counterexample) {
      EXPECT_EQ(a.scenarios[i].counterexample->pattern.to_string(), b.scenarios[i].counterexample->pattern.to_string());
    }
  }
  ASSERT_EQ(a.bounded.size(), b.bounded.size());
  for (std::size_t i = 0; i < a.bounded.size(); ++i) EXPECT_EQ(a.bounded[i].outcome.verdict, b.bounded[i].outcome.verdict);
  std::printf("proof times: vyre-0.7.2 %.0f ms, 0.6.1 %.0f ms, sound %.0f ms (K <= 8, N <= 3, scenarios, classes)\n",
              vyre_report().total_ms, v061_report().total_ms, sound_report().total_ms);
}

}  // namespace
}  // namespace gridcheck::props
