// Barriers and true grid sync: release rules, what persists across a grid_sync (docs/vyre-0.7.2.md#s10-c, (d),
// G2: R must give the native answer N), fixpoint relaunches, and barrier divergence.

#include <gtest/gtest.h>

#include "interp/interpreter.hpp"
#include "interp/test_support.hpp"
#include "ir/builder.hpp"

namespace gridcheck::interp {
namespace {

using namespace testing;
using ir::Builder;
using ir::Buf;
using ir::ScalarType;

RunOptions unvalidated() {
  RunOptions o;
  o.validate = false;
  return o;
}

TEST(Interp_Barriers, WorkgroupBarrierOrdersWorkgroupMemory) {
  // A tree reduction over workgroup memory: each step reads what other invocations wrote before the barrier.
  Builder b({8, 1, 1});
  Buf in = b.read("in", 0, ScalarType::U32, 16);
  Buf sh = b.workgroup("sh", 8, ScalarType::U32);
  Buf out = b.output("out", 1, ScalarType::U32, 2);
  std::vector<ir::S> body = {b.store(sh, b.lid(), b.load(in, b.gid())), b.barrier()};
  for (std::uint32_t stride = 4; stride >= 1; stride /= 2) {
    body.push_back(b.if_(b.lid() < b.u32(stride), {b.store(sh, b.lid(), b.load(sh, b.lid()) + b.load(sh, b.lid() + b.u32(stride)))}));
    body.push_back(b.barrier());
  }
  body.push_back(b.if_(b.lid() == b.u32(0), {b.store(out, b.wgid(), b.load(sh, b.u32(0)))}));
  ir::Program p = b.wrapped(body);
  const std::vector<Bytes> inputs = {to_bytes(iota(16, 1))};
  RunOptions o;
  o.detect_races = true;
  const RunResult r = run_reference(p, inputs, Grid{2, 1, 1}, 1, o);
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{36, 100}));
}

TEST(Interp_Barriers, WorkgroupBarrierReleasesWhenEveryNonFinishedInvocationWaits) {
  Builder b({4, 1, 1});
  Buf sh = b.workgroup("sh", 4, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({
      b.store(sh, b.lid(), b.lid() + b.u32(10)),
      b.if_(b.lid() >= b.u32(2), {b.ret()}),
      b.barrier(),
      b.store(out, b.lid(), b.load(sh, b.u32(3) - b.lid())),
  });
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{13, 12, 0, 0}));
}

ir::Program all_flags_program(bool grid_sync) {
  Builder b({4, 1, 1});
  Buf flag = b.read_write("flag", 0, ScalarType::U32, 12);
  Buf out = b.output("out", 1, ScalarType::U32, 12);
  return b.wrapped({
      b.store(flag, b.gid(), b.u32(1)),
      grid_sync ? b.grid_sync() : b.barrier(),
      b.let("seen", b.u32(0)),
      b.loop("i", b.u32(0), b.buf_len(flag), {b.assign("seen", b.var("seen") + b.load(flag, b.var("i")))}),
      b.store(out, b.gid(), b.var("seen")),
  });
}

TEST(Interp_Barriers, GridSyncReleasesOnlyWhenEveryInvocationOfTheGridWaits) {
  const std::vector<Bytes> inputs = {to_bytes(fill(12, 0))};
  for (const Schedule& s : {Schedule::in_order(), Schedule::reversed(), Schedule::shuffle(3)}) {
    RunOptions o;
    o.schedule = s;
    o.detect_races = true;
    const RunResult r = run_reference(all_flags_program(true), inputs, Grid{3, 1, 1}, 1, o);
    ASSERT_TRUE(r.ok()) << s.to_string() << explain(r);
    EXPECT_EQ(output(r, "out"), fill(12, 12)) << s.to_string();
  }
}

TEST(Interp_Barriers, WorkgroupBarrierDoesNotOrderOtherWorkgroups) {
  // The twin with a workgroup barrier: workgroup 0 runs before the others store their flags.
  const std::vector<Bytes> inputs = {to_bytes(fill(12, 0))};
  const RunResult r = run_reference(all_flags_program(false), inputs, Grid{3, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12}));
  RunOptions o;
  o.detect_races = true;
  EXPECT_EQ(run_reference(all_flags_program(false), inputs, Grid{3, 1, 1}, 1, o).status, RunStatus::Race);
}

