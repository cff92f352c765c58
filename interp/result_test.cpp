// Typed outcomes (docs/engineering.md#lesson-11): out_of_fuel, invalid (validation, unsupported nodes, resource
// limits refused before allocation), the trap statement, verdict mapping and schedule parsing.

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

ir::Program endless_loop() {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  return b.wrapped({b.let("x", b.u32(0)),
                    b.loop("i", b.u32(0), b.u32(0xFFFFFFFFu),
                           {b.loop("j", b.u32(0), b.u32(0xFFFFFFFFu), {b.assign("x", b.var("x") + b.u32(1))})}),
                    b.store(out, b.u32(0), b.var("x"))});
}

TEST(Interp_Result, AStepBudgetTurnsAnEndlessLoopIntoOutOfFuel) {
  RunOptions o;
  o.fuel = 10000;
  const RunResult r = run_reference(endless_loop(), {}, Grid{1, 1, 1}, 1, o);
  EXPECT_EQ(r.status, RunStatus::OutOfFuel) << explain(r);
  EXPECT_EQ(r.steps, 10000u);
  EXPECT_EQ(r.verdict(), ir::Verdict::OutOfFuel);
  EXPECT_TRUE(r.outputs.empty());
}

TEST(Interp_Result, AFiniteProgramWithinTheBudgetCountsItsSteps) {  // the silent twin
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.let("x", b.u32(0)), b.loop("i", b.u32(0), b.u32(100), {b.assign("x", b.var("x") + b.var("i"))}),
                             b.store(out, b.u32(0), b.var("x"))});
  RunOptions o;
  o.fuel = 10000;
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1}, 1, o);
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{4950}));
  EXPECT_GT(r.steps, 200u);
  EXPECT_LT(r.steps, 400u);
}

TEST(Interp_Result, ValidationErrorsAreInvalidWithDiagnostics) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.u32(1) + b.i32(1))});
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1});
  EXPECT_EQ(r.status, RunStatus::Invalid);
  EXPECT_EQ(r.verdict(), ir::Verdict::Invalid);
  EXPECT_EQ(r.detail(), "G102");
  RunOptions o;
  o.validate = false;  // typecheck still runs
  EXPECT_EQ(run_reference(p, {}, Grid{1, 1, 1}, 1, o).detail(), "G102");
}

TEST(Interp_Result, UnsupportedStatementsAreRefusedBeforeRunning) {
  RunOptions o;
  o.validate = false;  // the validator refuses collectives itself (V046); reach the interpreter's own check
  {
    Builder b({1, 1, 1});
    Buf buf = b.read_write("buf", 0, ScalarType::U32, 4);
    ir::Program p = b.wrapped({b.all_reduce(buf, ir::CollectiveOp::Sum)});
    const RunResult r = run_reference(p, std::vector<Bytes>{to_bytes(fill(4, 0))}, Grid{1, 1, 1}, 1, o);
    EXPECT_EQ(r.status, RunStatus::Invalid);
    EXPECT_EQ(r.detail(), "R001");
  }
  {
    Builder b({1, 1, 1});
    Buf src = b.read("src", 0, ScalarType::U32, 4);
    Buf dst = b.read_write("dst", 1, ScalarType::U32, 4);
    ir::Program p = b.wrapped({b.async_load(src, dst, b.u32(0), b.u32(16), "t"), b.async_wait("t")});
    const std::vector<Bytes> inputs = {to_bytes(fill(4, 0)), to_bytes(fill(4, 0))};
    EXPECT_EQ(run_reference(p, inputs, Grid{1, 1, 1}, 1, o).detail(), "R001");
  }
  {
    Builder b({1, 1, 1});
    Buf cnt = b.read("cnt", 0, ScalarType::U32, 4);
    ir::Program p = b.wrapped({b.indirect_dispatch(cnt, 0)});
    EXPECT_EQ(run_reference(p, std::vector<Bytes>{to_bytes(fill(4, 0))}, Grid{1, 1, 1}, 1, o).detail(), "R001");
  }
  {
    Builder b({1, 1, 1});
    ir::Program p = b.wrapped({b.opaque("vendor.thing")});
    EXPECT_EQ(run_reference(p, {}, Grid{1, 1, 1}, 1, o).detail(), "R001");
  }
}

