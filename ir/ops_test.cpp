#include "ir/ops.hpp"

#include <gtest/gtest.h>

#include <set>

namespace gridcheck::ir {
namespace {

TEST(IR_Ops, MnemonicsAreUniqueAndRoundTrip) {
  std::set<std::string_view> seen;
  for (const BinOpInfo& row : all_bin_ops()) {
    EXPECT_TRUE(seen.insert(row.mnemonic).second) << row.mnemonic;
    EXPECT_EQ(bin_op_from_mnemonic(row.mnemonic), row.op);
    if (!row.infix.empty()) {
      EXPECT_EQ(bin_op_from_infix(row.infix), row.op);
      EXPECT_GT(row.precedence, 0);
    }
  }
  for (const UnOpInfo& row : all_un_ops()) {
    EXPECT_TRUE(seen.insert(row.mnemonic).second) << row.mnemonic;
    EXPECT_EQ(un_op_from_mnemonic(row.mnemonic), row.op);
  }
  for (const AtomicOpInfo& row : all_atomic_ops()) EXPECT_EQ(atomic_op_from_mnemonic(row.mnemonic), row.op);
}

TEST(IR_Ops, ComparisonsReturnBoolAndRejectMismatchedTypes) {
  EXPECT_EQ(result_type(BinOp::Lt, ScalarType::I32), ScalarType::Bool);
  EXPECT_EQ(result_type(BinOp::Lt, ScalarType::Bool), std::nullopt);
  EXPECT_EQ(result_type(BinOp::AbsDiff, ScalarType::I32), ScalarType::U32);
  EXPECT_EQ(result_type(BinOp::RotateLeft, ScalarType::I32), std::nullopt);
  EXPECT_EQ(result_type(UnOp::IsNan, ScalarType::F32), ScalarType::Bool);
  EXPECT_EQ(result_type(UnOp::Sqrt, ScalarType::U32), std::nullopt);
}

}  // namespace
}  // namespace gridcheck::ir
