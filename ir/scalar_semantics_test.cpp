#include "ir/scalar_semantics.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace gridcheck::ir {
namespace {

using scalar::as_u32;

constexpr std::uint32_t kIntMin = 0x80000000u;
constexpr std::uint32_t kIntMax = 0x7FFFFFFFu;
constexpr std::uint32_t kAll = 0xFFFFFFFFu;
constexpr std::uint32_t i(std::int32_t v) { return as_u32(v); }
std::uint32_t f(float v) { return std::bit_cast<std::uint32_t>(v); }

constexpr std::uint32_t kPosInf = 0x7F800000u;
constexpr std::uint32_t kNegInf = 0xFF800000u;
constexpr std::uint32_t kNegZero = 0x80000000u;
constexpr std::uint32_t kMinNormal = 0x00800000u;   // 2^-126
constexpr std::uint32_t kMinSubnormal = 0x00000001u;
constexpr std::uint32_t kNegSubnormal = 0x80000001u;
constexpr std::uint32_t kPayloadNaN = 0x7FA12345u;  // a signalling NaN with a payload
constexpr std::uint32_t kNegNaN = 0xFFC00000u;

/// Edge values every integer operator is swept over.
const std::vector<std::uint32_t> kIntEdges = {0u, 1u, 2u, 3u, 7u, 31u, 32u, 33u, 63u, 0xFFu, 0x8000u, kIntMax,
                                              kIntMin, kIntMin + 1, kAll - 1, kAll, 0xDEADBEEFu};

struct BinRow {
  BinOp op;
  ScalarType type;
  std::uint32_t l, r;
  std::uint32_t expected;
  TrapKind trap = TrapKind::None;
};

std::string describe(const BinRow& row) {
  return std::string(info(row.op).mnemonic) + "<" + std::string(name_of(row.type)) + ">(" +
         std::to_string(row.l) + ", " + std::to_string(row.r) + ")";
}

// The edge rows of docs/semantics.md §3.5 and of the choices table in scalar_semantics.hpp, one row each.
const std::vector<BinRow> kEdgeRows = {
    // u32 division and remainder by zero are total.
    {BinOp::Div, ScalarType::U32, 7, 0, kAll},
    {BinOp::Div, ScalarType::U32, 0, 0, kAll},
    {BinOp::Mod, ScalarType::U32, 7, 0, 0},
    {BinOp::Div, ScalarType::U32, kAll, 2, 0x7FFFFFFFu},
    // i32 division and remainder by zero, MIN / -1 and MIN % -1 trap.
    {BinOp::Div, ScalarType::I32, 7, 0, 0, TrapKind::DivideByZero},
    {BinOp::Mod, ScalarType::I32, 7, 0, 0, TrapKind::RemainderByZero},
    {BinOp::Div, ScalarType::I32, kIntMin, i(-1), 0, TrapKind::DivideOverflow},
    {BinOp::Mod, ScalarType::I32, kIntMin, i(-1), 0, TrapKind::RemainderOverflow},
    // i32 division truncates toward zero; the remainder has the dividend's sign.
    {BinOp::Div, ScalarType::I32, i(-7), 2, i(-3)},
    {BinOp::Mod, ScalarType::I32, i(-7), 2, i(-1)},
    {BinOp::Mod, ScalarType::I32, 7, i(-2), 1},
    {BinOp::Div, ScalarType::I32, kIntMin, 1, kIntMin},
    // Shift amounts are masked with 31; u32 Shr is logical, i32 Shr arithmetic.
    {BinOp::Shl, ScalarType::U32, 1, 32, 1},
    {BinOp::Shl, ScalarType::U32, 1, 33, 2},
    {BinOp::Shr, ScalarType::U32, kIntMin, 31, 1},
    {BinOp::Shr, ScalarType::U32, kIntMin, 63, 1},
    {BinOp::Shr, ScalarType::I32, kIntMin, 31, kAll},
    {BinOp::Shr, ScalarType::I32, i(-8), 1, i(-4)},
    {BinOp::Shr, ScalarType::I32, i(-8), i(-1), kAll},  // amount (u32)-1 & 31 = 31
    {BinOp::Shl, ScalarType::I32, 1, i(-1), kIntMin},
    // Rotates mask the amount too.
    {BinOp::RotateLeft, ScalarType::U32, 0x80000001u, 1, 3},
    {BinOp::RotateLeft, ScalarType::U32, 0x80000001u, 33, 3},
    {BinOp::RotateRight, ScalarType::U32, 3, 1, 0x80000001u},
    {BinOp::RotateRight, ScalarType::U32, 3, 32, 3},
    // MulHigh is the upper half of the 64-bit product.
    {BinOp::MulHigh, ScalarType::U32, kAll, kAll - 1, 0xFFFFFFFDu},
    {BinOp::MulHigh, ScalarType::U32, 0x10000u, 0x10000u, 1},
    // Wrapping add/sub/mul in both integer types.
    {BinOp::Add, ScalarType::U32, kAll, 1, 0},
    {BinOp::Add, ScalarType::I32, kIntMax, 1, kIntMin},
    {BinOp::Sub, ScalarType::U32, 0, 1, kAll},
    {BinOp::Mul, ScalarType::I32, kIntMin, i(-1), kIntMin},
    {BinOp::WrappingAdd, ScalarType::I32, kIntMax, 1, kIntMin},
    {BinOp::WrappingSub, ScalarType::U32, 0, 1, kAll},
    // Saturating arithmetic saturates in the operand type.
    {BinOp::SaturatingAdd, ScalarType::U32, kAll, 1, kAll},
    {BinOp::SaturatingSub, ScalarType::U32, 1, 2, 0},
    {BinOp::SaturatingMul, ScalarType::U32, 0x10000u, 0x10000u, kAll},
    {BinOp::SaturatingAdd, ScalarType::I32, kIntMax, 1, kIntMax},
    {BinOp::SaturatingAdd, ScalarType::I32, kIntMin, i(-1), kIntMin},
    {BinOp::SaturatingSub, ScalarType::I32, kIntMin, 1, kIntMin},
    {BinOp::SaturatingSub, ScalarType::I32, 0, kIntMin, kIntMax},
    {BinOp::SaturatingMul, ScalarType::I32, kIntMin, i(-1), kIntMax},
    {BinOp::SaturatingMul, ScalarType::I32, 0x10000u, i(-0x10000), kIntMin},
    // Min/Max/AbsDiff: unsigned on u32, signed on i32; AbsDiff of i32 yields the u32 distance.
    {BinOp::Min, ScalarType::U32, kAll, 1, 1},
    {BinOp::Max, ScalarType::U32, kAll, 1, kAll},
    {BinOp::Min, ScalarType::I32, kAll, 1, kAll},
    {BinOp::Max, ScalarType::I32, kAll, 1, 1},
    {BinOp::AbsDiff, ScalarType::U32, 1, kAll, kAll - 1},
    {BinOp::AbsDiff, ScalarType::I32, kIntMin, kIntMax, kAll},
    {BinOp::AbsDiff, ScalarType::I32, i(-3), 4, 7},
    // Comparisons: unsigned on u32, signed on i32, bool results.
    {BinOp::Lt, ScalarType::U32, 1, kAll, 1},
    {BinOp::Lt, ScalarType::I32, 1, kAll, 0},
    {BinOp::Ge, ScalarType::I32, kIntMin, kIntMax, 0},
    {BinOp::Gt, ScalarType::U32, kIntMin, kIntMax, 1},
    {BinOp::Le, ScalarType::U32, 5, 5, 1},
    {BinOp::Ne, ScalarType::I32, 5, 5, 0},
    // Logical And/Or test non-zero and yield bool.
    {BinOp::And, ScalarType::U32, 2, 4, 1},
    {BinOp::And, ScalarType::I32, 2, 0, 0},
    {BinOp::Or, ScalarType::U32, 0, 0x100u, 1},
    {BinOp::Or, ScalarType::Bool, 0, 0, 0},
    // Bitwise operators on bool are logical.
    {BinOp::BitXor, ScalarType::Bool, 1, 1, 0},
    {BinOp::BitAnd, ScalarType::Bool, 1, 1, 1},
    {BinOp::BitOr, ScalarType::Bool, 0, 1, 1},
    {BinOp::Eq, ScalarType::Bool, 1, 1, 1},
    // f32: IEEE results, canonical NaN, flush-to-zero of subnormal results.
    {BinOp::Div, ScalarType::F32, f(1.0f), f(0.0f), kPosInf},
    {BinOp::Div, ScalarType::F32, f(-1.0f), f(0.0f), kNegInf},
    {BinOp::Div, ScalarType::F32, f(0.0f), f(0.0f), kCanonicalNaN},
    {BinOp::Sub, ScalarType::F32, kPosInf, kPosInf, kCanonicalNaN},
    {BinOp::Add, ScalarType::F32, kPayloadNaN, f(1.0f), kCanonicalNaN},
    {BinOp::Mul, ScalarType::F32, kNegNaN, f(1.0f), kCanonicalNaN},
    {BinOp::Div, ScalarType::F32, kMinNormal, f(2.0f), 0u},
    {BinOp::Div, ScalarType::F32, kMinNormal | 0x80000000u, f(2.0f), kNegZero},
    {BinOp::Mul, ScalarType::F32, f(0x1p-100f), f(0x1p-30f), 0u},  // underflow to a subnormal, flushed
    {BinOp::Add, ScalarType::F32, f(1.0f), f(0x1p-24f), f(1.0f)},  // ties to even
    {BinOp::Add, ScalarType::F32, f(1.0f), f(0x1.8p-24f), f(0x1.000002p0f)},
    // Subnormal operands are zeros (denormals-are-zero).
    {BinOp::Mul, ScalarType::F32, kMinSubnormal, f(0x1p100f), 0u},
    {BinOp::Mul, ScalarType::F32, kNegSubnormal, f(1.0f), kNegZero},
    {BinOp::Add, ScalarType::F32, kMinSubnormal, kMinSubnormal, 0u},
    {BinOp::Eq, ScalarType::F32, kMinSubnormal, f(0.0f), 1},
    {BinOp::Lt, ScalarType::F32, f(0.0f), kMinSubnormal, 0},
    // Comparisons with NaN are false except Ne; -0 == +0.
    {BinOp::Eq, ScalarType::F32, kCanonicalNaN, kCanonicalNaN, 0},
    {BinOp::Ne, ScalarType::F32, kCanonicalNaN, kCanonicalNaN, 1},
    {BinOp::Lt, ScalarType::F32, kCanonicalNaN, f(1.0f), 0},
    {BinOp::Ge, ScalarType::F32, kCanonicalNaN, f(1.0f), 0},
    {BinOp::Eq, ScalarType::F32, kNegZero, 0u, 1},
    // f32 Mod is fmod: truncated, the dividend's sign; x%0 and inf%y are NaN; x%inf = x.
    {BinOp::Mod, ScalarType::F32, f(5.5f), f(2.0f), f(1.5f)},
    {BinOp::Mod, ScalarType::F32, f(-5.5f), f(2.0f), f(-1.5f)},
    {BinOp::Mod, ScalarType::F32, f(5.5f), f(-2.0f), f(1.5f)},
    {BinOp::Mod, ScalarType::F32, f(-4.0f), f(2.0f), kNegZero},
    {BinOp::Mod, ScalarType::F32, f(1.0f), f(0.0f), kCanonicalNaN},
    {BinOp::Mod, ScalarType::F32, kPosInf, f(2.0f), kCanonicalNaN},
    {BinOp::Mod, ScalarType::F32, f(3.0f), kPosInf, f(3.0f)},
    // f32 Min/Max: a NaN operand yields the other; -0 < +0 in either order.
    {BinOp::Min, ScalarType::F32, kCanonicalNaN, f(2.0f), f(2.0f)},
    {BinOp::Min, ScalarType::F32, f(2.0f), kPayloadNaN, f(2.0f)},
    {BinOp::Max, ScalarType::F32, kCanonicalNaN, f(-2.0f), f(-2.0f)},
    {BinOp::Max, ScalarType::F32, kPayloadNaN, kNegNaN, kCanonicalNaN},
    {BinOp::Min, ScalarType::F32, 0u, kNegZero, kNegZero},
    {BinOp::Min, ScalarType::F32, kNegZero, 0u, kNegZero},
    {BinOp::Max, ScalarType::F32, 0u, kNegZero, 0u},
    {BinOp::Max, ScalarType::F32, kNegZero, 0u, 0u},
    {BinOp::Min, ScalarType::F32, f(-1.0f), f(1.0f), f(-1.0f)},
    {BinOp::Max, ScalarType::F32, kNegInf, kPosInf, kPosInf},
};

TEST(IR_ScalarSemantics, BinaryEdgeRows) {
  for (const BinRow& row : kEdgeRows) {
    const ScalarResult got = eval_binary(row.op, row.type, row.l, row.r);
    EXPECT_EQ(got.trap, row.trap) << describe(row);
    if (row.trap == TrapKind::None) {
      EXPECT_EQ(got.bits, row.expected) << describe(row) << " got " << got.bits;
    }
  }
}

// Sweeps each integer operator over every pair of edge values against an independent formulation in
// 64-bit arithmetic.
TEST(IR_ScalarSemantics, IntegerOperatorsMatchA64BitModelOnEveryEdgePair) {
  for (std::uint32_t l : kIntEdges) {
    for (std::uint32_t r : kIntEdges) {
      const std::uint64_t ul = l, ur = r;
      const std::int64_t sl = static_cast<std::int32_t>(l), sr = static_cast<std::int32_t>(r);
      auto u = [&](BinOp op) { return eval_binary(op, ScalarType::U32, l, r); };
      auto s = [&](BinOp op) { return eval_binary(op, ScalarType::I32, l, r); };
      const auto low = [](std::int64_t v) { return static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)); };
      SCOPED_TRACE(testing::Message() << "l=" << l << " r=" << r);
      EXPECT_EQ(u(BinOp::Add).bits, static_cast<std::uint32_t>(ul + ur));
      EXPECT_EQ(s(BinOp::Sub).bits, low(sl - sr));
      EXPECT_EQ(u(BinOp::Mul).bits, static_cast<std::uint32_t>(ul * ur));
      EXPECT_EQ(s(BinOp::Mul).bits, low(sl * sr));
      EXPECT_EQ(u(BinOp::Div).bits, r == 0 ? kAll : static_cast<std::uint32_t>(ul / ur));
      EXPECT_EQ(u(BinOp::Mod).bits, r == 0 ? 0u : static_cast<std::uint32_t>(ul % ur));
      if (r != 0 && !(sl == INT32_MIN && sr == -1)) {
        EXPECT_EQ(s(BinOp::Div).bits, low(sl / sr));
        EXPECT_EQ(s(BinOp::Mod).bits, low(sl % sr));
      } else {
        EXPECT_FALSE(s(BinOp::Div).ok());
        EXPECT_FALSE(s(BinOp::Mod).ok());
      }
      EXPECT_EQ(u(BinOp::Shl).bits, static_cast<std::uint32_t>(ul << (r % 32)));
      EXPECT_EQ(u(BinOp::Shr).bits, static_cast<std::uint32_t>(ul >> (r % 32)));
      EXPECT_EQ(s(BinOp::Shr).bits, low(sl >> (r % 32)));
      EXPECT_EQ(u(BinOp::Lt).bits, ul < ur ? 1u : 0u);
      EXPECT_EQ(s(BinOp::Lt).bits, sl < sr ? 1u : 0u);
      EXPECT_EQ(u(BinOp::Ge).bits, ul >= ur ? 1u : 0u);
      EXPECT_EQ(s(BinOp::Gt).bits, sl > sr ? 1u : 0u);
      EXPECT_EQ(u(BinOp::Min).bits, static_cast<std::uint32_t>(std::min(ul, ur)));
      EXPECT_EQ(s(BinOp::Max).bits, low(std::max(sl, sr)));
      EXPECT_EQ(u(BinOp::AbsDiff).bits, static_cast<std::uint32_t>(ul > ur ? ul - ur : ur - ul));
      EXPECT_EQ(s(BinOp::AbsDiff).bits, static_cast<std::uint32_t>(sl > sr ? sl - sr : sr - sl));
      EXPECT_EQ(u(BinOp::SaturatingAdd).bits, static_cast<std::uint32_t>(std::min<std::uint64_t>(ul + ur, kAll)));
      EXPECT_EQ(u(BinOp::SaturatingMul).bits, static_cast<std::uint32_t>(std::min<std::uint64_t>(ul * ur, kAll)));
      EXPECT_EQ(s(BinOp::SaturatingSub).bits, low(std::clamp<std::int64_t>(sl - sr, INT32_MIN, INT32_MAX)));
      EXPECT_EQ(s(BinOp::SaturatingMul).bits, low(std::clamp<std::int64_t>(sl * sr, INT32_MIN, INT32_MAX)));
      EXPECT_EQ(u(BinOp::MulHigh).bits, static_cast<std::uint32_t>((ul * ur) >> 32));
      EXPECT_EQ(u(BinOp::RotateLeft).bits, static_cast<std::uint32_t>(((ul << (r % 32)) | (ul >> ((32 - r % 32) % 32)))));
      EXPECT_EQ(u(BinOp::And).bits, (l != 0 && r != 0) ? 1u : 0u);
      EXPECT_EQ(s(BinOp::Or).bits, (l != 0 || r != 0) ? 1u : 0u);
    }
  }
}

