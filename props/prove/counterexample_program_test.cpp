// Counterexamples of the role model rendered as concrete cases, and confirmed by execution: R (the
// reference, true grid sync) and H-cpu (the split over the interpreter) produce exactly the words
// the model predicts, so the spec's divergences appear, and the sound rule repairs each of them.
#include <gtest/gtest.h>

#include "ir/text/parser.hpp"
#include "ir/text/printer.hpp"
#include "ir/validate/validator.hpp"
#include "planner/segment_plan.hpp"
#include "planner/sound_role_rule.hpp"
#include "props/prove/counterexample_program.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"
#include "props/prove/role_proof.hpp"
#include "props/prove/role_variants.hpp"

namespace gridcheck::props {
namespace {

struct RuleUnderTest {
  const char* rule;
  const planner::Profile* profile;
};

const planner::Profile& v061_profile() {
  static const planner::Profile p = with_role_rule(planner::vyre_0_7_2(), "vyre-0.6.1-roles", vyre_0_6_1_role);
  return p;
}

std::vector<Counterexample> counterexamples(const planner::RoleRule& rule) {
  ProofOptions o;
  o.max_segments = 3;
  o.max_passes = 2;
  const ProofReport r = prove_role_rule(rule, "rule", o);
  EXPECT_TRUE(r.model_errors.empty());
  std::vector<Counterexample> all;
  if (r.first) all.push_back(*r.first);
  for (const ScenarioResult& s : r.scenarios)
    if (s.counterexample) all.push_back(*s.counterexample);
  for (const Counterexample& c : r.per_declaration) all.push_back(c);
  return all;
}

std::string failures(const std::vector<ExpectationFailure>& fs) {
  std::string s;
  for (const ExpectationFailure& f : fs) s += f.message + "\n";
  return s;
}

/// Renders, prints, parses back, validates, runs R and H-cpu, and checks every predicted word.
void confirm(const RoleTable& table, const Counterexample& cx, const planner::Profile& profile) {
  SCOPED_TRACE(cx.id + ": " + cx.pattern.to_string());
  RenderOptions ro;
  ro.profile = profile.name;
  ro.title = cx.title;
  const ir::Case rendered = render_counterexample(table, cx.pattern, ro);
  const std::string text = ir::print(rendered);
  ir::Result<ir::Case> parsed = ir::parse_case(text, "counterexample.gc");
  ASSERT_TRUE(parsed.ok()) << text;
  const ir::Case& c = parsed.value();
  EXPECT_EQ(ir::print(c), text);
  EXPECT_FALSE(ir::validate(c.program).has_errors()) << text;

  // The planner computes the facts the model derived, and the rule decides what the table says.
  ir::Result<planner::SplitPlan> plan = planner::plan_split(profile, c.program);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan.value().segments.size(), cx.pattern.segments);
  for (std::uint32_t k = 0; k < cx.pattern.segments; ++k)
    for (const planner::BufferRoleRow& row : plan.value().segments[k].roles)
      if (row.name == "buf") {
        EXPECT_EQ(row.facts, segment_facts(cx.pattern, k)) << "segment " << k;
        EXPECT_TRUE(row.decision.same_meaning(table.find(row.facts)->decision)) << "segment " << k;
      }

  OracleOptions oo;
  oo.profiles = {&profile};
  const CaseReport report = evaluate_case(c, oo);
  EXPECT_EQ(report.reference_verdict, ir::Verdict::Ok) << report.reference_detail << "\n" << text;
  EXPECT_TRUE(check_expectations(c, report).empty()) << failures(check_expectations(c, report)) << text;
  const OracleOutcome* h = report.find("H-cpu", profile.name);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->verdict, ir::Verdict::Diverge) << h->message << "\n" << text;
  const Prediction pred = predict(table, cx.pattern);
  if (pred.split_fails) {
    ASSERT_TRUE(h->failure.has_value());
    EXPECT_EQ(h->failure->diagnostic.code, pred.split_code);
  }

  // The sound rule runs the same case to R's bytes.
  OracleOptions so;
  so.profiles = {&planner::sound_roles_profile()};
  const CaseReport fixed = evaluate_case(c, so);
  const OracleOutcome* hs = fixed.find("H-cpu", planner::sound_roles_profile().name);
  ASSERT_NE(hs, nullptr);
  EXPECT_EQ(hs->verdict, ir::Verdict::Match) << hs->message << "\n" << text;
}

TEST(Counterexample_Vyre072, EveryCounterexampleDivergesUnderHcpuExactlyAsPredicted) {
  const RoleTable table = RoleTable::tabulate(planner::vyre_0_7_2_role);
  const std::vector<Counterexample> all = counterexamples(planner::vyre_0_7_2_role);
  ASSERT_GE(all.size(), 6u);
  for (const Counterexample& cx : all) confirm(table, cx, planner::vyre_0_7_2());
}

TEST(Counterexample_V061, RecallZeroDivergesUnderHcpu) {
  const RoleTable table = RoleTable::tabulate(vyre_0_6_1_role);
  bool saw_h2 = false;
  for (const Counterexample& cx : counterexamples(vyre_0_6_1_role)) {
    saw_h2 = saw_h2 || cx.id == "H2";
    confirm(table, cx, v061_profile());
  }
  EXPECT_TRUE(saw_h2);
}

TEST(Counterexample_Render, A1MatchesTheSpecProgramShape) {
  // docs/vyre-0.7.2.md#a1: a read_write buffer with caller bytes written (element 1) but not read by
  // segment 0: H zeroes element 0's caller bytes.
  const RoleTable table = RoleTable::tabulate(planner::vyre_0_7_2_role);
  Pattern p = Pattern::empty(*model_decl_index(ir::BufferAccess::ReadWrite, false, false), 2, 1);
  p.writes[0] = true;
  const Prediction pred = predict(table, p);
  EXPECT_EQ(pred.reference_buf, (std::vector<std::uint32_t>{caller_word(0), written_word(1, 0, 0, 2)}));
  EXPECT_EQ(pred.split_buf, (std::vector<std::uint32_t>{0, written_word(1, 0, 0, 2)}));
  EXPECT_TRUE(pred.diverges);
  const std::string text = ir::print(render_counterexample(table, p));
  EXPECT_NE(text.find("buf[1] = n0 + 8193"), std::string::npos) << text;
  EXPECT_NE(text.find("grid_sync"), std::string::npos) << text;
}

TEST(Counterexample_Render, SoundRulePredictsAMatchOnEveryPattern) {
  const RoleTable table = RoleTable::tabulate(planner::sound_role);
  const std::uint32_t decl = *model_decl_index(ir::BufferAccess::WriteOnly, false, false);
  Pattern p = Pattern::empty(decl, 2, 2);
  p.writes = {true, true};
  p.reads = {true, false};
  p.element_write[0][0] = p.element_write[1][1] = true;
  p.element_read[1][0] = true;
  const Prediction pred = predict(table, p);
  EXPECT_FALSE(pred.diverges);
  EXPECT_EQ(pred.split_buf, pred.reference_buf);
  EXPECT_EQ(pred.split_obs, pred.reference_obs);
}

}  // namespace
}  // namespace gridcheck::props
