#pragma once
// The operator table: one row per operator (docs/semantics.md §2.6). It is the single source of truth for the
// text mnemonics, the infix spelling and precedence, the operand and result type rules, and the
// precision class that the GPU comparison applies to f32 results. Printer, parser, validator,
// interpreter and GLSL lowering all consult it; none keeps its own list.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "ir/types.hpp"

namespace gridcheck::ir {

enum class BinOp : std::uint8_t {
  Add, Sub, Mul, Div, Mod, WrappingAdd, WrappingSub,
  BitAnd, BitOr, BitXor, Shl, Shr,
  Eq, Ne, Lt, Gt, Le, Ge, And, Or,
  AbsDiff, Min, Max, SaturatingAdd, SaturatingSub, SaturatingMul,
  RotateLeft, RotateRight, MulHigh,
};
inline constexpr int kBinOpCount = 29;

enum class UnOp : std::uint8_t {
  Negate, BitNot, LogicalNot, Popcount, Clz, Ctz, ReverseBits,
  Cos, Sin, Abs, Sqrt, Floor, Ceil, Round, Trunc, Sign, IsNan, IsInf, IsFinite,
  Exp, Log, Log2, Exp2, Tan, Acos, Asin, Atan, Tanh, Sinh, Cosh, InverseSqrt,
  Unpack4Low, Unpack4High, Unpack8Low, Unpack8High, Reciprocal,
};
inline constexpr int kUnOpCount = 36;

/// Atomics operate on u32 elements of read_write storage buffers and return the old value.
enum class AtomicOp : std::uint8_t { Add, Or, And, Xor, Min, Max, Exchange, CompareExchange };
inline constexpr int kAtomicOpCount = 8;

/// Operator of the collective nodes the split scans (AllReduce, ReduceScatter).
enum class CollectiveOp : std::uint8_t { Sum, Min, Max, BitAnd, BitOr, BitXor };
inline constexpr int kCollectiveOpCount = 6;

/// A set of scalar types, one bit per ScalarType.
using TypeMask = std::uint8_t;
constexpr TypeMask type_bit(ScalarType t) { return static_cast<TypeMask>(1u << static_cast<int>(t)); }
inline constexpr TypeMask kU32 = type_bit(ScalarType::U32);
inline constexpr TypeMask kI32 = type_bit(ScalarType::I32);
inline constexpr TypeMask kBool = type_bit(ScalarType::Bool);
inline constexpr TypeMask kF32 = type_bit(ScalarType::F32);
inline constexpr TypeMask kInts = kU32 | kI32;
constexpr bool mask_has(TypeMask m, ScalarType t) { return (m & type_bit(t)) != 0; }

/// How the result type follows from the (common) operand type.
enum class ResultRule : std::uint8_t { SameAsOperand, Bool, U32 };

/// How a GPU f32 result is compared with the reference: bit for bit, or within a ULP bound
/// (operations whose precision Vulkan does not define exactly).
struct F32Precision {
  bool exact = true;
  std::uint32_t ulp = 0;
};

struct BinOpInfo {
  BinOp op;
  std::string_view mnemonic;  ///< function spelling, e.g. "add", "abs_diff"
  std::string_view infix;     ///< "+" etc.; empty when the operator prints as a call
  int precedence;             ///< infix binding strength, higher binds tighter; 0 when not infix
  TypeMask operands;          ///< both operands have this one type
  ResultRule result;
  F32Precision f32;
};

struct UnOpInfo {
  UnOp op;
  std::string_view mnemonic;
  TypeMask operands;
  ResultRule result;
  F32Precision f32;
  std::string_view prefix = {};  ///< prefix spelling ("-", "!", "~"); empty when the operator prints as a call
};

struct AtomicOpInfo {
  AtomicOp op;
  std::string_view mnemonic;  ///< "atomic_add", ...
  bool has_expected;          ///< compare-exchange takes an `expected` operand
};

struct CollectiveOpInfo {
  CollectiveOp op;
  std::string_view mnemonic;
};

const BinOpInfo& info(BinOp op);
const UnOpInfo& info(UnOp op);
const AtomicOpInfo& info(AtomicOp op);
const CollectiveOpInfo& info(CollectiveOp op);

std::span<const BinOpInfo> all_bin_ops();
std::span<const UnOpInfo> all_un_ops();
std::span<const AtomicOpInfo> all_atomic_ops();
std::span<const CollectiveOpInfo> all_collective_ops();

/// Lookup by function mnemonic ("add") — not by infix symbol.
std::optional<BinOp> bin_op_from_mnemonic(std::string_view mnemonic);
std::optional<BinOp> bin_op_from_infix(std::string_view symbol);
std::optional<UnOp> un_op_from_mnemonic(std::string_view mnemonic);
std::optional<UnOp> un_op_from_prefix(std::string_view symbol);
std::optional<AtomicOp> atomic_op_from_mnemonic(std::string_view mnemonic);
std::optional<CollectiveOp> collective_op_from_mnemonic(std::string_view mnemonic);

/// The result type of `op` applied to operands of type `operand`; nullopt when `operand` is not allowed.
std::optional<ScalarType> result_type(BinOp op, ScalarType operand);
std::optional<ScalarType> result_type(UnOp op, ScalarType operand);

}  // namespace gridcheck::ir