TEST(Interp_Barriers, LocalsPersistAcrossGridSync) {  // docs/vyre-0.7.2.md#d1: N = 10, H = 0, vyre R = error
  Builder b({4, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  ir::Program p = b.wrapped({
      b.let("acc", b.u32(0)),
      b.loop("i", b.u32(0), b.u32(4), {b.assign("acc", b.var("acc") + b.load(a, b.var("i")))}),
      b.grid_sync(),
      b.store(out, b.gid(), b.var("acc")),
  });
  const std::vector<Bytes> inputs = {to_bytes({1, 2, 3, 4})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), fill(4, 10));
}

TEST(Interp_Barriers, SideEffectsBeforeGridSyncRunOnce) {  // docs/vyre-0.7.2.md#d2: N: ctr = 4, out a permutation
  Builder b({4, 1, 1});
  Buf ctr = b.output("ctr", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.let("slot", b.atomic_add(ctr, b.u32(0), b.u32(1))), b.grid_sync(),
                             b.store(out, b.var("slot"), b.gid())});
  for (const Schedule& s : {Schedule::in_order(), Schedule::reversed()}) {
    RunOptions o;
    o.schedule = s;
    const RunResult r = run_reference(p, {}, Grid{1, 1, 1}, 1, o);
    ASSERT_TRUE(r.ok()) << explain(r);
    EXPECT_EQ(output(r, "ctr"), (Words{4}));
    EXPECT_EQ(output(r, "out"), s == Schedule::in_order() ? (Words{0, 1, 2, 3}) : (Words{3, 2, 1, 0}));
  }
}

TEST(Interp_Barriers, LetValuesAreNotReevaluatedAfterGridSync) {  // docs/vyre-0.7.2.md#d3: N gives the old value
  Builder b({4, 1, 1});
  Buf buf = b.read_write("buf", 0, ScalarType::U32, 4);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.let("v", b.load(buf, b.gid())), b.store(buf, b.gid(), b.var("v") + b.u32(1)),
                             b.grid_sync(), b.store(out, b.gid(), b.var("v"))});
  const std::vector<Bytes> inputs = {to_bytes({5, 6, 7, 8})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{5, 6, 7, 8}));
  EXPECT_EQ(output(r, "buf"), (Words{6, 7, 8, 9}));
}

TEST(Interp_Barriers, WorkgroupMemoryPersistsAcrossGridSync) {  // docs/vyre-0.7.2.md#c1: N = 2g+1, H = R(vyre) = 0
  Builder b({64, 1, 1});
  Buf sh = b.workgroup("sh", 64, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 128);
  ir::Program p = b.wrapped({b.store(sh, b.lid(), b.gid() * b.u32(2) + b.u32(1)), b.grid_sync(),
                             b.store(out, b.gid(), b.load(sh, b.lid()))});
  RunOptions o;
  o.detect_races = true;
  const RunResult r = run_reference(p, {}, Grid{2, 1, 1}, 1, o);
  ASSERT_TRUE(r.ok()) << explain(r);
  Words expected(128);
  for (std::uint32_t g = 0; g < 128; ++g) expected[g] = 2 * g + 1;
  EXPECT_EQ(output(r, "out"), expected);
}

TEST(Interp_Barriers, ReturnedInvocationsStayReturnedAcrossGridSync) {  // docs/vyre-0.7.2.md#g2: N = [0,0,0,0], H = R(vyre) = 5s
  Builder b({4, 1, 1});
  Buf flag = b.read("flag", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.if_(b.load(flag, b.u32(0)) == b.u32(1), {b.ret()}), b.grid_sync(),
                             b.store(out, b.gid(), b.u32(5))});
  const std::vector<Bytes> returns = {to_bytes({1})};
  const RunResult r = run_reference(p, returns, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), fill(4, 0));
  const std::vector<Bytes> stays = {to_bytes({0})};  // the twin: nobody returns
  const RunResult s = run_reference(p, stays, Grid{1, 1, 1});
  ASSERT_TRUE(s.ok()) << explain(s);
  EXPECT_EQ(output(s, "out"), fill(4, 5));
}

TEST(Interp_Barriers, GridSyncReleasesWhenSomeInvocationsReturned) {
  // Workgroup 1 returns; the others meet at the grid_sync and read workgroup 2's stores.
  Builder b({2, 1, 1});
  Buf mid = b.read_write("mid", 0, ScalarType::U32, 6);
  Buf out = b.output("out", 1, ScalarType::U32, 6);
  ir::Program p = b.wrapped({b.if_(b.wgid() == b.u32(1), {b.ret()}), b.store(mid, b.gid(), b.gid() + b.u32(100)),
                             b.grid_sync(), b.store(out, b.gid(), b.load(mid, b.u32(5) - b.gid()))});
  const std::vector<Bytes> inputs = {to_bytes(fill(6, 0))};
  RunOptions o;
  o.detect_races = true;
  const RunResult r = run_reference(p, inputs, Grid{3, 1, 1}, 1, o);
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{105, 104, 0, 0, 101, 100}));
}

