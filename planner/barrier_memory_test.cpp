// A barrier's memory scope (docs/semantics.md §2.7) survives planning: every workgroup barrier of the
// source reaches its segment with its ordering and its scope, under the sound profile (which unrolls
// a fence-bearing loop and adds its own full barriers around workgroup spills) and under vyre-0.7.2.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "ir/walk.hpp"
#include "planner/segment_plan.hpp"
#include "planner/profile.hpp"
#include "planner/testing/ir_text.hpp"

namespace gridcheck::planner {
namespace {

using ir::BarrierMemory;
using ir::MemoryOrdering;
using Scoped = std::pair<MemoryOrdering, BarrierMemory>;

constexpr std::string_view kScopedBarriers =
    "workgroup_size 4 1 1\n"
    "buffer a: u32[8] read binding 0\n"
    "buffer mid: u32[8] read_write binding 1\n"
    "buffer out: u32[8] read_write binding 2 output live_out\n"
    "buffer sh: u32[4] workgroup\n"
    "kernel {\n"
    "  sh[lid.x] = a[gid.x]\n"
    "  barrier memory workgroup\n"
    "  mid[gid.x] = sh[3 - lid.x]\n"
    "  barrier acq_rel memory storage\n"
    "  grid_sync\n"
    "  let v = mid[(gid.x + 4) % 8]\n"
    "  loop i in 0..2 {\n"
    "    barrier memory workgroup\n"
    "    sh[lid.x] = v + i\n"
    "    barrier release memory storage\n"
    "  }\n"
    "  out[gid.x] = v + sh[lid.x]\n"
    "  loop k in 0..2 {\n"
    "    barrier memory storage\n"
    "    grid_sync\n"
    "  }\n"
    "}\n";

/// The workgroup barriers of each segment whose scope is not `all`, in walk order. Barriers the
/// planner adds order all memory, so only the source's scoped barriers are listed.
std::vector<std::vector<Scoped>> scoped_barriers(const SplitPlan& plan) {
  std::vector<std::vector<Scoped>> out;
  for (const PlannedSegment& segment : plan.segments) {
    const ir::Program& p = segment.program;
    std::vector<Scoped> found;
    ir::for_each_stmt(p, p.entry(), [&](ir::StmtId id) {
      const ir::Stmt& s = p.stmt(id);
      if (s.kind == ir::StmtKind::Barrier && !s.is_fence() && s.barrier_memory() != BarrierMemory::All)
        found.emplace_back(s.ordering(), s.barrier_memory());
    });
    out.push_back(std::move(found));
  }
  return out;
}

constexpr Scoped kWorkgroup{MemoryOrdering::SeqCst, BarrierMemory::Workgroup};
constexpr Scoped kAcqRelStorage{MemoryOrdering::AcqRel, BarrierMemory::Storage};
constexpr Scoped kReleaseStorage{MemoryOrdering::Release, BarrierMemory::Storage};
constexpr Scoped kStorage{MemoryOrdering::SeqCst, BarrierMemory::Storage};

TEST(Planner_BarrierMemory, TheSoundProfileKeepsEveryScopeAndUnrollsThemWithTheirLoop) {
  const ir::Result<SplitPlan> plan = plan_split(sound(), testing::parse(kScopedBarriers));
  ASSERT_TRUE(plan.ok()) << ir::render(plan.diagnostics());
  // Segment 1 runs the barrier loop (kept as a loop: it holds no fence) and the first unrolled copy
  // of the fence loop's body, segment 2 the second copy (nothing follows the last fence).
  const std::vector<std::vector<Scoped>> want = {
      {kWorkgroup, kAcqRelStorage}, {kWorkgroup, kReleaseStorage, kStorage}, {kStorage}};
  EXPECT_EQ(scoped_barriers(*plan), want) << testing::segments_text(*plan);
}

TEST(Planner_BarrierMemory, TheVyreProfileKeepsEveryScopeInItsSegments) {
  const ir::Result<SplitPlan> plan = plan_split(vyre_0_7_2(), testing::parse(kScopedBarriers));
  ASSERT_TRUE(plan.ok()) << ir::render(plan.diagnostics());
  // 0.7.2 hoists only the top-level fence; the fence loop stays whole in the second segment.
  const std::vector<std::vector<Scoped>> want = {{kWorkgroup, kAcqRelStorage},
                                                 {kWorkgroup, kReleaseStorage, kStorage}};
  EXPECT_EQ(scoped_barriers(*plan), want) << testing::segments_text(*plan);
}

TEST(Planner_BarrierMemory, ThePrintedSegmentsSpellTheScopes) {
  const ir::Result<SplitPlan> plan = plan_split(vyre_0_7_2(), testing::parse(kScopedBarriers));
  ASSERT_TRUE(plan.ok());
  const std::string text = testing::segments_text(*plan);
  EXPECT_NE(text.find("barrier acq_rel memory storage\n"), std::string::npos) << text;
  EXPECT_NE(text.find("barrier release memory storage\n"), std::string::npos) << text;
  EXPECT_NE(text.find("barrier memory workgroup\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace gridcheck::planner
