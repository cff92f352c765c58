#include "ir/text/literal.hpp"

#include <bit>
#include <charconv>
#include <limits>
#include <system_error>

#include <fmt/format.h>

#include "ir/text/parse_codes.hpp"
#include "ir/text/spelling.hpp"

namespace gridcheck::ir::text {
namespace {

constexpr bool is_hex_digit(char c) {
  return spelling::is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

LiteralResult fail(std::string_view code, std::string message) {
  return LiteralResult{std::nullopt, LiteralError{code, std::move(message)}};
}
LiteralResult word(ScalarType type, std::uint32_t bits) { return LiteralResult{TypedWord{type, bits}, {}}; }

// Integer digits (decimal or hex) as a 64-bit magnitude; nullopt past 2^64 - 1.
std::optional<std::uint64_t> magnitude(const NumberForm& f) {
  std::string_view d = f.digits;
  int base = 10;
  if (f.hex) {
    d.remove_prefix(2);
    base = 16;
  }
  std::uint64_t v = 0;
  const auto r = std::from_chars(d.data(), d.data() + d.size(), v, base);
  if (r.ec != std::errc() || r.ptr != d.data() + d.size()) return std::nullopt;
  return v;
}

// Decimal f32; nullopt when out of range (overflow, or a non-zero value that rounds to zero).
std::optional<std::uint32_t> decimal_f32(std::string_view digits, bool negative) {
  float v = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v, std::chars_format::general);
  if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) return std::nullopt;
  std::uint32_t bits = std::bit_cast<std::uint32_t>(v);
  if ((bits & 0x7f800000u) == 0x7f800000u) return std::nullopt;
  if (negative) bits ^= 0x80000000u;
  return bits;
}

LiteralResult integer(const NumberForm& f, bool negative, ScalarType type) {
  const std::optional<std::uint64_t> m = magnitude(f);
  const std::string_view tname = name_of(type);
  if (!m) return fail(parse_code::kLiteralOutOfRange, fmt::format("{} literal is out of range", tname));
  if (f.hex && negative) return fail(parse_code::kLiteralWrongType, "a hex literal gives raw bits and cannot take a sign");
  if (type == ScalarType::I32) {
    if (f.hex) {
      if (*m > 0xFFFFFFFFull) return fail(parse_code::kLiteralOutOfRange, "i32 literal is out of range");
      return word(type, static_cast<std::uint32_t>(*m));
    }
    const std::uint64_t limit = negative ? 0x80000000ull : 0x7FFFFFFFull;
    if (*m > limit) return fail(parse_code::kLiteralOutOfRange, "i32 literal is out of range");
    const std::uint32_t bits = static_cast<std::uint32_t>(*m);
    return word(type, negative ? 0u - bits : bits);
  }
  // u32 and bool words
  if (negative) {
    return fail(parse_code::kLiteralOutOfRange,
                fmt::format("{} value cannot be negative{}", tname, type == ScalarType::U32 ? "; add suffix i for i32" : ""));
  }
  if (*m > 0xFFFFFFFFull) return fail(parse_code::kLiteralOutOfRange, fmt::format("{} literal is out of range", tname));
  return word(type, static_cast<std::uint32_t>(*m));
}

LiteralResult floating(const NumberForm& f, bool negative) {
  if (f.hex) return fail(parse_code::kLiteralWrongType, "hex f32 literals are written f32_bits(0x...)");
  const std::optional<std::uint32_t> bits = decimal_f32(f.digits, negative);
  if (!bits) return fail(parse_code::kLiteralOutOfRange, "f32 literal is out of range");
  return word(ScalarType::F32, *bits);
}

}  // namespace