TEST(Interp_Barriers, StorageWritesAreVisibleToEveryWorkgroupAfterGridSync) {  // docs/vyre-0.7.2.md#g1 program: N = 501
  Builder b({64, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, 1024);
  Buf mid = b.read_write("mid", 1, ScalarType::U32, 1024);
  Buf hit = b.output("hit", 2, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(mid, b.gid(), b.load(a, b.gid())), b.grid_sync(),
                             b.if_(b.load(mid, b.gid()) == b.u32(7), {b.store(hit, b.u32(0), b.gid() + b.u32(1))})});
  Words av(1024, 0);
  av[500] = 7;
  const std::vector<Bytes> inputs = {to_bytes(av), to_bytes(fill(1024, 0))};
  const RunResult r = run_reference(p, inputs);  // grid inferred: 16 workgroups
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(r.grid, (Grid{16, 1, 1}));
  EXPECT_EQ(output(r, "hit"), (Words{501}));
}

TEST(Interp_Barriers, GridSyncInsideAGridUniformLoopWorks) {
  // Each round reads the right neighbour, meets, writes, meets: a rotation per round.
  Builder b({2, 1, 1});
  Buf v = b.read_write("v", 0, ScalarType::U32, 6);
  ir::Program p = b.wrapped({b.loop("round", b.u32(0), b.u32(4),
                                    {b.let("t", b.load(v, (b.gid() + b.u32(1)) % b.u32(6))), b.grid_sync(),
                                     b.store(v, b.gid(), b.var("t") + b.var("round")), b.grid_sync()})});
  const Words start = {10, 20, 30, 40, 50, 60};
  Words expected = start;
  for (std::uint32_t round = 0; round < 4; ++round) {
    Words next(6);
    for (std::uint32_t g = 0; g < 6; ++g) next[g] = expected[(g + 1) % 6] + round;
    expected = next;
  }
  const std::vector<Bytes> inputs = {to_bytes(start)};
  for (const Schedule& s : {Schedule::in_order(), Schedule::reversed(), Schedule::shuffle(9)}) {
    RunOptions o;
    o.schedule = s;
    o.detect_races = true;
    const RunResult r = run_reference(p, inputs, Grid{3, 1, 1}, 1, o);
    ASSERT_TRUE(r.ok()) << explain(r);
    EXPECT_EQ(output(r, "v"), expected) << s.to_string();
  }
}

TEST(Interp_Barriers, FixpointRelaunchesTheWholeProgramOverPersistentBuffers) {  // docs/vyre-0.7.2.md#a4: N = [1, 2]
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 2);
  Buf flag = b.read_write("flag", 1, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.if_(b.load(flag, b.u32(0)) == b.u32(0), {b.store(out, b.u32(0), b.u32(1))}),
                             b.grid_sync(), b.store(flag, b.u32(0), b.u32(1)),
                             b.store(out, b.u32(1), b.load(out, b.u32(0)) + b.u32(1))});
  const std::vector<Bytes> inputs = {to_bytes({0})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1}, 2);
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{1, 2}));
  EXPECT_EQ(output(r, "flag"), (Words{1}));
}

TEST(Interp_Barriers, LocalsAndWorkgroupMemoryAreFreshInEveryFixpointLaunch) {
  Builder b({2, 1, 1});
  Buf sh = b.workgroup("sh", 2, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.let("x", b.load(sh, b.lid()) + b.u32(1)), b.store(sh, b.lid(), b.var("x")),
                             b.grid_sync(), b.store(out, b.gid(), b.load(out, b.gid()) * b.u32(10) + b.load(sh, b.lid()))});
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1}, 3, memory_defined());  // reads the zero fill
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), fill(2, 111));
}

// ------------------------------------------------------------------------------- divergence

TEST(Interp_Barriers, GridSyncUnderWorkgroupIdDependentIfIsRefusedByTheValidator) {
  Builder b({2, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.if_(b.wgid() == b.u32(0), {b.grid_sync()}), b.store(out, b.gid(), b.u32(1))});
  const RunResult r = run_reference(p, {}, Grid{2, 1, 1});
  EXPECT_EQ(r.status, RunStatus::Invalid);
  EXPECT_EQ(r.detail(), "G002");
}

