// The host split proper (docs/vyre-0.7.2.md §6.2–§6.6): the upstream split tests of §8 that apply, plus
// hoisting, wrapper and let-propagation details. Expected segments are built independently with
// the builder DSL and compared structurally.
#include "planner/fence_split.hpp"

#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/equality.hpp"
#include "planner/profile.hpp"
#include "planner/segment_plan.hpp"

namespace gridcheck::planner {
namespace {

using ir::Buf;
using ir::Builder;
using ir::Program;
using ir::ScalarType;

// The buffers every program here declares, in this order.
struct Bufs {
  Buf out;
  Buf a;
};
Bufs declare(Builder& b) { return Bufs{b.output("out", 0, ScalarType::U32, 4), b.read("a", 1, ScalarType::U32, 4)}; }

RawSplit split(const Program& p) { return split_on_grid_sync(vyre_0_7_2(), p); }

std::size_t inner_length(const Program& segment) { return peel_wrappers(segment).inner.size(); }

void expect_same(const Program& actual, const Program& expected) {
  EXPECT_TRUE(ir::structurally_equal(actual, expected))
      << "hash " << ir::content_hash(actual) << " != " << ir::content_hash(expected);
}

// ---------------------------------------------------------------- upstream (docs/vyre-0.7.2.md §8) split tests

TEST(Planner_Split, NoGridSyncReturnsTheProgramAsTheSingleSegment) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.store(x.out, b.u32(0), b.u32(1))});
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 1u);
  EXPECT_EQ(s.fence_count, 0u);
  EXPECT_EQ(inner_length(s.segments[0]), 1u);
  expect_same(s.segments[0], p);
  EXPECT_FALSE(contains_grid_sync(p));
}

TEST(Planner_Split, OneGridSyncSplitsIntoTwo) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.store(x.out, b.u32(0), b.u32(1)), b.grid_sync(), b.store(x.out, b.u32(1), b.u32(2))});
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 2u);
  for (const Program& segment : s.segments) {
    EXPECT_EQ(inner_length(segment), 1u);
    EXPECT_FALSE(contains_grid_sync(segment));
  }
}

TEST(Planner_Split, BlockNestedGridSyncSplitsIntoTwo) {
  Builder b;
  Bufs x = declare(b);
  Program p =
      b.wrapped({b.block({b.store(x.out, b.u32(0), b.u32(1)), b.grid_sync(), b.store(x.out, b.u32(1), b.u32(2))})});
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 2u);
  EXPECT_EQ(inner_length(s.segments[0]), 1u);
  EXPECT_EQ(inner_length(s.segments[1]), 1u);
  // Root Region and Block are peeled and re-wrapped around each piece.
  Builder e;
  Bufs y = declare(e);
  expect_same(s.segments[1], e.wrapped({e.block({e.store(y.out, e.u32(1), e.u32(2))})}));
}

TEST(Planner_Split, ThreeGridSyncsSplitIntoFour) {
  Builder b;
  Bufs x = declare(b);
  std::vector<ir::S> body;
  for (std::uint32_t i = 0; i < 4; ++i) {
    if (i > 0) body.push_back(b.grid_sync());
    body.push_back(b.store(x.out, b.u32(i), b.u32(i)));
  }
  RawSplit s = split(b.wrapped(body));
  ASSERT_EQ(s.segments.size(), 4u);
  EXPECT_EQ(s.fence_count, 3u);
  for (const Program& segment : s.segments) EXPECT_EQ(inner_length(segment), 1u);
}

TEST(Planner_Split, WorkgroupBarrierDoesNotSplit) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.store(x.out, b.u32(0), b.u32(1)), b.barrier(ir::MemoryOrdering::SeqCst),
                         b.store(x.out, b.u32(1), b.u32(2))});
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 1u);
  EXPECT_EQ(inner_length(s.segments[0]), 3u);
  EXPECT_FALSE(contains_grid_sync(p));
}