// Every operator accepts exactly the types of its table row, and a bool result is 0 or 1.
TEST(IR_ScalarSemantics, EveryOperatorAndTypeOfTheTableEvaluates) {
  const std::vector<std::uint32_t> words = {0u, 1u, kAll, kIntMin, f(1.5f), kCanonicalNaN, kPosInf};
  for (const BinOpInfo& row : all_bin_ops()) {
    for (int t = 0; t < kScalarTypeCount; ++t) {
      const auto type = static_cast<ScalarType>(t);
      const auto result = result_type(row.op, type);
      if (!result) continue;
      for (std::uint32_t l : words)
        for (std::uint32_t r : words) {
          const std::uint32_t a = load_word(type, l), b = load_word(type, r);
          const ScalarResult got = eval_binary(row.op, type, a, b);
          if (got.ok() && *result == ScalarType::Bool) {
            EXPECT_LE(got.bits, 1u) << row.mnemonic;
          }
          if (got.ok() && *result == ScalarType::F32) {
            EXPECT_EQ(got.bits, scalar::f32_canonical(got.bits)) << row.mnemonic;
          }
        }
    }
  }
  for (const UnOpInfo& row : all_un_ops()) {
    for (int t = 0; t < kScalarTypeCount; ++t) {
      const auto type = static_cast<ScalarType>(t);
      const auto result = result_type(row.op, type);
      if (!result) continue;
      for (std::uint32_t x : words) {
        const ScalarResult got = eval_unary(row.op, type, load_word(type, x));
        ASSERT_TRUE(got.ok()) << row.mnemonic;
        if (*result == ScalarType::Bool) {
          EXPECT_LE(got.bits, 1u) << row.mnemonic;
        }
        if (*result == ScalarType::F32) {
          EXPECT_EQ(got.bits, scalar::f32_canonical(got.bits)) << row.mnemonic;
        }
      }
    }
  }
}

