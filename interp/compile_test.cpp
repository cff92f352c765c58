// The pre-pass: dense slots, fused multiply-add, unrolled small loops, refusals.

#include <gtest/gtest.h>

#include <algorithm>

#include "interp/compiled_program.hpp"
#include "interp/interpreter.hpp"
#include "interp/test_support.hpp"
#include "ir/builder.hpp"

namespace gridcheck::interp {
namespace {

using namespace testing;
using ir::Builder;
using ir::Buf;
using ir::ScalarType;

CompiledProgram compiled(const ir::Program& p) {
  auto prepared = prepare(p);
  if (!prepared) {
    ADD_FAILURE() << ir::render(prepared.diagnostics());
    return {};
  }
  return std::move(prepared->compiled);
}

std::size_t count(const CompiledProgram& c, Op op) {
  return static_cast<std::size_t>(
      std::count_if(c.code.begin(), c.code.end(), [op](const Instr& in) { return in.op == op; }));
}

TEST(Interp_Compile, IntegerMultiplyAddIsOneInstructionInBothOperandOrders) {
  Builder b({4, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 8);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.gid() * b.u32(3) + b.u32(1)),
                             b.store(out, b.gid() + b.u32(4), b.u32(2) + b.gid() * b.gid())});
  const CompiledProgram c = compiled(p);
  EXPECT_EQ(count(c, Op::MulAdd), 2u) << disassemble(c);
  EXPECT_EQ(count(c, Op::Mul), 0u);
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(output(r, "out"), (Words{1, 4, 7, 10, 2, 3, 6, 11}));
}

TEST(Interp_Compile, FloatMultiplyAddIsNotFused) {  // f32 would round twice; only integers fuse
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::F32, 1);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.f32(1.5f) * b.f32(3.0f) + b.f32(0.25f))});
  EXPECT_EQ(count(compiled(p), Op::MulAdd), 0u);
}

TEST(Interp_Compile, SmallLiteralLoopsAreUnrolled) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.let("s", b.u32(0)), b.loop("i", b.u32(3), b.u32(7), {b.assign("s", b.var("s") * b.u32(10) + b.var("i"))}),
                             b.store(out, b.u32(0), b.var("s"))});
  const CompiledProgram c = compiled(p);
  EXPECT_EQ(count(c, Op::LoopNext), 0u) << disassemble(c);
  EXPECT_EQ(count(c, Op::MulAdd), 4u);
  EXPECT_EQ(count(c, Op::Inc), 3u);  // the body reads i
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(output(r, "out"), (Words{3456}));
}

TEST(Interp_Compile, LoopsWithBarriersOrRuntimeBoundsOrManyTripsStayLoops) {
  Builder b({2, 1, 1});
  Buf n = b.read("n", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 2);
  ir::Program p = b.wrapped({
      b.let("s", b.u32(0)),
      b.loop("i", b.u32(0), b.u32(2), {b.barrier()}),                               // holds a barrier
      b.loop("j", b.u32(0), b.load(n, b.u32(0)), {b.assign("s", b.var("s") + b.u32(1))}),  // run-time bound
      b.loop("k", b.u32(0), b.u32(17), {b.assign("s", b.var("s") + b.u32(1))}),        // 17 trips
      b.store(out, b.gid(), b.var("s")),
  });
  const CompiledProgram c = compiled(p);
  EXPECT_EQ(count(c, Op::LoopNext), 3u) << disassemble(c);
  EXPECT_EQ(count(c, Op::RecordLoop), 1u);
  const RunResult r = run_reference(p, std::vector<Bytes>{to_bytes({5})}, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{22, 22}));
}

TEST(Interp_Compile, LiteralsAreDeduplicatedIntoConstantSlots) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.store(out, b.u32(1), b.u32(1)), b.store(out, b.u32(2), b.u32(1) + b.u32(1)),
                             b.store(out, b.u32(3), b.cast(ScalarType::U32, b.boolean(true)))});
  const CompiledProgram c = compiled(p);
  EXPECT_EQ(c.literal_values, (std::vector<std::uint32_t>{1, 2, 3}));  // true is the word 1 too
}

TEST(Interp_Compile, AssignmentToALoopVariableIsRefused) {
  Builder b({1, 1, 1});
  ir::Program p = b.wrapped({b.loop("i", b.u32(0), b.u32(4), {b.assign("i", b.u32(9))})});
  RunOptions o;
  o.validate = false;  // the validator says V011; the interpreter refuses on its own too
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1}, 1, o);
  EXPECT_EQ(r.status, RunStatus::Invalid);
  EXPECT_EQ(r.detail(), "R005");
}

TEST(Interp_Compile, StoreIntoAReadOnlyBufferIsRefused) {
  Builder b({1, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(a, b.u32(0), b.u32(1))});
  RunOptions o;
  o.validate = false;
  const RunResult r = run_reference(p, std::vector<Bytes>{to_bytes({0})}, Grid{1, 1, 1}, 1, o);
  EXPECT_EQ(r.detail(), "R002");
  EXPECT_EQ(run_reference(p, std::vector<Bytes>{to_bytes({0})}, Grid{1, 1, 1}).detail(), "V063");
}

TEST(Interp_Compile, AtomicOnWorkgroupMemoryIsRefused) {
  Builder b({1, 1, 1});
  Buf sh = b.workgroup("sh", 1, ScalarType::U32);
  ir::Program p = b.wrapped({b.let("x", b.atomic_add(sh, b.u32(0), b.u32(1)))});
  RunOptions o;
  o.validate = false;
  EXPECT_EQ(run_reference(p, {}, Grid{1, 1, 1}, 1, o).detail(), "R003");
}

TEST(Interp_Compile, DisassemblyNamesEveryInstructionAndItsSite) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  const std::string text = disassemble(compiled(b.wrapped({b.store(out, b.u32(0), b.u32(5))})));
  EXPECT_NE(text.find("store"), std::string::npos) << text;
  EXPECT_NE(text.find("entry[0].body[0] (store to out)"), std::string::npos) << text;
  EXPECT_NE(text.find("return"), std::string::npos);
}

}  // namespace
}  // namespace gridcheck::interp
