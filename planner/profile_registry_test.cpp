// The open profile registry: a profile registered from C++ is found by name after the built-ins;
// bad registrations are diagnostics (S200), never a second profile of the same name.
#include "planner/profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "ir/builder.hpp"
#include "planner/segment_plan.hpp"

namespace gridcheck::planner {
namespace {

TEST(Planner_ProfileRegistry, ARegisteredCopyIsFoundByNameAfterTheBuiltins) {
  Profile p = vyre_0_7_2();
  p.name = "registry-test-copy";
  const ir::Result<const Profile*> registered = register_profile(p);
  ASSERT_TRUE(registered.ok());
  EXPECT_EQ(find_profile("registry-test-copy"), *registered);
  const std::vector<std::string_view> names = profile_names();
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(names[0], "sound");
  EXPECT_EQ(names[1], "vyre-0.7.2");
  EXPECT_NE(std::find(names.begin() + 2, names.end(), "registry-test-copy"), names.end());
  EXPECT_EQ(&sound(), find_profile("sound"));  // built-ins keep their addresses
}

TEST(Planner_ProfileRegistry, DuplicateEmptyAndIncompleteProfilesAreRefused) {
  Profile twin = sound();  // same name as a built-in
  ir::Result<const Profile*> r = register_profile(twin);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics().all().front().code, "S200");

  Profile unnamed = vyre_0_7_2();
  unnamed.name.clear();
  EXPECT_FALSE(register_profile(unnamed).ok());

  Profile incomplete = vyre_0_7_2();
  incomplete.name = "registry-test-incomplete";
  incomplete.table.role = nullptr;
  r = register_profile(incomplete);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.diagnostics().all().front().message.find("unset rule"), std::string::npos);
  EXPECT_EQ(find_profile("registry-test-incomplete"), nullptr);
}

TEST(Planner_ProfileRegistry, AProfileMayAnswerWithAWholePlanOfItsOwn) {
  Profile p = vyre_0_7_2();
  p.name = "registry-test-whole";
  p.plan = [](const Profile& self, const ir::Program& source) {
    ir::Result<SplitPlan> plan = compose_split_plan(vyre_0_7_2(), source);
    if (plan.ok()) plan.value().profile = self.name;
    return plan;
  };
  const ir::Result<const Profile*> registered = register_profile(p);
  ASSERT_TRUE(registered.ok());
  ir::Builder b;
  auto out = b.output("out", 0, ir::ScalarType::U32, 4);
  const ir::Program program = b.wrapped({b.store(out, b.gid(), b.u32(1)), b.grid_sync(), b.store(out, b.gid(), b.u32(2))});
  const ir::Result<SplitPlan> plan = plan_split(**registered, program);  // goes through the profile's own planner
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan.value().profile, "registry-test-whole");
  EXPECT_EQ(plan.value().segments.size(), 2u);
}

}  // namespace
}  // namespace gridcheck::planner
