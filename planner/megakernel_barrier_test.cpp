// Seed 004 (`megakernel_barrier.rs`) tests, ported with the same assertions, plus the exact-output
// details of docs/vyre-0.7.2.md §7.1 that the seed pins only implicitly.
#include "planner/megakernel_barrier.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace gridcheck::planner {
namespace {

using Deps = std::vector<WaveDependency>;
using Waves = std::vector<std::size_t>;

TEST(MegakernelBarrier, IndependentWavesShareOneBarrierFreeGroup) {
  auto plan = plan_megakernel_barriers(4, {});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->global_barriers, 0u);
  ASSERT_EQ(plan->groups.size(), 1u);
  EXPECT_EQ(plan->groups[0].waves, (Waves{0, 1, 2, 3}));
}

TEST(MegakernelBarrier, DependencyChainRequiresOneBarrierBetweenEachWave) {
  const Deps deps{{0, 1}, {1, 2}, {2, 3}};
  auto plan = plan_megakernel_barriers(4, deps);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->global_barriers, 3u);
  EXPECT_EQ(plan->groups[0].waves, (Waves{0}));
  EXPECT_EQ(plan->groups[1].waves, (Waves{1}));
  EXPECT_EQ(plan->groups[2].waves, (Waves{2}));
  EXPECT_EQ(plan->groups[3].waves, (Waves{3}));
}

TEST(MegakernelBarrier, DiamondDependenciesFuseMiddleWaves) {
  const Deps deps{{0, 1}, {0, 2}, {1, 3}, {2, 3}};
  auto plan = plan_megakernel_barriers(4, deps);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->global_barriers, 2u);
  EXPECT_EQ(plan->groups[0].waves, (Waves{0}));
  EXPECT_EQ(plan->groups[1].waves, (Waves{1, 2}));
  EXPECT_EQ(plan->groups[2].waves, (Waves{3}));
}

TEST(MegakernelBarrier, InvalidSelfAndCyclicDependenciesFailLoudly) {
  const Deps out_of_range{{0, 2}};
  auto invalid = plan_megakernel_barriers(2, out_of_range);
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.error().kind, MegakernelErrorKind::InvalidWave);

  const Deps self{{1, 1}};
  auto self_edge = plan_megakernel_barriers(2, self);
  ASSERT_FALSE(self_edge.ok());
  EXPECT_EQ(self_edge.error(), MegakernelError::self_dependency(1));

  const Deps cyclic{{0, 1}, {1, 0}};
  auto cycle = plan_megakernel_barriers(2, cyclic);
  ASSERT_FALSE(cycle.ok());
  EXPECT_EQ(cycle.error(), MegakernelError::cycle(2));
}

Deps fanout(std::size_t targets) {
  Deps deps;
  for (std::size_t after = 1; after <= targets; ++after) deps.push_back({0, after});
  return deps;
}

