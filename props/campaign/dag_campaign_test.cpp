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
  EXPECT_GT(result.phases[Phase::Waves], 0u);
  EXPECT_GT(result.phases[Phase::Generate], 0u);
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

/// A fault only a reused scratch can show: the catalogue's mk-scratch-edge-capacity bounds its edge
/// loop by the edge capacity the scratch retained from earlier plans instead of the edge count, so
/// after a graph with fewer edges the last dependencies are not planned. A fresh scratch has no
/// capacity: all edges count.
planner::Profile scratch_edge_capacity_leak(const planner::Profile& base) {
  return with_mutant(base, *find_megakernel_mutant("mk-scratch-edge-capacity"));
}

CampaignOptions leak_campaign(const planner::Profile& leak, bool reuse_scratch) {
  CampaignOptions o;
  o.seed = 1;
  o.seconds = 0;
  o.max_cases = 200;
  o.shrink_attempts = 300;
  o.oracle.profiles = {&leak};
  DagConfig config;
  config.reuse_scratch = reuse_scratch;
  o.target = dag_campaign_target(config, leak);
  return o;
}

TEST(Props_DagCampaign, AReusedScratchCampaignKillsAScratchLeakThatFreshScratchCampaignsMiss) {
  const planner::Profile leak = scratch_edge_capacity_leak(planner::sound());
  // The leak itself: after a one-edge plan, the chain 0>1 1>2 loses 1>2 in the reused scratch.
  const std::vector<planner::WaveDependency> one{{0, 1}}, chain{{0, 1}, {1, 2}};
  planner::BarrierScratch reused, fresh;
  ASSERT_TRUE(leak.megakernel(3, one, reused).ok());
  const MegakernelPlan stale = leak.megakernel(3, chain, reused);
  const MegakernelPlan right = leak.megakernel(3, chain, fresh);
  ASSERT_TRUE(stale.ok() && right.ok());
  EXPECT_EQ(describe_plan(right), "[[0] [1] [2]] barriers 2");
  EXPECT_NE(*stale, *right) << describe_plan(stale);

  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gridcheck-dag-scratch-leak-test";
  std::filesystem::remove_all(dir);
  CampaignOptions o = leak_campaign(leak, /*reuse_scratch=*/true);
  o.out_dir = dir.string();
  const CampaignResult killed = run_campaign(o);
  ASSERT_FALSE(killed.failures.empty());
  const CampaignFailure& f = killed.failures.front();
  EXPECT_EQ(f.blame, kMegakernelBlame) << f.signature << ": " << f.message;
  EXPECT_LT(f.case_index, 50u);
  auto saved = ir::load_case_file(f.file);
  ASSERT_TRUE(saved.ok()) << ir::render(saved.diagnostics());
  bool has_history = false;
  for (const auto& [key, value] : saved->meta) has_history |= key == "dag_scratch_history" && !value.empty();
  EXPECT_TRUE(has_history) << ir::print(*saved);
  // Replayed under sound (the leak is not registered), the saved kernel still diverges from its
  // waves while sound's own plan of them (fresh scratch) matches.
  OracleOptions sound;
  sound.profiles = {&planner::sound()};
  const CaseReport replay = evaluate_case(*saved, sound);
  EXPECT_TRUE(check_expectations(*saved, replay).empty()) << check_expectations(*saved, replay).front().message;
  EXPECT_EQ(waves_outcome(replay)->verdict, ir::Verdict::Diverge);
  EXPECT_EQ(waves_outcome(replay, "sound")->verdict, ir::Verdict::Match);
  std::filesystem::remove_all(dir);

  const CampaignResult missed = run_campaign(leak_campaign(leak, /*reuse_scratch=*/false));
  EXPECT_EQ(missed.progress.cases, 200u);
  EXPECT_TRUE(missed.failures.empty()) << missed.failures.front().signature;
}

// With reuse_scratch the history comes after the DAG's own choices, so the DAG of a seed is the
// same either way, and a rule without a leak plans it the same.
TEST(Props_DagCampaign, ReusingTheScratchKeepsEachSeedsDagAndACorrectRulesPlan) {
  DagConfig reuse, fresh;
  fresh.reuse_scratch = false;
  const CampaignTarget a = dag_campaign_target(reuse, planner::vyre_0_7_2());
  const CampaignTarget b = dag_campaign_target(fresh, planner::vyre_0_7_2());
  std::size_t with_history = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    ChoiceSource ca = ChoiceSource::random(seed), cb = ChoiceSource::random(seed);
    ir::Case x = a.generate(ca);
    const ir::Case y = b.generate(cb);
    if (std::erase_if(x.meta, [](const auto& kv) { return kv.first == "dag_scratch_history"; }) > 0) ++with_history;
    ASSERT_EQ(ir::print(x), ir::print(y)) << "seed " << seed;
  }
  EXPECT_GT(with_history, 50u);
}

}  // namespace
}  // namespace gridcheck::props
