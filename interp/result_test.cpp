// Typed outcomes (docs/engineering.md#lesson-11): out_of_fuel, invalid (validation, unsupported nodes, resource
// limits refused before allocation), the trap statement, verdict mapping and schedule parsing.

#include <gtest/gtest.h>

#include "interp/interpreter.hpp"
#include "interp/test_support.hpp"
#include "ir/builder.hpp"
#include "ir/text/parser.hpp"

#include <chrono>

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

std::string first_error_code(const RunResult& r) {
  for (const ir::Diagnostic& d : r.diagnostics)
    if (d.severity == ir::Severity::Error) return d.code;
  return {};
}

TEST(Interp_Result, AStepBudgetTurnsAnEndlessLoopIntoOutOfFuel) {
  RunOptions o;
  o.limits.fuel = 10000;
  const RunResult r = run_reference(endless_loop(), {}, Grid{1, 1, 1}, 1, o);
  EXPECT_EQ(r.status, RunStatus::OutOfFuel) << explain(r);
  EXPECT_EQ(r.steps, 10000u);
  // A resource limit, never a result of the program: verdict `invalid limit` (docs/semantics.md §3.9).
  EXPECT_EQ(r.verdict(), ir::Verdict::Invalid);
  EXPECT_EQ(r.detail(), "limit");
  EXPECT_EQ(first_error_code(r), "R021");
  EXPECT_TRUE(r.outputs.empty());
}

TEST(Interp_Result, ADeadlineStopsAnEndlessLoopWithR022) {
  RunOptions o;
  o.limits.fuel = UINT64_MAX;  // only the clock stops it
  o.limits.timeout_seconds = 0.2;
  o.deadline = ir::deadline_after(o.limits);
  const auto start = ir::Clock::now();
  const RunResult r = run_reference(endless_loop(), {}, Grid{1, 1, 1}, 1, o);
  const double seconds = std::chrono::duration<double>(ir::Clock::now() - start).count();
  EXPECT_EQ(r.status, RunStatus::OutOfFuel) << explain(r);
  EXPECT_EQ(first_error_code(r), "R022");
  EXPECT_EQ(r.detail(), "limit");
  EXPECT_GE(seconds, 0.2);
  EXPECT_LT(seconds, 5.0);
  EXPECT_GT(r.steps, std::uint64_t{kDeadlineCheckSteps});
}

TEST(Interp_Result, ADeadlineDoesNotChangeTheStepsOfAFiniteRun) {  // the silent twin
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  // 3·2^22 + a few steps: the budget is handed out in several chunks
  ir::Program p = b.wrapped({b.let("x", b.u32(0)), b.loop("i", b.u32(0), b.u32(3u << 22), {b.assign("x", b.var("x") + b.u32(1))}),
                             b.store(out, b.u32(0), b.var("x"))});
  RunOptions plain;
  const RunResult a = run_reference(p, {}, Grid{1, 1, 1}, 1, plain);
  RunOptions timed;
  timed.limits.timeout_seconds = 600;
  timed.deadline = ir::deadline_after(timed.limits);
  const RunResult b2 = run_reference(p, {}, Grid{1, 1, 1}, 1, timed);
  ASSERT_TRUE(a.ok()) << explain(a);
  ASSERT_TRUE(b2.ok()) << explain(b2);
  EXPECT_EQ(output(b2, "out"), (Words{3u << 22}));
  EXPECT_EQ(a.steps, b2.steps);
}

TEST(Interp_Result, OutOfFuelPointsAtTheStatementWhereTheRunStopped) {
  ir::Result<ir::Case> c = ir::parse_case(R"(case endless
buffer out: u32[1] read_write binding 0 output
kernel {
  let x = 0
  loop i in 0..4294967295 {
    x = x + 1
  }
  out[0] = x
}
)", "endless.gc");
  ASSERT_TRUE(c.ok());
  RunOptions o;
  o.limits.fuel = 1000;
  const RunResult r = run_case(*c, o);
  ASSERT_EQ(r.status, RunStatus::OutOfFuel) << explain(r);
  ASSERT_FALSE(r.diagnostics.empty());
  const ir::Diagnostic& d = *r.diagnostics.begin();
  EXPECT_EQ(d.code, "R021");
  EXPECT_EQ(d.loc.line, 6u);  // the loop body's statement, where the budget ran out
  EXPECT_NE(d.message.find("budget of 1000 steps"), std::string::npos) << d.message;
}

