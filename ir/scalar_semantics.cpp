#include "ir/scalar_semantics.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "ir/ice.hpp"

namespace gridcheck::ir {
namespace {

using namespace scalar;

constexpr std::array<std::string_view, kTrapKindCount> kTrapNames = {
    "none", "divide_by_zero", "remainder_by_zero", "divide_overflow", "remainder_overflow", "negative_to_u32",
    "trap_statement"};

constexpr ScalarResult value(std::uint32_t bits) { return {bits, TrapKind::None}; }
constexpr ScalarResult boolean(bool b) { return {b ? 1u : 0u, TrapKind::None}; }

[[noreturn]] void bad_operand(std::string_view what) {
  GC_ICE(std::string("scalar semantics called with an operand type the operator table rejects: ") + std::string(what));
}

/// The operator table's verdicts (result_type has a value) for every operator and operand type,
/// computed once: the evaluators check an operand type with one load instead of the table's rules.
template <typename Op, int kOps>
std::array<std::array<bool, kScalarTypeCount>, kOps> accepted_operands() {
  std::array<std::array<bool, kScalarTypeCount>, kOps> out{};
  for (int op = 0; op < kOps; ++op)
    for (int t = 0; t < kScalarTypeCount; ++t)
      out[op][t] = result_type(static_cast<Op>(op), static_cast<ScalarType>(t)).has_value();
  return out;
}
bool accepts(BinOp op, ScalarType t) {
  static const auto table = accepted_operands<BinOp, kBinOpCount>();  // no cross-file init order
  const auto o = static_cast<std::size_t>(op), k = static_cast<std::size_t>(t);
  return o < table.size() && k < kScalarTypeCount && table[o][k];
}
bool accepts(UnOp op, ScalarType t) {
  static const auto table = accepted_operands<UnOp, kUnOpCount>();
  const auto o = static_cast<std::size_t>(op), k = static_cast<std::size_t>(t);
  return o < table.size() && k < kScalarTypeCount && table[o][k];
}

// ---------------------------------------------------------------------------------------- u32

std::uint32_t saturating_add_u32(std::uint32_t l, std::uint32_t r) {
  const std::uint32_t s = l + r;
  return s < l ? 0xFFFFFFFFu : s;
}
std::uint32_t saturating_sub_u32(std::uint32_t l, std::uint32_t r) { return l > r ? l - r : 0u; }
std::uint32_t saturating_mul_u32(std::uint32_t l, std::uint32_t r) {
  const std::uint64_t p = std::uint64_t{l} * r;
  return p > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<std::uint32_t>(p);
}

ScalarResult binary_u32(BinOp op, std::uint32_t l, std::uint32_t r) {
  switch (op) {
    case BinOp::Add:
    case BinOp::WrappingAdd: return value(l + r);
    case BinOp::Sub:
    case BinOp::WrappingSub: return value(l - r);
    case BinOp::Mul: return value(l * r);
    case BinOp::Div: return value(u32_div(l, r));
    case BinOp::Mod: return value(u32_mod(l, r));
    case BinOp::BitAnd: return value(l & r);
    case BinOp::BitOr: return value(l | r);
    case BinOp::BitXor: return value(l ^ r);
    case BinOp::Shl: return value(shl(l, r));
    case BinOp::Shr: return value(u32_shr(l, r));
    case BinOp::Eq: return boolean(l == r);
    case BinOp::Ne: return boolean(l != r);
    case BinOp::Lt: return boolean(l < r);
    case BinOp::Gt: return boolean(l > r);
    case BinOp::Le: return boolean(l <= r);
    case BinOp::Ge: return boolean(l >= r);
    case BinOp::And: return boolean(l != 0 && r != 0);
    case BinOp::Or: return boolean(l != 0 || r != 0);
    case BinOp::AbsDiff: return value(l > r ? l - r : r - l);
    case BinOp::Min: return value(l < r ? l : r);
    case BinOp::Max: return value(l > r ? l : r);
    case BinOp::SaturatingAdd: return value(saturating_add_u32(l, r));
    case BinOp::SaturatingSub: return value(saturating_sub_u32(l, r));
    case BinOp::SaturatingMul: return value(saturating_mul_u32(l, r));
    case BinOp::RotateLeft: return value(std::rotl(l, static_cast<int>(r & 31u)));
    case BinOp::RotateRight: return value(std::rotr(l, static_cast<int>(r & 31u)));
    case BinOp::MulHigh: return value(static_cast<std::uint32_t>((std::uint64_t{l} * r) >> 32));
  }
  bad_operand("u32 binary");
}

// ---------------------------------------------------------------------------------------- i32

std::uint32_t saturate_i64(std::int64_t v) {
  if (v > std::numeric_limits<std::int32_t>::max()) return as_u32(std::numeric_limits<std::int32_t>::max());
  if (v < std::numeric_limits<std::int32_t>::min()) return as_u32(std::numeric_limits<std::int32_t>::min());
  return as_u32(static_cast<std::int32_t>(v));
}

ScalarResult binary_i32(BinOp op, std::uint32_t l, std::uint32_t r) {
  const std::int64_t sl = as_i32(l);
  const std::int64_t sr = as_i32(r);
  switch (op) {
    case BinOp::Add:
    case BinOp::WrappingAdd: return value(l + r);
    case BinOp::Sub:
    case BinOp::WrappingSub: return value(l - r);
    case BinOp::Mul: return value(l * r);
    case BinOp::Div: return i32_div(l, r);
    case BinOp::Mod: return i32_mod(l, r);
    case BinOp::BitAnd: return value(l & r);
    case BinOp::BitOr: return value(l | r);
    case BinOp::BitXor: return value(l ^ r);
    case BinOp::Shl: return value(shl(l, r));
    case BinOp::Shr: return value(i32_shr(l, r));
    case BinOp::Eq: return boolean(l == r);
    case BinOp::Ne: return boolean(l != r);
    case BinOp::Lt: return boolean(sl < sr);
    case BinOp::Gt: return boolean(sl > sr);
    case BinOp::Le: return boolean(sl <= sr);
    case BinOp::Ge: return boolean(sl >= sr);
    case BinOp::And: return boolean(l != 0 && r != 0);
    case BinOp::Or: return boolean(l != 0 || r != 0);
    case BinOp::AbsDiff: return value(static_cast<std::uint32_t>(sl > sr ? sl - sr : sr - sl));
    case BinOp::Min: return value(sl < sr ? l : r);
    case BinOp::Max: return value(sl > sr ? l : r);
    case BinOp::SaturatingAdd: return value(saturate_i64(sl + sr));
    case BinOp::SaturatingSub: return value(saturate_i64(sl - sr));
    case BinOp::SaturatingMul: return value(saturate_i64(sl * sr));
    case BinOp::RotateLeft:
    case BinOp::RotateRight:
    case BinOp::MulHigh: break;
  }
  bad_operand("i32 binary");
}

// --------------------------------------------------------------------------------------- bool

ScalarResult binary_bool(BinOp op, std::uint32_t l, std::uint32_t r) {
  const bool a = l != 0;
  const bool b = r != 0;
  switch (op) {
    case BinOp::Eq: return boolean(a == b);
    case BinOp::Ne: return boolean(a != b);
    case BinOp::And:
    case BinOp::BitAnd: return boolean(a && b);
    case BinOp::Or:
    case BinOp::BitOr: return boolean(a || b);
    case BinOp::BitXor: return boolean(a != b);
    default: break;
  }
  bad_operand("bool binary");
}

// ---------------------------------------------------------------------------------------- f32

/// min/max per the table in the header: a NaN operand yields the other operand; -0 < +0.
std::uint32_t f32_min_max(bool is_max, float a, float b) {
  if (std::isnan(a)) return f32_out(b);
  if (std::isnan(b)) return f32_out(a);
  if (a == b) {  // equal values, possibly zeros of different signs
    const bool a_neg = std::signbit(a);
    const bool b_neg = std::signbit(b);
    if (a_neg == b_neg) return f32_out(a);
    return f32_out(is_max ? (a_neg ? b : a) : (a_neg ? a : b));
  }
  return f32_out(is_max ? (a > b ? a : b) : (a < b ? a : b));
}

ScalarResult binary_f32(BinOp op, std::uint32_t lb, std::uint32_t rb) {
  const float l = f32_in(lb);
  const float r = f32_in(rb);
  switch (op) {
    case BinOp::Add: return value(f32_out(l + r));
    case BinOp::Sub: return value(f32_out(l - r));
    case BinOp::Mul: return value(f32_out(l * r));
    case BinOp::Div: return value(f32_out(l / r));
    case BinOp::Mod: return value(f32_out(std::fmod(l, r)));
    case BinOp::Eq: return boolean(l == r);
    case BinOp::Ne: return boolean(l != r);
    case BinOp::Lt: return boolean(l < r);
    case BinOp::Gt: return boolean(l > r);
    case BinOp::Le: return boolean(l <= r);
    case BinOp::Ge: return boolean(l >= r);
    case BinOp::Min: return value(f32_min_max(false, l, r));
    case BinOp::Max: return value(f32_min_max(true, l, r));
    default: break;
  }
  bad_operand("f32 binary");
}

// -------------------------------------------------------------------------------------- unary

ScalarResult unary_int(UnOp op, bool is_signed, std::uint32_t x) {
  switch (op) {
    case UnOp::Negate: return value(0u - x);
    case UnOp::BitNot: return value(~x);
    case UnOp::LogicalNot: return boolean(x == 0);
    case UnOp::Popcount: return value(static_cast<std::uint32_t>(std::popcount(x)));
    case UnOp::Clz: return value(static_cast<std::uint32_t>(std::countl_zero(x)));
    case UnOp::Ctz: return value(static_cast<std::uint32_t>(std::countr_zero(x)));
    case UnOp::ReverseBits: {
      std::uint32_t v = x;
      v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
      v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
      v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
      v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
      v = (v >> 16) | (v << 16);
      return value(v);
    }
    case UnOp::Abs:
      if (!is_signed) return value(x);
      return value(as_i32(x) < 0 ? 0u - x : x);  // wrapping: abs(MIN) = MIN
    case UnOp::Sign:
      if (!is_signed) break;
      return value(as_i32(x) > 0 ? 1u : (as_i32(x) < 0 ? 0xFFFFFFFFu : 0u));
    case UnOp::Unpack4Low: return value(x & 0xFu);
    case UnOp::Unpack4High: return value((x >> 4) & 0xFu);
    case UnOp::Unpack8Low: return value(x & 0xFFu);
    case UnOp::Unpack8High: return value((x >> 24) & 0xFFu);
    default: break;
  }
  bad_operand("integer unary");
}

/// A transcendental evaluated in double and rounded once.
template <typename Fn>
std::uint32_t via_double(float x, Fn fn) {
  return f32_out(static_cast<float>(fn(static_cast<double>(x))));
}

ScalarResult unary_f32(UnOp op, std::uint32_t xb) {
  const float x = f32_in(xb);
  switch (op) {
    case UnOp::Negate: return value(f32_out(-x));
    case UnOp::Abs: return value(f32_out(std::fabs(x)));
    case UnOp::Sqrt: return value(f32_out(std::sqrt(x)));
    case UnOp::InverseSqrt: return value(via_double(x, [](double v) { return 1.0 / std::sqrt(v); }));
    case UnOp::Reciprocal: return value(f32_out(1.0f / x));
    case UnOp::Floor: return value(f32_out(std::floor(x)));
    case UnOp::Ceil: return value(f32_out(std::ceil(x)));
    case UnOp::Round: return value(f32_out(std::round(x)));
    case UnOp::Trunc: return value(f32_out(std::trunc(x)));
    case UnOp::Sign:
      if (std::isnan(x)) return value(kCanonicalNaN);
      return value(f32_out(x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f)));
    case UnOp::IsNan: return boolean(std::isnan(x));
    case UnOp::IsInf: return boolean(std::isinf(x));
    case UnOp::IsFinite: return boolean(std::isfinite(x));
    case UnOp::Cos: return value(via_double(x, [](double v) { return std::cos(v); }));
    case UnOp::Sin: return value(via_double(x, [](double v) { return std::sin(v); }));
    case UnOp::Tan: return value(via_double(x, [](double v) { return std::tan(v); }));
    case UnOp::Acos: return value(via_double(x, [](double v) { return std::acos(v); }));
    case UnOp::Asin: return value(via_double(x, [](double v) { return std::asin(v); }));
    case UnOp::Atan: return value(via_double(x, [](double v) { return std::atan(v); }));
    case UnOp::Tanh: return value(via_double(x, [](double v) { return std::tanh(v); }));
    case UnOp::Sinh: return value(via_double(x, [](double v) { return std::sinh(v); }));
    case UnOp::Cosh: return value(via_double(x, [](double v) { return std::cosh(v); }));
    case UnOp::Exp: return value(via_double(x, [](double v) { return std::exp(v); }));
    case UnOp::Exp2: return value(via_double(x, [](double v) { return std::exp2(v); }));
    case UnOp::Log: return value(via_double(x, [](double v) { return std::log(v); }));
    case UnOp::Log2: return value(via_double(x, [](double v) { return std::log2(v); }));
    default: break;
  }
  bad_operand("f32 unary");
}

/// Rust `f as u32`: truncate toward zero, saturate, NaN -> 0.
std::uint32_t f32_to_u32(float f) {
  if (std::isnan(f) || f <= 0.0f) return 0;
  if (f >= 4294967296.0f) return 0xFFFFFFFFu;
  return static_cast<std::uint32_t>(f);
}
/// Rust `f as i32`: truncate toward zero, saturate, NaN -> 0.
std::uint32_t f32_to_i32(float f) {
  if (std::isnan(f)) return 0;
  if (f >= 2147483648.0f) return as_u32(std::numeric_limits<std::int32_t>::max());
  if (f <= -2147483648.0f) return as_u32(std::numeric_limits<std::int32_t>::min());
  return as_u32(static_cast<std::int32_t>(f));
}

}  // namespace