struct UnRow {
  UnOp op;
  ScalarType type;
  std::uint32_t x;
  std::uint32_t expected;
};

const std::vector<UnRow> kUnaryRows = {
    {UnOp::Negate, ScalarType::U32, 1, kAll},
    {UnOp::Negate, ScalarType::I32, kIntMin, kIntMin},
    {UnOp::Abs, ScalarType::I32, kIntMin, kIntMin},
    {UnOp::Abs, ScalarType::I32, i(-5), 5},
    {UnOp::Abs, ScalarType::U32, kAll, kAll},
    {UnOp::Sign, ScalarType::I32, i(-9), kAll},
    {UnOp::Sign, ScalarType::I32, 0, 0},
    {UnOp::Sign, ScalarType::I32, kIntMax, 1},
    {UnOp::BitNot, ScalarType::U32, 0, kAll},
    {UnOp::LogicalNot, ScalarType::U32, 7, 0},
    {UnOp::LogicalNot, ScalarType::I32, 0, 1},
    {UnOp::LogicalNot, ScalarType::Bool, 1, 0},
    {UnOp::Popcount, ScalarType::U32, kAll, 32},
    {UnOp::Popcount, ScalarType::I32, kIntMin, 1},
    {UnOp::Clz, ScalarType::U32, 0, 32},
    {UnOp::Clz, ScalarType::U32, 1, 31},
    {UnOp::Clz, ScalarType::I32, kAll, 0},
    {UnOp::Ctz, ScalarType::U32, 0, 32},
    {UnOp::Ctz, ScalarType::U32, kIntMin, 31},
    {UnOp::ReverseBits, ScalarType::U32, 1, kIntMin},
    {UnOp::ReverseBits, ScalarType::U32, 0x0000000Fu, 0xF0000000u},
    {UnOp::ReverseBits, ScalarType::I32, 0x12345678u, 0x1E6A2C48u},
    {UnOp::Unpack4Low, ScalarType::U32, 0x89ABCDEFu, 0xFu},
    {UnOp::Unpack4High, ScalarType::U32, 0x89ABCDEFu, 0xEu},
    {UnOp::Unpack8Low, ScalarType::I32, 0x89ABCDEFu, 0xEFu},
    {UnOp::Unpack8High, ScalarType::I32, 0x89ABCDEFu, 0x89u},
    // f32
    {UnOp::Negate, ScalarType::F32, 0u, kNegZero},
    {UnOp::Negate, ScalarType::F32, kCanonicalNaN, kCanonicalNaN},
    {UnOp::Negate, ScalarType::F32, kMinSubnormal, kNegZero},
    {UnOp::Abs, ScalarType::F32, kNegNaN, kCanonicalNaN},
    {UnOp::Abs, ScalarType::F32, kNegInf, kPosInf},
    {UnOp::Abs, ScalarType::F32, kNegSubnormal, 0u},
    {UnOp::Sqrt, ScalarType::F32, f(-1.0f), kCanonicalNaN},
    {UnOp::Sqrt, ScalarType::F32, kNegZero, kNegZero},
    {UnOp::Sqrt, ScalarType::F32, f(2.0f), 0x3FB504F3u},
    {UnOp::Reciprocal, ScalarType::F32, 0u, kPosInf},
    {UnOp::Reciprocal, ScalarType::F32, kNegZero, kNegInf},
    {UnOp::Reciprocal, ScalarType::F32, f(0x1p127f), 0u},  // 2^-127 is subnormal: flushed
    {UnOp::InverseSqrt, ScalarType::F32, f(4.0f), f(0.5f)},
    {UnOp::InverseSqrt, ScalarType::F32, 0u, kPosInf},
    {UnOp::Floor, ScalarType::F32, f(-0.5f), f(-1.0f)},
    {UnOp::Ceil, ScalarType::F32, f(-0.5f), kNegZero},
    {UnOp::Trunc, ScalarType::F32, f(-1.7f), f(-1.0f)},
    {UnOp::Round, ScalarType::F32, f(2.5f), f(3.0f)},
    {UnOp::Round, ScalarType::F32, f(-2.5f), f(-3.0f)},
    {UnOp::Round, ScalarType::F32, f(0.5f), f(1.0f)},
    {UnOp::Round, ScalarType::F32, f(0.49999997f), 0u},
    {UnOp::Round, ScalarType::F32, f(-0.25f), kNegZero},
    {UnOp::Sign, ScalarType::F32, kNegZero, 0u},
    {UnOp::Sign, ScalarType::F32, f(-3.0f), f(-1.0f)},
    {UnOp::Sign, ScalarType::F32, kPosInf, f(1.0f)},
    {UnOp::Sign, ScalarType::F32, kPayloadNaN, kCanonicalNaN},
    {UnOp::Sign, ScalarType::F32, kMinSubnormal, 0u},
    {UnOp::IsNan, ScalarType::F32, kPayloadNaN, 1},
    {UnOp::IsNan, ScalarType::F32, kPosInf, 0},
    {UnOp::IsInf, ScalarType::F32, kNegInf, 1},
    {UnOp::IsFinite, ScalarType::F32, kCanonicalNaN, 0},
    {UnOp::IsFinite, ScalarType::F32, kMinSubnormal, 1},
    {UnOp::Exp, ScalarType::F32, 0u, f(1.0f)},
    {UnOp::Exp, ScalarType::F32, f(-200.0f), 0u},  // e^-200 underflows: flushed
    {UnOp::Log, ScalarType::F32, 0u, kNegInf},
    {UnOp::Log, ScalarType::F32, f(-1.0f), kCanonicalNaN},
    {UnOp::Log2, ScalarType::F32, f(8.0f), f(3.0f)},
    {UnOp::Exp2, ScalarType::F32, f(-3.0f), f(0.125f)},
    {UnOp::Sin, ScalarType::F32, kPosInf, kCanonicalNaN},
    {UnOp::Cos, ScalarType::F32, 0u, f(1.0f)},
    {UnOp::Tanh, ScalarType::F32, f(100.0f), f(1.0f)},
    {UnOp::Acos, ScalarType::F32, f(2.0f), kCanonicalNaN},
};

