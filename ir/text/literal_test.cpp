#include "ir/text/literal.hpp"

#include <gtest/gtest.h>

#include <bit>

namespace gridcheck::ir::text {
namespace {

TypedWord ok(std::string_view text, bool negative = false) {
  const LiteralResult r = interpret_literal(text, negative);
  EXPECT_TRUE(r.word.has_value()) << text << ": " << r.error.message;
  return r.word.value_or(TypedWord{});
}

std::string_view code(std::string_view text, bool negative = false) {
  const LiteralResult r = interpret_literal(text, negative);
  EXPECT_FALSE(r.word.has_value()) << text;
  return r.error.code;
}

TEST(IR_TextLiteral, TheFormDecidesTheType) {
  EXPECT_EQ(ok("9").type, ScalarType::U32);
  EXPECT_EQ(ok("0xFF").bits, 255u);
  EXPECT_EQ(ok("7u").type, ScalarType::U32);
  EXPECT_EQ(ok("3i").type, ScalarType::I32);
  EXPECT_EQ(ok("3i", true).bits, static_cast<std::uint32_t>(-3));
  EXPECT_EQ(ok("2147483648i", true).bits, 0x80000000u);
  EXPECT_EQ(ok("0xFFFFFFFFi").bits, 0xFFFFFFFFu);
  EXPECT_EQ(ok("1.5").type, ScalarType::F32);
  EXPECT_EQ(ok("1.5").bits, std::bit_cast<std::uint32_t>(1.5f));
  EXPECT_EQ(ok("2f").bits, std::bit_cast<std::uint32_t>(2.0f));
  EXPECT_EQ(ok("1e3").bits, std::bit_cast<std::uint32_t>(1000.0f));
  EXPECT_EQ(ok("0.0", true).bits, 0x80000000u);
}

TEST(IR_TextLiteral, OutOfRangeAndMalformedLiteralsAreRejectedWithTheirCodes) {
  EXPECT_EQ(code("4294967296"), "P030");
  EXPECT_EQ(code("3000000000i"), "P030");
  EXPECT_EQ(code("2147483648i"), "P030");  // only -2147483648i fits
  EXPECT_EQ(code("1", true), "P030");      // negative u32
  EXPECT_EQ(code("1e39"), "P030");
  EXPECT_EQ(code("1e-60"), "P030");        // rounds to zero
  EXPECT_EQ(code("99999999999999999999999"), "P030");
  EXPECT_EQ(code("0x10i", true), "P031");  // hex gives raw bits
  EXPECT_EQ(code("1.5i"), "P004");
  EXPECT_EQ(code("12abc"), "P004");
  EXPECT_EQ(code("0x"), "P004");
  EXPECT_EQ(code("1e"), "P004");
}

TEST(IR_TextLiteral, ValuesMustFitTheElementType) {
  EXPECT_EQ(interpret_value("7", false, ScalarType::I32).word->bits, 7u);
  EXPECT_EQ(interpret_value("1", true, ScalarType::I32).word->bits, 0xFFFFFFFFu);
  EXPECT_EQ(interpret_value("1", false, ScalarType::F32).word->bits, std::bit_cast<std::uint32_t>(1.0f));
  EXPECT_EQ(interpret_value("1.5", false, ScalarType::U32).error.code, "P031");
  EXPECT_EQ(interpret_value("3i", false, ScalarType::U32).error.code, "P031");
  EXPECT_EQ(interpret_value("3i", false, ScalarType::F32).error.code, "P031");
  EXPECT_EQ(interpret_value("2", false, ScalarType::Bool).word->bits, 2u);
}

TEST(IR_TextLiteral, F32PrintsTheShortestDecimalThatReadsBackExactly) {
  EXPECT_EQ(f32_decimal(std::bit_cast<std::uint32_t>(1.5f)), "1.5");
  EXPECT_EQ(f32_decimal(std::bit_cast<std::uint32_t>(100.0f)), "100.0");
  EXPECT_EQ(f32_decimal(std::bit_cast<std::uint32_t>(0.1f)), "0.1");
  EXPECT_EQ(f32_decimal(0x80000000u), "-0.0");
  EXPECT_EQ(f32_decimal(0x7f7fffffu), "3.4028235e+38");
  EXPECT_EQ(f32_decimal(0x00000001u), "1e-45");  // the smallest subnormal reads back exactly
  EXPECT_EQ(f32_decimal(0x7fc00000u), std::nullopt);
  EXPECT_EQ(f32_decimal(0xff800000u), std::nullopt);
  EXPECT_EQ(format_literal(ScalarType::F32, 0x7fc00000u), "f32_bits(0x7fc00000)");
  EXPECT_EQ(format_literal(ScalarType::I32, 0xFFFFFFFDu), "-3i");
  EXPECT_EQ(format_value(ScalarType::I32, 0xFFFFFFFDu), "-3");
  EXPECT_EQ(format_value(ScalarType::Bool, 7u), "7");
}

TEST(IR_TextLiteral, EveryFiniteF32ThatPrintsAsDecimalReadsBackToTheSameBits) {
  // A sweep over exponents and mantissa patterns, both signs.
  for (std::uint32_t exponent = 0; exponent < 255; ++exponent) {
    for (std::uint32_t mantissa : {0u, 1u, 0x400000u, 0x7fffffu, 0x123457u}) {
      for (std::uint32_t sign : {0u, 0x80000000u}) {
        const std::uint32_t bits = sign | (exponent << 23) | mantissa;
        const std::optional<std::string> s = f32_decimal(bits);
        ASSERT_TRUE(s.has_value()) << std::hex << bits;
        const bool negative = (*s)[0] == '-';
        const LiteralResult back = interpret_literal(std::string_view(*s).substr(negative ? 1 : 0), negative);
        ASSERT_TRUE(back.word.has_value()) << *s;
        EXPECT_EQ(back.word->bits, bits) << *s;
      }
    }
  }
}

}  // namespace
}  // namespace gridcheck::ir::text
