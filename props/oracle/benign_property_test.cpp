// The central fuzz properties on generated cases (issue: differential fuzzing).
#include <gtest/gtest.h>

#include <cstdlib>

#include "ir/text/printer.hpp"
#include "ir/validate/validator.hpp"
#include "props/gen/case_generator.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"

namespace gridcheck::props {
namespace {

std::string show(const ir::Case& c) { return ir::print(c); }

/// Cases per property: 300 in CI; GRIDCHECK_PROPERTY_CASES raises it for deep local runs.
std::uint64_t case_budget() {
  const char* env = std::getenv("GRIDCHECK_PROPERTY_CASES");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : 300;
}

TEST(Props_Generated, BenignCasesValidateAreRaceFreeAndMatchTheVyreSplit) {
  GeneratorConfig config;
  config.allowed = kBenignFeatures;
  std::uint64_t checked = 0;
  for (std::uint64_t seed = 1; seed <= case_budget(); ++seed) {
    ChoiceSource choices = ChoiceSource::random(seed);
    const GeneratedCase g = generate_case(choices, config);
    const ir::Diagnostics diagnostics = ir::validate(g.test_case.program);
    ASSERT_FALSE(diagnostics.has_errors()) << "seed " << seed << "\n" << ir::render(diagnostics) << show(g.test_case);
    OracleOptions vyre;
    vyre.profiles = {&planner::vyre_0_7_2()};
    const CaseReport report = evaluate_case(g.test_case, vyre);
    ASSERT_EQ(report.reference_verdict, ir::Verdict::Ok)
        << "seed " << seed << ": " << report.reference_detail << "\n"
        << ir::render(report.reference.diagnostics) << show(g.test_case);
    const OracleOutcome* cpu = report.find("H-cpu", "vyre-0.7.2");
    ASSERT_NE(cpu, nullptr);
    ASSERT_EQ(cpu->verdict, ir::Verdict::Match) << "seed " << seed << ": " << cpu->message << "\n" << show(g.test_case);
    ++checked;
  }
  EXPECT_EQ(checked, case_budget());
}

TEST(Props_Generated, AllFeatureCasesValidateAndAreRaceFree) {
  GeneratorConfig config;
  config.allowed = kAllFeatures;
  for (std::uint64_t seed = 1; seed <= case_budget(); ++seed) {
    ChoiceSource choices = ChoiceSource::random(seed);
    const GeneratedCase g = generate_case(choices, config);
    const ir::Diagnostics diagnostics = ir::validate(g.test_case.program);
    ASSERT_FALSE(diagnostics.has_errors()) << "seed " << seed << "\n" << ir::render(diagnostics) << show(g.test_case);
    OracleOptions options;
    options.cpu = false;
    const CaseReport report = evaluate_case(g.test_case, options);
    ASSERT_EQ(report.reference_verdict, ir::Verdict::Ok)
        << "seed " << seed << ": " << report.reference_detail << "\n"
        << ir::render(report.reference.diagnostics) << show(g.test_case);
  }
}

}  // namespace
}  // namespace gridcheck::props
