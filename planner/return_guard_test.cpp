// Returned invocations stay returned (docs/vyre-0.7.2.md#g2): `return` becomes a flag, later statements are
// guarded, barriers stay in uniform control flow. Text in, text out.
#include "planner/return_guard.hpp"

#include <gtest/gtest.h>

#include "ir/typecheck.hpp"
#include "planner/testing/ir_text.hpp"

namespace gridcheck::planner {
namespace {

using testing::kernel_text;
using testing::parse;

// Guards the root region's body of `text`; the guarded body printed as a kernel, or the refusal.
std::string guarded(std::string_view text, bool may_have_returned) {
  ir::Program p = parse(text);
  ir::Result<ir::TypeTable> types = ir::typecheck(p);
  if (!types) return "untyped";
  const ir::Stmt root = p.stmt(p.entry_stmts()[0]);
  const std::vector<ir::StmtId> body(p.list(root.body).begin(), p.list(root.body).end());
  const ReturnGuardInput input{p.intern("__gc_ret"), &*types, nullptr};
  ir::Result<std::vector<ir::StmtId>> out = guard_returns(p, body, may_have_returned, input);
  if (!out) {
    const ir::Diagnostic& d = out.diagnostics().all().front();
    return d.code + " " + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col);
  }
  ir::Stmt region = root;
  region.body = p.add_list(*out);
  const std::vector<ir::StmtId> entry{p.add_stmt(region)};
  p.set_entry(std::span<const ir::StmtId>(entry));
  return kernel_text(p);
}

constexpr std::string_view kHeader =
    "workgroup_size 4 1 1\n"
    "buffer flag: u32[1] read binding 0\n"
    "buffer d: i32[4] read binding 1\n"
    "buffer out: u32[4] read_write binding 2 output live_out\n"
    "buffer sh: u32[4] workgroup\n";

TEST(Planner_ReturnGuard, AReturnBecomesTheFlagAndTheRestIsGuarded) {  // docs/vyre-0.7.2.md#g2
  EXPECT_EQ(guarded(std::string(kHeader) +
                        "kernel {\n"
                        "  if flag[0] == 1 {\n"
                        "    return\n"
                        "  }\n"
                        "  out[gid.x] = 5\n"
                        "  out[gid.x] = out[gid.x] + 1\n"
                        "}\n",
                    false),
            "kernel {\n"
            "  if flag[0] == 1 {\n"
            "    __gc_ret = true\n"
            "  }\n"
            "  if !__gc_ret {\n"
            "    out[gid.x] = 5\n"
            "    out[gid.x] = out[gid.x] + 1\n"
            "  }\n"
            "}\n");
}

TEST(Planner_ReturnGuard, BarriersStayUnguardedAndLetsStayInScope) {
  EXPECT_EQ(guarded(std::string(kHeader) +
                        "kernel {\n"
                        "  sh[lid.x] = gid.x\n"
                        "  if gid.x % 3 == 0 {\n"
                        "    return\n"
                        "  }\n"
                        "  let k = gid.x * 2\n"
                        "  barrier\n"
                        "  let w = sh[(lid.x + 1) % 4]\n"
                        "  let q = 12i / d[gid.x]\n"
                        "  out[gid.x] = w + k\n"
                        "}\n",
                    false),
            "kernel {\n"
            "  sh[lid.x] = gid.x\n"
            "  if gid.x % 3 == 0 {\n"
            "    __gc_ret = true\n"
            "  }\n"
            "  let k = gid.x * 2\n"
            "  barrier\n"
            "  let w = 0\n"
            "  if !__gc_ret {\n"
            "    w = sh[(lid.x + 1) % 4]\n"
            "  }\n"
            "  let q = 0i\n"
            "  if !__gc_ret {\n"
            "    q = 12i / d[gid.x]\n"
            "    out[gid.x] = w + k\n"
            "  }\n"
            "}\n");
}

TEST(Planner_ReturnGuard, ABarrierBearingIfAfterAReturnIsKeptAndGuardedInside) {
  EXPECT_EQ(guarded(std::string(kHeader) +
                        "kernel {\n"
                        "  if wgid.x == 0 {\n"
                        "    out[gid.x] = 1\n"
                        "    barrier\n"
                        "    if lid.x == 2 {\n"
                        "      return\n"
                        "    }\n"
                        "  }\n"
                        "}\n",
                    true),
            "kernel {\n"
            "  if wgid.x == 0 {\n"
            "    if !__gc_ret {\n"
            "      out[gid.x] = 1\n"
            "    }\n"
            "    barrier\n"
            "    if !__gc_ret {\n"
            "      if lid.x == 2 {\n"
            "        __gc_ret = true\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(Planner_ReturnGuard, EveryIterationOfALoopThatMayReturnStartsGuarded) {
  EXPECT_EQ(guarded(std::string(kHeader) +
                        "kernel {\n"
                        "  loop i in 0..3 {\n"
                        "    out[gid.x] = out[gid.x] + i\n"
                        "    if out[gid.x] > 2 {\n"
                        "      return\n"
                        "    }\n"
                        "  }\n"
                        "}\n",
                    false),
            "kernel {\n"
            "  loop i in 0..3 {\n"
            "    if !__gc_ret {\n"
            "      out[gid.x] = out[gid.x] + i\n"
            "      if out[gid.x] > 2 {\n"
            "        __gc_ret = true\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(Planner_ReturnGuard, ATrappingConditionOfABarrierBearingIfAfterAReturnIsRefused) {
  EXPECT_EQ(guarded(std::string(kHeader) +
                        "kernel {\n"
                        "  if 7i / (i32(wgid.x) - 1i) > 0i {\n"
                        "    barrier\n"
                        "  }\n"
                        "}\n",
                    true),
            "SR005 7:3");
}

TEST(Planner_ReturnGuard, WithoutAPossibleReturnNothingChanges) {  // the silent twin
  const std::string text = std::string(kHeader) +
                           "kernel {\n"
                           "  let w = sh[lid.x]\n"
                           "  barrier\n"
                           "  out[gid.x] = w\n"
                           "}\n";
  EXPECT_EQ(guarded(text, false), kernel_text(parse(text)));
}

}  // namespace
}  // namespace gridcheck::planner