TEST(Interp_Barriers, GridSyncUnderWorkgroupIdDependentIfIsADivergence) {
  Builder b({2, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.if_(b.wgid() == b.u32(0), {b.grid_sync()}), b.store(out, b.gid(), b.u32(1))});
  const RunResult r = run_reference(p, {}, Grid{2, 1, 1}, 1, unvalidated());
  ASSERT_EQ(r.status, RunStatus::Divergence) << explain(r);
  ASSERT_TRUE(r.divergence.has_value());
  EXPECT_EQ(r.divergence->kind, DivergenceKind::BranchMismatch);
  EXPECT_TRUE(r.divergence->grid_scope);
  EXPECT_EQ(r.divergence->first.workgroup, (Grid{0, 0, 0}));
  EXPECT_EQ(r.divergence->second.workgroup, (Grid{1, 0, 0}));
  EXPECT_EQ(r.divergence->first_site.what, "if");
  EXPECT_EQ(r.divergence->second_site.what, "grid_sync");
  EXPECT_EQ(r.divergence->second_site.path, "entry[0].body[0].then[0]");
  EXPECT_EQ(r.verdict(), ir::Verdict::Invalid);
  EXPECT_EQ(r.detail(), "divergence");
}

TEST(Interp_Barriers, GridSyncUnderGridUniformIfIsNotADivergence) {  // the silent twin
  Builder b({2, 1, 1});
  Buf flag = b.read("flag", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.if_(b.load(flag, b.u32(0)) == b.u32(1), {b.grid_sync()}), b.store(out, b.gid(), b.u32(1))});
  const std::vector<Bytes> inputs = {to_bytes({1})};
  const RunResult r = run_reference(p, inputs, Grid{2, 1, 1}, 1, unvalidated());
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), fill(4, 1));
}

TEST(Interp_Barriers, BarrierUnderLocalIdDependentIfIsADivergence) {
  Builder b({4, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.if_(b.lid() < b.u32(2), {b.barrier()}), b.store(out, b.gid(), b.u32(1))});
  const RunResult refused = run_reference(p, {}, Grid{1, 1, 1});
  EXPECT_EQ(refused.detail(), "V010");
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1}, 1, unvalidated());
  ASSERT_EQ(r.status, RunStatus::Divergence) << explain(r);
  EXPECT_EQ(r.divergence->kind, DivergenceKind::BranchMismatch);
  EXPECT_FALSE(r.divergence->grid_scope);
  EXPECT_EQ(r.divergence->first.local, (Grid{0, 0, 0}));
  EXPECT_EQ(r.divergence->second.local, (Grid{2, 0, 0}));
  EXPECT_EQ(r.divergence->second_site.what, "barrier seq_cst");
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics.all()[0].code, "R030");
  EXPECT_EQ(r.diagnostics.all()[0].notes.size(), 2u);  // both locations
}

TEST(Interp_Barriers, BarrierUnderWorkgroupIdDependentIfIsNotADivergence) {  // workgroup-uniform: fine
  Builder b({2, 1, 1});
  Buf sh = b.workgroup("sh", 2, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.store(sh, b.lid(), b.gid()),
                             b.if_(b.wgid() == b.u32(0), {b.barrier(), b.store(out, b.gid(), b.load(sh, b.u32(1) - b.lid()))})});
  const RunResult r = run_reference(p, {}, Grid{2, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{1, 0, 0, 0}));
}

TEST(Interp_Barriers, LoopWithBarrierAndDifferentTripCountsIsADivergence) {
  Builder b({4, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.loop("i", b.u32(0), b.lid(), {b.barrier()}), b.store(out, b.gid(), b.u32(1))});
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1}, 1, unvalidated());
  ASSERT_EQ(r.status, RunStatus::Divergence) << explain(r);
  EXPECT_EQ(r.divergence->kind, DivergenceKind::TripCountMismatch);
  EXPECT_EQ(r.divergence->first_site.what, "loop i");
}

TEST(Interp_Barriers, DivergenceInsideALaterLaunchNamesTheLaunch) {
  // Launch 0 is uniform; in launch 1 the flag makes workgroup 1 skip the grid_sync.
  Builder b({1, 1, 1});
  Buf flag = b.read_write("flag", 0, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.if_(b.load(flag, b.wgid()) == b.u32(0), {b.grid_sync()}),
                             b.store(flag, b.wgid(), b.wgid())});
  const std::vector<Bytes> inputs = {to_bytes({0, 0})};
  const RunResult r = run_reference(p, inputs, Grid{2, 1, 1}, 2, unvalidated());
  ASSERT_EQ(r.status, RunStatus::Divergence) << explain(r);
  EXPECT_EQ(r.divergence->launch, 1u);
}

}  // namespace
}  // namespace gridcheck::interp
