// Which literals may reach the driver as constants under hidden literals (gpu/foldable_literals.hpp): each
// context that only steers, and its twin where the same literal can become a value.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "gpu/foldable_literals.hpp"
#include "ir/builder.hpp"

namespace gridcheck::gpu {
namespace {

using namespace ir;

/// Whether the one literal of `p` with payload `value` is foldable (each test gives its literals distinct
/// values, since C++ leaves the order of the builder's calls within an expression open).
std::optional<bool> foldable(const Program& p, std::uint32_t value) {
  Result<TypeTable> types = typecheck(p);
  EXPECT_TRUE(types.ok());
  if (!types) return std::nullopt;
  const std::vector<bool> flags = foldable_literals(p, *types);
  std::optional<bool> found;
  for (std::uint32_t i = 0; i < p.expr_count(); ++i) {
    const Expr& e = p.expr(ExprId{i});
    if (!e.is_literal() || e.payload != value) continue;
    EXPECT_FALSE(found.has_value()) << "literal " << value << " appears twice";
    found = flags[i];
  }
  EXPECT_TRUE(found.has_value()) << "no literal " << value;
  return found;
}

struct Fixture {
  Builder b{{8, 1, 1}};
  Buf in = b.read("in", 0, ScalarType::U32, 64);
  Buf out = b.output("out", 1, ScalarType::U32, 64);
  Buf fin = b.read("fin", 2, ScalarType::F32, 64);
};

TEST(Gpu_FoldableLiterals, IndexArithmeticSteersAndTheStoredValueDoesNot) {
  Fixture f;
  Program p = f.b.wrapped({f.b.store(f.out, f.b.gid() * f.b.u32(105), f.b.u32(106))});
  EXPECT_EQ(foldable(p, 105), true);
  EXPECT_EQ(foldable(p, 106), false);
}

TEST(Gpu_FoldableLiterals, ConditionsSteerAndASelectsArmsDoNot) {
  Fixture f;
  Program p = f.b.wrapped({
      f.b.if_(f.b.lid() < f.b.u32(106), {f.b.store(f.out, f.b.gid(), f.b.u32(101))}),
      f.b.store(f.out, f.b.u32(102), f.b.select(f.b.lid() < f.b.u32(116), f.b.u32(107), f.b.u32(108))),
      f.b.store(f.out, f.b.u32(103), f.b.select(f.b.lid() + f.b.u32(117), f.b.lid(), f.b.gid())),
  });
  EXPECT_EQ(foldable(p, 106), true);
  EXPECT_EQ(foldable(p, 102), true);
  EXPECT_EQ(foldable(p, 116), true);
  EXPECT_EQ(foldable(p, 117), true);
  EXPECT_EQ(foldable(p, 107), false);
  EXPECT_EQ(foldable(p, 108), false);
}

TEST(Gpu_FoldableLiterals, AnIndexThroughACastOrAnF32ComparisonIsAValue) {
  Fixture f;
  Program p = f.b.wrapped({
      f.b.store(f.out, f.b.cast(ScalarType::U32, f.b.load(f.fin, f.b.u32(103))), f.b.u32(100)),
      f.b.if_(f.b.load(f.fin, f.b.gid()) < f.b.f32_bits(104),
              {f.b.store(f.out, f.b.u32(109), f.b.cast(ScalarType::U32, f.b.u32(119)))}),
  });
  EXPECT_EQ(foldable(p, 103), true);   // the load's own index still steers
  EXPECT_EQ(foldable(p, 104), false);  // an f32 literal
  EXPECT_EQ(foldable(p, 109), true);
  EXPECT_EQ(foldable(p, 119), false);  // a cast's operand
}

TEST(Gpu_FoldableLiterals, ALocalGivesItsLiteralsTheContextsOfItsUses) {
  Fixture f;
  Program p = f.b.wrapped({
      f.b.let("i", f.b.u32(111)),
      f.b.let("v", f.b.u32(112)),
      f.b.store(f.out, f.b.var("i"), f.b.var("v")),
      f.b.loop("k", f.b.u32(113), f.b.u32(114), {f.b.store(f.out, f.b.var("k"), f.b.u32(120))}),
      f.b.loop("j", f.b.u32(115), f.b.u32(116), {f.b.store(f.out, f.b.u32(121), f.b.var("j"))}),
  });
  EXPECT_EQ(foldable(p, 111), true);
  EXPECT_EQ(foldable(p, 112), false);
  EXPECT_EQ(foldable(p, 113), true);
  EXPECT_EQ(foldable(p, 114), true);
  EXPECT_EQ(foldable(p, 115), false);
  EXPECT_EQ(foldable(p, 116), false);
}

TEST(Gpu_FoldableLiterals, ALocalCopiedIntoAValueEscapesWhateverTheOrder) {
  // `a` steers where it is used directly, but b = a + 122 is stored, so a's literal can become a value.
  Fixture f;
  Program p = f.b.wrapped({
      f.b.let("a", f.b.u32(121)),
      f.b.store(f.out, f.b.var("a"), f.b.u32(130)),
      f.b.let("b", f.b.var("a") + f.b.u32(122)),
      f.b.store(f.out, f.b.u32(131), f.b.var("b")),
  });
  EXPECT_EQ(foldable(p, 121), false);
  EXPECT_EQ(foldable(p, 122), false);
  // The twin: the same chain feeding only an index steers throughout.
  Fixture g;
  Program q = g.b.wrapped({
      g.b.let("a", g.b.u32(121)),
      g.b.let("b", g.b.var("a") + g.b.u32(122)),
      g.b.store(g.out, g.b.var("b"), g.b.u32(130)),
  });
  EXPECT_EQ(foldable(q, 121), true);
  EXPECT_EQ(foldable(q, 122), true);
}

TEST(Gpu_FoldableLiterals, AnAtomicsValueAndAnExpressionSharedWithAValueStayHidden) {
  Fixture f;
  Buf ctr = f.b.read_write("ctr", 3, ScalarType::U32, 8);
  const E shared = f.b.u32(131);
  Program p = f.b.wrapped({
      f.b.let("old", f.b.atomic(AtomicOp::Add, ctr, f.b.u32(132), f.b.u32(133))),
      f.b.store(f.out, shared, shared),  // one expression, an index and a value
  });
  EXPECT_EQ(foldable(p, 132), true);
  EXPECT_EQ(foldable(p, 133), false);
  EXPECT_EQ(foldable(p, 131), false);
}

TEST(Gpu_FoldableLiterals, TheWorkgroupSizeBuiltinIsALiteralHere) {
  Fixture f;
  Program p = f.b.wrapped({f.b.store(f.out, f.b.wgid() * f.b.workgroup_size(0) + f.b.lid(), f.b.workgroup_size(1))});
  Result<TypeTable> types = typecheck(p);
  ASSERT_TRUE(types.ok());
  const std::vector<bool> flags = foldable_literals(p, *types);
  std::optional<bool> index_size, value_size;
  for (std::uint32_t i = 0; i < p.expr_count(); ++i) {
    const Expr& e = p.expr(ExprId{i});
    if (e.kind != ExprKind::WorkgroupSize) continue;
    (e.axis() == 0 ? index_size : value_size) = flags[i];
  }
  EXPECT_EQ(index_size, true);
  EXPECT_EQ(value_size, false);
}

}  // namespace
}  // namespace gridcheck::gpu
