#include "props/campaign/dag_campaign.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "ir/text/case_file.hpp"
#include "ir/text/printer.hpp"
#include "props/gen/dag_case.hpp"
#include "props/mutants/megakernel_mutants.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"
#include "props/oracle/waves_oracle.hpp"

namespace gridcheck::props {
namespace {

TEST(Props_DagCampaign, TheVyrePlannerSurvivesAFixedSeedCampaign) {
  CampaignOptions o;
  o.seed = 5;
  o.seconds = 0;
  o.max_cases = 300;
  o.oracle.profiles = {&planner::vyre_0_7_2()};
  o.target = dag_campaign_target(DagConfig{}, planner::vyre_0_7_2());
  const CampaignResult result = run_campaign(o);
  EXPECT_EQ(result.progress.cases, 300u);
  EXPECT_TRUE(result.failures.empty()) << result.failures.front().signature << ": " << result.failures.front().message;
  EXPECT_EQ(result.progress.verdicts.count("diverge"), 0u);
  EXPECT_EQ(result.progress.verdicts.count("invalid"), 0u);
}

// A failure is shrunk through its choices, saved as an ordinary corpus case, and replays like
// any other: evaluate_case runs R-waves because the case carries DAG meta.
TEST(Props_DagCampaign, SavedFailuresAreShrunkDagCasesThatReplay) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gridcheck-dag-campaign-test";
  std::filesystem::remove_all(dir);
  const planner::Profile mutant = with_mutant(planner::vyre_0_7_2(), *find_megakernel_mutant("mk-reverse-groups"));
  CampaignOptions o;
  o.seed = 3;
  o.seconds = 0;
  o.max_cases = 60;
  o.out_dir = dir.string();
  o.oracle.profiles = {&mutant};
  o.target = dag_campaign_target(DagConfig{}, mutant);
  o.shrink_attempts = 400;
  const CampaignResult result = run_campaign(o);
  ASSERT_FALSE(result.failures.empty());
  const CampaignFailure& f = result.failures.front();
  EXPECT_EQ(f.signature.rfind("megakernel/reversed/bytes", 0), 0u) << f.signature;
  EXPECT_LE(f.statements_after, f.statements_before);
  ASSERT_FALSE(f.file.empty());

  auto saved = ir::load_case_file(f.file);
  ASSERT_TRUE(saved.ok()) << ir::render(saved.diagnostics());
  ASSERT_TRUE(is_dag_case(*saved));
  const std::string text = ir::print(*saved);
  EXPECT_NE(text.find("expect R-waves: diverge megakernel bytes"), std::string::npos) << text;
  // Replayed with vyre-0.7.2 (the mutant is not registered): the mutant's own lines are skipped,
  // R and the kernel's R-waves lines are checked.
  OracleOptions vyre;
  vyre.profiles = {&planner::vyre_0_7_2()};
  const CaseReport replay = evaluate_case(*saved, vyre);
  EXPECT_TRUE(check_expectations(*saved, replay).empty()) << check_expectations(*saved, replay).front().message;
  EXPECT_EQ(waves_outcome(replay)->verdict, ir::Verdict::Diverge);
  EXPECT_EQ(waves_outcome(replay, "vyre-0.7.2")->verdict, ir::Verdict::Match);
  std::filesystem::remove_all(dir);
}

TEST(Props_DagCampaign, ClassesAreThePlanProblemsOfTheKernel) {
  ChoiceSource choices = ChoiceSource::random(1);
  const WaveDag dag = generate_dag(choices);
  EXPECT_TRUE(dag_classes(fuse_dag(dag, planner::vyre_0_7_2())).empty());
  const ir::Case refused = fuse_dag(dag, MegakernelPlan(planner::MegakernelError::cycle(1)), "test");
  EXPECT_EQ(dag_classes(refused), (std::vector<std::string>{"refused"}));
}

}  // namespace
}  // namespace gridcheck::props
