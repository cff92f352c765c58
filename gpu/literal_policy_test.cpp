// LiteralPolicy: its names and what Auto gives on which driver (docs/gpu.md, "Program literals").
#include <gtest/gtest.h>

#include "gpu/glsl_lowering.hpp"
#include "gpu/vulkan_context.hpp"

namespace gridcheck::gpu {
namespace {

TEST(Gpu_LiteralPolicy, NamesAreTheCliValuesAndNothingElse) {
  EXPECT_EQ(literal_policy_named("auto"), LiteralPolicy::Auto);
  EXPECT_EQ(literal_policy_named("hidden"), LiteralPolicy::Hidden);
  EXPECT_EQ(literal_policy_named("visible"), LiteralPolicy::Visible);
  EXPECT_FALSE(literal_policy_named("Visible").has_value());
  EXPECT_FALSE(literal_policy_named("").has_value());
}

TEST(Gpu_LiteralPolicy, AutoShowsLiteralsOnlyToNvidiasOwnDriver) {
  DeviceInfo nvidia;
  nvidia.driver_id = VK_DRIVER_ID_NVIDIA_PROPRIETARY;
  EXPECT_FALSE(hides_literals_by_default(nvidia));
  // The twins: Mesa's drivers, another vendor's own driver and a driver that names no ID keep them hidden.
  for (const VkDriverId id : {VK_DRIVER_ID_MESA_LLVMPIPE, VK_DRIVER_ID_MESA_RADV, VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA,
                              VK_DRIVER_ID_AMD_PROPRIETARY, static_cast<VkDriverId>(0)}) {
    DeviceInfo other;
    other.driver_id = id;
    EXPECT_TRUE(hides_literals_by_default(other)) << id;
  }
}

}  // namespace
}  // namespace gridcheck::gpu