TEST(Interp_Result, TheTrapStatementGivesATrapResult) {
  Builder b({2, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.u32(1)), b.if_(b.gid() == b.u32(1), {b.trap(b.u32(0), "boom")})});
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1});
  ASSERT_EQ(r.status, RunStatus::Trap) << explain(r);
  EXPECT_EQ(r.trap->kind, ir::TrapKind::TrapStatement);
  EXPECT_EQ(r.trap->invocation.global, (Grid{1, 0, 0}));
  EXPECT_EQ(r.trap->site.what, "trap boom");
  EXPECT_EQ(r.detail(), "trap_statement");
}

TEST(Interp_Result, AHugeGridIsRefusedBeforeAllocation) {
  Builder b({64, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.gid()), b.grid_sync()});
  const RunResult r = run_reference(p, {}, Grid{65535, 65535, 64});  // 2^48 invocations
  EXPECT_EQ(r.status, RunStatus::Invalid);
  EXPECT_EQ(r.detail(), "R011");
}

TEST(Interp_Result, ABufferBeyondTheLimitIsRefusedBeforeAllocation) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 0x40000000u);  // 4 GiB
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.u32(1))});
  RunOptions o;
  o.limits.max_buffer_bytes = 1 << 20;
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1}, 1, o);
  EXPECT_EQ(r.status, RunStatus::Invalid);
  EXPECT_EQ(r.detail(), "R012");
}

TEST(Interp_Result, InterpreterStateBeyondTheMemoryLimitIsRefused) {
  Builder b({256, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.let("x", b.gid()), b.grid_sync(), b.store(out, b.u32(0), b.var("x"))});
  RunOptions o;
  o.limits.max_total_bytes = 1 << 20;  // every invocation stays resident across the grid_sync
  const RunResult r = run_reference(p, {}, Grid{4096, 1, 1}, 1, o);
  EXPECT_EQ(r.status, RunStatus::Invalid);
  EXPECT_EQ(r.detail(), "R013");
}

TEST(Interp_Result, ZeroGridAndZeroFixpointAreRefused) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.u32(1))});
  EXPECT_EQ(run_reference(p, {}, Grid{0, 1, 1}).detail(), "R010");
  EXPECT_EQ(run_reference(p, {}, Grid{1, 1, 1}, 0).detail(), "R018");
}

TEST(Interp_Result, SchedulesParseAndPrint) {
  EXPECT_EQ(Schedule::parse("in-order"), Schedule::in_order());
  EXPECT_EQ(Schedule::parse("reversed"), Schedule::reversed());
  EXPECT_EQ(Schedule::parse("shuffle:42"), Schedule::shuffle(42));
  EXPECT_EQ(Schedule::shuffle(7).to_string(), "shuffle:7");
  EXPECT_EQ(Schedule::parse("shuffle:"), std::nullopt);
  EXPECT_EQ(Schedule::parse("shuffle:x1"), std::nullopt);
  EXPECT_EQ(Schedule::parse("random"), std::nullopt);
}

TEST(Interp_Result, PreparedProgramsRunRepeatedly) {
  Builder b({4, 1, 1});
  Buf v = b.read_write("v", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.store(v, b.gid(), b.load(v, b.gid()) * b.u32(2))});
  auto prepared = prepare(p);
  ASSERT_TRUE(prepared.ok());
  std::vector<Bytes> buffers = {to_bytes({1, 2, 3, 4})};
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(execute(*prepared, buffers, Grid{1, 1, 1}).ok());
  EXPECT_EQ(to_words(buffers[0]), (Words{8, 16, 24, 32}));
}

}  // namespace
}  // namespace gridcheck::interp