std::string_view name_of(TrapKind kind) { return kTrapNames[static_cast<std::size_t>(kind)]; }

std::optional<TrapKind> trap_kind_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kTrapNames.size(); ++i)
    if (kTrapNames[i] == name) return static_cast<TrapKind>(i);
  return std::nullopt;
}

ScalarResult eval_binary(BinOp op, ScalarType operand, std::uint32_t l, std::uint32_t r) {
  if (!accepts(op, operand)) bad_operand(info(op).mnemonic);
  switch (operand) {
    case ScalarType::U32: return binary_u32(op, l, r);
    case ScalarType::I32: return binary_i32(op, l, r);
    case ScalarType::Bool: return binary_bool(op, l, r);
    case ScalarType::F32: return binary_f32(op, l, r);
  }
  bad_operand("unknown type");
}

ScalarResult eval_unary(UnOp op, ScalarType operand, std::uint32_t x) {
  if (!accepts(op, operand)) bad_operand(info(op).mnemonic);
  switch (operand) {
    case ScalarType::U32: return unary_int(op, false, x);
    case ScalarType::I32: return unary_int(op, true, x);
    case ScalarType::Bool:
      if (op == UnOp::LogicalNot) return boolean(x == 0);
      break;
    case ScalarType::F32: return unary_f32(op, x);
  }
  bad_operand("unknown type");
}