TEST(Planner_Split, BuffersAndWorkgroupSizePropagateToEachSegment) {
  Builder b({64, 2, 1});
  Bufs x = declare(b);
  Buf sh = b.workgroup("sh", 64, ScalarType::U32);
  Program p = b.wrapped({b.store(sh, b.lid(), b.u32(1)), b.grid_sync(), b.store(x.out, b.u32(0), b.u32(2))});
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 2u);
  for (const Program& segment : s.segments) {
    EXPECT_EQ(segment.workgroup_size(), (std::array<std::uint32_t, 3>{64, 2, 1}));
    ASSERT_EQ(segment.buffers().size(), 3u) << "raw segments keep the full source table";
    EXPECT_EQ(segment.name(segment.buffers()[0].name), "out");
    EXPECT_TRUE(segment.buffers()[0].is_output);
    EXPECT_EQ(segment.name(segment.buffers()[1].name), "a");
    EXPECT_EQ(segment.name(segment.buffers()[2].name), "sh");
    EXPECT_EQ(segment.buffers()[2].count, 64u);
  }
}

TEST(Planner_Split, LoopNestedFenceIsDetectedButPreservedInOneSegment) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.loop("i", b.u32(0), b.u32(2), {b.store(x.out, b.var("i"), b.u32(1)), b.grid_sync()})});
  EXPECT_TRUE(contains_grid_sync(p)) << "detection is deep";
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 1u) << "hoisting is shallow";
  EXPECT_EQ(count_fences(s.segments[0], s.segments[0].entry()), 1u);
  expect_same(s.segments[0], p);
}

TEST(Planner_Split, IfNestedFenceIsDetectedButNotHoisted) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.store(x.out, b.u32(0), b.u32(1)),
                         b.block({b.if_(b.wgid() == b.u32(0), {b.grid_sync()})}), b.store(x.out, b.u32(1), b.u32(1))});
  EXPECT_TRUE(contains_grid_sync(p));
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 1u);
  EXPECT_EQ(count_fences(s.segments[0], s.segments[0].entry()), 1u);
}

TEST(Planner_Split, DispatchLevelFenceBecomesALaunchBoundary) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.store(x.out, b.u32(0), b.u32(1)), b.grid_sync(), b.store(x.out, b.u32(1), b.u32(2))});
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 2u);
  for (const Program& segment : s.segments) EXPECT_EQ(count_fences(segment, segment.entry()), 0u);
}

// ---------------------------------------------------------------------- cutting and hoisting

TEST(Planner_Split, LeadingTrailingAndAdjacentFencesGiveEmptySegments) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.grid_sync(), b.store(x.out, b.u32(0), b.u32(1)), b.grid_sync(), b.grid_sync()});
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 4u);
  EXPECT_EQ(inner_length(s.segments[0]), 0u);
  EXPECT_EQ(inner_length(s.segments[1]), 1u);
  EXPECT_EQ(inner_length(s.segments[2]), 0u);
  EXPECT_EQ(inner_length(s.segments[3]), 0u);
  Builder e;
  declare(e);
  expect_same(s.segments[3], e.wrapped(Builder::Body{}));
}

TEST(Planner_Split, HoistingOutOfANestedBlockKeepsEmptyPiecesAndOrder) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.store(x.out, b.u32(0), b.u32(0)),
                         b.block({b.store(x.out, b.u32(1), b.u32(1)), b.block({b.grid_sync()}),
                                  b.store(x.out, b.u32(2), b.u32(2))}),
                         b.store(x.out, b.u32(3), b.u32(3))});
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 2u);
  // Inner Block[GS] -> Block[], GS, Block[]; the outer Block is then cut around the hoisted fence.
  Builder e0;
  Bufs y0 = declare(e0);
  expect_same(s.segments[0], e0.wrapped({e0.store(y0.out, e0.u32(0), e0.u32(0)),
                                         e0.block({e0.store(y0.out, e0.u32(1), e0.u32(1)), e0.block({})})}));
  Builder e1;
  Bufs y1 = declare(e1);
  expect_same(s.segments[1], e1.wrapped({e1.block({e1.block({}), e1.store(y1.out, e1.u32(2), e1.u32(2))}),
                                         e1.store(y1.out, e1.u32(3), e1.u32(3))}));
}

ir::S region_with_source(Builder& b, std::string_view generator, std::string_view source_region,
                         std::vector<ir::S> body) {
  std::vector<ir::StmtId> ids;
  for (ir::S s : body) ids.push_back(s.id);
  ir::Stmt s;
  s.kind = ir::StmtKind::Region;
  s.names = {b.program().intern(generator), b.program().intern(source_region), ir::kNoName};
  s.body = b.program().add_list(ids);
  return ir::S{b.program().add_stmt(s)};
}

