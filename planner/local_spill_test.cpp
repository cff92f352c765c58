// The cut with local spills (docs/vyre-0.7.2.md#s10-d): a local live across a fence is saved by its invocation
// at the end of the segment and reloaded at the start of the next, in the scope that declares it.
// Text in, text out: each segment's statements printed as a kernel.
#include "planner/local_spill.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ir/typecheck.hpp"
#include "planner/stmt_queries.hpp"
#include "planner/testing/ir_text.hpp"
#include "planner/uniform_fence_lowering.hpp"

namespace gridcheck::planner {
namespace {

using testing::kernel_text;
using testing::parse;

std::string cut_text(std::string_view text, std::size_t* spilled = nullptr) {
  ir::Program p = parse(text);
  const std::vector<ir::StmtId> entry(p.entry_stmts().begin(), p.entry_stmts().end());
  ir::Result<std::vector<ir::StmtId>> flat = lower_uniform_fences(p, entry);
  if (!flat) return "refused";
  p.set_entry(std::span<const ir::StmtId>(*flat));
  ir::Result<ir::TypeTable> types = ir::typecheck(p);
  if (!types) return "untyped";
  SpillLayout layout(p);
  const LocalSpillCut cut = cut_with_local_spills(p, *flat, *types, layout);
  if (spilled) *spilled = cut.spilled_locals;
  std::string out;
  for (std::size_t k = 0; k < cut.segments.size(); ++k) {
    p.set_entry(std::span<const ir::StmtId>(cut.segments[k]));
    out += fmt::format("-- segment {}\n{}", k, kernel_text(p));
  }
  return out;
}

constexpr std::string_view kHeader =
    "workgroup_size 4 1 1\n"
    "buffer a: u32[4] read binding 0\n"
    "buffer out: u32[4] read_write binding 1 output live_out\n";

TEST(Planner_LocalSpill, AnAccumulatedLocalIsSpilledAndReloadedNotRecomputed) {  // docs/vyre-0.7.2.md#d1
  std::size_t spilled = 0;
  EXPECT_EQ(cut_text(std::string(kHeader) +
                         "kernel {\n"
                         "  let acc = 0\n"
                         "  loop i in 0..4 {\n"
                         "    acc = acc + a[i]\n"
                         "  }\n"
                         "  grid_sync\n"
                         "  out[gid.x] = acc\n"
                         "}\n",
                     &spilled),
            "-- segment 0\n"
            "kernel {\n"
            "  let acc = 0\n"
            "  loop i in 0..4 {\n"
            "    acc = acc + a[i]\n"
            "  }\n"
            "  __gc_spill_u32[__gc_inv] = acc\n"
            "}\n"
            "-- segment 1\n"
            "kernel {\n"
            "  let acc = __gc_spill_u32[__gc_inv]\n"
            "  out[gid.x] = acc\n"
            "}\n");
  EXPECT_EQ(spilled, 1u);
}

TEST(Planner_LocalSpill, ASlotKeepsItsValueAcrossSegmentsThatDoNotTouchTheLocal) {
  EXPECT_EQ(cut_text(std::string(kHeader) +
                     "kernel {\n"
                     "  let x = a[gid.x] * 2\n"
                     "  let y = a[1] > 1\n"
                     "  grid_sync\n"
                     "  out[gid.x] = 1\n"
                     "  grid_sync\n"
                     "  if y {\n"
                     "    out[gid.x] = x\n"
                     "  }\n"
                     "}\n"),
            "-- segment 0\n"
            "kernel {\n"
            "  let x = a[gid.x] * 2\n"
            "  let y = a[1] > 1\n"
            "  __gc_spill_u32[__gc_inv] = x\n"
            "  __gc_spill_bool[__gc_inv] = y\n"
            "}\n"
            "-- segment 1\n"
            "kernel {\n"
            "  out[gid.x] = 1\n"
            "}\n"
            "-- segment 2\n"
            "kernel {\n"
            "  let x = __gc_spill_u32[__gc_inv]\n"
            "  let y = __gc_spill_bool[__gc_inv]\n"
            "  if y {\n"
            "    out[gid.x] = x\n"
            "  }\n"
            "}\n");
}

TEST(Planner_LocalSpill, AssignedAgainBeforeTheNextFenceMeansSpilledAgain) {
  EXPECT_EQ(cut_text(std::string(kHeader) +
                     "kernel {\n"
                     "  let x = gid.x\n"
                     "  grid_sync\n"
                     "  if gid.x > 1 {\n"
                     "    x = x + a[0]\n"
                     "  }\n"
                     "  grid_sync\n"
                     "  out[gid.x] = x\n"
                     "}\n"),
            "-- segment 0\n"
            "kernel {\n"
            "  let x = gid.x\n"
            "  __gc_spill_u32[__gc_inv] = x\n"
            "}\n"
            "-- segment 1\n"
            "kernel {\n"
            "  let x = __gc_spill_u32[__gc_inv]\n"
            "  if gid.x > 1 {\n"
            "    x = x + a[0]\n"
            "  }\n"
            "  __gc_spill_u32[__gc_inv] = x\n"
            "}\n"
            "-- segment 2\n"
            "kernel {\n"
            "  let x = __gc_spill_u32[__gc_inv]\n"
            "  out[gid.x] = x\n"
            "}\n");
}

TEST(Planner_LocalSpill, ALocalOnlyAssignedAfterTheFenceIsDeclaredNotReloaded) {
  EXPECT_EQ(cut_text(std::string(kHeader) +
                     "kernel {\n"
                     "  let x = gid.x\n"
                     "  out[gid.x] = x\n"
                     "  grid_sync\n"
                     "  x = 5\n"
                     "}\n"),
            "-- segment 0\n"
            "kernel {\n"
            "  let x = gid.x\n"
            "  out[gid.x] = x\n"
            "}\n"
            "-- segment 1\n"
            "kernel {\n"
            "  let x = 0\n"
            "  x = 5\n"
            "}\n");
}

TEST(Planner_LocalSpill, EachScopeSpillsAndRestoresItsOwnLocals) {  // docs/semantics.md §3.2, docs/vyre-0.7.2.md#d5; inner scopes get slots first
  EXPECT_EQ(cut_text(std::string(kHeader) +
                     "entry {\n"
                     "  region \"r\" {\n"
                     "    let x = a[gid.x] + 1\n"
                     "    block {\n"
                     "      let y = x * 3\n"
                     "      grid_sync\n"
                     "      out[gid.x] = x + y\n"
                     "    }\n"
                     "    out[gid.x] = out[gid.x] + x\n"
                     "  }\n"
                     "  region \"s\" {\n"
                     "    let y = 7\n"
                     "    out[gid.x] = y\n"
                     "  }\n"
                     "}\n"),
            "-- segment 0\n"
            "entry {\n"
            "  region \"r\" {\n"
            "    let x = a[gid.x] + 1\n"
            "    block {\n"
            "      let y = x * 3\n"
            "      __gc_spill_u32[__gc_inv] = y\n"
            "    }\n"
            "    __gc_spill_u32[1 * __gc_n + __gc_inv] = x\n"
            "  }\n"
            "}\n"
            "-- segment 1\n"
            "entry {\n"
            "  region \"r\" {\n"
            "    let x = __gc_spill_u32[1 * __gc_n + __gc_inv]\n"
            "    block {\n"
            "      let y = __gc_spill_u32[__gc_inv]\n"
            "      out[gid.x] = x + y\n"
            "    }\n"
            "    out[gid.x] = out[gid.x] + x\n"
            "  }\n"
            "  region \"s\" {\n"
            "    let y = 7\n"
            "    out[gid.x] = y\n"
            "  }\n"
            "}\n");
}

TEST(Planner_LocalSpill, AGridInvariantIfIsDistributedOverTheCutWithItsBranchLocals) {  // docs/vyre-0.7.2.md#g5
  EXPECT_EQ(cut_text(std::string(kHeader) +
                     "kernel {\n"
                     "  if num_wg.x > 1 {\n"
                     "    let x = a[gid.x]\n"
                     "    grid_sync\n"
                     "    out[gid.x] = x\n"
                     "  } else {\n"
                     "    let z = a[3] + 2\n"
                     "    grid_sync\n"
                     "    grid_sync\n"
                     "    out[gid.x] = z\n"
                     "  }\n"
                     "}\n"),
            "-- segment 0\n"
            "kernel {\n"
            "  if num_wg.x > 1 {\n"
            "    let x = a[gid.x]\n"
            "    __gc_spill_u32[__gc_inv] = x\n"
            "  } else {\n"
            "    let z = a[3] + 2\n"
            "    __gc_spill_u32[1 * __gc_n + __gc_inv] = z\n"
            "  }\n"
            "}\n"
            "-- segment 1\n"
            "kernel {\n"
            "  if num_wg.x > 1 {\n"
            "    let x = __gc_spill_u32[__gc_inv]\n"
            "    out[gid.x] = x\n"
            "  }\n"
            "}\n"
            "-- segment 2\n"
            "kernel {\n"
            "  if num_wg.x > 1 {} else {\n"
            "    let z = __gc_spill_u32[1 * __gc_n + __gc_inv]\n"
            "    out[gid.x] = z\n"
            "  }\n"
            "}\n");
}

TEST(Planner_LocalSpill, UnrolledIterationsShareTheSlotOfTheirLocals) {
  EXPECT_EQ(cut_text(std::string(kHeader) +
                     "kernel {\n"
                     "  loop i in 0..2 {\n"
                     "    let t = a[i]\n"
                     "    grid_sync\n"
                     "    out[gid.x] = out[gid.x] + t\n"
                     "  }\n"
                     "}\n"),
            "-- segment 0\n"
            "kernel {\n"
            "  block {\n"
            "    let i = 0\n"
            "    let t = a[i]\n"
            "    __gc_spill_u32[__gc_inv] = t\n"
            "  }\n"
            "}\n"
            "-- segment 1\n"
            "kernel {\n"
            "  block {\n"
            "    let t = __gc_spill_u32[__gc_inv]\n"
            "    out[gid.x] = out[gid.x] + t\n"
            "  }\n"
            "  block {\n"
            "    let i = 1\n"
            "    let t = a[i]\n"
            "    __gc_spill_u32[__gc_inv] = t\n"
            "  }\n"
            "}\n"
            "-- segment 2\n"
            "kernel {\n"
            "  block {\n"
            "    let t = __gc_spill_u32[__gc_inv]\n"
            "    out[gid.x] = out[gid.x] + t\n"
            "  }\n"
            "}\n");
}

TEST(Planner_LocalSpill, NeverAssignedLocalsOfIdsAndLiteralsAreRecomputedNotSpilled) {
  std::size_t spilled = 7;
  EXPECT_EQ(cut_text(std::string(kHeader) +
                         "kernel {\n"
                         "  let n = wgid.x % 2\n"
                         "  loop i in 0..2 {\n"
                         "    grid_sync\n"
                         "    if n == 0 {\n"
                         "      barrier\n"
                         "    }\n"
                         "    out[gid.x] = out[gid.x] + i\n"
                         "  }\n"
                         "}\n",
                     &spilled),
            "-- segment 0\n"
            "kernel {\n"
            "  let n = wgid.x % 2\n"
            "  block {\n"
            "    let i = 0\n"
            "  }\n"
            "}\n"
            "-- segment 1\n"
            "kernel {\n"
            "  let n = wgid.x % 2\n"
            "  block {\n"
            "    let i = 0\n"
            "    if n == 0 {\n"
            "      barrier\n"
            "    }\n"
            "    out[gid.x] = out[gid.x] + i\n"
            "  }\n"
            "  block {\n"
            "    let i = 1\n"
            "  }\n"
            "}\n"
            "-- segment 2\n"
            "kernel {\n"
            "  let n = wgid.x % 2\n"
            "  block {\n"
            "    let i = 1\n"
            "    if n == 0 {\n"
            "      barrier\n"
            "    }\n"
            "    out[gid.x] = out[gid.x] + i\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(spilled, 0u);
}

TEST(Planner_LocalSpill, LocalsDeadAtTheFenceAreNotSpilled) {  // the silent twin
  std::size_t spilled = 7;
  EXPECT_EQ(cut_text(std::string(kHeader) +
                         "kernel {\n"
                         "  let x = a[gid.x]\n"
                         "  out[gid.x] = x\n"
                         "  grid_sync\n"
                         "  let y = 3\n"
                         "  out[gid.x] = out[gid.x] + y\n"
                         "}\n",
                     &spilled),
            "-- segment 0\n"
            "kernel {\n"
            "  let x = a[gid.x]\n"
            "  out[gid.x] = x\n"
            "}\n"
            "-- segment 1\n"
            "kernel {\n"
            "  let y = 3\n"
            "  out[gid.x] = out[gid.x] + y\n"
            "}\n");
  EXPECT_EQ(spilled, 0u);
}

}  // namespace
}  // namespace gridcheck::planner

namespace gridcheck::planner {
namespace {

TEST(Planner_LocalUses, ReadsAndAssignsByNameAtAnyDepthAddingUpOverCalls) {
  ir::Program p = parse(std::string(kHeader) +
                        "kernel {\n"
                        "  let x = a[0]\n"
                        "  let y = 0\n"
                        "  if x < 3 {\n"
                        "    y = y + x\n"
                        "  }\n"
                        "  grid_sync\n"
                        "  let z = 1\n"
                        "  out[gid.x] = z\n"
                        "}\n");
  const ir::Stmt root = p.stmt(p.entry_stmts()[0]);
  const std::span<const ir::StmtId> body = p.list(root.body);
  const ir::NameId x = *p.find_name("x"), y = *p.find_name("y"), z = *p.find_name("z");
  LocalUses uses;
  EXPECT_FALSE(uses.references(x)) << "empty before any collection";
  collect_local_uses(p, body.subspan(0, 3), uses);  // let x, let y, the if
  EXPECT_TRUE(uses.reads(x));
  EXPECT_FALSE(uses.assigns(x));
  EXPECT_TRUE(uses.reads(y));
  EXPECT_TRUE(uses.assigns(y)) << "the assignment nested in the if";
  EXPECT_FALSE(uses.references(z)) << "declared, never read before the fence";
  collect_local_uses(p, body.subspan(4), uses);  // let z, the store
  EXPECT_TRUE(uses.reads(z));
  EXPECT_FALSE(uses.assigns(z));
  EXPECT_FALSE(uses.references(ir::NameId{1u << 30})) << "a name outside the table is never referenced";
}

TEST(Planner_SpillLayout, ReportsWhichPrologueLocalsItsCodeReads) {
  ir::Program p = parse(std::string(kHeader) +
                        "kernel {\n"
                        "  let u = a[0]\n"
                        "  let v = a[1]\n"
                        "  out[gid.x] = u + v\n"
                        "}\n");
  const ir::Stmt root = p.stmt(p.entry_stmts()[0]);
  const ir::StmtId u = p.list(root.body)[0], v = p.list(root.body)[1];
  SpillLayout layout(p);
  EXPECT_FALSE(layout.emitted_invocation_reads());
  EXPECT_FALSE(layout.emitted_count_reads());
  layout.spill(u, ir::ScalarType::U32);  // slot 0: indexed by the invocation alone
  EXPECT_TRUE(layout.emitted_invocation_reads());
  EXPECT_FALSE(layout.emitted_count_reads());
  layout.restored(v, ir::ScalarType::U32);  // slot 1: slot · N + invocation
  EXPECT_TRUE(layout.emitted_count_reads());

  SpillLayout flags_only(p);
  flags_only.returned_flag();
  EXPECT_TRUE(flags_only.emitted_invocation_reads());
  EXPECT_FALSE(flags_only.emitted_count_reads());
}

}  // namespace
}  // namespace gridcheck::planner
