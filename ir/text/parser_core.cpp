// Token access, error reporting and recovery of the text parser.
#include <algorithm>
#include <array>
#include <limits>

#include <fmt/format.h>

#include "ir/text/limits.hpp"
#include "ir/text/literal.hpp"
#include "ir/text/parse_codes.hpp"
#include "ir/text/parser_impl.hpp"

namespace gridcheck::ir::text {

Parser::Parser(std::string_view text, std::string_view file, Mode mode)
    : lexer_(text, std::string(file)), text_(text), file_(file), mode_(mode) {
  case_.file = file_;
}

std::size_t Parser::error_count() const { return diagnostics_.size() + lexer_.diagnostics().size(); }

void Parser::error(std::string_view code, SourceLoc loc, std::string message) {
  if (stopped_) return;
  diagnostics_.error(std::string(code), file_, loc, std::move(message));
  check_error_budget(loc);
}

void Parser::check_error_budget(SourceLoc loc) {
  if (stopped_ || error_count() < text_limits::kMaxErrors) return;
  stopped_ = true;  // from now on every token reads as the end of the file
  diagnostics_.error(std::string(parse_code::kTooManyErrors), file_, loc,
                     fmt::format("too many errors; stopped after {}", text_limits::kMaxErrors));
}

void Parser::unexpected(const Token& t, std::string_view what) {
  if (t.bad) return;  // the lexer has reported this token already
  error(parse_code::kUnexpectedToken, t.loc, fmt::format("expected {}, found {}", what, describe(t)));
}

const Token& Parser::peek(std::size_t k) {
  while (!stopped_ && ahead_.size() <= k && (ahead_.empty() || ahead_.back().kind != TokenKind::End)) {
    ahead_.push_back(lexer_.next(Lexer::Mode::Code));
    check_error_budget(ahead_.back().loc);
  }
  if (stopped_) {
    end_token_.kind = TokenKind::End;
    return end_token_;
  }
  return k < ahead_.size() ? ahead_[k] : ahead_.back();
}

Token Parser::next() {
  Token t = peek();
  if (!stopped_ && !ahead_.empty()) ahead_.pop_front();
  previous_ = t.kind;
  ++consumed_;
  return t;
}

Token Parser::next_word() {
  if (stopped_) return end_token_;
  if (!ahead_.empty()) {
    lexer_.rewind(ahead_.front());
    ahead_.clear();
  }
  Token t = lexer_.next(Lexer::Mode::Word);
  check_error_budget(t.loc);
  if (stopped_) return end_token_;
  previous_ = t.kind;
  ++consumed_;
  return t;
}

bool Parser::accept_punct(std::string_view p) {
  if (!at_punct(p)) return false;
  next();
  return true;
}

bool Parser::expect_punct(std::string_view p, std::string_view what) {
  if (accept_punct(p)) return true;
  unexpected(peek(), what);
  return false;
}

std::optional<Token> Parser::expect_name(std::string_view what) {
  if (peek().is_name()) return next();
  unexpected(peek(), what);
  return std::nullopt;
}

bool Parser::expect_keyword(std::string_view kw, std::string_view what) {
  if (peek().is_keyword(kw)) {
    next();
    return true;
  }
  unexpected(peek(), what);
  return false;
}

std::optional<Token> Parser::expect_string(std::string_view what) {
  if (peek().kind == TokenKind::String) return next();
  unexpected(peek(), what);
  return std::nullopt;
}

bool Parser::is_directive_keyword(const Token& t) {
  static constexpr std::array<std::string_view, 10> kKeywords = {
      "case", "meta", "workgroup_size", "grid", "fixpoint", "buffer", "input", "kernel", "entry", "expect"};
  if (t.kind != TokenKind::Identifier) return false;
  return std::find(kKeywords.begin(), kKeywords.end(), t.text) != kKeywords.end();
}

void Parser::skip_newlines() {
  while (peek().kind == TokenKind::Newline) next();
}

void Parser::finish_line() {
  if (previous_ == TokenKind::Newline) return;  // recovery already reached the start of a line
  const Token& t = peek();
  if (t.kind == TokenKind::Newline) {
    next();
    return;
  }
  if (t.kind == TokenKind::End) return;
  unexpected(t, "end of line");
  skip_line();
}

void Parser::skip_line() {
  if (previous_ == TokenKind::Newline) return;  // recovery already reached the start of a line
  // Brackets opened on the line extend it, but a directive at the start of a line always begins a new
  // one (an unclosed bracket must not swallow the rest of the file).
  std::size_t depth = 0;
  for (;;) {
    const Token& t = peek();
    if (t.kind == TokenKind::End) return;
    if (t.kind == TokenKind::Newline && depth == 0) {
      next();
      return;
    }
    if (previous_ == TokenKind::Newline && depth > 0 && t.loc.col == 1 && is_directive_keyword(t)) return;
    if (t.is_punct("{") || t.is_punct("[") || t.is_punct("(")) ++depth;
    if ((t.is_punct("}") || t.is_punct("]") || t.is_punct(")")) && depth > 0) --depth;
    next();
  }
}

void Parser::skip_statement() {
  std::size_t depth = 0;
  for (;;) {
    const Token& t = peek();
    if (t.kind == TokenKind::End) return;
    if (depth == 0 && t.ends_statement()) return;
    if (previous_ == TokenKind::Newline && is_directive_keyword(t)) return;  // an unclosed block ended
    if (t.is_punct("{")) ++depth;
    if (t.is_punct("}")) --depth;
    next();
  }
}

std::optional<std::uint64_t> Parser::number_arg(std::string_view what, Token* where) {
  const Token& t = peek();
  if (t.kind != TokenKind::Number) {
    unexpected(t, what);
    return std::nullopt;
  }
  const Token tok = next();
  if (where) *where = tok;
  if (tok.bad) return std::nullopt;
  std::string why;
  const std::optional<NumberForm> form = classify_number(tok.text, &why);
  if (!form) return std::nullopt;  // reported by the lexer
  if (form->fractional || (form->suffix != 0 && form->suffix != 'u')) {
    error(parse_code::kLiteralWrongType, tok.loc, fmt::format("{} must be an unsigned integer", what));
    return std::nullopt;
  }
  const std::optional<std::uint64_t> v = parse_unsigned(tok.text, std::numeric_limits<std::uint64_t>::max());
  if (!v) error(parse_code::kLiteralOutOfRange, tok.loc, fmt::format("{} is out of range", what));
  return v;
}

std::optional<std::uint32_t> Parser::u32_arg(std::string_view what) {
  Token where;
  const std::optional<std::uint64_t> v = number_arg(what, &where);
  if (!v) return std::nullopt;
  if (*v > 0xFFFFFFFFull) {
    error(parse_code::kLiteralOutOfRange, where.loc, fmt::format("{} does not fit in 32 bits", what));
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(*v);
}

}  // namespace gridcheck::ir::text
