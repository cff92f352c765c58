// RapidCheck properties over generated cases (props/gen/case_rapidcheck.hpp): every case is valid
// and race-free under R, and the sound split equals R or refuses. A failing property prints, next
// to RapidCheck's reproduce string, the gridcheck commands that replay the shrunk case from a file.
// The twin runs the split property against a broken role rule and must fail.
//
// Cases per property: RapidCheck's default (100) unless RC_PARAMS sets max_success.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>

#include "ir/text/case_file.hpp"
#include "ir/validate/validator.hpp"
#include "planner/profile.hpp"
#include "props/gen/case_rapidcheck.hpp"
#include "props/mutants/case_meta.hpp"
#include "props/mutants/killing_case.hpp"
#include "props/mutants/mutant_catalogue.hpp"
#include "props/oracle/evaluate_case.hpp"

namespace gridcheck::props {
namespace {

GeneratorConfig all_features() {
  GeneratorConfig config;
  config.allowed = kAllFeatures;
  return config;
}

/// The case as the property expects it to replay: R ok and, for a split property, H-cpu `profile` match.
ir::Case expected_case(const ir::Case& c, std::string_view profile) {
  ir::Case saved = c;
  saved.expectations.clear();
  saved.outputs.clear();
  saved.expectations.push_back({ir::Oracle::Reference, "", ir::Verdict::Ok, "", {}});
  if (!profile.empty()) saved.expectations.push_back({ir::Oracle::SplitCpu, std::string(profile), ir::Verdict::Match, "", {}});
  return saved;
}

/// The split property: `profile`'s H-cpu outcome matches R or refuses. `mutant`, when set, is
/// recorded in the replay file's meta (mutant / base) so `gridcheck mutants --check-case` replays it.
void check_split_equals_reference_or_refuses(const GeneratedCase& g, const planner::Profile& profile,
                                             std::string_view tag, std::string_view mutant = {}) {
  OracleOptions options;
  options.profiles = {&profile};
  const CaseReport report = evaluate_case(g.test_case, options);
  if (report.reference_verdict != ir::Verdict::Ok)
    RC_FAIL("R is not ok (" + report.reference_detail + ")" + replay_hint(expected_case(g.test_case, {}), tag));
  const OracleOutcome* cpu = report.find("H-cpu", profile.name);
  if (cpu == nullptr) RC_FAIL("no H-cpu outcome for profile " + profile.name);
  if (cpu->verdict != ir::Verdict::Match && cpu->verdict != ir::Verdict::Refused) {
    ir::Case saved = expected_case(g.test_case, profile.name);
    std::string extra;
    if (!mutant.empty()) {
      set_meta(saved, "mutant", std::string(mutant));
      set_meta(saved, "base", profile.name);
      extra = "  gridcheck mutants --check-case " + replay_file_path(tag) + "\n";
    }
    RC_FAIL("H-cpu " + profile.name + ": " + std::string(ir::name_of(cpu->verdict)) + " (" + cpu->detail + "): " +
            cpu->message + replay_hint(saved, tag, profile.name == "sound" ? "" : profile.name) + extra);
  }
}

RC_GTEST_PROP(Props_CaseRapidCheck, EveryGeneratedCaseValidatesAndIsRaceFreeUnderR, ()) {
  const GeneratedCase g = *gen_case(all_features());
  const ir::Diagnostics diagnostics = ir::validate(g.test_case.program);
  if (diagnostics.has_errors())
    RC_FAIL("invalid case:\n" + ir::render(diagnostics) + replay_hint(expected_case(g.test_case, {}), "validates"));
  OracleOptions options;
  options.cpu = false;
  const CaseReport report = evaluate_case(g.test_case, options);
  if (report.reference_verdict != ir::Verdict::Ok)
    RC_FAIL("R is not ok: " + std::string(ir::name_of(report.reference_verdict)) + " (" + report.reference_detail +
            ")\n" + ir::render(report.reference.diagnostics) + replay_hint(expected_case(g.test_case, {}), "race-free"));
}

RC_GTEST_PROP(Props_CaseRapidCheck, TheSoundSplitEqualsTheReferenceOrRefuses, ()) {
  check_split_equals_reference_or_refuses(*gen_case(all_features()), planner::sound(), "sound-split");
}

TEST(Props_CaseRapidCheck, ArbitraryCasesAreBenignAndShowAsCaseText) {
  const rc::Shrinkable<GeneratedCase> s = rc::gen::arbitrary<GeneratedCase>()(rc::Random(7), 10);
  const GeneratedCase g = s.value();
  EXPECT_EQ(g.features & kDivergenceFeatures, 0u);
  std::ostringstream os;
  rc::show(g, os);
  EXPECT_NE(os.str().find(ir::print(g.test_case)), std::string::npos) << os.str();
  EXPECT_EQ(os.str().rfind("features: ", 0), 0u) << os.str();
  // The shrinks decode to cases too (the first one drops choices).
  const auto first = s.shrinks().next();
  ASSERT_TRUE(static_cast<bool>(first));
  EXPECT_FALSE(ir::validate(first->value().test_case.program).has_errors());
}

/// Records nothing: the twin's failure is expected, so RapidCheck must not list it at exit.
class QuietListener : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

// The twin that must fail: the split property over `sound` with M3-keep-is-output-last (its role rule
// keeps is_output on the last writing segment) is caught, shrunk, and its replay file replays as a
// divergence of the mutant while the base passes.
TEST(Props_CaseRapidCheck, TheSplitPropertyCatchesABrokenRoleRule) {
  const Mutant* m = find_mutant("M3-keep-is-output-last");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->kind, MutantKind::RoleRule);
  // Under the base's name, as the mutation self-test runs it, so the replay file's expectations
  // (H-cpu sound match) are checked against the mutant's results.
  const planner::Profile broken = renamed(make_mutant(*m, planner::sound()), "sound");
  const std::string tag = "twin-role-rule";
  std::filesystem::remove(replay_file_path(tag));

