// The pre-pass: dense slots, fused multiply-add, unrolled small loops, refusals.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "interp/compiled_program.hpp"
#include "interp/interpreter.hpp"
#include "interp/test_support.hpp"
#include "ir/builder.hpp"
#include "ir/scalar_semantics.hpp"

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

/// if (x OP y) out[...] = 1 else out[...] = 2, for the six comparisons on u32 and on i32 operands
/// (lane l compares element l of the inputs); `through_let` computes each condition into a `let`
/// first, which keeps the comparison and the Jz apart.
ir::Program compare_branches(bool through_let, std::uint32_t lanes) {
  Builder b({lanes, 1, 1});
  Buf ua = b.read("ua", 0, ScalarType::U32, lanes), ub = b.read("ub", 1, ScalarType::U32, lanes);
  Buf ia = b.read("ia", 2, ScalarType::I32, lanes), ib = b.read("ib", 3, ScalarType::I32, lanes);
  Buf out = b.output("out", 4, ScalarType::U32, lanes * 12);
  std::vector<ir::S> body;
  std::uint32_t k = 0;
  for (int signed_ops = 0; signed_ops < 2; ++signed_ops) {
    for (int op = 0; op < 6; ++op, ++k) {
      const Buf& l = signed_ops ? ia : ua;
      const Buf& r = signed_ops ? ib : ub;
      const ir::E x = b.load(l, b.gid()), y = b.load(r, b.gid());
      const ir::E cmp = op == 0 ? x == y : op == 1 ? x != y : op == 2 ? x < y : op == 3 ? x > y : op == 4 ? x <= y : x >= y;
      const ir::E at = b.gid() * b.u32(12) + b.u32(k);
      const std::string name = "c" + std::to_string(k);
      if (through_let) body.push_back(b.let(name, cmp));
      body.push_back(b.if_(through_let ? b.var(name) : cmp, {b.store(out, at, b.u32(1))}, {b.store(out, at, b.u32(2))}));
    }
  }
  return b.wrapped(body);
}

TEST(Interp_Compile, AnIfOnAComparisonIsOneCompareAndJumpWithTheSameResultsAndSteps) {
  const Words a = {1, 2, 3, 0xFFFFFFFFu, 1, 0x80000000u};
  const Words c = {2, 2, 2, 1, 0x80000000u, 0x7FFFFFFFu};
  const auto lanes = static_cast<std::uint32_t>(a.size());
  const std::vector<Bytes> inputs = {to_bytes(a), to_bytes(c), to_bytes(a), to_bytes(c)};
  Words expected;
  for (std::uint32_t l = 0; l < lanes; ++l) {
    const std::uint32_t ux = a[l], uy = c[l];
    const auto sx = static_cast<std::int32_t>(ux), sy = static_cast<std::int32_t>(uy);
    for (bool v : {ux == uy, ux != uy, ux < uy, ux > uy, ux <= uy, ux >= uy, sx == sy, sx != sy, sx < sy, sx > sy,
                   sx <= sy, sx >= sy})
      expected.push_back(v ? 1u : 2u);
  }
  const ir::Program fused = compare_branches(false, lanes), apart = compare_branches(true, lanes);
  const CompiledProgram cf = compiled(fused), ca = compiled(apart);
  EXPECT_EQ(count(cf, Op::Jz), 0u) << disassemble(cf);
  for (Op op : {Op::JnEq, Op::JnNe, Op::JnLtU, Op::JnLtS, Op::JnLeU, Op::JnLeS})
    EXPECT_GE(count(cf, op), 1u) << name_of(op) << "\n" << disassemble(cf);
  EXPECT_EQ(count(ca, Op::Jz), 12u) << disassemble(ca);
  EXPECT_EQ(cf.code.size() + 12, ca.code.size());
  const RunResult rf = run_reference(fused, inputs, Grid{1, 1, 1});
  const RunResult ra = run_reference(apart, inputs, Grid{1, 1, 1});
  ASSERT_TRUE(rf.ok()) << explain(rf);
  ASSERT_TRUE(ra.ok()) << explain(ra);
  EXPECT_EQ(output(rf, "out"), expected);
  EXPECT_EQ(output(ra, "out"), expected);
  EXPECT_EQ(rf.steps, ra.steps);  // a compare-and-jump costs the two steps of the pair it replaces
}

