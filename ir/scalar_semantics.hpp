#pragma once
// The single definition of gridcheck's scalar arithmetic (docs/semantics.md §3.5): every BinOp, UnOp, cast, fma,
// atomic read-modify-write, truthiness test and memory word conversion on 32-bit words. The
// reference interpreter executes these functions; the GPU lowering uses them as the oracle of its
// table-driven edge-value tests. Nothing else in the code base defines arithmetic.
//
// Values are raw 32-bit words: u32, i32 (two's complement), bool (0 or 1 in registers; any non-zero
// word is true in memory) and f32 (IEEE-754 binary32 bits).
//
// Preconditions: the operand type is one the operator table accepts (ir/ops.hpp, `result_type`);
// the interpreter type-checks programs first, so a violation is our bug (GC_ICE), never user input.
//
// Rules the spec states (docs/semantics.md §3.5) and this file implements exactly:
//   u32 x / 0 = 0xFFFFFFFF, x % 0 = 0; i32 x / 0, x % 0, MIN / -1, MIN % -1 trap; shift amounts are
//   masked with 31 (i32 Shr is arithmetic); Min/Max/AbsDiff unsigned on u32, signed on i32 (AbsDiff
//   yields u32); comparisons and And/Or yield bool; integer Add/Sub/Mul/Negate wrap; Saturating*
//   saturate in the operand's own type; casts as listed; f32 results are canonical (any NaN becomes
//   0x7FC00000, a subnormal becomes a zero of the same sign).
//
// Choices where the spec is silent (each mirrors vyre-reference or Rust where one is visible):
//
//   | case                                   | choice                                               | why                                 |
//   |----------------------------------------|------------------------------------------------------|-------------------------------------|
//   | f32 subnormal / NaN *operands*         | canonicalised first (denormals-are-zero, NaN payload  | vyre `binop_f32`/`unop_f32` call     |
//   |                                        | dropped) before every f32 operation and comparison   | `canonical_f32` on each operand     |
//   | f32 *loads*                            | canonicalised (a subnormal element loads as ±0)      | vyre `from_element_bytes`           |
//   | f32 literals                           | canonicalised                                        | docs/semantics.md §2.5                           |
//   | f32 Add/Sub/Mul/Div/Sqrt/Reciprocal    | correctly rounded binary32 (round to nearest even)   | Rust f32 ops                        |
//   | f32 Mod                                | `fmod`: truncated, result has the dividend's sign;   | Rust `%` on f32 (vyre rejects Mod   |
//   |                                        | x%0, inf%y = NaN; x%inf = x                          | on f32; our table allows it)        |
//   | f32 Min/Max with one NaN               | the other operand; both NaN -> canonical NaN         | Rust f32::min/max (IEEE minNum)      |
//   | f32 Min/Max of -0 and +0               | min = -0, max = +0 (either operand order)            | IEEE 754-2019 minimumNumber          |
//   | f32 Round half-way                     | away from zero (2.5 -> 3, -2.5 -> -3)                | Rust f32::round                     |
//   | f32 Sign                               | NaN -> NaN; >0 -> 1; <0 -> -1; ±0 -> +0              | vyre `sign`                         |
//   | f32 Abs / Negate of NaN                | canonical NaN (0x7FC00000)                           | result canonicalisation             |
//   | f32 Fma                                | fused, one rounding (C `fmaf`), then canonical       | vyre `a.mul_add(b, c)` on f32       |
//   | f32 transcendental (Sin, Exp, ...)     | evaluated in double, rounded once to binary32        | deterministic; GPU compares within  |
//   |                                        |                                                      | the table's ULP bound (ops.hpp)     |
//   | InverseSqrt                            | 1/sqrt(x) in double, rounded once                    | as above                            |
//   | i32 Abs(MIN), Negate(MIN)              | MIN (wrapping)                                       | Rust wrapping_abs / wrapping_neg    |
//   | u32 Abs                                | identity                                             | unsigned                            |
//   | i32 Sign                               | -1, 0 or 1                                           | Rust i32::signum                    |
//   | Clz(0), Ctz(0)                         | 32                                                   | Rust leading/trailing_zeros         |
//   | i32 Popcount/Clz/Ctz/ReverseBits       | on the bit pattern, result typed i32                 | vyre int_un_helpers                 |
//   | bool BitAnd/BitOr/BitXor               | logical on 0/1, result bool                          | our table allows them on bool       |
//   | cast f32 -> u32 / i32                  | truncate toward zero, saturate, NaN -> 0             | Rust `as`                           |
//   | cast u32/i32 -> f32                    | round to nearest even                                | Rust `as`                           |
//   | cast f32 -> f32                        | canonicalise                                         | every f32 result is canonical       |
//   | truthiness of f32                      | canonical value != 0 (NaN is true, subnormal false)  | docs/semantics.md §3.3 on canonical operands          |
//   | atomic Min/Max                         | unsigned (u32 buffers only)                          | docs/semantics.md §3.4                           |
//
// GPU implementability: every rule above is a fixed function of the input bits. Canonicalisation
// is a few integer operations on the bit pattern, so a lowering can apply it to operands and results
// whatever the device's denormal mode is. The one hardware-dependent corner is a result that is
// subnormal before rounding and rounds up to the smallest normal (2^-126): we detect tininess after
// rounding (the result is normal, kept), as IEEE does for the default exception handling.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "ir/ops.hpp"
#include "ir/types.hpp"

