// The shape mutants (mutant_catalogue_shapes.cpp): each is killed by a fixed-seed campaign that
// may make its shape, and stays silent — an identity — on a campaign of every other feature.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <string_view>

#include "ir/text/printer.hpp"
#include "planner/profile.hpp"
#include "props/campaign/campaign.hpp"
#include "props/gen/features.hpp"
#include "props/mutants/mutant_catalogue.hpp"
#include "props/oracle/evaluate_case.hpp"

namespace gridcheck::props {
namespace {

struct ShapeMutant {
  std::string_view mutant;
  Feature shape;
};

constexpr ShapeMutant kShapeMutants[] = {
    {"grid-x-extent-only", Feature::MultiDimGrid},
    {"scratch-sized-by-x", Feature::MultiDimGrid},
    {"workgroup-copy-no-tail", Feature::WorkgroupTail},
    {"fenced-loop-from-zero", Feature::LoopStart},
    {"fenced-if-else-dropped", Feature::FencedElse},
    {"fenced-else-first-piece-only", Feature::FencedElse},
    {"fixpoint-capped-at-3", Feature::LongFixpoint},
    {"convergence-period-two", Feature::LongFixpoint},
};

CampaignResult campaign(const planner::Profile& mutant, FeatureMask allowed, std::uint64_t max_cases) {
  CampaignOptions o;
  o.seed = 1;
  o.seconds = 0;
  o.max_cases = max_cases;
  o.generator.allowed = allowed;
  o.generator.max_divergence_features = 0;  // as `fuzz` with only sound: any combination
  o.oracle.profiles = {&mutant};
  o.shrink_attempts = 300;
  std::atomic<bool> stop{false};
  o.stop = &stop;
  o.on_failure = [&](const CampaignFailure&) { stop.store(true); };
  return run_campaign(o);
}

class Props_ShapeMutant : public ::testing::TestWithParam<ShapeMutant> {
 protected:
  const Mutant& mutant() const { return *find_mutant(GetParam().mutant); }
  planner::Profile profile() const { return make_mutant(mutant(), mutant_base(mutant())); }
};

TEST_P(Props_ShapeMutant, IsInTheCatalogueOnASoundBase) {
  const Mutant* m = find_mutant(GetParam().mutant);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->equivalent.empty());
  EXPECT_EQ(mutant_base(*m).name, "sound");
  EXPECT_NE(m->origin.find(name_of(GetParam().shape)), std::string::npos) << m->origin;
}

TEST_P(Props_ShapeMutant, AFixedSeedCampaignWithItsShapeKillsIt) {
  const planner::Profile mutant = profile();
  const CampaignResult result = campaign(mutant, kAllFeatures, 5000);
  ASSERT_FALSE(result.failures.empty()) << GetParam().mutant << " survived " << result.progress.cases << " cases";
  const CampaignFailure& f = result.failures.front();
  EXPECT_EQ(f.blame, "planner") << f.signature << ": " << f.message;
  // The kill is real: the sound base equals R on the shrunk case.
  OracleOptions base;
  base.profiles = {&planner::sound()};
  const CaseReport report = evaluate_case(f.shrunk, base);
  const OracleOutcome* split = report.find("H-cpu", "sound");
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(split->verdict, ir::Verdict::Match) << ir::print(f.shrunk);
  std::printf("[ shape    ] %-30s killed by case %llu after %.3f s: %s\n", std::string(GetParam().mutant).c_str(),
              static_cast<unsigned long long>(f.case_index + 1), f.found_after_seconds, f.signature.c_str());
}

// The twin that must stay silent: without its shape the mutant plans and runs like its base.
TEST_P(Props_ShapeMutant, ACampaignWithoutItsShapeNeverSeesIt) {
  const planner::Profile mutant = profile();
  const CampaignResult result = campaign(mutant, kAllFeatures & ~bit(GetParam().shape), 400);
  EXPECT_EQ(result.progress.cases, 400u);
  EXPECT_TRUE(result.failures.empty()) << result.failures.front().signature << "\n"
                                       << ir::print(result.failures.front().shrunk);
}

INSTANTIATE_TEST_SUITE_P(Catalogue, Props_ShapeMutant, ::testing::ValuesIn(kShapeMutants), [](const auto& info) {
  std::string n(info.param.mutant);
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
});

}  // namespace
}  // namespace gridcheck::props