TEST(IR_ScalarSemantics, UnaryEdgeRows) {
  for (const UnRow& row : kUnaryRows) {
    const ScalarResult got = eval_unary(row.op, row.type, row.x);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got.bits, row.expected) << info(row.op).mnemonic << "<" << name_of(row.type) << ">(" << row.x
                                      << ") got " << got.bits;
  }
}

struct CastRow {
  ScalarType target, source;
  std::uint32_t x, expected;
};

TEST(IR_ScalarSemantics, CastEdgeRows) {
  using T = ScalarType;
  const std::vector<CastRow> rows = {
      {T::U32, T::I32, i(-1), kAll},            // reinterpretation
      {T::I32, T::U32, kAll, i(-1)},
      {T::U32, T::Bool, 1, 1},
      {T::I32, T::Bool, 0, 0},
      {T::U32, T::F32, f(3.9f), 3},             // truncation
      {T::U32, T::F32, f(-3.9f), 0},            // saturation at 0
      {T::U32, T::F32, f(5e9f), kAll},          // saturation at MAX
      {T::U32, T::F32, kCanonicalNaN, 0},       // NaN -> 0
      {T::U32, T::F32, kPosInf, kAll},
      {T::U32, T::F32, f(4294967040.0f), 4294967040u},
      {T::I32, T::F32, f(-2.9f), i(-2)},
      {T::I32, T::F32, f(3e9f), kIntMax},
      {T::I32, T::F32, f(-3e9f), kIntMin},
      {T::I32, T::F32, kNegInf, kIntMin},
      {T::I32, T::F32, kPayloadNaN, 0},
      {T::I32, T::F32, f(-2147483648.0f), kIntMin},
      {T::F32, T::U32, kAll, f(4294967296.0f)},  // round to nearest even
      {T::F32, T::U32, 16777217u, f(16777216.0f)},
      {T::F32, T::I32, kIntMin, f(-2147483648.0f)},
      {T::F32, T::I32, i(-3), f(-3.0f)},
      {T::F32, T::Bool, 1, f(1.0f)},
      {T::F32, T::F32, kPayloadNaN, kCanonicalNaN},
      {T::F32, T::F32, kNegSubnormal, kNegZero},
      {T::Bool, T::U32, 0x100u, 1},
      {T::Bool, T::I32, kIntMin, 1},
      {T::Bool, T::F32, kNegZero, 0},
      {T::Bool, T::F32, kCanonicalNaN, 1},
      {T::Bool, T::F32, kMinSubnormal, 0},
      {T::Bool, T::F32, f(0.5f), 1},
      {T::Bool, T::Bool, 1, 1},
  };
  for (const CastRow& row : rows)
    EXPECT_EQ(eval_cast(row.target, row.source, row.x), row.expected)
        << name_of(row.source) << " -> " << name_of(row.target) << " of " << row.x;
}

