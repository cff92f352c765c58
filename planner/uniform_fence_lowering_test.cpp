// Fences under grid-uniform control flow (docs/vyre-0.7.2.md#g5): counted loops unrolled, grid-invariant ifs
// kept for the cut, everything else refused with a located SR diagnostic. Text in, text out.
#include "planner/uniform_fence_lowering.hpp"

#include <gtest/gtest.h>

#include "planner/testing/ir_text.hpp"

namespace gridcheck::planner {
namespace {

using testing::kernel_text;
using testing::parse;

// Lowers the entry of `text`; the lowered program's kernel block, or the refusal's code and message.
std::string lowered(std::string_view text, UnrollLimits limits = {}) {
  ir::Program p = parse(text);
  const std::vector<ir::StmtId> entry(p.entry_stmts().begin(), p.entry_stmts().end());
  ir::Result<std::vector<ir::StmtId>> out = lower_uniform_fences(p, entry, limits);
  if (!out) {
    const ir::Diagnostic& d = out.diagnostics().all().front();
    return d.code + " " + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + " " + d.message;
  }
  p.set_entry(std::span<const ir::StmtId>(*out));
  return kernel_text(p);
}

constexpr std::string_view kHeader =
    "workgroup_size 2 1 1\n"
    "buffer a: u32[4] read_write binding 0\n";

TEST(Planner_UniformFenceLowering, CountedLoopAroundAFenceBecomesOneBlockPerIteration) {
  const std::string in = std::string(kHeader) +
                         "kernel {\n"
                         "  loop i in 1..3 {\n"
                         "    a[gid.x] = a[gid.x] + i\n"
                         "    grid_sync\n"
                         "  }\n"
                         "}\n";
  EXPECT_EQ(lowered(in),
            "kernel {\n"
            "  block {\n"
            "    let i = 1\n"
            "    a[gid.x] = a[gid.x] + i\n"
            "    grid_sync\n"
            "  }\n"
            "  block {\n"
            "    let i = 2\n"
            "    a[gid.x] = a[gid.x] + i\n"
            "    grid_sync\n"
            "  }\n"
            "}\n");
}

TEST(Planner_UniformFenceLowering, NestedCountedLoopsUnrollInsideOut) {
  const std::string in = std::string(kHeader) +
                         "kernel {\n"
                         "  loop i in 0..2 {\n"
                         "    loop j in 5..6 {\n"
                         "      a[gid.x] = i + j\n"
                         "      grid_sync\n"
                         "    }\n"
                         "  }\n"
                         "}\n";
  EXPECT_EQ(lowered(in),
            "kernel {\n"
            "  block {\n"
            "    let i = 0\n"
            "    block {\n"
            "      let j = 5\n"
            "      a[gid.x] = i + j\n"
            "      grid_sync\n"
            "    }\n"
            "  }\n"
            "  block {\n"
            "    let i = 1\n"
            "    block {\n"
            "      let j = 5\n"
            "      a[gid.x] = i + j\n"
            "      grid_sync\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(Planner_UniformFenceLowering, ALoopThatNeverRunsTakesItsFenceAlong) {
  const std::string in = std::string(kHeader) +
                         "kernel {\n"
                         "  a[gid.x] = 1\n"
                         "  loop i in 3..3 {\n"
                         "    grid_sync\n"
                         "  }\n"
                         "}\n";
  EXPECT_EQ(lowered(in), "kernel {\n  a[gid.x] = 1\n}\n");
}

TEST(Planner_UniformFenceLowering, GridInvariantIfAndFenceFreeLoopsAreKept) {
  const std::string in = std::string(kHeader) +
                         "kernel {\n"
                         "  loop i in 0..len(a) {\n"
                         "    a[gid.x] = i\n"
                         "  }\n"
                         "  if len(a) * num_wg.x > wg_size.x {\n"
                         "    grid_sync\n"
                         "  } else {\n"
                         "    a[gid.x] = 2\n"
                         "  }\n"
                         "}\n";
  EXPECT_EQ(lowered(in),
            "kernel {\n"
            "  loop i in 0..len(a) {\n"
            "    a[gid.x] = i\n"
            "  }\n"
            "  if len(a) * num_wg.x > wg_size.x {\n"
            "    grid_sync\n"
            "  } else {\n"
            "    a[gid.x] = 2\n"
            "  }\n"
            "}\n");
}

TEST(Planner_UniformFenceLowering, FenceUnderAnIfThatIsNotGridInvariantIsRefusedAtTheIf) {
  EXPECT_EQ(lowered(std::string(kHeader) + "kernel {\n  if wgid.x == 0 {\n    grid_sync\n  }\n}\n"),
            "SR002 4:3 a grid_sync under an `if` whose condition is not grid-invariant: it uses the workgroup id");
  EXPECT_EQ(lowered(std::string(kHeader) + "kernel {\n  let n = 2\n  if n > 1 {\n    grid_sync\n  }\n}\n"),
            "SR002 5:3 a grid_sync under an `if` whose condition is not grid-invariant: it uses the local `n`");
  EXPECT_EQ(lowered(std::string(kHeader) + "kernel {\n  if a[0] == 1 {\n    grid_sync\n  }\n}\n"),
            "SR002 4:3 a grid_sync under an `if` whose condition is not grid-invariant: it uses a load from `a`");
}

TEST(Planner_UniformFenceLowering, FenceInALoopWithRuntimeBoundsIsRefused) {
  EXPECT_EQ(lowered(std::string(kHeader) + "kernel {\n  loop k in 0..len(a) {\n    grid_sync\n  }\n}\n"),
            "SR003 4:3 a grid_sync in loop `k` whose bounds are not u32 literals, so the loop cannot be unrolled");
}

TEST(Planner_UniformFenceLowering, UnrollingBeyondTheLimitsIsRefused) {
  const std::string in = std::string(kHeader) + "kernel {\n  loop k in 0..9 {\n    a[gid.x] = k\n    grid_sync\n  }\n}\n";
  EXPECT_EQ(lowered(in, UnrollLimits{8, 4096}).substr(0, 10), "SR004 4:3 ");
  EXPECT_EQ(lowered(in, UnrollLimits{9, 30}).substr(0, 10), "SR004 4:3 ");
  EXPECT_EQ(lowered(in, UnrollLimits{9, 36}).substr(0, 8), "kernel {");  // 9 x (2 statements + block + let)
}

}  // namespace
}  // namespace gridcheck::planner
