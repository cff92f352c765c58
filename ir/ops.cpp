#include "ir/ops.hpp"

#include <array>

#include "ir/ice.hpp"

namespace gridcheck::ir {
namespace {

constexpr F32Precision kExact{true, 0};
constexpr F32Precision ulp(std::uint32_t n) { return F32Precision{false, n}; }
// Bound for transcendental functions, whose Vulkan precision is loose (or an absolute error);
// the GPU comparison reports which rule it applied.
constexpr F32Precision kLoose = ulp(4096);

using R = ResultRule;

// clang-format off
constexpr std::array<BinOpInfo, kBinOpCount> kBinOps = {{
    {BinOp::Add,           "add",           "+",  9, kInts | kF32, R::SameAsOperand, kExact},
    {BinOp::Sub,           "sub",           "-",  9, kInts | kF32, R::SameAsOperand, kExact},
    {BinOp::Mul,           "mul",           "*", 10, kInts | kF32, R::SameAsOperand, kExact},
    {BinOp::Div,           "div",           "/", 10, kInts | kF32, R::SameAsOperand, ulp(3)},
    {BinOp::Mod,           "mod",           "%", 10, kInts | kF32, R::SameAsOperand, ulp(3)},
    {BinOp::WrappingAdd,   "wrapping_add",  "",   0, kInts,        R::SameAsOperand, kExact},
    {BinOp::WrappingSub,   "wrapping_sub",  "",   0, kInts,        R::SameAsOperand, kExact},
    {BinOp::BitAnd,        "bit_and",       "&",  5, kInts | kBool, R::SameAsOperand, kExact},
    {BinOp::BitOr,         "bit_or",        "|",  3, kInts | kBool, R::SameAsOperand, kExact},
    {BinOp::BitXor,        "bit_xor",       "^",  4, kInts | kBool, R::SameAsOperand, kExact},
    {BinOp::Shl,           "shl",           "<<", 8, kInts,        R::SameAsOperand, kExact},
    {BinOp::Shr,           "shr",           ">>", 8, kInts,        R::SameAsOperand, kExact},
    {BinOp::Eq,            "eq",            "==", 6, kInts | kBool | kF32, R::Bool, kExact},
    {BinOp::Ne,            "ne",            "!=", 6, kInts | kBool | kF32, R::Bool, kExact},
    {BinOp::Lt,            "lt",            "<",  7, kInts | kF32, R::Bool, kExact},
    {BinOp::Gt,            "gt",            ">",  7, kInts | kF32, R::Bool, kExact},
    {BinOp::Le,            "le",            "<=", 7, kInts | kF32, R::Bool, kExact},
    {BinOp::Ge,            "ge",            ">=", 7, kInts | kF32, R::Bool, kExact},
    {BinOp::And,           "and",           "&&", 2, kInts | kBool, R::Bool, kExact},
    {BinOp::Or,            "or",            "||", 1, kInts | kBool, R::Bool, kExact},
    {BinOp::AbsDiff,       "abs_diff",      "",   0, kInts,        R::U32, kExact},
    {BinOp::Min,           "min",           "",   0, kInts | kF32, R::SameAsOperand, kExact},
    {BinOp::Max,           "max",           "",   0, kInts | kF32, R::SameAsOperand, kExact},
    {BinOp::SaturatingAdd, "saturating_add", "",  0, kInts,        R::SameAsOperand, kExact},
    {BinOp::SaturatingSub, "saturating_sub", "",  0, kInts,        R::SameAsOperand, kExact},
    {BinOp::SaturatingMul, "saturating_mul", "",  0, kInts,        R::SameAsOperand, kExact},
    {BinOp::RotateLeft,    "rotate_left",   "",   0, kU32,         R::SameAsOperand, kExact},
    {BinOp::RotateRight,   "rotate_right",  "",   0, kU32,         R::SameAsOperand, kExact},
    {BinOp::MulHigh,       "mul_high",      "",   0, kU32,         R::SameAsOperand, kExact},
}};

constexpr std::array<UnOpInfo, kUnOpCount> kUnOps = {{
    {UnOp::Negate,      "negate",       kInts | kF32,  R::SameAsOperand, kExact, "-"},
    {UnOp::BitNot,      "bit_not",      kInts,         R::SameAsOperand, kExact, "~"},
    {UnOp::LogicalNot,  "not",          kInts | kBool, R::Bool, kExact, "!"},
    {UnOp::Popcount,    "popcount",     kInts,         R::SameAsOperand, kExact},
    {UnOp::Clz,         "clz",          kInts,         R::SameAsOperand, kExact},
    {UnOp::Ctz,         "ctz",          kInts,         R::SameAsOperand, kExact},
    {UnOp::ReverseBits, "reverse_bits", kInts,         R::SameAsOperand, kExact},
    {UnOp::Cos,         "cos",          kF32,          R::SameAsOperand, kLoose},
    {UnOp::Sin,         "sin",          kF32,          R::SameAsOperand, kLoose},
    {UnOp::Abs,         "abs",          kInts | kF32,  R::SameAsOperand, kExact},
    {UnOp::Sqrt,        "sqrt",         kF32,          R::SameAsOperand, ulp(3)},
    {UnOp::Floor,       "floor",        kF32,          R::SameAsOperand, kExact},
    {UnOp::Ceil,        "ceil",         kF32,          R::SameAsOperand, kExact},
    {UnOp::Round,       "round",        kF32,          R::SameAsOperand, kExact},
    {UnOp::Trunc,       "trunc",        kF32,          R::SameAsOperand, kExact},
    {UnOp::Sign,        "sign",         kI32 | kF32,   R::SameAsOperand, kExact},
    {UnOp::IsNan,       "is_nan",       kF32,          R::Bool, kExact},
    {UnOp::IsInf,       "is_inf",       kF32,          R::Bool, kExact},
    {UnOp::IsFinite,    "is_finite",    kF32,          R::Bool, kExact},
    {UnOp::Exp,         "exp",          kF32,          R::SameAsOperand, kLoose},
    {UnOp::Log,         "log",          kF32,          R::SameAsOperand, kLoose},
    {UnOp::Log2,        "log2",         kF32,          R::SameAsOperand, kLoose},
    {UnOp::Exp2,        "exp2",         kF32,          R::SameAsOperand, kLoose},
    {UnOp::Tan,         "tan",          kF32,          R::SameAsOperand, kLoose},
    {UnOp::Acos,        "acos",         kF32,          R::SameAsOperand, kLoose},
    {UnOp::Asin,        "asin",         kF32,          R::SameAsOperand, kLoose},
    {UnOp::Atan,        "atan",         kF32,          R::SameAsOperand, kLoose},
    {UnOp::Tanh,        "tanh",         kF32,          R::SameAsOperand, kLoose},
    {UnOp::Sinh,        "sinh",         kF32,          R::SameAsOperand, kLoose},
    {UnOp::Cosh,        "cosh",         kF32,          R::SameAsOperand, kLoose},
    {UnOp::InverseSqrt, "inverse_sqrt", kF32,          R::SameAsOperand, ulp(3)},
    {UnOp::Unpack4Low,  "unpack4_low",  kInts,         R::U32, kExact},
    {UnOp::Unpack4High, "unpack4_high", kInts,         R::U32, kExact},
    {UnOp::Unpack8Low,  "unpack8_low",  kInts,         R::U32, kExact},
    {UnOp::Unpack8High, "unpack8_high", kInts,         R::U32, kExact},
    {UnOp::Reciprocal,  "reciprocal",   kF32,          R::SameAsOperand, ulp(3)},
}};

constexpr std::array<AtomicOpInfo, kAtomicOpCount> kAtomicOps = {{
    {AtomicOp::Add, "atomic_add", false},
    {AtomicOp::Or, "atomic_or", false},
    {AtomicOp::And, "atomic_and", false},
    {AtomicOp::Xor, "atomic_xor", false},
    {AtomicOp::Min, "atomic_min", false},
    {AtomicOp::Max, "atomic_max", false},
    {AtomicOp::Exchange, "atomic_exchange", false},
    {AtomicOp::CompareExchange, "atomic_compare_exchange", true},
}};

constexpr std::array<CollectiveOpInfo, kCollectiveOpCount> kCollectiveOps = {{
    {CollectiveOp::Sum, "sum"},
    {CollectiveOp::Min, "min"},
    {CollectiveOp::Max, "max"},
    {CollectiveOp::BitAnd, "bit_and"},
    {CollectiveOp::BitOr, "bit_or"},
    {CollectiveOp::BitXor, "bit_xor"},
}};
// clang-format on

// The tables are indexed by enum value; this proves the rows are in enum order.
template <typename Table>
constexpr bool rows_in_enum_order(const Table& table) {
  for (std::size_t i = 0; i < table.size(); ++i)
    if (static_cast<std::size_t>(table[i].op) != i) return false;
  return true;
}
static_assert(rows_in_enum_order(kBinOps));
static_assert(rows_in_enum_order(kUnOps));
static_assert(rows_in_enum_order(kAtomicOps));
static_assert(rows_in_enum_order(kCollectiveOps));

std::optional<ScalarType> apply_rule(ResultRule rule, TypeMask allowed, ScalarType operand) {
  if (!mask_has(allowed, operand)) return std::nullopt;
  switch (rule) {
    case ResultRule::SameAsOperand: return operand;
    case ResultRule::Bool: return ScalarType::Bool;
    case ResultRule::U32: return ScalarType::U32;
  }
  GC_ICE("unknown result rule");
}

}  // namespace

const BinOpInfo& info(BinOp op) { return kBinOps[static_cast<std::size_t>(op)]; }
const UnOpInfo& info(UnOp op) { return kUnOps[static_cast<std::size_t>(op)]; }
const AtomicOpInfo& info(AtomicOp op) { return kAtomicOps[static_cast<std::size_t>(op)]; }
const CollectiveOpInfo& info(CollectiveOp op) { return kCollectiveOps[static_cast<std::size_t>(op)]; }

std::span<const BinOpInfo> all_bin_ops() { return kBinOps; }
std::span<const UnOpInfo> all_un_ops() { return kUnOps; }
std::span<const AtomicOpInfo> all_atomic_ops() { return kAtomicOps; }
std::span<const CollectiveOpInfo> all_collective_ops() { return kCollectiveOps; }

std::optional<BinOp> bin_op_from_mnemonic(std::string_view mnemonic) {
  for (const auto& row : kBinOps)
    if (row.mnemonic == mnemonic) return row.op;
  return std::nullopt;
}
std::optional<BinOp> bin_op_from_infix(std::string_view symbol) {
  for (const auto& row : kBinOps)
    if (!row.infix.empty() && row.infix == symbol) return row.op;
  return std::nullopt;
}
std::optional<UnOp> un_op_from_mnemonic(std::string_view mnemonic) {
  for (const auto& row : kUnOps)
    if (row.mnemonic == mnemonic) return row.op;
  return std::nullopt;
}
std::optional<UnOp> un_op_from_prefix(std::string_view symbol) {
  for (const auto& row : kUnOps)
    if (!row.prefix.empty() && row.prefix == symbol) return row.op;
  return std::nullopt;
}
std::optional<AtomicOp> atomic_op_from_mnemonic(std::string_view mnemonic) {
  for (const auto& row : kAtomicOps)
    if (row.mnemonic == mnemonic) return row.op;
  return std::nullopt;
}
std::optional<CollectiveOp> collective_op_from_mnemonic(std::string_view mnemonic) {
  for (const auto& row : kCollectiveOps)
    if (row.mnemonic == mnemonic) return row.op;
  return std::nullopt;
}

std::optional<ScalarType> result_type(BinOp op, ScalarType operand) {
  return apply_rule(info(op).result, info(op).operands, operand);
}
std::optional<ScalarType> result_type(UnOp op, ScalarType operand) {
  return apply_rule(info(op).result, info(op).operands, operand);
}

}  // namespace gridcheck::ir
