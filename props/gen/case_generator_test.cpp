#include "props/gen/case_generator.hpp"

#include <gtest/gtest.h>

#include "ir/equality.hpp"
#include "ir/typecheck.hpp"

namespace gridcheck::props {
namespace {

TEST(Props_Generator, SameSeedGivesTheSameCase) {
  GeneratorConfig config;
  config.allowed = kAllFeatures;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    ChoiceSource a = ChoiceSource::random(seed);
    ChoiceSource b = ChoiceSource::random(seed);
    EXPECT_TRUE(ir::structurally_equal(generate_case(a, config).test_case.program,
                                       generate_case(b, config).test_case.program));
  }
}

TEST(Props_Generator, RecordedChoicesReplayTheSameCase) {
  GeneratorConfig config;
  config.allowed = kAllFeatures;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    ChoiceSource random = ChoiceSource::random(seed);
    const GeneratedCase original = generate_case(random, config);
    ChoiceSource replay = ChoiceSource::replay(random.recorded());
    const GeneratedCase again = generate_case(replay, config);
    ASSERT_TRUE(ir::structurally_equal(original.test_case.program, again.test_case.program)) << "seed " << seed;
    EXPECT_EQ(original.features, again.features);
    EXPECT_EQ(original.test_case.grid, again.test_case.grid);
  }
}

TEST(Props_Generator, EmptyChoiceSequenceDecodesToTheSimplestCase) {
  ChoiceSource empty = ChoiceSource::replay({});
  const GeneratedCase c = generate_case(empty, GeneratorConfig{});
  EXPECT_EQ(c.features, 0u);
  EXPECT_TRUE(ir::typecheck(c.test_case.program).ok());
}

TEST(Props_Generator, GeneratedProgramsTypecheckWithEveryFeature) {
  GeneratorConfig config;
  config.allowed = kAllFeatures;
  for (std::uint64_t seed = 0; seed < 2000; ++seed) {
    ChoiceSource random = ChoiceSource::random(seed);
    const GeneratedCase c = generate_case(random, config);
    auto types = ir::typecheck(c.test_case.program);
    ASSERT_TRUE(types.ok()) << "seed " << seed << ": " << ir::render(types.diagnostics());
  }
}

TEST(Props_Generator, ForcedFeaturesAreAlwaysOn) {
  GeneratorConfig config;
  config.allowed = kAllFeatures;
  config.forced = bit(Feature::Atomics) | bit(Feature::WorkgroupAcrossFence);
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    ChoiceSource random = ChoiceSource::random(seed);
    EXPECT_EQ(generate_case(random, config).features & config.forced, config.forced);
  }
}

}  // namespace
}  // namespace gridcheck::props
