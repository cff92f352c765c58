// Arithmetic through the interpreter equals ir/scalar_semantics (whose own tests pin docs/semantics.md §3.5),
// for every operator and operand type of the table, over edge values; plus the evaluation rules of
// docs/semantics.md §2.4/§2.5/§3.3: select evaluates both arms, loops are half-open with bounds evaluated once,
// truthiness by type.

#include <gtest/gtest.h>

#include "interp/interpreter.hpp"
#include "interp/test_support.hpp"
#include "ir/builder.hpp"
#include "ir/scalar_semantics.hpp"

namespace gridcheck::interp {
namespace {

using namespace testing;
using ir::BinOp;
using ir::Builder;
using ir::Buf;
using ir::ScalarType;
using ir::UnOp;

const Words kEdges = {0u,          1u,          2u,          31u,         32u,         33u,         0x7FFFFFFFu,
                      0x80000000u, 0xFFFFFFFFu, 0xFFFFFFFEu, f32(1.5f),   f32(-2.0f),  0x7F800000u, 0xFF800000u,
                      0x7FC00000u, 0x7FA12345u, 0x00000001u, 0x80000001u, 0x00800000u, f32(3.0f)};

/// Runs `out[i] = op(l[i], r[i])` over all pairs of `values` (loaded from buffers of type `type`) and
/// returns the outputs, or nothing when the run did not finish (a trapping pair is filtered by the caller).
RunResult run_binary(BinOp op, ScalarType type, const Words& ls, const Words& rs) {
  const auto n = static_cast<std::uint32_t>(ls.size());
  Builder b({n, 1, 1});
  Buf l = b.read("l", 0, type, n);
  Buf r = b.read("r", 1, type, n);
  Buf out = b.output("out", 2, *ir::result_type(op, type), n);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.bin(op, b.load(l, b.gid()), b.load(r, b.gid())))});
  const std::vector<Bytes> inputs = {to_bytes(ls), to_bytes(rs)};
  return run_reference(p, inputs, Grid{1, 1, 1});
}

TEST(Interp_Arithmetic, EveryBinaryOperatorMatchesScalarSemanticsOnEdgeValues) {
  int checked = 0;
  for (const ir::BinOpInfo& row : ir::all_bin_ops()) {
    for (int t = 0; t < ir::kScalarTypeCount; ++t) {
      const auto type = static_cast<ScalarType>(t);
      if (!ir::result_type(row.op, type)) continue;
      Words ls, rs, expected;
      for (std::uint32_t x : kEdges) {
        for (std::uint32_t y : kEdges) {
          const std::uint32_t a = ir::load_word(type, x), c = ir::load_word(type, y);
          const ir::ScalarResult v = ir::eval_binary(row.op, type, a, c);
          if (!v.ok()) continue;  // traps are tested one by one below
          ls.push_back(x);
          rs.push_back(y);
          expected.push_back(v.bits);
        }
      }
      const RunResult r = run_binary(row.op, type, ls, rs);
      ASSERT_TRUE(r.ok()) << row.mnemonic << " " << ir::name_of(type) << ": " << explain(r);
      const Words got = output(r, "out");
      for (std::size_t i = 0; i < expected.size(); ++i)
        ASSERT_EQ(got[i], expected[i]) << row.mnemonic << "<" << ir::name_of(type) << ">(" << ls[i] << ", " << rs[i]
                                       << ")";
      ++checked;
    }
  }
  EXPECT_GE(checked, 70);
}

TEST(Interp_Arithmetic, EveryUnaryOperatorMatchesScalarSemanticsOnEdgeValues) {
  for (const ir::UnOpInfo& row : ir::all_un_ops()) {
    for (int t = 0; t < ir::kScalarTypeCount; ++t) {
      const auto type = static_cast<ScalarType>(t);
      const auto result = ir::result_type(row.op, type);
      if (!result) continue;
      const auto n = static_cast<std::uint32_t>(kEdges.size());
      Builder b({n, 1, 1});
      Buf x = b.read("x", 0, type, n);
      Buf out = b.output("out", 1, *result, n);
      ir::Program p = b.wrapped({b.store(out, b.gid(), b.un(row.op, b.load(x, b.gid())))});
      const std::vector<Bytes> inputs = {to_bytes(kEdges)};
      const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
      ASSERT_TRUE(r.ok()) << row.mnemonic << ": " << explain(r);
      const Words got = output(r, "out");
      for (std::size_t i = 0; i < kEdges.size(); ++i)
        ASSERT_EQ(got[i], ir::eval_unary(row.op, type, ir::load_word(type, kEdges[i])).bits)
            << row.mnemonic << "<" << ir::name_of(type) << ">(" << kEdges[i] << ")";
    }
  }
}