TEST(Interp_Compile, AnIfThatHoldsABarrierKeepsItsConditionForTheRecord) {
  Builder b({2, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.if_(b.wgid() < b.u32(5), {b.barrier()}), b.store(out, b.gid(), b.u32(3))});
  const CompiledProgram c = compiled(p);
  EXPECT_EQ(count(c, Op::RecordIf), 1u) << disassemble(c);
  EXPECT_EQ(count(c, Op::Jz), 1u);
  EXPECT_EQ(count(c, Op::JnLtU), 0u);
}

/// One store per operation: out[k * n + gid] = op(x[gid]) (or op(x[gid], y[gid])), over x and y
/// buffers of u32, i32 and f32 holding edge values; each output element is checked against
/// ir/scalar_semantics.
struct OneOpEach {
  enum class Kind { Unary, Binary, Cast };
  struct Row {
    Kind kind;
    std::uint8_t op;  ///< UnOp or BinOp; for a cast the target ScalarType
    ScalarType type;  ///< the operand type
  };
  static Row un(ir::UnOp op, ScalarType t) { return Row{Kind::Unary, static_cast<std::uint8_t>(op), t}; }
  static Row bin(ir::BinOp op, ScalarType t) { return Row{Kind::Binary, static_cast<std::uint8_t>(op), t}; }
  static Row cast(ScalarType to, ScalarType from) { return Row{Kind::Cast, static_cast<std::uint8_t>(to), from}; }
  static constexpr std::uint32_t kN = 8;
  static Words edges() {
    return {0u, 1u, 31u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0x3FC00000u /* 1.5f */, 0xC0000000u /* -2.0f */};
  }
  static Words others() { return {5u, 0xFFFFFFFFu, 33u, 1u, 0xFFFFFFFFu, 7u, 0x40400000u /* 3.0f */, 0x80000000u}; }