TEST(Planner_Split, HoistedRegionPiecesKeepGeneratorAndSourceRegion) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.raw({b.region("lead", {b.store(x.out, b.u32(9), b.u32(9))}),
                     region_with_source(b, "gen", "src.rs:1",
                                        {b.store(x.out, b.u32(0), b.u32(1)), b.grid_sync(),
                                         b.store(x.out, b.u32(1), b.u32(2))})});
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 2u);
  // Two top-level Regions: nothing is peeled, so segment entries are not wrapped again.
  Builder e;
  Bufs y = declare(e);
  expect_same(s.segments[1], e.raw({region_with_source(e, "gen", "src.rs:1", {e.store(y.out, e.u32(1), e.u32(2))})}));
}

TEST(Planner_Split, APeeledRegionWrapperLosesItsSourceRegion) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.raw({region_with_source(b, "gen", "src.rs:1",
                                        {b.store(x.out, b.u32(0), b.u32(1)), b.grid_sync(),
                                         b.store(x.out, b.u32(1), b.u32(2))})});
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 2u);
  Builder e;
  Bufs y = declare(e);
  expect_same(s.segments[0], e.raw({e.region("gen", {e.store(y.out, e.u32(0), e.u32(1))})}));
}

TEST(Planner_Split, ARawProgramWithoutRootRegionGetsAnEmptyEntrySegment) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.raw({b.store(x.out, b.u32(0), b.u32(1)), b.grid_sync()});
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 2u);
  EXPECT_TRUE(s.segments[1].entry_stmts().empty());
}

// ------------------------------------------------------------------------ let propagation

TEST(Planner_Split, AFreeVariableGetsItsLetReExecutedAtTheStartOfTheLaterSegment) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.let("v", b.gid() * b.u32(2)), b.grid_sync(), b.store(x.out, b.gid(), b.var("v"))});
  RawSplit s = split(p);
  ASSERT_EQ(s.segments.size(), 2u);
  EXPECT_TRUE(s.let_prefixes[0].empty());
  EXPECT_EQ(s.let_prefixes[1], (std::vector<std::string>{"v"}));
  Builder e;
  Bufs y = declare(e);
  expect_same(s.segments[1], e.wrapped({e.let("v", e.gid() * e.u32(2)), e.store(y.out, e.gid(), e.var("v"))}));
}

TEST(Planner_Split, PropagatedLetsComeInDependencyOrder) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.let("z", b.gid()), b.let("b", b.var("z") + b.u32(1)), b.grid_sync(),
                         b.store(x.out, b.u32(0), b.var("b"))});
  RawSplit s = split(p);
  EXPECT_EQ(s.let_prefixes[1], (std::vector<std::string>{"z", "b"}));
}

TEST(Planner_Split, IndependentPrefixLetsAreOrderedByName) {
  // 0.7.2 takes HashSet order (F4, nondeterministic); the profile sorts by name instead.
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.let("zeta", b.u32(1)), b.let("alpha", b.u32(2)), b.let("mid", b.u32(3)), b.grid_sync(),
                         b.store(x.out, b.var("zeta"), b.var("mid") + b.var("alpha"))});
  RawSplit s = split(p);
  EXPECT_EQ(s.let_prefixes[1], (std::vector<std::string>{"alpha", "mid", "zeta"}));
}

TEST(Planner_Split, TheFreeNameOrderIsAProfileRule) {
  Profile reversed = vyre_0_7_2();
  reversed.split.free_name_order = [](std::vector<std::string_view>& names) {
    std::sort(names.begin(), names.end(), std::greater<>());
  };
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.let("p", b.u32(1)), b.let("q", b.u32(2)), b.grid_sync(),
                         b.store(x.out, b.var("p"), b.var("q"))});
  EXPECT_EQ(split_on_grid_sync(reversed, p).let_prefixes[1], (std::vector<std::string>{"q", "p"}));
}