TEST(Interp_Arithmetic, EveryCastMatchesScalarSemantics) {
  for (int s = 0; s < ir::kScalarTypeCount; ++s) {
    for (int t = 0; t < ir::kScalarTypeCount; ++t) {
      const auto source = static_cast<ScalarType>(s), target = static_cast<ScalarType>(t);
      const auto n = static_cast<std::uint32_t>(kEdges.size());
      Builder b({n, 1, 1});
      Buf x = b.read("x", 0, source, n);
      Buf out = b.output("out", 1, target, n);
      ir::Program p = b.wrapped({b.store(out, b.gid(), b.cast(target, b.load(x, b.gid())))});
      const std::vector<Bytes> inputs = {to_bytes(kEdges)};
      const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
      ASSERT_TRUE(r.ok()) << explain(r);
      const Words got = output(r, "out");
      for (std::size_t i = 0; i < kEdges.size(); ++i)
        ASSERT_EQ(got[i], ir::eval_cast(target, source, ir::load_word(source, kEdges[i])))
            << ir::name_of(source) << " -> " << ir::name_of(target) << " of " << kEdges[i];
    }
  }
}

TEST(Interp_Arithmetic, FmaMatchesScalarSemantics) {
  const Words as = {f32(1.0f + 0x1p-23f), f32(2.0f), 0x7F800000u, 0x00000001u};
  const Words bs = {f32(1.0f - 0x1p-23f), f32(3.0f), 0u, f32(0x1p100f)};
  const Words cs = {f32(-1.0f), f32(1.0f), f32(1.0f), 0u};
  Builder b({4, 1, 1});
  Buf a = b.read("a", 0, ScalarType::F32, 4);
  Buf bb = b.read("b", 1, ScalarType::F32, 4);
  Buf c = b.read("c", 2, ScalarType::F32, 4);
  Buf out = b.output("out", 3, ScalarType::F32, 4);
  ir::Program p =
      b.wrapped({b.store(out, b.gid(), b.fma(b.load(a, b.gid()), b.load(bb, b.gid()), b.load(c, b.gid())))});
  const std::vector<Bytes> inputs = {to_bytes(as), to_bytes(bs), to_bytes(cs)};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  const Words got = output(r, "out");
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(got[i], ir::eval_fma(ir::load_word(ScalarType::F32, as[i]), bs[i], cs[i])) << i;
  EXPECT_EQ(got[0], f32(-0x1p-46f));
}

TEST(Interp_Arithmetic, LiteralsAreCanonical) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::F32, 3);
  Buf flags = b.output("flags", 1, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.f32_bits(0x7FA12345u)), b.store(out, b.u32(1), b.f32_bits(0x80000001u)),
                             b.store(out, b.u32(2), b.f32_bits(0x3FC00000u)),
                             b.store(flags, b.u32(0), b.cast(ScalarType::U32, b.boolean(true)))});
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{0x7FC00000u, 0x80000000u, 0x3FC00000u}));
  EXPECT_EQ(output(r, "flags"), (Words{1}));
}

struct TrapCase {
  BinOp op;
  std::int32_t l, r;
  ir::TrapKind kind;
};

TEST(Interp_Arithmetic, SignedDivisionEdgeCasesTrapWithLocationAndInvocation) {
  const std::vector<TrapCase> cases = {
      {BinOp::Div, 7, 0, ir::TrapKind::DivideByZero},
      {BinOp::Mod, 7, 0, ir::TrapKind::RemainderByZero},
      {BinOp::Div, INT32_MIN, -1, ir::TrapKind::DivideOverflow},
      {BinOp::Mod, INT32_MIN, -1, ir::TrapKind::RemainderOverflow},
  };
  for (const TrapCase& tc : cases) {
    Builder b({4, 1, 1});
    Buf l = b.read("l", 0, ScalarType::I32, 4);
    Buf r = b.read("r", 1, ScalarType::I32, 4);
    Buf out = b.output("out", 2, ScalarType::I32, 4);
    ir::Program p = b.wrapped({b.store(out, b.gid(), b.bin(tc.op, b.load(l, b.gid()), b.load(r, b.gid())))});
    // Only invocation 2 hits the edge case.
    const std::vector<Bytes> inputs = {to_bytes({9, 9, static_cast<std::uint32_t>(tc.l), 9}),
                                       to_bytes({3, 3, static_cast<std::uint32_t>(tc.r), 3})};
    const RunResult res = run_reference(p, inputs, Grid{1, 1, 1});
    ASSERT_EQ(res.status, RunStatus::Trap) << explain(res);
    ASSERT_TRUE(res.trap.has_value());
    EXPECT_EQ(res.trap->kind, tc.kind);
    EXPECT_EQ(res.trap->invocation.global, (Grid{2, 0, 0}));
    EXPECT_EQ(res.trap->site.path, "entry[0].body[0]");
    EXPECT_EQ(res.verdict(), ir::Verdict::Trap);
    EXPECT_EQ(res.detail(), ir::name_of(tc.kind));
    EXPECT_TRUE(res.outputs.empty());
  }
}

TEST(Interp_Arithmetic, UnsignedDivisionByZeroIsTotal) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 2);
  Buf z = b.read("z", 1, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.u32(7) / b.load(z, b.u32(0))),
                             b.store(out, b.u32(1), b.u32(7) % b.load(z, b.u32(0)))});
  const std::vector<Bytes> inputs = {to_bytes({0})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{0xFFFFFFFFu, 0}));
}

