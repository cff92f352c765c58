// RapidCheck properties of the example profile over gridcheck's case generator: every generated case is
// valid and race-free, R (the reference interpreter, true grid sync) runs it, and the profile's split on
// the interpreter (H-cpu) must give R's bytes, or refuse the program before running it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "all_read_write_profile.hpp"
#include "ir/text/printer.hpp"
#include "planner/profile.hpp"
#include "props/gen/case_generator.hpp"
#include "props/gen/case_rapidcheck.hpp"  // props::gen_case: an rc::Gen of cases, shrinking their choices
#include "props/gen/choice_source.hpp"
#include "props/gen/features.hpp"
#include "props/oracle/evaluate_case.hpp"

namespace {

namespace ir = gridcheck::ir;
namespace planner = gridcheck::planner;
namespace props = gridcheck::props;

const planner::Profile& profile() { return custom_planner::register_all_read_write_profile(); }

props::CaseReport evaluate(const ir::Case& c, const planner::Profile& p) {
  props::OracleOptions options;
  options.profiles = {&p};  // H-cpu under this profile only (no GPU runner: no H-gpu)
  return props::evaluate_case(c, options);
}

TEST(CustomPlanner, IsRegisteredByName) {
  const planner::Profile& p = profile();
  EXPECT_EQ(planner::find_profile(custom_planner::kProfileName), &p);
  const auto names = planner::profile_names();
  EXPECT_NE(std::find(names.begin(), names.end(), custom_planner::kProfileName), names.end());
  EXPECT_NE(planner::find_profile("sound"), nullptr);
  // A second registration under the same name is refused (S200); the helper returns the first.
  EXPECT_FALSE(planner::register_profile(custom_planner::all_read_write_profile()).ok());
  EXPECT_EQ(&custom_planner::register_all_read_write_profile(), &p);
}

// Benign features: nothing of the known divergence classes, so the split must match R, never refuse.
RC_GTEST_PROP(CustomPlanner, MatchesReferenceOnBenignCases, ()) {
  props::GeneratorConfig config;
  config.allowed = props::kBenignFeatures;
  const props::GeneratedCase g = *props::gen_case(config);
  const props::CaseReport report = evaluate(g.test_case, profile());
  RC_ASSERT(report.reference_verdict == ir::Verdict::Ok);
  const props::OracleOutcome* cpu = report.find("H-cpu", custom_planner::kProfileName);
  RC_ASSERT(cpu != nullptr);
  if (cpu->verdict != ir::Verdict::Match) RC_FAIL(cpu->message + props::replay_hint(g.test_case, "benign"));
}

// Every feature, divergence classes included: match R or refuse up front (sound's SR refusals), as
// the sound profile itself must.
RC_GTEST_PROP(CustomPlanner, MatchesReferenceOrRefusesOnEveryFeature, ()) {
  props::GeneratorConfig config;
  config.allowed = props::kAllFeatures;
  const props::GeneratedCase g = *props::gen_case(config);
  const props::CaseReport report = evaluate(g.test_case, profile());
  RC_ASSERT(report.reference_verdict == ir::Verdict::Ok);
  const props::OracleOutcome* cpu = report.find("H-cpu", custom_planner::kProfileName);
  RC_ASSERT(cpu != nullptr);
  RC_TAG(std::string(ir::name_of(cpu->verdict)));
  if (cpu->verdict != ir::Verdict::Match && cpu->verdict != ir::Verdict::Refused)
    RC_FAIL(cpu->message + props::replay_hint(g.test_case, "all-features"));
}

// The properties have teeth: the same profile with an unsound rule (a written buffer becomes write_only,
// so the caller's bytes in the slots a segment does not write are lost: docs/vyre-0.7.2.md class A) is
// caught within a few cases that force read_write buffers written but not read.
TEST(CustomPlanner, AnUnsoundRuleDiverges) {
  planner::Profile broken = custom_planner::all_read_write_profile();
  broken.name = "example-write-only";
  broken.table.role = [](const planner::RoleFacts& f) {
    planner::RoleDecision d = custom_planner::all_read_write_role(f);
    if (f.access != ir::BufferAccess::Workgroup && f.writes && !f.reads) {
      d.access = ir::BufferAccess::WriteOnly;
      d.kind = planner::rederived_kind(d.access);
    }
    return d;
  };
  props::GeneratorConfig config;
  config.allowed = props::kBenignFeatures | props::bit(props::Feature::RwWrittenUnread);
  config.forced = props::bit(props::Feature::RwWrittenUnread);
  std::uint64_t diverged = 0, seeds = 0;
  for (std::uint64_t seed = 1; seed <= 100 && diverged == 0; ++seed, ++seeds) {
    props::ChoiceSource choices = props::ChoiceSource::random(seed);
    const props::GeneratedCase g = props::generate_case(choices, config);
    const props::CaseReport report = evaluate(g.test_case, broken);
    const props::OracleOutcome* cpu = report.find("H-cpu", "example-write-only");
    ASSERT_NE(cpu, nullptr);
    if (cpu->verdict == ir::Verdict::Diverge) ++diverged;
  }
  EXPECT_GT(diverged, 0u) << "no divergence in " << seeds << " seeds";
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