// Replaces the seed's source-pin test (`barrier_planner_uses_csr_adjacency_for_wide_wave_graphs`),
// which greps the Rust source for forbidden allocation patterns and cannot be ported. Instead this
// proves the CSR path is what runs: a plan of a 1,024-wide fan-out leaves exactly one CSR target
// array of `dependencies` entries and wave-sized count/in-degree/offset arrays in the scratch, and a
// second plan of the same shape does not grow them (no per-wave adjacency allocation survives).
TEST(MegakernelBarrier, WideFanoutSchedulesThroughContiguousCsrScratch) {
  const Deps deps = fanout(1'024);
  auto plan = plan_megakernel_barriers(1'025, deps);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->global_barriers, 1u);
  EXPECT_EQ(plan->groups[0].waves, (Waves{0}));
  EXPECT_EQ(plan->groups[1].waves.size(), 1'024u);

  BarrierScratch scratch;
  EXPECT_EQ(scratch.wave_capacity(), 0u);
  EXPECT_EQ(scratch.dependency_capacity(), 0u);
  auto first = plan_megakernel_barriers_with_scratch(1'025, deps, scratch);
  ASSERT_TRUE(first.ok());
  const std::size_t waves = scratch.wave_capacity();
  const std::size_t edges = scratch.dependency_capacity();
  EXPECT_GE(waves, 1'025u);
  EXPECT_GE(edges, 1'024u);
  EXPECT_LT(edges, 2 * 1'024u) << "the CSR target array holds one entry per dependency";
  auto second = plan_megakernel_barriers_with_scratch(1'025, deps, scratch);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(scratch.wave_capacity(), waves) << "a repeated shape must not grow the scratch";
  EXPECT_EQ(scratch.dependency_capacity(), edges);
}

TEST(MegakernelBarrier, ReusesCallerOwnedCsrScratchAcrossShapes) {
  auto scratch_or = BarrierScratch::try_with_capacity(1'025, 1'024);
  ASSERT_TRUE(scratch_or.ok());
  BarrierScratch scratch = std::move(scratch_or).value();
  const Deps wide_deps = fanout(1'024);
  auto wide = plan_megakernel_barriers_with_scratch(1'025, wide_deps, scratch);
  ASSERT_TRUE(wide.ok());
  const std::size_t wave_capacity = scratch.wave_capacity();
  const std::size_t dependency_capacity = scratch.dependency_capacity();
  EXPECT_EQ(wide->groups[1].waves.size(), 1'024u);

  const Deps chain{{0, 1}, {1, 2}, {2, 3}};
  auto narrow = plan_megakernel_barriers_with_scratch(4, chain, scratch);
  ASSERT_TRUE(narrow.ok());
  EXPECT_EQ(narrow->global_barriers, 3u);
  EXPECT_GE(scratch.wave_capacity(), wave_capacity);
  EXPECT_GE(scratch.dependency_capacity(), dependency_capacity);
}

TEST(MegakernelBarrier, GeneratedLayeredDagsPreserveExactBarrierDepthFor2048Shapes) {
  BarrierScratch scratch;
  for (std::size_t width = 1; width <= 64; ++width) {
    for (std::size_t depth = 1; depth <= 32; ++depth) {
      const std::size_t wave_count = width * depth;
      Deps deps;
      for (std::size_t layer = 0; layer + 1 < depth; ++layer) {
        const std::size_t base = layer * width;
        const std::size_t next = base + width;
        for (std::size_t slot = 0; slot < width; ++slot) deps.push_back({base + slot, next + slot});
      }
      auto plan = plan_megakernel_barriers_with_scratch(wave_count, deps, scratch);
      ASSERT_TRUE(plan.ok()) << width << "x" << depth;
      ASSERT_EQ(plan->groups.size(), depth);
      ASSERT_EQ(plan->global_barriers, depth - 1);
      for (const BarrierGroup& group : plan->groups) ASSERT_EQ(group.waves.size(), width);
    }
  }
}

// ------------------------------------------------------------------ docs/vyre-0.7.2.md §7.1 exact output

TEST(MegakernelBarrier, ZeroWavesWithoutDependenciesIsAnEmptyPlan) {
  auto plan = plan_megakernel_barriers(0, {});
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->groups.empty());
  EXPECT_EQ(plan->global_barriers, 0u);
}

TEST(MegakernelBarrier, ZeroWavesWithDependenciesReportsTheFirstEdgeAsInvalid) {
  const Deps deps{{3, 4}, {0, 0}};
  auto plan = plan_megakernel_barriers(0, deps);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error(), MegakernelError::invalid_wave(0, 3, 4));
}

TEST(MegakernelBarrier, TheFirstBadEdgeInInputOrderDecidesTheError) {
  const Deps self_first{{1, 1}, {0, 5}};
  EXPECT_EQ(plan_megakernel_barriers(2, self_first).error(), MegakernelError::self_dependency(1));
  const Deps range_first{{0, 5}, {1, 1}};
  EXPECT_EQ(plan_megakernel_barriers(2, range_first).error(), MegakernelError::invalid_wave(2, 0, 5));
  // A self-edge that is also out of range reports the range.
  const Deps both{{7, 7}};
  EXPECT_EQ(plan_megakernel_barriers(2, both).error(), MegakernelError::invalid_wave(2, 7, 7));
  // Validation precedes cycle detection.
  const Deps cycle_then_self{{0, 1}, {1, 0}, {2, 2}};
  EXPECT_EQ(plan_megakernel_barriers(3, cycle_then_self).error(), MegakernelError::self_dependency(2));
}

TEST(MegakernelBarrier, LaterLayersFollowDiscoveryOrderNotIndexOrder) {
  const Deps deps{{0, 3}, {1, 2}};
  auto plan = plan_megakernel_barriers(4, deps);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->groups.size(), 2u);
  EXPECT_EQ(plan->groups[0].waves, (Waves{0, 1}));
  EXPECT_EQ(plan->groups[1].waves, (Waves{3, 2}));
}

TEST(MegakernelBarrier, TargetsOfOneWaveKeepTheirInputOrder) {
  const Deps deps{{0, 4}, {0, 2}, {0, 3}, {1, 5}};
  auto plan = plan_megakernel_barriers(6, deps);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->groups[1].waves, (Waves{4, 2, 3, 5}));
}

TEST(MegakernelBarrier, DuplicateEdgesCountTwiceAndStillSchedule) {
  const Deps deps{{0, 1}, {0, 1}, {1, 2}};
  auto plan = plan_megakernel_barriers(3, deps);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->groups.size(), 3u);
  EXPECT_EQ(plan->groups[1].waves, (Waves{1})) << "a wave released once even though its in-degree was 2";
}

TEST(MegakernelBarrier, CycleCountIncludesWavesDownstreamOfTheCycle) {
  // 0 is free; 1 <-> 2 is the cycle; 3 and 4 hang below it.
  const Deps deps{{1, 2}, {2, 1}, {2, 3}, {3, 4}, {0, 3}};
  auto plan = plan_megakernel_barriers(5, deps);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error(), MegakernelError::cycle(4));
}

TEST(MegakernelBarrier, NoDependenciesGiveOneAscendingGroupEvenWhenLarge) {
  auto plan = plan_megakernel_barriers(1'000, {});
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->groups.size(), 1u);
  for (std::size_t i = 0; i < 1'000; ++i) ASSERT_EQ(plan->groups[0].waves[i], i);
}

TEST(MegakernelBarrier, ErrorTextsEndWithAFix) {
  EXPECT_EQ(to_string(MegakernelError::invalid_wave(2, 0, 5)),
            "megakernel dependency references invalid wave before=0 after=5 for wave_count=2. Fix: emit "
            "dependencies only over normalized wave indices.");
  EXPECT_EQ(to_string(MegakernelError::self_dependency(1)),
            "megakernel wave 1 depends on itself. Fix: remove the self-edge or split the wave into distinct "
            "producer/consumer phases.");
  EXPECT_EQ(to_string(MegakernelError::cycle(2)),
            "megakernel wave dependency graph contains a cycle with 2 unscheduled waves. Fix: break the cyclic "
            "dataflow edge or insert an explicit iterative fixed-point kernel.");
  const ir::Diagnostic d = to_diagnostic(MegakernelError::cycle(2));
  EXPECT_EQ(d.code, "S103");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].message.rfind("fix: ", 0), 0u);
}

TEST(MegakernelBarrier, ImpossibleReservationIsATypedErrorNotAnException) {
  auto scratch = BarrierScratch::try_with_capacity(static_cast<std::size_t>(-1) / 2, 0);
  ASSERT_FALSE(scratch.ok());
  EXPECT_EQ(scratch.error().kind, MegakernelErrorKind::StorageReserveFailed);
  EXPECT_NE(to_string(scratch.error()).find("Fix: shard the dependency graph"), std::string::npos);
  auto overflow = BarrierScratch::try_with_capacity(static_cast<std::size_t>(-1), 0);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.error(), MegakernelError::overflow("barrier scratch wave offsets"));
}

}  // namespace
}  // namespace gridcheck::planner