TEST(Interp_Arithmetic, SelectEvaluatesBothArms) {
  Builder b({1, 1, 1});
  Buf ctr = b.read_write("ctr", 0, ScalarType::U32, 2);
  Buf out = b.output("out", 1, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(
      out, b.u32(0),
      b.select(b.boolean(true), b.atomic_add(ctr, b.u32(0), b.u32(1)), b.atomic_add(ctr, b.u32(1), b.u32(1))))});
  const std::vector<Bytes> inputs = {to_bytes({5, 8})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "ctr"), (Words{6, 9}));  // both atomics ran
  EXPECT_EQ(output(r, "out"), (Words{5}));     // the then-arm's old value
}

TEST(Interp_Arithmetic, LoopsAreHalfOpenWithBoundsEvaluatedOnce) {
  Builder b({1, 1, 1});
  Buf n = b.read_write("n", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 3);
  ir::Program p = b.wrapped({
      b.let("count", b.u32(0)),
      b.let("sum", b.u32(0)),
      // The body raises the upper bound's source; the loop still runs load(n) - 2 = 3 times: 2, 3, 4.
      b.loop("i", b.u32(2), b.load(n, b.u32(0)),
             {b.store(n, b.u32(0), b.load(n, b.u32(0)) + b.u32(1)), b.assign("count", b.var("count") + b.u32(1)),
              b.assign("sum", b.var("sum") + b.var("i"))}),
      b.loop("j", b.u32(4), b.u32(4), {b.assign("count", b.var("count") + b.u32(100))}),  // empty range
      b.loop("k", b.u32(9), b.u32(3), {b.assign("count", b.var("count") + b.u32(100))}),  // from > to
      b.store(out, b.u32(0), b.var("count")),
      b.store(out, b.u32(1), b.var("sum")),
  });
  const std::vector<Bytes> inputs = {to_bytes({5})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{3, 9, 0}));
  EXPECT_EQ(output(r, "n"), (Words{8}));
}

TEST(Interp_Arithmetic, LoopUpToU32MaxTerminatesWithoutWrapping) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.let("c", b.u32(0)),
                             b.loop("i", b.u32(0xFFFFFFFDu), b.u32(0xFFFFFFFFu), {b.assign("c", b.var("c") + b.u32(1))}),
                             b.store(out, b.u32(0), b.var("c"))});
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{2}));
}

TEST(Interp_Arithmetic, IfConditionTruthinessFollowsTheType) {
  // V123 only admits u32 and bool conditions; the reference defines all four (docs/semantics.md §3.3).
  struct Row {
    ScalarType type;
    std::uint32_t bits;
    bool taken;
  };
  const std::vector<Row> rows = {{ScalarType::U32, 0, false},           {ScalarType::U32, 0x100u, true},
                                 {ScalarType::I32, 0xFFFFFFFFu, true},  {ScalarType::Bool, 1, true},
                                 {ScalarType::F32, 0x80000000u, false}, {ScalarType::F32, 0x7FC00000u, true},
                                 {ScalarType::F32, 0x00000001u, false}, {ScalarType::F32, f32(0.25f), true}};
  for (const Row& row : rows) {
    Builder b({1, 1, 1});
    Buf c = b.read("c", 0, row.type, 1);
    Buf out = b.output("out", 1, ScalarType::U32, 2);
    ir::Program p = b.wrapped({b.if_(b.load(c, b.u32(0)), {b.store(out, b.u32(0), b.u32(1))}, {b.store(out, b.u32(1), b.u32(1))}),
                               });
    RunOptions o;
    o.validate = false;
    const std::vector<Bytes> inputs = {to_bytes({row.bits})};
    const RunResult r = run_reference(p, inputs, Grid{1, 1, 1}, 1, o);
    ASSERT_TRUE(r.ok()) << explain(r);
    EXPECT_EQ(output(r, "out"), row.taken ? (Words{1, 0}) : (Words{0, 1})) << ir::name_of(row.type) << " " << row.bits;
  }
}

TEST(Interp_Arithmetic, SelectConditionTruthinessOfF32) {
  Builder b({3, 1, 1});
  Buf c = b.read("c", 0, ScalarType::F32, 3);
  Buf out = b.output("out", 1, ScalarType::U32, 3);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.select(b.load(c, b.gid()), b.u32(1), b.u32(2)))});
  RunOptions o;
  o.validate = false;
  const std::vector<Bytes> inputs = {to_bytes({0x80000000u, f32(2.0f), 0x7FC00000u})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1}, 1, o);
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{2, 1, 1}));
}

TEST(Interp_Arithmetic, LocalsAreMutableAndScopedPerBlock) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 2);
  ir::Program p = b.wrapped({
      b.let("x", b.u32(1)),
      b.block({b.let("y", b.var("x") + b.u32(10)), b.assign("x", b.var("y") * b.u32(2))}),
      b.block({b.let("y", b.var("x") + b.u32(1)), b.store(out, b.u32(1), b.var("y"))}),
      b.store(out, b.u32(0), b.var("x")),
  });
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{22, 23}));
}

}  // namespace
}  // namespace gridcheck::interp
