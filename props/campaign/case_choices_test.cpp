#include "props/campaign/case_choices.hpp"

#include <gtest/gtest.h>

#include "ir/equality.hpp"
#include "props/campaign/campaign.hpp"

namespace gridcheck::props {
namespace {

GeneratorConfig every_feature() {
  GeneratorConfig config;
  config.allowed = kAllFeatures;
  return config;
}

TEST(Props_ChoiceSource, ReplayThenRandomReplaysThePrefixThenDrawsFromTheSeed) {
  ChoiceSource fresh = ChoiceSource::random(99);
  for (int i = 0; i < 6; ++i) fresh.word();
  ChoiceSource mixed = ChoiceSource::replay_then_random({7, 8, 9}, 99);
  EXPECT_EQ(mixed.below(10), 7u);
  EXPECT_EQ(mixed.word(), 8u);
  EXPECT_TRUE(mixed.chance(1, 2));  // a recorded 9 replays as true
  // After the prefix, the same words as a fresh source of that seed, decoded as random draws.
  for (int i = 0; i < 6; ++i) EXPECT_EQ(mixed.word(), fresh.recorded()[static_cast<std::size_t>(i)]);
  EXPECT_EQ(mixed.recorded().size(), 9u);
  EXPECT_EQ(mixed.recorded()[2], 1u);
}

TEST(Props_CaseChoices, OneInputSetPerProgramIsThePlainCampaign) {
  const GeneratorConfig config = every_feature();
  for (std::uint64_t index = 0; index < 20; ++index) {
    ChoiceSource plain = ChoiceSource::random(case_seed(77, index));
    ChoiceSource chosen = campaign_case_choices(77, index, 1, config);
    const ir::Case a = generate_case(plain, config).test_case;
    const ir::Case b = generate_case(chosen, config).test_case;
    EXPECT_TRUE(ir::structurally_equal(a.program, b.program)) << index;
    EXPECT_EQ(plain.recorded(), chosen.recorded()) << index;
  }
}

TEST(Props_CaseChoices, KConsecutiveCasesShareTheirProgramAndDifferInTheirInputs) {
  const GeneratorConfig config = every_feature();
  constexpr std::uint32_t k = 4;
  std::size_t groups_with_inputs = 0;
  for (std::uint64_t base = 0; base < 40 * k; base += k) {
    ChoiceSource first_choices = campaign_case_choices(77, base, k, config);
    const GeneratedCase first = generate_case(first_choices, config);
    ChoiceSource plain = ChoiceSource::random(case_seed(77, base));
    EXPECT_TRUE(ir::structurally_equal(first.test_case.program, generate_case(plain, config).test_case.program));
    if (!first.test_case.inputs.empty()) ++groups_with_inputs;
    for (std::uint64_t v = 1; v < k; ++v) {
      ChoiceSource choices = campaign_case_choices(77, base + v, k, config);
      const GeneratedCase variant = generate_case(choices, config);
      ASSERT_TRUE(ir::structurally_equal(first.test_case.program, variant.test_case.program)) << base + v;
      EXPECT_EQ(first.test_case.grid, variant.test_case.grid);
      EXPECT_EQ(first.features, variant.features);
      ASSERT_EQ(first.test_case.inputs.size(), variant.test_case.inputs.size());
      for (std::size_t i = 0; i < first.test_case.inputs.size(); ++i)
        EXPECT_NE(first.test_case.inputs[i].seed, variant.test_case.inputs[i].seed) << base + v;
      // The recorded choices are the whole recipe: replaying them (as shrinking does) gives the variant.
      ChoiceSource replay = ChoiceSource::replay(choices.recorded());
      const GeneratedCase again = generate_case(replay, config);
      EXPECT_TRUE(ir::structurally_equal(variant.test_case.program, again.test_case.program));
      for (std::size_t i = 0; i < variant.test_case.inputs.size(); ++i)
        EXPECT_EQ(variant.test_case.inputs[i].seed, again.test_case.inputs[i].seed);
    }
  }
  EXPECT_GT(groups_with_inputs, 20u);  // most programs read caller bytes, so the variants test something
  // The next group is another program.
  ChoiceSource a = campaign_case_choices(77, 0, k, config);
  ChoiceSource b = campaign_case_choices(77, k, k, config);
  EXPECT_FALSE(ir::structurally_equal(generate_case(a, config).test_case.program, generate_case(b, config).test_case.program));
}

}  // namespace
}  // namespace gridcheck::props
