#include "ir/typecheck.hpp"

#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/validate/validator.hpp"

namespace gridcheck::ir {
namespace {

TEST(IR_Typecheck, InfersLiteralsLoadsAndOperatorResults) {
  Builder b;
  Buf a = b.read("a", 0, ScalarType::I32, 4);
  E load = b.load(a, b.u32(0));
  E cmp = load < b.i32(3);
  E diff = b.bin(BinOp::AbsDiff, load, b.i32(1));
  Program p = b.wrapped({b.let("c", cmp), b.let("d", diff)});
  auto types = typecheck(p);
  ASSERT_TRUE(types.ok()) << render(types.diagnostics());
  EXPECT_EQ((*types)[load.id], ScalarType::I32);
  EXPECT_EQ((*types)[cmp.id], ScalarType::Bool);
  EXPECT_EQ((*types)[diff.id], ScalarType::U32);
}

// validate's type table (what interp::prepare compiles with after validating) is typecheck's.
TEST(IR_Typecheck, ValidateHandsOutTypechecksTableForAValidProgram) {
  Builder b;
  Buf a = b.read("a", 0, ScalarType::I32, 4);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  E load = b.load(a, b.gid());
  E diff = b.bin(BinOp::AbsDiff, load, b.i32(1));
  Program p = b.wrapped({b.let("d", diff), b.store(out, b.gid(), b.var("d"))});
  std::optional<TypeTable> from_validate;
  ASSERT_FALSE(validate(p, {}, {}, from_validate).has_errors());
  auto types = typecheck(p);
  ASSERT_TRUE(types.ok() && from_validate.has_value());
  EXPECT_EQ(from_validate->expr_types, types->expr_types);
  EXPECT_EQ((*from_validate)[diff.id], ScalarType::U32);
}

TEST(IR_Typecheck, ValidateHandsOutNoTableForATypeError) {
  Builder b;
  Program p = b.wrapped({b.let("x", b.u32(1) + b.i32(1))});
  std::optional<TypeTable> from_validate = TypeTable{};
  EXPECT_TRUE(validate(p, {}, {}, from_validate).has_errors());
  EXPECT_FALSE(from_validate.has_value());
}

TEST(IR_Typecheck, VariablesFollowScopes) {
  Builder b;
  E use_inside = b.var("x");
  E use_loop_var = b.var("i");
  Program p = b.wrapped({b.let("x", b.f32(1.0f)), b.loop("i", b.u32(0), b.u32(4), {b.let("y", use_inside),
                                                                                     b.let("z", use_loop_var)})});
  auto types = typecheck(p);
  ASSERT_TRUE(types.ok()) << render(types.diagnostics());
  EXPECT_EQ((*types)[use_inside.id], ScalarType::F32);
  EXPECT_EQ((*types)[use_loop_var.id], ScalarType::U32);
}

TEST(IR_Typecheck, VariableDeclaredInABlockIsNotVisibleAfterIt) {
  Builder b;
  Program p = b.wrapped({b.block({b.let("x", b.u32(1))}), b.let("y", b.var("x"))});
  auto types = typecheck(p);
  ASSERT_FALSE(types.ok());
  EXPECT_EQ(types.diagnostics().all()[0].code, "G100");
}

TEST(IR_Typecheck, MixedOperandTypesAreRejected) {
  Builder b;
  Program p = b.wrapped({b.let("x", b.u32(1) + b.i32(1))});
  auto types = typecheck(p);
  ASSERT_FALSE(types.ok());
  EXPECT_EQ(types.diagnostics().all()[0].code, "G102");
}

TEST(IR_Typecheck, OperatorTableRejectsTypes) {
  Builder b;
  Program p = b.wrapped({b.let("x", b.un(UnOp::Sqrt, b.u32(4)))});
  auto types = typecheck(p);
  ASSERT_FALSE(types.ok());
  EXPECT_EQ(types.diagnostics().all()[0].code, "G103");
}

TEST(IR_Typecheck, FmaNeedsF32) {
  Builder b;
  Program p = b.wrapped({b.let("x", b.fma(b.u32(1), b.u32(2), b.u32(3)))});
  auto types = typecheck(p);
  ASSERT_FALSE(types.ok());
  EXPECT_EQ(types.diagnostics().all()[0].code, "V028");
}

TEST(IR_Typecheck, AssignmentMayNotChangeAType) {
  Builder b;
  Program p = b.wrapped({b.let("x", b.u32(1)), b.assign("x", b.i32(2))});
  auto types = typecheck(p);
  ASSERT_FALSE(types.ok());
  EXPECT_EQ(types.diagnostics().all()[0].code, "G105");
}

TEST(IR_Typecheck, UnknownBufferIsReported) {
  Builder b;
  Buf ghost{b.program().intern("ghost")};
  Program p = b.wrapped({b.let("x", b.load(ghost, b.u32(0)))});
  auto types = typecheck(p);
  ASSERT_FALSE(types.ok());
  EXPECT_EQ(types.diagnostics().all()[0].code, "G101");
}

TEST(IR_Typecheck, WellTypedTwinOfEachRejectedProgramPasses) {
  Builder b;
  Program p = b.wrapped({b.let("x", b.u32(1) + b.u32(1)), b.assign("x", b.u32(2)),
                         b.let("f", b.fma(b.f32(1), b.f32(2), b.f32(3))), b.let("s", b.un(UnOp::Sqrt, b.f32(4)))});
  EXPECT_TRUE(typecheck(p).ok());
}

}  // namespace
}  // namespace gridcheck::ir
