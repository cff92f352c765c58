#pragma once
// Number literals: their lexical forms and the 32-bit words they denote.
//
//   12  0xFF          u32 (also with suffix u)
//   12i 0xFFFFFFFFi   i32; a hex literal gives the raw bits and cannot take a sign
//   1.5 1e3 2f        f32 (decimal point, exponent or suffix f); hex f32 is written f32_bits(0x...)
//
// A leading `-` is not part of the number token; the parser passes it as `negative`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/types.hpp"

namespace gridcheck::ir::text {

struct NumberForm {
  bool hex = false;
  bool fractional = false;  ///< has a decimal point or an exponent
  char suffix = 0;          ///< 0, 'u', 'i' or 'f'
  std::string_view digits;  ///< the text without the suffix
};

/// Splits a number token into its form; nullopt (and the reason in `why`) when it is malformed.
std::optional<NumberForm> classify_number(std::string_view text, std::string* why = nullptr);

/// A typed 32-bit literal, or the diagnostic code and message of why the text does not denote one.
struct TypedWord {
  ScalarType type = ScalarType::U32;
  std::uint32_t bits = 0;
};
struct LiteralError {
  std::string_view code;  ///< parse_code::k...
  std::string message;
};
struct LiteralResult {
  std::optional<TypedWord> word;
  LiteralError error;
};

/// An expression literal: the type follows from the form (see the header comment).
LiteralResult interpret_literal(std::string_view text, bool negative);
/// A value of a buffer of element type `element` (input lists, fill/series, expected words): the
/// form must fit the type; bool elements take integer words.
LiteralResult interpret_value(std::string_view text, bool negative, ScalarType element);
/// An unsigned count, size, seed or hash: decimal or hex, at most `max`.
std::optional<std::uint64_t> parse_unsigned(std::string_view text, std::uint64_t max);

/// f32 bits as the shortest decimal that reads back to the same bits ("1.5", "-0.0", "1e+20");
/// nullopt for NaN, infinities and anything else that would not read back exactly.
std::optional<std::string> f32_decimal(std::uint32_t bits);

/// A typed literal in expression syntax: 7, -3i, 1.5, f32_bits(0x7fc00000), true.
std::string format_literal(ScalarType type, std::uint32_t bits);
/// A word in value-list syntax for an element type: 7, -3, 1.5, f32_bits(0x7fc00000), true.
std::string format_value(ScalarType element, std::uint32_t bits);

}  // namespace gridcheck::ir::text
