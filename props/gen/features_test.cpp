#include "props/gen/features.hpp"

#include <gtest/gtest.h>

namespace gridcheck::props {
namespace {

TEST(Props_Features, ListsAreReadLeftToRightAndAMinusRemoves) {
  EXPECT_EQ(parse_feature_list("all"), kAllFeatures);
  EXPECT_EQ(parse_feature_list("benign,divergence"), kAllFeatures);
  EXPECT_EQ(parse_feature_list("multi_dim_grid,atomics"), bit(Feature::MultiDimGrid) | bit(Feature::Atomics));
  EXPECT_EQ(parse_feature_list("all,-multi_dim_grid"), kAllFeatures & ~bit(Feature::MultiDimGrid));
  EXPECT_EQ(parse_feature_list("all,-benign"), kDivergenceFeatures);
  // A removal applies to what is listed before it only.
  EXPECT_EQ(parse_feature_list("-atomics,atomics"), bit(Feature::Atomics));
  EXPECT_EQ(parse_feature_list("atomics,-atomics"), FeatureMask{0});
  EXPECT_EQ(parse_feature_list(describe(kAllFeatures)), kAllFeatures);
}

TEST(Props_Features, UnknownNamesAreRejected) {
  EXPECT_FALSE(parse_feature_list("all,-no_such_feature").has_value());
  EXPECT_FALSE(parse_feature_list("-").has_value());
}

}  // namespace
}  // namespace gridcheck::props
