// Values in a buffer's element type: input lists, fill/series values, expected words.
#include <fmt/format.h>

#include "ir/text/limits.hpp"
#include "ir/text/literal.hpp"
#include "ir/text/parse_codes.hpp"
#include "ir/text/parser_impl.hpp"

namespace gridcheck::ir::text {

std::optional<std::uint32_t> Parser::parse_value(ScalarType element) {
  const Token first = peek();
  bool negative = false;
  if (first.is_punct("-")) {
    next();
    negative = true;
  }
  const Token t = peek();
  if (t.kind == TokenKind::Number) {
    next();
    if (t.bad) return std::nullopt;
    const LiteralResult r = interpret_value(t.text, negative, element);
    if (!r.word) {
      error(r.error.code, first.loc, r.error.message);
      return std::nullopt;
    }
    return r.word->bits;
  }
  if (!negative && (t.is_keyword("true") || t.is_keyword("false"))) {
    next();
    if (element != ScalarType::Bool) {
      error(parse_code::kLiteralWrongType, t.loc, fmt::format("true and false fit a list of bool values, not {}", name_of(element)));
      return std::nullopt;
    }
    return t.text == "true" ? 1u : 0u;
  }
  if (!negative && t.is_keyword("f32_bits")) {
    next();
    if (element != ScalarType::F32) {
      error(parse_code::kLiteralWrongType, t.loc, fmt::format("f32_bits fits a list of f32 values, not {}", name_of(element)));
      return std::nullopt;
    }
    if (!expect_punct("(", "an opening parenthesis after f32_bits")) return std::nullopt;
    const std::optional<std::uint32_t> bits = u32_arg("the bits of an f32");
    if (!bits || !expect_punct(")", "a closing parenthesis")) return std::nullopt;
    return *bits;
  }
  unexpected(t, fmt::format("a {} value", name_of(element)));
  return std::nullopt;
}

std::optional<std::vector<std::uint32_t>> Parser::parse_value_list(ScalarType element) {
  const Token open = peek();
  if (!expect_punct("[", "an opening bracket")) return std::nullopt;
  std::vector<std::uint32_t> values;
  // A directive at the start of a line means the list was never closed.
  auto unclosed = [&] {
    const Token& t = peek();
    return t.kind == TokenKind::End || (t.kind == TokenKind::Identifier && t.loc.col == 1);
  };
  // After a bad value, skip to the closing bracket so that the list's other lines are not read as
  // directives.
  auto recover = [&]() -> std::optional<std::vector<std::uint32_t>> {
    while (!unclosed() && !at_punct("]")) next();
    if (at_punct("]")) next();
    return std::nullopt;
  };
  skip_newlines();
  while (!at_punct("]")) {
    if (unclosed()) {
      error(parse_code::kUnclosedBracket, open.loc, "this bracket is never closed");
      return std::nullopt;
    }
    const std::optional<std::uint32_t> v = parse_value(element);
    if (!v) return recover();
    if (values.size() >= text_limits::kMaxInputCount) {
      error(parse_code::kCountOutOfRange, open.loc, fmt::format("list has more than {} values", text_limits::kMaxInputCount));
      return recover();
    }
    values.push_back(*v);
    skip_newlines();
    if (accept_punct(",")) {
      skip_newlines();
      continue;
    }
    if (at_punct("]")) break;
    if (unclosed()) {
      error(parse_code::kUnclosedBracket, open.loc, "this bracket is never closed");
      return std::nullopt;
    }
    unexpected(peek(), "a comma or a closing bracket");
    return recover();
  }
  next();  // ]
  return values;
}

}  // namespace gridcheck::ir::text
