#include "props/mutants/megakernel_mutants.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <set>

#include "ir/text/printer.hpp"
#include "props/campaign/dag_campaign.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"
#include "props/oracle/waves_oracle.hpp"

namespace gridcheck::props {
namespace {

/// A fixed-seed DAG campaign against `mutant` that stops at the first failure.
CampaignResult hunt(const planner::Profile& mutant, std::uint64_t max_cases) {
  CampaignOptions o;
  o.seed = 1;
  o.seconds = 10;
  o.max_cases = max_cases;
  o.oracle.profiles = {&mutant};
  o.target = dag_campaign_target(DagConfig{}, mutant);
  o.shrink_attempts = 300;
  std::atomic<bool> stop{false};
  o.stop = &stop;
  o.on_failure = [&](const CampaignFailure&) { stop.store(true); };
  return run_campaign(o);
}

std::vector<std::string_view> names(bool equivalent) {
  std::vector<std::string_view> out;
  for (const MegakernelMutant& m : megakernel_mutants())
    if (m.equivalent == equivalent) out.push_back(m.name);
  return out;
}

TEST(Props_MegakernelMutants, TheCatalogueHasUniqueNamesAndOnlyReplacesTheMegakernelRule) {
  std::set<std::string_view> seen;
  bool equivalent_seen = false;
  for (const MegakernelMutant& m : megakernel_mutants()) {
    EXPECT_TRUE(seen.insert(m.name).second) << m.name;
    EXPECT_FALSE(m.description.empty()) << m.name;
    EXPECT_FALSE(!m.equivalent && equivalent_seen) << "killable mutants come first: " << m.name;
    equivalent_seen = equivalent_seen || m.equivalent;
    EXPECT_EQ(find_megakernel_mutant(m.name), &m);
    const planner::Profile p = with_mutant(planner::vyre_0_7_2(), m);
    EXPECT_EQ(p.name, m.name);
    EXPECT_TRUE(p.megakernel);
  }
  EXPECT_GE(names(false).size(), 6u);
  EXPECT_GE(names(true).size(), 2u);
  EXPECT_EQ(find_megakernel_mutant("no-such-mutant"), nullptr);
}

TEST(Props_MegakernelMutants, EachMutantOtherThanDedupingChangesSomePlan) {
  // The docs/vyre-0.7.2.md §7.1 example (0->3),(1->2) = [[0,1],[3,2]], and a chain under a root pair.
  const std::vector<std::pair<std::size_t, std::vector<planner::WaveDependency>>> graphs = {
      {4, {{0, 3}, {1, 2}}}, {4, {{0, 3}, {1, 2}, {2, 3}}}};
  // The mutant plans the graphs in order in one scratch (mk-scratch-edge-capacity needs the
  // second graph planned after the first); the base plans each in a fresh one.
  for (const MegakernelMutant& m : megakernel_mutants()) {
    if (m.name == "mk-dedupe-edges") continue;  // duplicates never change vyre's layers: same plan always
    const planner::Profile p = with_mutant(planner::vyre_0_7_2(), m);
    bool differs = false;
    planner::BarrierScratch reused;
    for (const auto& [n, deps] : graphs) {
      planner::BarrierScratch fresh;
      const auto base = planner::vyre_0_7_2().megakernel(n, deps, fresh);
      const auto plan = p.megakernel(n, deps, reused);
      differs = differs || !plan.ok() || !(*plan == *base);
    }
    EXPECT_TRUE(differs) << m.name << " returns the base plan on every test graph";
  }
}

class Props_MegakernelMutantIsKilled : public ::testing::TestWithParam<std::string_view> {};

// Each killable mutant: a fixed-seed DAG campaign finds it within 10 s (the bound), blames
// the megakernel planner, and the shrunk case replays against its recorded verdicts.
TEST_P(Props_MegakernelMutantIsKilled, WithinTenSecondsFromAFixedSeed) {
  const planner::Profile mutant = with_mutant(planner::vyre_0_7_2(), *find_megakernel_mutant(GetParam()));
  const CampaignResult result = hunt(mutant, 2000);
  ASSERT_FALSE(result.failures.empty()) << GetParam() << " survived " << result.progress.cases << " DAGs";
  const CampaignFailure& f = result.failures.front();
  EXPECT_EQ(f.blame, "megakernel") << f.signature << ": " << f.message;
  EXPECT_LT(f.found_after_seconds, 10.0);
  std::printf("[ mutant   ] %-28s killed by DAG %llu after %.3f s: %s\n", std::string(GetParam()).c_str(),
              static_cast<unsigned long long>(f.case_index + 1), f.found_after_seconds, f.signature.c_str());
  OracleOptions options;
  options.profiles = {&mutant};
  const CaseReport replay = evaluate_case(f.shrunk, options);
  const auto failures = check_expectations(f.shrunk, replay);
  EXPECT_TRUE(failures.empty()) << failures.front().message << "\n" << ir::print(f.shrunk);
  const OracleOutcome* waves = waves_outcome(replay);
  ASSERT_NE(waves, nullptr) << ir::print(f.shrunk);
  EXPECT_EQ(waves->verdict, ir::Verdict::Diverge);
}

INSTANTIATE_TEST_SUITE_P(Killable, Props_MegakernelMutantIsKilled, ::testing::ValuesIn(names(false)),
                         [](const auto& info) {
                           std::string n(info.param);
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

class Props_EquivalentMegakernelMutant : public ::testing::TestWithParam<std::string_view> {};

// An equivalent mutant returns another correct plan: the property must not flag it.
TEST_P(Props_EquivalentMegakernelMutant, IsNeverFlagged) {
  const planner::Profile mutant = with_mutant(planner::vyre_0_7_2(), *find_megakernel_mutant(GetParam()));
  const CampaignResult result = hunt(mutant, 200);
  EXPECT_EQ(result.progress.cases, 200u);
  EXPECT_TRUE(result.failures.empty()) << result.failures.front().signature << ": " << result.failures.front().message;
}

INSTANTIATE_TEST_SUITE_P(Equivalent, Props_EquivalentMegakernelMutant, ::testing::ValuesIn(names(true)),
                         [](const auto& info) {
                           std::string n(info.param);
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace gridcheck::props