  static void check(const std::vector<Row>& rows, const std::vector<std::pair<Op, std::size_t>>& want) {
    const auto n = kN;
    Builder b({n, 1, 1});
    Buf xs[3] = {b.read("xu", 0, ScalarType::U32, n), b.read("xi", 1, ScalarType::I32, n), b.read("xf", 2, ScalarType::F32, n)};
    Buf ys[3] = {b.read("yu", 3, ScalarType::U32, n), b.read("yi", 4, ScalarType::I32, n), b.read("yf", 5, ScalarType::F32, n)};
    const auto at = [](ScalarType t) { return t == ScalarType::U32 ? 0 : t == ScalarType::I32 ? 1 : 2; };
    Buf out = b.output("out", 6, ScalarType::U32, n * static_cast<std::uint32_t>(rows.size()));
    std::vector<ir::S> body;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const Row& row = rows[k];
      const ir::E x = b.load(xs[at(row.type)], b.gid()), y = b.load(ys[at(row.type)], b.gid());
      ir::E v = row.kind == Kind::Unary    ? b.un(static_cast<ir::UnOp>(row.op), x)
                : row.kind == Kind::Binary ? b.bin(static_cast<ir::BinOp>(row.op), x, y)
                                           : b.cast(static_cast<ScalarType>(row.op), x);
      // Stored as u32 bits (a cast of u32 / i32 / bool / f32 to u32 would be another operation): through
      // a u32 buffer only when the result is u32; else a second buffer of its type.
      const ScalarType result = row.kind == Kind::Unary    ? *ir::result_type(static_cast<ir::UnOp>(row.op), row.type)
                                : row.kind == Kind::Binary ? *ir::result_type(static_cast<ir::BinOp>(row.op), row.type)
                                                           : static_cast<ScalarType>(row.op);
      Buf dst = result == ScalarType::U32 ? out : b.output("out" + std::to_string(k), 7 + static_cast<std::uint32_t>(k), result, n);
      body.push_back(b.store(dst, result == ScalarType::U32 ? b.gid() + b.u32(static_cast<std::uint32_t>(k) * n) : b.gid(), v));
    }
    ir::Program p = b.wrapped(std::move(body));
    const CompiledProgram c = compiled(p);
    for (const auto& [op, times] : want) EXPECT_EQ(count(c, op), times) << name_of(op) << "\n" << disassemble(c);
    const std::vector<Bytes> inputs = {to_bytes(edges()), to_bytes(edges()), to_bytes(edges()),
                                       to_bytes(others()), to_bytes(others()), to_bytes(others())};
    const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
    ASSERT_TRUE(r.ok()) << explain(r);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const Row& row = rows[k];
      const ScalarType result = row.kind == Kind::Unary    ? *ir::result_type(static_cast<ir::UnOp>(row.op), row.type)
                                : row.kind == Kind::Binary ? *ir::result_type(static_cast<ir::BinOp>(row.op), row.type)
                                                           : static_cast<ScalarType>(row.op);
      const Words got = result == ScalarType::U32 ? output(r, "out") : output(r, "out" + std::to_string(k));
      const std::size_t first = result == ScalarType::U32 ? k * n : 0;
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t x = ir::load_word(row.type, edges()[i]), y = ir::load_word(row.type, others()[i]);
        const std::uint32_t want_bits =
            row.kind == Kind::Unary    ? ir::eval_unary(static_cast<ir::UnOp>(row.op), row.type, x).bits
            : row.kind == Kind::Binary ? ir::eval_binary(static_cast<ir::BinOp>(row.op), row.type, x, y).bits
                                       : ir::eval_cast(static_cast<ScalarType>(row.op), row.type, x);
        EXPECT_EQ(got[first + i], want_bits) << "row " << k << " element " << i;
      }
    }
  }
};

TEST(Interp_Compile, TheGeneratorsUnaryOperatorsCastsAndOtherBinaryOperatorsHaveTheirOwnOpcodes) {
  using ir::BinOp;
  using ir::UnOp;
  constexpr auto un = &OneOpEach::un;
  constexpr auto bin = &OneOpEach::bin;
  constexpr auto cast = &OneOpEach::cast;
  OneOpEach::check({un(UnOp::Negate, ScalarType::I32), un(UnOp::Negate, ScalarType::U32), un(UnOp::BitNot, ScalarType::U32),
                    un(UnOp::Popcount, ScalarType::U32), un(UnOp::Clz, ScalarType::U32), un(UnOp::Ctz, ScalarType::U32),
                    un(UnOp::ReverseBits, ScalarType::U32), un(UnOp::Abs, ScalarType::I32), un(UnOp::Abs, ScalarType::U32),
                    cast(ScalarType::Bool, ScalarType::U32), cast(ScalarType::Bool, ScalarType::I32),
                    cast(ScalarType::U32, ScalarType::I32), cast(ScalarType::I32, ScalarType::U32),
                    bin(BinOp::SaturatingAdd, ScalarType::U32), bin(BinOp::SaturatingSub, ScalarType::I32),
                    bin(BinOp::RotateLeft, ScalarType::U32), bin(BinOp::MulHigh, ScalarType::U32),
                    bin(BinOp::Add, ScalarType::F32), bin(BinOp::Sub, ScalarType::F32), bin(BinOp::Mul, ScalarType::F32)},
                   {{Op::Unary, 0}, {Op::Cast, 0}, {Op::Binary, 0}, {Op::Neg, 2}, {Op::BitNot, 1}, {Op::Popcount, 1},
                    {Op::Clz, 1}, {Op::Ctz, 1}, {Op::ReverseBits, 1}, {Op::AbsS, 1}, {Op::NeZero, 2}, {Op::SatAddU, 1},
                    {Op::SatSubS, 1}, {Op::RotlU, 1}, {Op::MulHiU, 1}, {Op::AddF32, 1}, {Op::SubF32, 1}, {Op::MulF32, 1}});
}

