// Barrier and uniformity rules: V010, V043, V055 (vyre's analysis) and G001-G003, G014 (ours), each with a
// silent twin. Builder-made IR.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/validate/test_support.hpp"

namespace gridcheck::ir {
namespace {

using testing::reports;
using testing::silent;

TEST(Validate_Barriers, BarrierUnderInvocationDependentIfIsV010) {
  Builder b({64, 1, 1});
  EXPECT_TRUE(reports(b.wrapped({b.if_(b.lid() == b.u32(0), {b.barrier()})}), {"V010"}));
  EXPECT_TRUE(reports(b.wrapped({b.if_(b.gid() == b.u32(0), {}, {b.block({b.barrier()})})}), {"V010"}));
}

TEST(Validate_Barriers, AnInvariantBufferLoadAtAUniformIndexIsUniform) {
  // A read or uniform buffer that no statement writes holds the same words for every invocation,
  // like an OpenCL kernel argument: a barrier under a condition or bound loaded from it is fine.
  Builder b({64, 1, 1});
  Buf params = b.uniform("params", 0, ScalarType::U32, 4);
  Buf table = b.read("table", 1, ScalarType::U32, 64);
  EXPECT_TRUE(silent(b.wrapped({b.if_(b.load(params, b.u32(0)) > b.u32(0), {b.barrier()})})));
  EXPECT_TRUE(silent(b.wrapped({b.loop("i", b.u32(0), b.load(table, b.u32(3)), {b.barrier()})})));
  // Indices built from workgroup-uniform values: the workgroup id, sizes, uniform locals, other
  // invariant loads.
  EXPECT_TRUE(silent(b.wrapped({b.let("k", b.load(params, b.u32(1)) + b.wgid()),
                                b.if_(b.load(table, b.var("k") % b.workgroup_size()) == b.u32(1), {b.barrier()})})));
}

TEST(Validate_Barriers, AnInvariantBufferLoadAtAnInvocationIndexIsV010) {
  Builder b({64, 1, 1});
  Buf params = b.uniform("params", 0, ScalarType::U32, 64);
  EXPECT_TRUE(reports(b.wrapped({b.if_(b.load(params, b.lid()) > b.u32(0), {b.barrier()})}), {"V010"}));
  EXPECT_TRUE(reports(b.wrapped({b.let("x", b.load(params, b.u32(0)) + b.gid()),
                                 b.loop("i", b.u32(0), b.load(params, b.var("x")), {b.barrier()})}),
                      {"V010"}));
}

TEST(Validate_Barriers, ALoadFromAWrittenBufferIsV010) {
  {
    // read_write: the program may write it, whether or not it does.
    Builder b({64, 1, 1});
    Buf flag = b.read_write("flag", 0, ScalarType::U32, 1);
    EXPECT_TRUE(reports(b.wrapped({b.if_(b.load(flag, b.u32(0)) == b.u32(1), {b.barrier()})}), {"V010"}));
  }
  {
    // A uniform buffer that a store writes (V063) no longer holds one value for the launch.
    Builder b({64, 1, 1});
    Buf params = b.uniform("params", 0, ScalarType::U32, 1);
    EXPECT_TRUE(reports(b.wrapped({b.store(params, b.u32(0), b.lid()),
                                   b.if_(b.load(params, b.u32(0)) > b.u32(0), {b.barrier()})}),
                        {"V063", "V010"}));
  }
  {
    // The same through an atomic on a read buffer (V009), anywhere in the program, even after the barrier.
    Builder b({64, 1, 1});
    Buf table = b.read("table", 0, ScalarType::U32, 1);
    Buf out = b.output("out", 1, ScalarType::U32, 64);
    EXPECT_TRUE(reports(b.wrapped({b.loop("i", b.u32(0), b.load(table, b.u32(0)), {b.barrier()}),
                                   b.store(out, b.lid(), b.atomic(AtomicOp::Add, table, b.u32(0), b.u32(1)))}),
                        {"V009", "V010"}));
  }
}

TEST(Validate_Barriers, AnAtomicTheEntryDoesNotReachWritesNothing) {
  // The twin of the atomic above: the same atomic built into the arena but left out of the program
  // (the check walks the entry; a flat scan of the arena only decides whether it must walk).
  Builder b({64, 1, 1});
  Buf table = b.read("table", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 64);
  (void)b.atomic(AtomicOp::Add, table, b.u32(0), b.u32(1));
  const Program p = b.wrapped({b.loop("i", b.u32(0), b.load(table, b.u32(0)), {b.barrier()}),
                               b.store(out, b.lid(), b.u32(1))});
  EXPECT_TRUE(silent(p)) << render(validate(p));
}

TEST(Validate_Barriers, AsyncCopiesAndOpaqueStatementsMakeLoadsDivergent) {
  {
    // An async copy into the buffer writes it.
    Builder b({64, 1, 1});
    Buf src = b.read_write("src", 0, ScalarType::U32, 4);
    Buf params = b.uniform("params", 1, ScalarType::U32, 4);
    const Program p = b.wrapped({b.async_load(src, params, b.u32(0), b.u32(16), "t"),
                                 b.if_(b.load(params, b.u32(0)) > b.u32(0), {b.barrier()})});
    EXPECT_TRUE(testing::find_code(validate(p), "V010") != nullptr) << render(validate(p));
  }
  {
    // An opaque statement may write any buffer.
    Builder b({64, 1, 1});
    Buf params = b.uniform("params", 0, ScalarType::U32, 4);
    const Program p = b.wrapped({b.opaque("ext.writes_anything"),
                                 b.if_(b.load(params, b.u32(0)) > b.u32(0), {b.barrier()})});
    EXPECT_TRUE(testing::find_code(validate(p), "V010") != nullptr) << render(validate(p));
  }
  {
    // The twin: the same program without the opaque statement.
    Builder b({64, 1, 1});
    Buf params = b.uniform("params", 0, ScalarType::U32, 4);
    EXPECT_TRUE(silent(b.wrapped({b.if_(b.load(params, b.u32(0)) > b.u32(0), {b.barrier()})})));
  }
}

TEST(Validate_Barriers, AnInvariantLoadUnderDivergentFlowStaysDivergentThroughALocal) {
  // The load is uniform, but the local it is assigned to under a lane-dependent `if` is not (G003).
  Builder b({64, 1, 1});
  Buf params = b.uniform("params", 0, ScalarType::U32, 1);
  EXPECT_TRUE(reports(b.wrapped({b.let("x", b.u32(0)), b.if_(b.lid() == b.u32(0), {b.assign("x", b.load(params, b.u32(0)))}),
                                 b.if_(b.var("x") == b.u32(0), {b.barrier()})}),
                      {"G003"}));
}

TEST(Validate_Barriers, DivergenceFlowsThroughLetsAndLoopVariables) {
  Builder b({64, 1, 1});
  EXPECT_TRUE(reports(b.wrapped({b.let("x", b.lid() * b.u32(2)), b.if_(b.var("x") > b.u32(3), {b.barrier()})}),
                      {"V010"}));
  // A loop variable of non-uniform bounds is non-uniform.
  EXPECT_TRUE(reports(b.wrapped({b.loop("i", b.u32(0), b.lid(), {}),
                                 b.loop("j", b.lid(), b.u32(8), {b.if_(b.var("j") == b.u32(3), {b.ret()})}),
                                 b.loop("k", b.u32(0), b.u32(4),
                                        {b.loop("m", b.var("k"), b.u32(4), {b.barrier()})})}),
                      {}));
  EXPECT_TRUE(reports(b.wrapped({b.loop("j", b.lid(), b.u32(8), {b.if_(b.var("j") == b.u32(3), {b.barrier()})})}),
                      {"V010"}));
}

TEST(Validate_Barriers, UniformControlFlowIsSilent) {
  Builder b({64, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, 64);
  EXPECT_TRUE(silent(b.wrapped({
      b.let("n", b.buf_len(a) / b.u32(2)),
      b.if_(b.wgid() == b.u32(0), {b.barrier()}),  // workgroup-uniform: vyre accepts it
      b.if_(b.num_workgroups() > b.workgroup_size(), {b.barrier(MemoryOrdering::Acquire)}),
      b.loop("i", b.u32(0), b.var("n"), {b.barrier(MemoryOrdering::Release)}),
      b.let("acc", b.u32(0)),
      b.loop("j", b.u32(0), b.u32(4), {b.assign("acc", b.var("acc") + b.var("j")),
                                       b.if_(b.var("acc") > b.u32(2), {b.barrier(MemoryOrdering::AcqRel)})}),
  })));
}

TEST(Validate_Barriers, RelaxedBarrierIsV043) {
  Builder b;
  EXPECT_TRUE(reports(b.wrapped({b.barrier(MemoryOrdering::Relaxed)}), {"V043"}));
  EXPECT_TRUE(silent(b.wrapped({b.barrier(MemoryOrdering::SeqCst)})));
}

TEST(Validate_Barriers, AssignmentUnderDivergentFlowIsG003NotV010) {
  // vyre's V010 only clears a local's uniformity when the assigned value is divergent; here the value
  // is a literal but only some invocations assign it.
  Builder b({64, 1, 1});
  Program p = b.wrapped({b.let("x", b.u32(0)), b.if_(b.lid() == b.u32(0), {b.assign("x", b.u32(1))}),
                         b.if_(b.var("x") == b.u32(0), {b.barrier()})});
  EXPECT_TRUE(reports(p, {"G003"}));
  Builder twin({64, 1, 1});  // the same assignment under uniform control flow
  EXPECT_TRUE(silent(twin.wrapped({twin.let("x", twin.u32(0)),
                                   twin.if_(twin.wgid() == twin.u32(0), {twin.assign("x", twin.u32(1))}),
                                   twin.if_(twin.var("x") == twin.u32(0), {twin.barrier()})})));
}

TEST(Validate_Barriers, LoopCarriedDivergenceIsG003) {
  // vyre walks the loop body once, so the barrier's condition still looks uniform; the second
  // iteration sees x = local id.
  Builder b({64, 1, 1});
  Program p = b.wrapped({b.let("x", b.u32(0)),
                         b.loop("i", b.u32(0), b.u32(4),
                                {b.if_(b.var("x") == b.u32(0), {b.barrier()}), b.assign("x", b.lid())})});
  EXPECT_TRUE(reports(p, {"G003"}));
}

TEST(Validate_Barriers, DeeplyNestedLoopsAreAnalysedWithoutBlowUp) {
  // 150 nested uniform loops: the loop-carried analysis must stay polynomial in the depth.
  Builder b({8, 1, 1});
  S inner = b.block({b.if_(b.var("x") == b.u32(0), {b.barrier()}), b.assign("x", b.lid())});
  for (int depth = 0; depth < 150; ++depth)
    inner = b.loop(fmt::format("i{}", depth), b.u32(0), b.u32(2), {inner});
  EXPECT_TRUE(reports(b.wrapped({b.let("x", b.u32(0)), inner}), {"G003"}));
}

TEST(Validate_Barriers, VyreV010ClearsUniformityOnADivergentAssignment) {
  Builder b({64, 1, 1});
  EXPECT_TRUE(reports(b.wrapped({b.let("x", b.u32(0)), b.assign("x", b.gid()),
                                 b.if_(b.var("x") == b.u32(0), {b.barrier()})}),
                      {"V010"}));
}

TEST(Validate_GridSync, TopLevelFencesAreSilent) {
  Builder b({4, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  EXPECT_TRUE(silent(b.wrapped({b.region("a", {b.store(out, b.u32(0), b.u32(0xAA))}), b.grid_sync(),
                            b.region("b", {b.block({b.grid_sync()}), b.store(out, b.u32(2), b.u32(0xBB))})})));
}

TEST(Validate_GridSync, FenceUnderGridUniformControlIsOnlyG001) {
  // Spec docs/vyre-0.7.2.md#g5: valid in vyre 0.7.2.
  Builder b({4, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Program p = b.wrapped({b.loop("i", b.u32(0), b.u32(2), {b.grid_sync()}),
                         b.if_(b.buf_len(a) > b.u32(0), {b.block({b.grid_sync()})})});
  EXPECT_TRUE(reports(p, {"G001", "G001"}));
  EXPECT_TRUE(is_valid(p));
}

TEST(Validate_GridSync, FenceUnderWorkgroupIdControlIsG002) {
  // Spec docs/vyre-0.7.2.md#g6: vyre's V010 accepts it, the grid diverges.
  Builder b({4, 1, 1});
  EXPECT_TRUE(reports(b.wrapped({b.if_(b.wgid() == b.u32(0), {b.grid_sync()})}), {"G002"}));
  EXPECT_TRUE(reports(b.wrapped({b.let("w", b.wgid() + b.u32(1)), b.loop("i", b.u32(0), b.var("w"), {b.grid_sync()})}),
                      {"G002"}));
  // An ordinary barrier under the same condition is fine: it only spans the workgroup.
  EXPECT_TRUE(silent(b.wrapped({b.if_(b.wgid() == b.u32(0), {b.barrier()})})));
}

TEST(Validate_GridSync, AGridSyncWithANarrowMemoryScopeIsG014) {
  Builder b({4, 1, 1});
  EXPECT_TRUE(reports(b.wrapped({b.barrier(MemoryOrdering::GridSync, BarrierMemory::Workgroup)}), {"G014"}));
  EXPECT_TRUE(reports(b.wrapped({b.barrier(MemoryOrdering::GridSync, BarrierMemory::Storage)}), {"G014"}));
  EXPECT_TRUE(silent(b.wrapped({b.barrier(MemoryOrdering::GridSync, BarrierMemory::All)})));
  // Workgroup barriers take every scope.
  EXPECT_TRUE(silent(b.wrapped({b.barrier(MemoryOrdering::SeqCst, BarrierMemory::Workgroup),
                                b.barrier(MemoryOrdering::AcqRel, BarrierMemory::Storage),
                                b.barrier(MemoryOrdering::Acquire, BarrierMemory::All)})));
}

TEST(Validate_GridSync, FenceUnderAnInvariantLoadIsOnlyG001) {
  // A condition loaded from a never-written uniform buffer at a literal index is grid-uniform.
  Builder b({4, 1, 1});
  Buf params = b.uniform("params", 0, ScalarType::U32, 1);
  EXPECT_TRUE(reports(b.wrapped({b.if_(b.load(params, b.u32(0)) > b.u32(0), {b.grid_sync()})}), {"G001"}));
  // At the workgroup id it varies between workgroups: G002.
  EXPECT_TRUE(reports(b.wrapped({b.if_(b.load(params, b.wgid()) > b.u32(0), {b.grid_sync()})}), {"G002"}));
}

TEST(Validate_GridSync, FenceUnderInvocationDependentControlIsV010) {
  Builder b({4, 1, 1});
  EXPECT_TRUE(reports(b.wrapped({b.if_(b.gid() == b.u32(0), {b.grid_sync()})}), {"V010"}));
}

TEST(Validate_BackEdge, ReturnAfterTheLastBarrierOfALoopIsV055) {
  Builder b({64, 1, 1});
  Program p = b.wrapped({b.loop("i", b.u32(0), b.u32(4),
                                {b.barrier(), b.if_(b.lid() == b.u32(3), {b.ret()})})});
  EXPECT_TRUE(reports(p, {"V055"}));
  // Blocks are spliced into the straight line: the barrier inside the block still counts.
  Program spliced = b.wrapped({b.loop("i", b.u32(0), b.u32(4),
                                      {b.block({b.if_(b.lid() == b.u32(3), {b.ret()})}), b.block({b.barrier()})})});
  EXPECT_TRUE(silent(spliced));
}

TEST(Validate_BackEdge, ConditionalBarrierAfterTheExitDoesNotOrderIt) {
  Builder b({64, 1, 1});
  Program p = b.wrapped({b.loop("i", b.u32(0), b.u32(4),
                                {b.barrier(), b.if_(b.gid() == b.u32(1), {b.ret()}),
                                 b.if_(b.wgid() == b.u32(0), {b.barrier()})})});
  EXPECT_TRUE(reports(p, {"V055"}));
}

TEST(Validate_BackEdge, BarrierSettledUniformExitIsTheCarveOut) {
  Builder b({64, 1, 1});
  Buf flag = b.read_write("flag", 0, ScalarType::U32, 1);
  // Exit guarded by a load at a uniform index right after an acquiring barrier: collective.
  EXPECT_TRUE(silent(b.wrapped({b.loop("i", b.u32(0), b.u32(4),
                                       {b.barrier(), b.if_(b.load(flag, b.u32(0)) == b.u32(0), {b.ret()})})})));
  // A write between the barrier and the guard invalidates the proof.
  EXPECT_TRUE(reports(b.wrapped({b.loop("i", b.u32(0), b.u32(4),
                                        {b.barrier(), b.store(flag, b.u32(0), b.u32(1)),
                                         b.if_(b.load(flag, b.u32(0)) == b.u32(0), {b.ret()})})}),
                      {"V055"}));
  // A release-only barrier does not settle loads.
  EXPECT_TRUE(reports(b.wrapped({b.loop("i", b.u32(0), b.u32(4),
                                        {b.barrier(MemoryOrdering::Release),
                                         b.if_(b.load(flag, b.u32(0)) == b.u32(0), {b.ret()})})}),
                      {"V055"}));
}

TEST(Validate_BackEdge, LoopWithoutBarrierMayReturnFreely) {
  Builder b({64, 1, 1});
  EXPECT_TRUE(silent(b.wrapped({b.loop("i", b.u32(0), b.u32(4), {b.if_(b.lid() == b.var("i"), {b.ret()})})})));
}

}  // namespace
}  // namespace gridcheck::ir
