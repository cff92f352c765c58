// Workgroup memory live across a fence (docs/vyre-0.7.2.md#c1): which segments copy a workgroup buffer out
// and back, and the copy code. Text in, text out.
#include "planner/workgroup_spill.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "planner/testing/ir_text.hpp"

namespace gridcheck::planner {
namespace {

using testing::kernel_text;
using testing::parse;

// The top-level statements of `text`'s kernel, cut at its top-level fences.
std::vector<std::vector<ir::StmtId>> segments_of(const ir::Program& p) {
  const ir::Stmt root = p.stmt(p.entry_stmts()[0]);
  std::vector<std::vector<ir::StmtId>> segments(1);
  for (ir::StmtId id : p.list(root.body)) {
    if (p.stmt(id).is_fence())
      segments.emplace_back();
    else
      segments.back().push_back(id);
  }
  return segments;
}

std::string decisions(std::string_view text) {
  const ir::Program p = parse(text);
  const WorkgroupSpillPlan plan = plan_workgroup_spills(p, segments_of(p));
  std::string out;
  for (std::size_t k = 0; k < plan.restore.size(); ++k) {
    out += fmt::format("{}:", k);
    for (std::size_t b : plan.restore[k]) out += fmt::format(" restore {}", p.name(p.buffers()[b].name));
    for (std::size_t b : plan.spill[k]) out += fmt::format(" spill {}", p.name(p.buffers()[b].name));
    out += "\n";
  }
  return out;
}

constexpr std::string_view kHeader =
    "workgroup_size 4 1 1\n"
    "buffer sh: u32[4] workgroup\n"
    "buffer tmp: u32[8] workgroup\n"
    "buffer out: u32[8] read_write binding 0\n";

TEST(Planner_WorkgroupSpill, SpilledWhereStoredAndReadLaterRestoredWhereReferencedAfterAStore) {
  EXPECT_EQ(decisions(std::string(kHeader) +
                      "kernel {\n"
                      "  sh[lid.x] = gid.x\n"       // 0: stores sh, read in 2
                      "  tmp[lid.x] = 1\n"          //    stores tmp, never read later
                      "  grid_sync\n"
                      "  out[gid.x] = 1\n"          // 1: does not touch sh: keeps the copy
                      "  grid_sync\n"
                      "  sh[lid.x + 1] = 7\n"       // 2: partial store: restore, then spill for 3
                      "  grid_sync\n"
                      "  barrier\n"
                      "  out[gid.x] = sh[(lid.x + 1) % 4]\n"  // 3: reads: restore
                      "}\n"),
            "0: spill sh\n"
            "1:\n"
            "2: restore sh spill sh\n"
            "3: restore sh\n");
}

TEST(Planner_WorkgroupSpill, MemoryNeverStoredBeforeIsNotRestored) {  // zeros are the true value
  EXPECT_EQ(decisions(std::string(kHeader) +
                      "kernel {\n"
                      "  out[gid.x] = sh[lid.x]\n"
                      "  grid_sync\n"
                      "  sh[lid.x] = 3\n"
                      "  barrier\n"
                      "  out[gid.x] = sh[3 - lid.x]\n"
                      "}\n"),
            "0:\n"
            "1:\n");
}

TEST(Planner_WorkgroupSpill, WithoutWorkgroupMemoryEverySegmentHasAnEmptyRow) {
  // The same stores and loads as above on storage memory: nothing to spill, one row per segment.
  const WorkgroupSpillPlan plan = plan_workgroup_spills(parse("workgroup_size 4 1 1\n"
                                                             "buffer sh: u32[4] read_write binding 1\n"
                                                             "buffer out: u32[8] read_write binding 0\n"
                                                             "kernel {\n"
                                                             "  sh[lid.x] = gid.x\n"
                                                             "  grid_sync\n"
                                                             "  out[gid.x] = sh[lid.x]\n"
                                                             "}\n"),
                                                       {{}, {}, {}});
  EXPECT_EQ(plan.restore.size(), 3u);
  EXPECT_EQ(plan.spill.size(), 3u);
  EXPECT_FALSE(plan.any());
}

TEST(Planner_WorkgroupSpill, EveryInvocationCopiesItsShareBetweenBarriers) {
  ir::Program p = parse(std::string(kHeader) + "kernel {\n  sh[lid.x] = 1\n}\n");
  SpillLayout layout(p);
  const std::vector<std::size_t> sh{0};
  std::vector<ir::StmtId> code = workgroup_spill_code(p, layout, sh);
  const std::vector<ir::StmtId> restore = workgroup_restore_code(p, layout, sh);
  code.insert(code.end(), restore.begin(), restore.end());
  p.set_entry(std::span<const ir::StmtId>(code));
  EXPECT_EQ(kernel_text(p),
            "entry {\n"
            "  barrier\n"
            "  loop __gc_j in 0..(4 + wg_size.x * wg_size.y * wg_size.z - 1) / (wg_size.x * wg_size.y * wg_size.z) {\n"
            "    let __gc_e = __gc_j * (wg_size.x * wg_size.y * wg_size.z) + (lid.x + wg_size.x * (lid.y + wg_size.y * lid.z))\n"
            "    if __gc_e < 4 {\n"
            "      __gc_wg_sh[(wgid.x + num_wg.x * (wgid.y + num_wg.y * wgid.z)) * 4 + __gc_e] = sh[__gc_e]\n"
            "    }\n"
            "  }\n"
            "  loop __gc_j in 0..(4 + wg_size.x * wg_size.y * wg_size.z - 1) / (wg_size.x * wg_size.y * wg_size.z) {\n"
            "    let __gc_e = __gc_j * (wg_size.x * wg_size.y * wg_size.z) + (lid.x + wg_size.x * (lid.y + wg_size.y * lid.z))\n"
            "    if __gc_e < 4 {\n"
            "      sh[__gc_e] = __gc_wg_sh[(wgid.x + num_wg.x * (wgid.y + num_wg.y * wgid.z)) * 4 + __gc_e]\n"
            "    }\n"
            "  }\n"
            "  barrier\n"
            "}\n");
  const std::vector<ScratchBuffer> scratch = layout.declare();
  ASSERT_EQ(scratch.size(), 1u);
  EXPECT_EQ(scratch[0].name, "__gc_wg_sh");
  EXPECT_EQ(scratch[0].words_per_workgroup, 4u);
  EXPECT_EQ(scratch[0].words_per_invocation, 0u);
}

}  // namespace
}  // namespace gridcheck::planner
