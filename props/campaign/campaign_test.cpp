#include "props/campaign/campaign.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <ostream>

#include "ir/text/case_file.hpp"
#include "props/campaign/campaign_state.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"
#include "props/reduce/case_reducer.hpp"

namespace gridcheck::props {
namespace {

struct ClassCase {
  Feature feature;
  const char* expected_class;
};

void PrintTo(const ClassCase& c, std::ostream* os) { *os << name_of(c.feature) << " -> " << c.expected_class; }

class Props_CampaignFindsClass : public ::testing::TestWithParam<ClassCase> {};

// With one divergence feature switched on, a fixed budget from a fixed seed finds that class and
// shrinks it to a small case.
TEST_P(Props_CampaignFindsClass, WithinAFixedBudget) {
  CampaignOptions options;
  options.oracle.profiles = {&planner::vyre_0_7_2()};  // the system under test (the default is sound)
  options.seed = 7;
  options.seconds = 0;
  // A4 needs fixpoint >= 2, a partial first write and a later reader in one case: rarer than the
  // others among every benign shape, so it gets a larger budget.
  options.max_cases = GetParam().feature == Feature::FixpointPartialOutputs ? 1500 : 300;
  options.generator.allowed = kBenignFeatures | bit(GetParam().feature);
  options.generator.forced = bit(GetParam().feature);
  options.shrink_attempts = 600;
  const CampaignResult result = run_campaign(options);
  bool found = false;
  for (const CampaignFailure& f : result.failures) {
    EXPECT_NE(f.blame, "generator") << f.signature << "\n" << f.message;
    if (f.divergence_class.find(GetParam().expected_class) != std::string::npos) {
      found = true;
      EXPECT_LE(f.statements_after, 14u) << f.signature;
    }
  }
  std::string seen;
  for (const CampaignFailure& f : result.failures) seen += "\n  " + f.signature + ": " + f.message;
  EXPECT_TRUE(found) << "no " << GetParam().expected_class << " failure in " << result.progress.cases << " cases, "
                     << result.failures.size() << " unique failures:" << seen;
}

INSTANTIATE_TEST_SUITE_P(
    SpecSection10, Props_CampaignFindsClass,
    ::testing::Values(ClassCase{Feature::RwWrittenUnread, "A"}, ClassCase{Feature::FixpointPartialOutputs, "A4"},
                      ClassCase{Feature::RuntimeSizedRw, "A5"}, ClassCase{Feature::UnreferencedOutput, "B1"},
                      ClassCase{Feature::WorkgroupAcrossFence, "C1"}, ClassCase{Feature::LocalsAcrossFence, "D"},
                      ClassCase{Feature::GridAuto, "G1"}, ClassCase{Feature::ReturnBeforeFence, "G2"},
                      ClassCase{Feature::OutputByteRange, "G3"}, ClassCase{Feature::FenceUnderControlFlow, "G5"},
                      ClassCase{Feature::WriteOnlyMultiSegment, "F1"}),
    [](const auto& info) { return std::string(name_of(info.param.feature)); });

// With several input sets per program, a failing case's recorded choices still regenerate it, so it
// shrinks and its saved form fails as the campaign saw it.
TEST(Props_Campaign, WithSeveralInputSetsPerProgramAFailureShrinksToTheClass) {
  CampaignOptions options;
  options.oracle.profiles = {&planner::vyre_0_7_2()};
  options.seed = 7;
  options.seconds = 0;
  options.max_cases = 300;
  options.inputs_per_program = 4;
  options.generator.allowed = kBenignFeatures | bit(Feature::RwWrittenUnread);
  options.generator.forced = bit(Feature::RwWrittenUnread);
  options.shrink_attempts = 600;
  EXPECT_NE(campaign_configuration(options).find("\"inputs_per_program\":4"), std::string::npos);
  const CampaignResult result = run_campaign(options);
  EXPECT_EQ(result.progress.cases, 300u);
  bool found = false;
  for (const CampaignFailure& f : result.failures) {
    EXPECT_NE(f.blame, "generator") << f.signature;
    if (f.divergence_class.find('A') == std::string::npos) continue;
    found = true;
    EXPECT_LE(f.statements_after, 14u) << f.signature;
    CaseReport report;
    EXPECT_TRUE(case_failure(f.shrunk, options.oracle, report).has_value()) << f.signature;
  }
  EXPECT_TRUE(found) << result.failures.size() << " unique failures";
  options.inputs_per_program = 1;
  EXPECT_EQ(campaign_configuration(options).find("inputs_per_program"), std::string::npos);
}

// Workers take a program's cases as one block; a budget that ends inside a block still runs exactly
// the cases below it, whatever the number of workers.
TEST(Props_Campaign, InputSetBlocksKeepTheBudgetExactWithSeveralWorkers) {
  std::map<std::string, std::uint64_t> verdicts_one_worker;
  for (unsigned jobs : {1u, 3u}) {
    CampaignOptions options;
    options.oracle.profiles = {&planner::vyre_0_7_2()};
    options.seed = 11;
    options.seconds = 0;
    options.max_cases = 23;
    options.inputs_per_program = 4;
    options.jobs = jobs;
    options.shrink = false;
    const CampaignResult result = run_campaign(options);
    EXPECT_EQ(result.progress.cases, 23u) << jobs << " jobs";
    if (jobs == 1)
      verdicts_one_worker = result.progress.verdicts;
    else
      EXPECT_EQ(result.progress.verdicts, verdicts_one_worker);
  }
}

TEST(Props_Campaign, BenignCampaignFindsNothing) {
  CampaignOptions options;
  options.oracle.profiles = {&planner::vyre_0_7_2()};  // the system under test (the default is sound)
  options.seed = 3;
  options.seconds = 0;
  options.max_cases = 500;
  const CampaignResult result = run_campaign(options);
  EXPECT_EQ(result.progress.cases, 500u);
  EXPECT_TRUE(result.failures.empty()) << result.failures.front().signature;
  EXPECT_EQ(result.progress.verdicts.count("diverge"), 0u);
  // Where the time went (phase_clock.hpp): the program target's phases, and none of a DAG's.
  for (Phase p : {Phase::Generate, Phase::Reference, Phase::Plan, Phase::Compile, Phase::Launch, Phase::Compare})
    EXPECT_GT(result.phases[p], 0u) << name_of(p);
  EXPECT_EQ(result.phases[Phase::Waves], 0u);
  EXPECT_EQ(result.phases[Phase::Shrink], 0u) << "no failure";
  EXPECT_EQ(result.phases[Phase::Pipeline], 0u) << "no GPU";
}

TEST(Props_Campaign, SavesReplayableCasesAndResumes) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gridcheck-campaign-test";
  std::filesystem::remove_all(dir);
  CampaignOptions options;
  options.oracle.profiles = {&planner::vyre_0_7_2()};  // the system under test (the default is sound)
  options.seed = 11;
  options.seconds = 0;
  options.max_cases = 40;
  options.out_dir = dir.string();
  options.generator.allowed = kBenignFeatures | bit(Feature::WorkgroupAcrossFence);
  options.generator.forced = bit(Feature::WorkgroupAcrossFence);
  options.shrink_attempts = 300;
  const CampaignResult first = run_campaign(options);
  ASSERT_FALSE(first.failures.empty());
  const CampaignFailure& f = first.failures.front();
  ASSERT_FALSE(f.file.empty());
  auto loaded = ir::load_case_file(f.file);
  ASSERT_TRUE(loaded.ok()) << ir::render(loaded.diagnostics());
  const CaseReport report = evaluate_case(*loaded, options.oracle);
  EXPECT_TRUE(check_expectations(*loaded, report).empty());
  EXPECT_EQ(report.find("H-cpu", "vyre-0.7.2")->verdict, ir::Verdict::Diverge);

  const CampaignResult second = run_campaign(options);
  EXPECT_TRUE(second.resumed);
  EXPECT_EQ(second.progress.next_index, 80u);
  EXPECT_TRUE(second.failures.empty() || second.failures.front().signature != f.signature);
  std::filesystem::remove_all(dir);
}

TEST(Props_Campaign, ShardsPartitionTheSeedSpace) {
  EXPECT_NE(case_seed(1, 0), case_seed(1, 1));
  EXPECT_NE(case_seed(1, 0), case_seed(2, 0));
  EXPECT_EQ(case_seed(5, 17), case_seed(5, 17));
}

}  // namespace
}  // namespace gridcheck::props
