// The resume state of a campaign directory (campaign_state.hpp): keyed by the whole configuration,
// one lock per shard, refused before anything runs when the directory cannot take it, and an
// interrupted case is neither saved nor lost.
#include "props/campaign/campaign_state.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "planner/profile.hpp"
#include "props/campaign/campaign.hpp"

namespace gridcheck::props {
namespace {
namespace fs = std::filesystem;

fs::path fresh_dir(const char* name) {
  const fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  return dir;
}

// vyre-0.7.2 with workgroup memory across a fence: a failure within a few cases (C1).
CampaignOptions failing_campaign(const fs::path& dir) {
  CampaignOptions o;
  o.oracle.profiles = {&planner::vyre_0_7_2()};
  o.seed = 11;
  o.seconds = 0;
  o.max_cases = 20;
  o.out_dir = dir.string();
  o.generator.allowed = kBenignFeatures | bit(Feature::WorkgroupAcrossFence);
  o.generator.forced = bit(Feature::WorkgroupAcrossFence);
  o.shrink_attempts = 200;
  return o;
}

TEST(Props_CampaignState, TheConfigurationNamesEverythingThatDecidesTheCases) {
  const CampaignOptions base = failing_campaign("/nonexistent");
  const std::string key = campaign_configuration(base);
  EXPECT_EQ(key, campaign_configuration(base));
  auto differs = [&](auto change) {
    CampaignOptions o = base;
    change(o);
    return campaign_configuration(o) != key;
  };
  EXPECT_TRUE(differs([](CampaignOptions& o) { o.seed = 12; }));
  EXPECT_TRUE(differs([](CampaignOptions& o) { o.oracle.profiles = {&planner::sound()}; }));
  EXPECT_TRUE(differs([](CampaignOptions& o) { o.generator.allowed = kAllFeatures; }));
  EXPECT_TRUE(differs([](CampaignOptions& o) { o.generator.max_divergence_features = 0; }));
  EXPECT_TRUE(differs([](CampaignOptions& o) { o.target.name = "dag"; }));
  EXPECT_TRUE(differs([](CampaignOptions& o) { o.shard_index = 1, o.shard_count = 2; }));
  EXPECT_TRUE(differs([](CampaignOptions& o) { o.oracle.cpu = false; }));
  // What only changes how long it runs is not part of it.
  EXPECT_FALSE(differs([](CampaignOptions& o) { o.max_cases = 7, o.seconds = 3, o.jobs = 2; }));
}

TEST(Props_CampaignState, ASecondRunOfTheSameConfigurationResumesWhereTheFirstStopped) {
  const fs::path dir = fresh_dir("gridcheck-state-resume");
  const CampaignOptions o = failing_campaign(dir);
  const CampaignResult first = run_campaign(o);
  ASSERT_TRUE(first.setup_error.empty()) << first.setup_error;
  ASSERT_FALSE(first.failures.empty());
  std::string error;
  const auto state = read_campaign_state(campaign_state_path(dir.string(), 0, 1), error);
  ASSERT_TRUE(state.has_value()) << error;
  EXPECT_EQ(state->seed, 11u);
  EXPECT_EQ(state->next_index, 20u);
  EXPECT_EQ(state->configuration, campaign_configuration(o));
  const CampaignResult second = run_campaign(o);
  EXPECT_TRUE(second.resumed);
  EXPECT_EQ(second.progress.next_index, 40u);
  for (const CampaignFailure& f : second.failures) EXPECT_NE(f.signature, first.failures.front().signature);
  fs::remove_all(dir);
}

TEST(Props_CampaignState, AnotherConfigurationOnTheSameDirectoryIsRefusedBeforeRunning) {
  const fs::path dir = fresh_dir("gridcheck-state-other");
  CampaignOptions o = failing_campaign(dir);
  o.max_cases = 3;
  ASSERT_TRUE(run_campaign(o).setup_error.empty());
  for (auto change : {+[](CampaignOptions& c) { c.seed = 99; },
                      +[](CampaignOptions& c) { c.oracle.profiles = {&planner::sound()}; }}) {
    CampaignOptions other = o;
    change(other);
    const CampaignResult r = run_campaign(other);
    EXPECT_NE(r.setup_error.find("another configuration"), std::string::npos) << r.setup_error;
    EXPECT_EQ(r.progress.cases, 0u);
  }
  // Another shard of the same seed space has a state of its own.
  CampaignOptions shard = o;
  shard.shard_index = 1;
  shard.shard_count = 2;
  const CampaignResult r = run_campaign(shard);
  EXPECT_TRUE(r.setup_error.empty()) << r.setup_error;
  EXPECT_TRUE(fs::exists(campaign_state_path(dir.string(), 1, 2)));
  fs::remove_all(dir);
}

TEST(Props_CampaignState, ACampaignHoldingTheShardKeepsASecondOneOut) {
  const fs::path dir = fresh_dir("gridcheck-state-lock");
  fs::create_directories(dir);
  const DirectoryLock held((dir / ".campaign-lock.0of1").string());
  ASSERT_TRUE(held.held()) << held.error();
  const CampaignResult r = run_campaign(failing_campaign(dir));
  EXPECT_NE(r.setup_error.find("another campaign is running"), std::string::npos) << r.setup_error;
  EXPECT_EQ(r.progress.cases, 0u);
  EXPECT_FALSE(fs::exists(campaign_state_path(dir.string(), 0, 1)));
  fs::remove_all(dir);
}

TEST(Props_CampaignState, AnUnwritableDirectoryFailsBeforeRunning) {
  const fs::path dir = fresh_dir("gridcheck-state-file");
  { std::ofstream(dir.string()) << "a file, not a directory\n"; }
  const CampaignResult r = run_campaign(failing_campaign(dir / "out"));
  EXPECT_FALSE(r.setup_error.empty());
  EXPECT_EQ(r.progress.cases, 0u);
  fs::remove_all(dir);
}

// Stopped while it shrinks the first failure: the half-shrunk case is neither saved nor counted,
// and the state sends a resumed campaign back to that case, which then finds it.
TEST(Props_CampaignState, ACaseInFlightAtCtrlCIsDiscardedAndRunAgainOnResume) {
  const fs::path dir = fresh_dir("gridcheck-state-interrupt");
  CampaignOptions o = failing_campaign(dir);
  o.jobs = 1;
  std::atomic<bool> stop{false};
  std::atomic<int> calls_after_failure{-1};
  o.stop = &stop;
  o.target.failure = [&](const ir::Case& c, const OracleOptions& oracle, CaseReport& report) {
    std::optional<std::string> blame = case_failure(c, oracle, report);
    if (calls_after_failure.load() >= 0 && ++calls_after_failure >= 3) stop.store(true);  // inside shrinking
    if (blame && calls_after_failure.load() < 0) calls_after_failure.store(0);
    return blame;
  };
  const CampaignResult interrupted = run_campaign(o);
  ASSERT_TRUE(interrupted.setup_error.empty()) << interrupted.setup_error;
  EXPECT_TRUE(interrupted.interrupted);
  EXPECT_TRUE(interrupted.failures.empty());
  std::size_t saved = 0;
  for (const auto& entry : fs::directory_iterator(dir)) saved += entry.path().extension() == ".gc" ? 1 : 0;
  EXPECT_EQ(saved, 0u);
  std::string error;
  const auto state = read_campaign_state(campaign_state_path(dir.string(), 0, 1), error);
  ASSERT_TRUE(state.has_value()) << error;

  CampaignOptions again = failing_campaign(dir);
  const CampaignResult resumed = run_campaign(again);
  EXPECT_TRUE(resumed.resumed);
  ASSERT_FALSE(resumed.failures.empty());
  EXPECT_EQ(resumed.failures.front().case_index, state->next_index);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gridcheck::props