std::optional<NumberForm> classify_number(std::string_view text, std::string* why) {
  auto bad = [&](std::string_view reason) -> std::optional<NumberForm> {
    if (why) *why = reason;
    return std::nullopt;
  };
  NumberForm f;
  std::size_t i = 0;
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    f.hex = true;
    i = 2;
    while (i < text.size() && is_hex_digit(text[i])) ++i;
    if (i == 2) return bad("hex literal has no digits");
  } else {
    while (i < text.size() && spelling::is_digit(text[i])) ++i;
    if (i < text.size() && text[i] == '.') {
      f.fractional = true;
      ++i;
      const std::size_t start = i;
      while (i < text.size() && spelling::is_digit(text[i])) ++i;
      if (i == start) return bad("decimal point must be followed by digits");
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
      f.fractional = true;
      ++i;
      if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
      const std::size_t start = i;
      while (i < text.size() && spelling::is_digit(text[i])) ++i;
      if (i == start) return bad("exponent has no digits");
    }
  }
  f.digits = text.substr(0, i);
  if (i < text.size()) {
    const char s = text[i];
    if ((s == 'u' || s == 'i' || s == 'f') && i + 1 == text.size()) {
      f.suffix = s;
    } else {
      return bad("number has an invalid suffix; use u, i or f");
    }
  }
  if (f.fractional && (f.suffix == 'u' || f.suffix == 'i')) return bad("an integer literal cannot have a fraction or exponent");
  if (f.hex && f.suffix == 'u') f.suffix = 0;
  return f;
}

LiteralResult interpret_literal(std::string_view text, bool negative) {
  std::string why;
  const std::optional<NumberForm> f = classify_number(text, &why);
  if (!f) return fail(parse_code::kMalformedNumber, why);
  if (f->fractional || f->suffix == 'f') return floating(*f, negative);
  return integer(*f, negative, f->suffix == 'i' ? ScalarType::I32 : ScalarType::U32);
}

LiteralResult interpret_value(std::string_view text, bool negative, ScalarType element) {
  std::string why;
  const std::optional<NumberForm> f = classify_number(text, &why);
  if (!f) return fail(parse_code::kMalformedNumber, why);
  const bool float_form = f->fractional || f->suffix == 'f';
  switch (element) {
    case ScalarType::F32:
      if (f->suffix == 'i' || f->suffix == 'u')
        return fail(parse_code::kLiteralWrongType, "integer literal in a list of f32 values");
      return floating(*f, negative);
    case ScalarType::I32:
      if (float_form || f->suffix == 'u')
        return fail(parse_code::kLiteralWrongType, "literal does not fit a list of i32 values");
      return integer(*f, negative, ScalarType::I32);
    case ScalarType::U32:
    case ScalarType::Bool:
      if (float_form || f->suffix == 'i')
        return fail(parse_code::kLiteralWrongType, fmt::format("literal does not fit a list of {} values", name_of(element)));
      return integer(*f, negative, element);
  }
  return fail(parse_code::kLiteralWrongType, "unknown element type");
}

std::optional<std::uint64_t> parse_unsigned(std::string_view text, std::uint64_t max) {
  std::string why;
  const std::optional<NumberForm> f = classify_number(text, &why);
  if (!f || f->fractional || (f->suffix != 0 && f->suffix != 'u')) return std::nullopt;
  const std::optional<std::uint64_t> m = magnitude(*f);
  if (!m || *m > max) return std::nullopt;
  return m;
}

std::optional<std::string> f32_decimal(std::uint32_t bits) {
  const float v = std::bit_cast<float>(bits);
  if ((bits & 0x7f800000u) == 0x7f800000u) return std::nullopt;  // NaN, inf
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  if (r.ec != std::errc()) return std::nullopt;
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  // Read it back exactly as the parser will.
  const bool negative = !s.empty() && s[0] == '-';
  const std::optional<std::uint32_t> back = decimal_f32(std::string_view(s).substr(negative ? 1 : 0), negative);
  if (!back || *back != bits) return std::nullopt;
  return s;
}

std::string format_literal(ScalarType type, std::uint32_t bits) {
  switch (type) {
    case ScalarType::U32: return fmt::format("{}", bits);
    case ScalarType::I32: return fmt::format("{}i", static_cast<std::int32_t>(bits));
    case ScalarType::Bool: return bits != 0 ? "true" : "false";
    case ScalarType::F32: {
      if (auto s = f32_decimal(bits)) return *s;
      return fmt::format("f32_bits(0x{:08x})", bits);
    }
  }
  return "0";
}

std::string format_value(ScalarType element, std::uint32_t bits) {
  switch (element) {
    case ScalarType::U32: return fmt::format("{}", bits);
    case ScalarType::I32: return fmt::format("{}", static_cast<std::int32_t>(bits));
    case ScalarType::Bool:
      if (bits <= 1) return bits != 0 ? "true" : "false";
      return fmt::format("{}", bits);
    case ScalarType::F32: return format_literal(ScalarType::F32, bits);
  }
  return "0";
}

}  // namespace gridcheck::ir::text