TEST(IR_ScalarSemantics, FmaIsFusedWithOneRounding) {
  // (1 + 2^-23) * (1 - 2^-23) = 1 - 2^-46 exactly; a separate multiply would round it to 1 first.
  const std::uint32_t a = f(1.0f + 0x1p-23f), b = f(1.0f - 0x1p-23f);
  EXPECT_EQ(eval_fma(a, b, f(-1.0f)), f(-0x1p-46f));
  EXPECT_EQ(eval_fma(f(2.0f), f(3.0f), f(1.0f)), f(7.0f));
  EXPECT_EQ(eval_fma(kPosInf, 0u, f(1.0f)), kCanonicalNaN);
  EXPECT_EQ(eval_fma(kMinSubnormal, f(0x1p100f), f(0.0f)), 0u);  // subnormal operand is zero
  EXPECT_EQ(eval_fma(f(0x1p-70f), f(0x1p-70f), 0u), 0u);          // subnormal result is flushed
}

TEST(IR_ScalarSemantics, AtomicsReturnTheOldWordAndStoreTheNewOne) {
  EXPECT_EQ(eval_atomic(AtomicOp::Add, kAll, 2), (AtomicResult{kAll, 1}));
  EXPECT_EQ(eval_atomic(AtomicOp::Or, 0x0F, 0xF0), (AtomicResult{0x0F, 0xFF}));
  EXPECT_EQ(eval_atomic(AtomicOp::And, 0x0F, 0x3C), (AtomicResult{0x0F, 0x0C}));
  EXPECT_EQ(eval_atomic(AtomicOp::Xor, 0x0F, 0xFF), (AtomicResult{0x0F, 0xF0}));
  EXPECT_EQ(eval_atomic(AtomicOp::Min, kAll, 1), (AtomicResult{kAll, 1}));  // unsigned
  EXPECT_EQ(eval_atomic(AtomicOp::Max, kIntMin, kIntMax), (AtomicResult{kIntMin, kIntMin}));
  EXPECT_EQ(eval_atomic(AtomicOp::Exchange, 5, 9), (AtomicResult{5, 9}));
  EXPECT_EQ(eval_atomic(AtomicOp::CompareExchange, 5, 9, 5), (AtomicResult{5, 9}));
  EXPECT_EQ(eval_atomic(AtomicOp::CompareExchange, 5, 9, 4), (AtomicResult{5, 5}));
}