TEST(Planner_Split, TheLastLetOfANameInWalkOrderWins) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.block({b.let("v", b.u32(1))}), b.if_(b.gid() == b.u32(0), {b.let("v", b.u32(2))}),
                         b.grid_sync(), b.store(x.out, b.u32(0), b.var("v"))});
  RawSplit s = split(p);
  Builder e;
  Bufs y = declare(e);
  expect_same(s.segments[1], e.wrapped({e.let("v", e.u32(2)), e.store(y.out, e.u32(0), e.var("v"))}));
}

TEST(Planner_Split, ALetAnywhereInTheSegmentSuppressesPropagationEvenAfterTheUse) {
  // D5: `locally_defined` counts a definition anywhere in the segment.
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.let("v", b.u32(1)), b.grid_sync(), b.store(x.out, b.u32(0), b.var("v")),
                         b.block({b.let("v", b.u32(5))})});
  EXPECT_TRUE(split(p).let_prefixes[1].empty());
}

TEST(Planner_Split, AnAssignTargetIsNotAReference) {
  // D1: `acc = 5` after the fence propagates nothing (the segment then fails V120).
  Builder b;
  declare(b);
  Program p = b.wrapped({b.let("acc", b.u32(0)), b.grid_sync(), b.assign("acc", b.u32(5))});
  EXPECT_TRUE(split(p).let_prefixes[1].empty());
}

TEST(Planner_Split, AnAccumulatedLocalIsReinitialisedNotTransported) {
  // D1: the Let's initialiser (0) is re-executed; the loop's Assigns are lost.
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.let("acc", b.u32(0)),
                         b.loop("i", b.u32(0), b.u32(4), {b.assign("acc", b.var("acc") + b.load(x.a, b.var("i")))}),
                         b.grid_sync(), b.store(x.out, b.gid(), b.var("acc"))});
  RawSplit s = split(p);
  Builder e;
  Bufs y = declare(e);
  expect_same(s.segments[1], e.wrapped({e.let("acc", e.u32(0)), e.store(y.out, e.gid(), e.var("acc"))}));
}

TEST(Planner_Split, UnknownNamesAndLoopVariablesAreIgnored) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.loop("i", b.u32(0), b.u32(4), {b.store(x.out, b.var("i"), b.u32(1))}), b.grid_sync(),
                         b.store(x.out, b.var("i"), b.var("ghost"))});
  EXPECT_TRUE(split(p).let_prefixes[1].empty());
}

TEST(Planner_Split, ALetInsideAnIfIsStillPropagated) {
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.if_(b.gid() == b.u32(0), {b.let("v", b.u32(3))}), b.grid_sync(),
                         b.store(x.out, b.u32(0), b.var("v"))});
  EXPECT_EQ(split(p).let_prefixes[1], (std::vector<std::string>{"v"}));
}

TEST(Planner_Split, DependenciesAreResolvedEvenWhenTheSegmentDefinesThem) {
  // resolve() consults only the resolved set and the global map, so a dependency that the segment
  // itself defines is prepended again (a duplicate Let the validator would reject).
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.let("w", b.u32(1)), b.let("v", b.var("w") + b.u32(1)), b.grid_sync(),
                         b.let("w", b.u32(7)), b.store(x.out, b.u32(0), b.var("v"))});
  RawSplit s = split(p);
  EXPECT_EQ(s.let_prefixes[1], (std::vector<std::string>{"w", "v"}));
  Builder e;
  Bufs y = declare(e);
  expect_same(s.segments[1], e.wrapped({e.let("w", e.u32(7)), e.let("v", e.var("w") + e.u32(1)),
                                        e.let("w", e.u32(7)), e.store(y.out, e.u32(0), e.var("v"))}));
}

TEST(Planner_Split, SkippingLetPropagationIsAProfileRule) {
  Profile no_lets = vyre_0_7_2();
  no_lets.split.propagate_lets = [](const ir::Program&, std::span<const ir::StmtId>, std::vector<SegmentNodes>&,
                                    const NameOrder&) {};
  Builder b;
  Bufs x = declare(b);
  Program p = b.wrapped({b.let("v", b.u32(1)), b.grid_sync(), b.store(x.out, b.u32(0), b.var("v"))});
  EXPECT_TRUE(split_on_grid_sync(no_lets, p).let_prefixes[1].empty());
  EXPECT_FALSE(split(p).let_prefixes[1].empty());
}

}  // namespace
}  // namespace gridcheck::planner