TEST(Interp_Compile, OtherOperatorsAndTypesStillGoThroughScalarSemantics) {  // the twin: no dedicated opcode
  using ir::BinOp;
  using ir::UnOp;
  constexpr auto un = &OneOpEach::un;
  constexpr auto bin = &OneOpEach::bin;
  constexpr auto cast = &OneOpEach::cast;
  OneOpEach::check({un(UnOp::Negate, ScalarType::F32), un(UnOp::Sign, ScalarType::I32), cast(ScalarType::U32, ScalarType::F32),
                    cast(ScalarType::F32, ScalarType::I32), cast(ScalarType::Bool, ScalarType::F32),
                    bin(BinOp::SaturatingAdd, ScalarType::I32), bin(BinOp::SaturatingSub, ScalarType::U32),
                    bin(BinOp::RotateRight, ScalarType::U32), bin(BinOp::Div, ScalarType::F32)},
                   {{Op::Unary, 2}, {Op::Cast, 3}, {Op::Binary, 4}, {Op::Neg, 0}, {Op::NeZero, 0}, {Op::SatAddU, 0},
                    {Op::SatSubS, 0}, {Op::AddF32, 0}});
}

TEST(Interp_Compile, LiteralsAreDeduplicatedIntoConstantSlots) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.store(out, b.u32(1), b.u32(1)), b.store(out, b.u32(2), b.u32(1) + b.u32(1)),
                             b.store(out, b.u32(3), b.cast(ScalarType::U32, b.boolean(true)))});
  const CompiledProgram c = compiled(p);
  EXPECT_EQ(c.literal_values, (std::vector<std::uint32_t>{1, 2, 3}));  // true is the word 1 too
}

TEST(Interp_Compile, ManyDistinctLiteralsKeepTheirOwnSlots) {
  // More literals than the slot table starts with (it grows): each store writes its own constant.
  Builder b({1, 1, 1});
  constexpr std::uint32_t kCount = 200;
  Buf out = b.output("out", 0, ScalarType::U32, kCount);
  std::vector<ir::S> stores;
  for (std::uint32_t i = 0; i < kCount; ++i) stores.push_back(b.store(out, b.u32(i), b.u32(1000 + 7 * i)));
  const ir::Program p = b.wrapped(stores);
  const CompiledProgram c = compiled(p);
  ASSERT_EQ(c.literal_values.size(), 2 * kCount);  // the indices 0..199 and the values, all distinct
  auto prepared = prepare(p);
  ASSERT_TRUE(prepared);
  std::vector<std::vector<std::uint8_t>> buffers{std::vector<std::uint8_t>(4 * kCount, 0)};
  const RunResult r = execute(*prepared, buffers, {1, 1, 1}, 1, {});
  ASSERT_TRUE(r.ok()) << r.detail();
  for (std::uint32_t i = 0; i < kCount; ++i) {
    std::uint32_t word = 0;
    std::memcpy(&word, buffers[0].data() + 4 * i, 4);
    EXPECT_EQ(word, 1000 + 7 * i) << "element " << i;
  }
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

TEST(Interp_Compile, APathReadsFromTheRootDownAtAnyDepth) {
  // A chain of 40 nodes (deeper than path_string's fixed buffer): "entry.body[1].body[2]...".
  CompiledProgram c;
  c.paths.push_back(PathNode{PathNode::kNone, "entry", PathNode::kNone});
  std::string expected = "entry";
  for (std::uint32_t i = 1; i < 40; ++i) {
    c.paths.push_back(PathNode{i - 1, "body", i});
    expected += ".body[" + std::to_string(i) + "]";
    EXPECT_EQ(c.path_string(i), expected) << i;
  }
  EXPECT_EQ(c.path_string(0), "entry");
}

}  // namespace
}  // namespace gridcheck::interp