namespace gridcheck::ir {

/// Why an operation has no value. `None` means it has one.
enum class TrapKind : std::uint8_t {
  None,
  DivideByZero,        ///< i32 x / 0
  RemainderByZero,     ///< i32 x % 0
  DivideOverflow,      ///< i32 MIN / -1
  RemainderOverflow,   ///< i32 MIN % -1
  NegativeToU32,       ///< a negative i32 where a u32 is required (index, atomic operand, loop bound)
  TrapStatement,       ///< the IR `trap` statement was executed
};
inline constexpr int kTrapKindCount = 7;

/// Stable lower-case names ("divide_by_zero", ...), used in verdict details and JSON.
std::string_view name_of(TrapKind kind);
std::optional<TrapKind> trap_kind_from_name(std::string_view name);

/// A value or a trap.
struct ScalarResult {
  std::uint32_t bits = 0;
  TrapKind trap = TrapKind::None;
  constexpr bool ok() const { return trap == TrapKind::None; }
  friend constexpr bool operator==(ScalarResult, ScalarResult) = default;
};

/// The canonical quiet NaN every f32 NaN result becomes.
inline constexpr std::uint32_t kCanonicalNaN = 0x7FC00000u;

namespace scalar {

// -- f32 canonical form

/// NaN -> 0x7FC00000; subnormal -> zero of the same sign; anything else unchanged.
constexpr std::uint32_t f32_canonical(std::uint32_t bits) {
  const std::uint32_t exponent = bits & 0x7F800000u;
  if (exponent == 0x7F800000u) return (bits & 0x007FFFFFu) != 0 ? kCanonicalNaN : bits;
  if (exponent == 0) return bits & 0x80000000u;
  return bits;
}
/// A canonical operand as a float.
inline float f32_in(std::uint32_t bits) { return std::bit_cast<float>(f32_canonical(bits)); }
/// A float result as canonical bits.
inline std::uint32_t f32_out(float value) { return f32_canonical(std::bit_cast<std::uint32_t>(value)); }

constexpr std::int32_t as_i32(std::uint32_t bits) { return static_cast<std::int32_t>(bits); }
constexpr std::uint32_t as_u32(std::int32_t value) { return static_cast<std::uint32_t>(value); }

// -- integer primitives used on the interpreter's hot path

constexpr std::uint32_t u32_div(std::uint32_t l, std::uint32_t r) { return r == 0 ? 0xFFFFFFFFu : l / r; }
constexpr std::uint32_t u32_mod(std::uint32_t l, std::uint32_t r) { return r == 0 ? 0u : l % r; }
constexpr ScalarResult i32_div(std::uint32_t l, std::uint32_t r) {
  if (r == 0) return {0, TrapKind::DivideByZero};
  if (l == 0x80000000u && r == 0xFFFFFFFFu) return {0, TrapKind::DivideOverflow};
  return {as_u32(as_i32(l) / as_i32(r)), TrapKind::None};
}
constexpr ScalarResult i32_mod(std::uint32_t l, std::uint32_t r) {
  if (r == 0) return {0, TrapKind::RemainderByZero};
  if (l == 0x80000000u && r == 0xFFFFFFFFu) return {0, TrapKind::RemainderOverflow};
  return {as_u32(as_i32(l) % as_i32(r)), TrapKind::None};
}
constexpr std::uint32_t shl(std::uint32_t l, std::uint32_t r) { return l << (r & 31u); }
constexpr std::uint32_t u32_shr(std::uint32_t l, std::uint32_t r) { return l >> (r & 31u); }
/// Arithmetic shift (C++20 defines >> on negative signed values as arithmetic).
constexpr std::uint32_t i32_shr(std::uint32_t l, std::uint32_t r) { return as_u32(as_i32(l) >> (r & 31u)); }
constexpr std::uint32_t i32_lt(std::uint32_t l, std::uint32_t r) { return as_i32(l) < as_i32(r) ? 1u : 0u; }
constexpr std::uint32_t i32_le(std::uint32_t l, std::uint32_t r) { return as_i32(l) <= as_i32(r) ? 1u : 0u; }

/// Truthiness (docs/semantics.md §3.3): integers and bool are true when non-zero; f32 when its canonical value
/// is not ±0 (NaN is true).
constexpr bool truthy(ScalarType type, std::uint32_t bits) {
  if (type == ScalarType::F32) return (f32_canonical(bits) & 0x7FFFFFFFu) != 0;
  return bits != 0;
}

}  // namespace scalar

/// `l op r` where both operands have type `operand`.
ScalarResult eval_binary(BinOp op, ScalarType operand, std::uint32_t l, std::uint32_t r);
/// `op x` where x has type `operand`.
ScalarResult eval_unary(UnOp op, ScalarType operand, std::uint32_t x);
/// `cast<target>(x)` where x has type `source`. Every cast of the subset has a value.
std::uint32_t eval_cast(ScalarType target, ScalarType source, std::uint32_t x);
/// f32 fused multiply-add `a * b + c`, one rounding, canonical.
std::uint32_t eval_fma(std::uint32_t a, std::uint32_t b, std::uint32_t c);

/// A read-modify-write on a u32 element: the old word (the atomic's value) and the word stored.
struct AtomicResult {
  std::uint32_t old = 0;
  std::uint32_t stored = 0;
  friend constexpr bool operator==(AtomicResult, AtomicResult) = default;
};
/// `expected` is used by CompareExchange only.
AtomicResult eval_atomic(AtomicOp op, std::uint32_t old, std::uint32_t value, std::uint32_t expected = 0);

/// The register value of a memory word loaded from an element of type `element`: bool is
/// normalised to 0/1, f32 is canonicalised, integers are unchanged.
constexpr std::uint32_t load_word(ScalarType element, std::uint32_t word) {
  switch (element) {
    case ScalarType::Bool: return word != 0 ? 1u : 0u;
    case ScalarType::F32: return scalar::f32_canonical(word);
    default: return word;
  }
}

/// The canonical register form of a literal of type `type` (bool 0/1, f32 canonical).
constexpr std::uint32_t literal_word(ScalarType type, std::uint32_t bits) { return load_word(type, bits); }

}  // namespace gridcheck::ir
