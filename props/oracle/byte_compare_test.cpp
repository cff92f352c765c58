#include "props/oracle/byte_compare.hpp"

#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/ops.hpp"

namespace gridcheck::props {
namespace {

/// out[gid] = op(a[gid], b[gid]) over buffers of `type`, with `op` a binary operator or (for
/// `unary`) the unary one applied to a[gid].
ir::Program one_operation(ir::ScalarType type, ir::BinOp op, std::optional<ir::UnOp> unary = std::nullopt) {
  ir::Builder b({4, 1, 1});
  const ir::Buf a = b.read("a", 0, type, 4);
  const ir::Buf c = b.read("b", 1, type, 4);
  const ir::Buf out = b.output("out", 2, type, 4);
  const ir::E x = b.load(a, b.gid(0));
  const ir::E value = unary ? b.un(*unary, x) : b.bin(op, x, b.load(c, b.gid(0)));
  return b.raw({b.store(out, b.gid(0), value)});
}

TEST(Props_ComparisonRule, AnInexactF32OperationLoosensTheRule) {
  const ComparisonRule div = comparison_rule(one_operation(ir::ScalarType::F32, ir::BinOp::Div));
  EXPECT_EQ(div.ulp, ir::info(ir::BinOp::Div).f32.ulp);
  EXPECT_GT(div.ulp, 0u);
  EXPECT_EQ(div.inexact_ops, "div");
  const ComparisonRule sqrt =
      comparison_rule(one_operation(ir::ScalarType::F32, ir::BinOp::Add, ir::UnOp::Sqrt));
  EXPECT_GT(sqrt.ulp, 0u);
  EXPECT_EQ(sqrt.inexact_ops, "sqrt");
}

TEST(Props_ComparisonRule, ExactOperationsAndIntegerOperandsKeepItExact) {
  // An exact f32 operator (no type check needed) and an inexact operator on u32 (the types decide).
  ASSERT_TRUE(ir::info(ir::BinOp::Add).f32.exact);
  for (const ir::Program& p : {one_operation(ir::ScalarType::F32, ir::BinOp::Add),
                               one_operation(ir::ScalarType::U32, ir::BinOp::Div)}) {
    const ComparisonRule rule = comparison_rule(p);
    EXPECT_EQ(rule.ulp, 0u);
    EXPECT_EQ(rule.inexact_ops, "");
    EXPECT_EQ(rule.describe(), "exact");
  }
}

}  // namespace
}  // namespace gridcheck::props