  rc::detail::TestMetadata metadata;
  metadata.id = "Props_CaseRapidCheck/TheSplitPropertyCatchesABrokenRoleRule";
  metadata.description = "the sound split with a broken role rule equals R or refuses";
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = std::max(params.maxSuccess, 200);
  params.disableShrinking = false;
  QuietListener quiet;  // an expected failure: keep it out of RapidCheck's "to reproduce" summary
  const rc::detail::TestResult result = rc::detail::checkProperty(
      rc::detail::toProperty(
          [&] { check_split_equals_reference_or_refuses(*gen_case(all_features()), broken, tag, m->name); }),
      metadata, params, quiet);
  std::ostringstream report;
  rc::detail::printResultMessage(result, report);
  ASSERT_TRUE(result.is<rc::detail::FailureResult>()) << "the broken role rule went unnoticed:\n" << report.str();
  std::cout << "the twin failed as it must:\n" << report.str() << "\n";

  const std::string path = replay_file_path(tag);
  EXPECT_NE(report.str().find("gridcheck replay " + path), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("gridcheck diff " + path), std::string::npos) << report.str();
  ASSERT_TRUE(std::filesystem::exists(path)) << report.str();

  const ir::Result<ir::Case> loaded = ir::load_case_file(path);
  ASSERT_TRUE(loaded) << ir::render(loaded.diagnostics());
  OracleOptions mutant_options;
  mutant_options.profiles = {&broken};
  const CaseReport replayed = evaluate_case(*loaded, mutant_options);
  ASSERT_EQ(replayed.reference_verdict, ir::Verdict::Ok) << replayed.reference_detail;
  const OracleOutcome* cpu = replayed.find("H-cpu", "sound");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->verdict, ir::Verdict::Diverge) << cpu->message << "\n" << ir::print(*loaded);
  // The real sound profile passes the file; the catalogue mutant fails it.
  const KillingCaseCheck check = check_killing_case(*loaded);
  EXPECT_TRUE(check.ok()) << check.message;
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gridcheck::props