TEST(IR_ScalarSemantics, TruthinessFollowsTheOperandType) {
  EXPECT_TRUE(scalar::truthy(ScalarType::I32, i(-1)));
  EXPECT_FALSE(scalar::truthy(ScalarType::U32, 0));
  EXPECT_TRUE(scalar::truthy(ScalarType::Bool, 1));
  EXPECT_FALSE(scalar::truthy(ScalarType::F32, kNegZero));
  EXPECT_TRUE(scalar::truthy(ScalarType::F32, kPayloadNaN));
  EXPECT_FALSE(scalar::truthy(ScalarType::F32, kMinSubnormal));
  EXPECT_TRUE(scalar::truthy(ScalarType::F32, f(1e-30f)));
}

TEST(IR_ScalarSemantics, LoadsNormaliseBoolAndCanonicaliseF32) {
  EXPECT_EQ(load_word(ScalarType::Bool, 0x100u), 1u);
  EXPECT_EQ(load_word(ScalarType::Bool, 0u), 0u);
  EXPECT_EQ(load_word(ScalarType::F32, kNegSubnormal), kNegZero);
  EXPECT_EQ(load_word(ScalarType::F32, kPayloadNaN), kCanonicalNaN);
  EXPECT_EQ(load_word(ScalarType::F32, f(1.5f)), f(1.5f));
  EXPECT_EQ(load_word(ScalarType::I32, kAll), kAll);
}

TEST(IR_ScalarSemantics, TrapKindNamesRoundTrip) {
  for (int k = 0; k < kTrapKindCount; ++k) {
    const auto kind = static_cast<TrapKind>(k);
    EXPECT_EQ(trap_kind_from_name(name_of(kind)), kind);
  }
  EXPECT_EQ(trap_kind_from_name("nonsense"), std::nullopt);
}

}  // namespace
}  // namespace gridcheck::ir