std::uint32_t eval_cast(ScalarType target, ScalarType source, std::uint32_t x) {
  if (target == ScalarType::Bool) return truthy(source, x) ? 1u : 0u;
  switch (source) {
    case ScalarType::Bool: {
      const bool b = x != 0;
      if (target == ScalarType::F32) return b ? 0x3F800000u : 0u;
      return b ? 1u : 0u;
    }
    case ScalarType::U32:
      if (target == ScalarType::F32) return f32_out(static_cast<float>(x));
      return x;  // u32 -> u32 / i32: the same bits
    case ScalarType::I32:
      if (target == ScalarType::F32) return f32_out(static_cast<float>(as_i32(x)));
      return x;  // i32 -> u32 / i32: the same bits
    case ScalarType::F32: {
      const float f = f32_in(x);
      if (target == ScalarType::U32) return f32_to_u32(f);
      if (target == ScalarType::I32) return f32_to_i32(f);
      return f32_canonical(x);
    }
  }
  bad_operand("cast");
}

std::uint32_t eval_fma(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  return f32_out(std::fma(f32_in(a), f32_in(b), f32_in(c)));
}

AtomicResult eval_atomic(AtomicOp op, std::uint32_t old, std::uint32_t v, std::uint32_t expected) {
  switch (op) {
    case AtomicOp::Add: return {old, old + v};
    case AtomicOp::Or: return {old, old | v};
    case AtomicOp::And: return {old, old & v};
    case AtomicOp::Xor: return {old, old ^ v};
    case AtomicOp::Min: return {old, old < v ? old : v};
    case AtomicOp::Max: return {old, old > v ? old : v};
    case AtomicOp::Exchange: return {old, v};
    case AtomicOp::CompareExchange: return {old, old == expected ? v : old};
  }
  GC_ICE("unknown atomic op");
}

}  // namespace gridcheck::ir
