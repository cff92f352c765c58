#include "ir/grid_inference.hpp"

#include <gtest/gtest.h>

#include "ir/builder.hpp"

namespace gridcheck::ir {
namespace {

std::vector<std::uint64_t> declared_counts(const Program& p) {
  std::vector<std::uint64_t> counts;
  for (const BufferDecl& b : p.buffers()) counts.push_back(b.count);
  return counts;
}

TEST(IR_GridInference, ReferenceCoversTheLargestOutput) {
  Builder b({64, 1, 1});
  b.read("a", 0, ScalarType::U32, 1000);
  b.output("out", 1, ScalarType::U32, 130);
  Program p = b.wrapped({});
  auto grid = reference_grid(p, declared_counts(p));
  ASSERT_TRUE(grid.ok());
  EXPECT_EQ(*grid, (Grid{3, 1, 1}));  // ceil(130 / 64); the larger input does not count
}

TEST(IR_GridInference, ReferenceUsesInputsWhenThereIsNoOutput) {
  Builder b({64, 1, 1});
  b.read("a", 0, ScalarType::U32, 1000);
  Program p = b.wrapped({});
  auto grid = reference_grid(p, declared_counts(p));
  ASSERT_TRUE(grid.ok());
  EXPECT_EQ(*grid, (Grid{16, 1, 1}));
}

TEST(IR_GridInference, ReferenceForcesFullSpanWithAtomicsOrWorkgroupMemory) {
  for (bool use_atomic : {false, true}) {
    Builder b({64, 1, 1});
    b.read("a", 0, ScalarType::U32, 1000);
    Buf out = b.output("out", 1, ScalarType::U32, 1);
    if (!use_atomic) b.workgroup("sh", 64, ScalarType::U32);
    Program p = use_atomic ? b.wrapped({b.let("x", b.atomic_add(out, b.u32(0), b.u32(1)))}) : b.wrapped({});
    auto grid = reference_grid(p, declared_counts(p));
    ASSERT_TRUE(grid.ok());
    EXPECT_EQ(*grid, (Grid{16, 1, 1})) << "atomic=" << use_atomic;
  }
}

TEST(IR_GridInference, ReferenceTwinWithoutAtomicUsesOnlyTheOutput) {
  Builder b({64, 1, 1});
  b.read("a", 0, ScalarType::U32, 1000);
  Buf out = b.output("out", 1, ScalarType::U32, 1);
  Program p = b.wrapped({b.store(out, b.u32(0), b.u32(1))});
  auto grid = reference_grid(p, declared_counts(p));
  ASSERT_TRUE(grid.ok());
  EXPECT_EQ(*grid, (Grid{1, 1, 1}));
}

TEST(IR_GridInference, ReferenceUsesRuntimeByteLengthsAndCallerFloor) {
  Builder b({8, 1, 1});
  b.read_write("rw", 0, ScalarType::U32);  // runtime sized: a reference output
  Program p = b.wrapped({});
  auto grid = reference_grid(p, std::vector<std::uint64_t>{100});
  ASSERT_TRUE(grid.ok());
  EXPECT_EQ(*grid, (Grid{13, 1, 1}));
  auto floored = reference_grid(p, std::vector<std::uint64_t>{100}, 800);
  ASSERT_TRUE(floored.ok());
  EXPECT_EQ(*floored, (Grid{100, 1, 1}));
}

TEST(IR_GridInference, ReferenceSpreadsOverActiveAxesWithTheExactRoot) {
  Builder b({8, 8, 1});
  b.output("out", 0, ScalarType::U32, 64 * 10);  // 10 workgroups over 2 axes: 4x4
  Program p = b.wrapped({});
  auto grid = reference_grid(p, declared_counts(p));
  ASSERT_TRUE(grid.ok());
  EXPECT_EQ(*grid, (Grid{4, 4, 1}));

  Builder c({4, 4, 4});
  c.output("out", 0, ScalarType::U32, 64 * 64);  // 64 workgroups over 3 axes: exactly 4x4x4
  Program q = c.wrapped({});
  auto cube = reference_grid(q, declared_counts(q));
  ASSERT_TRUE(cube.ok());
  EXPECT_EQ(*cube, (Grid{4, 4, 4}));
}

TEST(IR_GridInference, ReferenceHonoursPgNodesAtBindingZero) {
  Builder b({1, 1, 1});
  b.read("pg_nodes", 0, ScalarType::U32, 50);
  b.output("out", 1, ScalarType::U32, 5);
  Program p = b.wrapped({});
  auto grid = reference_grid(p, declared_counts(p));
  ASSERT_TRUE(grid.ok());
  EXPECT_EQ(*grid, (Grid{50, 1, 1}));
}

TEST(IR_GridInference, LaunchPlanUsesOutputsAndInputOutputs) {
  Builder b({64, 1, 1});
  b.read("a", 0, ScalarType::U32, 1024);
  b.output("hit", 1, ScalarType::U32, 1);  // docs/vyre-0.7.2.md#g1: the lone output sets the launch size
  Program p = b.wrapped({});
  auto plan = launch_plan(p);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->grid, (Grid{1, 1, 1}));
  EXPECT_EQ(plan->element_count, 1u);
}

TEST(IR_GridInference, LaunchPlanFallsBackToEveryBindingWithoutProducedCounts) {
  Builder b({64, 1, 1});
  b.read("a", 0, ScalarType::U32, 1024);
  b.output("out", 1, ScalarType::U32);  // runtime sized: count 0
  Program p = b.wrapped({});
  auto plan = launch_plan(p);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->grid, (Grid{16, 1, 1}));
  EXPECT_EQ(plan->element_count, 1024u);
}

TEST(IR_GridInference, LaunchPlanUsesEveryBindingWithSharedMemory) {
  Builder b({64, 1, 1});
  b.read("a", 0, ScalarType::U32, 1024);
  b.output("out", 1, ScalarType::U32, 1);
  b.workgroup("sh", 64, ScalarType::U32);
  Program p = b.wrapped({});
  auto plan = launch_plan(p);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->element_count, 1024u);
}

TEST(IR_GridInference, LaunchPlanOverrideSetsElementCount) {
  Builder b({32, 1, 1});
  b.output("out", 0, ScalarType::U32, 1);
  Program p = b.wrapped({});
  auto plan = launch_plan(p, Grid{5, 2, 1});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->grid, (Grid{5, 2, 1}));
  EXPECT_EQ(plan->element_count, 160u);
}

TEST(IR_GridInference, LaunchPlanRefusesMultiDimensionalWorkgroupsWithoutOverride) {
  Builder b({8, 8, 1});
  b.output("out", 0, ScalarType::U32, 64);
  Program p = b.wrapped({});
  auto plan = launch_plan(p);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.diagnostics().all()[0].code, "G121");
}

}  // namespace
}  // namespace gridcheck::ir