TEST(Interp_Result, ACaseWhoseBuffersExceedTheMemoryBudgetIsRefusedAtTheLargestBuffer) {
  ir::Result<ir::Case> c = ir::parse_case(R"(case big
buffer small: u32[4] read binding 0
buffer big: u32[268435456] read_write binding 1 output
input small = fill 1
kernel {
  big[0] = small[0]
}
)", "big.gc");
  ASSERT_TRUE(c.ok());
  RunOptions o;  // default budget: at most 4 GiB, and 1 GiB is held five times with the race detector
  o.detect_races = true;
  const RunResult r = run_case(*c, o);
  EXPECT_EQ(r.status, RunStatus::Invalid);
  EXPECT_EQ(r.detail(), "limit");
  ASSERT_FALSE(r.diagnostics.empty());
  const ir::Diagnostic& d = *r.diagnostics.begin();
  EXPECT_EQ(d.code, "R023");
  EXPECT_EQ(d.loc.line, 3u);
  EXPECT_NE(d.message.find("'big' of 1 GiB"), std::string::npos) << d.message;
}

TEST(Interp_Result, ACaseJustUnderTheMemoryBudgetRuns) {  // the silent twin
  ir::Result<ir::Case> c = ir::parse_case(R"(case fits
buffer big: u32[65536] read_write binding 0 output
kernel {
  big[1] = 7
}
)", "fits.gc");
  ASSERT_TRUE(c.ok());
  RunOptions o;
  o.limits.max_memory = 3 * 256 * 1024;  // three copies of 256 KiB, without the race detector
  const RunResult fits = run_case(*c, o);
  EXPECT_TRUE(fits.ok()) << explain(fits);
  o.limits.max_memory -= 1;
  EXPECT_EQ(first_error_code(run_case(*c, o)), "R023");
}

TEST(Interp_Result, AFiniteProgramWithinTheBudgetCountsItsSteps) {  // the silent twin
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.let("x", b.u32(0)), b.loop("i", b.u32(0), b.u32(100), {b.assign("x", b.var("x") + b.var("i"))}),
                             b.store(out, b.u32(0), b.var("x"))});
  RunOptions o;
  o.limits.fuel = 10000;
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
  EXPECT_EQ(r.detail(), "limit");
  EXPECT_EQ(first_error_code(r), "R011");
}

TEST(Interp_Result, ABufferBeyondTheLimitIsRefusedBeforeAllocation) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 0x40000000u);  // 4 GiB
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.u32(1))});
  RunOptions o;
  o.limits.max_buffer_bytes = 1 << 20;
  o.limits.max_memory = UINT64_MAX;  // the buffer's own limit, whatever the machine's memory
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1}, 1, o);
  EXPECT_EQ(r.status, RunStatus::Invalid);
  EXPECT_EQ(r.detail(), "limit");
  EXPECT_EQ(first_error_code(r), "R012");
}

TEST(Interp_Result, InterpreterStateBeyondTheMemoryLimitIsRefused) {
  Builder b({256, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.let("x", b.gid()), b.grid_sync(), b.store(out, b.u32(0), b.var("x"))});
  RunOptions o;
  o.limits.max_memory = 1 << 20;  // every invocation stays resident across the grid_sync
  const RunResult r = run_reference(p, {}, Grid{4096, 1, 1}, 1, o);
  EXPECT_EQ(r.status, RunStatus::Invalid);
  EXPECT_EQ(r.detail(), "limit");
  EXPECT_EQ(first_error_code(r), "R013");
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
