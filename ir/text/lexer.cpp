#include "ir/text/lexer.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "ir/ops.hpp"
#include "ir/text/limits.hpp"
#include "ir/text/literal.hpp"
#include "ir/text/parse_codes.hpp"
#include "ir/text/spelling.hpp"

namespace gridcheck::ir::text {
namespace {

// Every punctuation spelling, longest first: the structural symbols plus the infix and prefix
// spellings of the operator table (so a new operator needs no lexer change).
const std::vector<std::string_view>& punctuation() {
  static const std::vector<std::string_view> kAll = [] {
    std::vector<std::string_view> all = {"(", ")", "[", "]", "{", "}", ",", ":", ";", "=", ".", "..", "->"};
    for (const BinOpInfo& row : all_bin_ops())
      if (!row.infix.empty()) all.push_back(row.infix);
    for (const UnOpInfo& row : all_un_ops())
      if (!row.prefix.empty()) all.push_back(row.prefix);
    std::sort(all.begin(), all.end(), [](std::string_view a, std::string_view b) {
      return a.size() != b.size() ? a.size() > b.size() : a < b;
    });
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
  }();
  return kAll;
}

bool starts_token(char c, Lexer::Mode mode) {
  if (c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '#' || c == '"' || c == '`') return true;
  if (spelling::is_ident_char(c)) return true;
  if (mode == Lexer::Mode::Word && spelling::is_word_char(c)) return true;
  for (std::string_view p : punctuation())
    if (p[0] == c) return true;
  return false;
}

constexpr int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string describe(const Token& t) {
  auto clip = [](std::string_view s) { return std::string(s.substr(0, 32)); };
  switch (t.kind) {
    case TokenKind::Identifier: return fmt::format("the name {}", clip(t.text));
    case TokenKind::QuotedIdentifier: return "a quoted name";
    case TokenKind::Word: return "a word";  // (may end with a dot; the caret shows it)
    case TokenKind::Number: return fmt::format("the number {}", clip(t.text));
    case TokenKind::String: return "a string";
    case TokenKind::Punct: {
      static constexpr std::array<std::pair<std::string_view, std::string_view>, 13> kNames = {{
          {"(", "an opening parenthesis"}, {")", "a closing parenthesis"}, {"[", "an opening bracket"},
          {"]", "a closing bracket"},      {"{", "an opening brace"},      {"}", "a closing brace"},
          {",", "a comma"},                {":", "a colon"},               {";", "a semicolon"},
          {"=", "an equals sign"},         {".", "a dot"},                 {"..", "two dots"},
          {"->", "an arrow"},
      }};
      for (const auto& [symbol, name] : kNames)
        if (t.text == symbol) return std::string(name);
      return fmt::format("the operator {}", t.text);
    }
    case TokenKind::Newline: return "end of line";
    case TokenKind::End: return "end of file";
  }
  return "a token";
}

Lexer::Lexer(std::string_view source, std::string file) : src_(source), file_(std::move(file)) {}

SourceLoc Lexer::loc_at(std::size_t offset) const {
  // Only called for offsets on the current line.
  return SourceLoc{line_, static_cast<std::uint32_t>(offset - line_start_ + 1)};
}

void Lexer::error(std::string_view code, std::size_t offset, std::string message) {
  if (diagnostics_.size() >= text_limits::kMaxErrors) return;  // the parser stops at this many anyway
  diagnostics_.emplace_back(
      offset, Diagnostic{Severity::Error, std::string(code), file_, loc_at(offset), std::move(message), {}});
}

void Lexer::rewind(const Token& t) {
  pos_ = t.offset;
  line_ = t.loc.line;
  line_start_ = t.line_start;
  std::erase_if(diagnostics_, [&](const auto& d) { return d.first >= t.offset; });
}

void Lexer::skip_blanks_and_comments() {
  while (pos_ < src_.size()) {
    const char c = src_[pos_];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
    } else if (c == '#') {
      while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
    } else {
      return;
    }
  }
}

Token Lexer::next(Mode mode) {
  for (;;) {
    skip_blanks_and_comments();
    Token t;
    t.offset = pos_;
    t.line_start = line_start_;
    t.loc = loc_at(pos_);
    if (pos_ >= src_.size()) {
      t.kind = TokenKind::End;
      return t;
    }
    const char c = src_[pos_];
    if (c == '\n') {
      t.kind = TokenKind::Newline;
      t.text = src_.substr(pos_, 1);
      ++pos_;
      ++line_;
      line_start_ = pos_;
      return t;
    }
    if (c == '"' || c == '`') {
      lex_quoted(t, c);
      return t;
    }
    if (mode == Mode::Word && spelling::is_word_char(c)) {
      lex_word(t);
      return t;
    }
    if (spelling::is_ident_start(c)) {
      lex_identifier(t);
      return t;
    }
    if (spelling::is_digit(c)) {
      lex_number(t);
      return t;
    }
    if (lex_punct(t)) return t;
    // A run of bytes that cannot start a token is reported once and skipped.
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80)
      error(parse_code::kUnexpectedCharacter, pos_, "unexpected non-ASCII byte outside a string or comment");
    else if (byte < 0x20 || byte == 0x7f)
      error(parse_code::kUnexpectedCharacter, pos_, fmt::format("unexpected control character 0x{:02x}", byte));
    else
      error(parse_code::kUnexpectedCharacter, pos_, fmt::format("unexpected character {}", c));
    ++pos_;
    while (pos_ < src_.size() && !starts_token(src_[pos_], mode)) ++pos_;
  }
}

void Lexer::lex_identifier(Token& t) {
  std::size_t end = pos_;
  while (end < src_.size() && spelling::is_ident_char(src_[end])) ++end;
  t.kind = TokenKind::Identifier;
  t.text = src_.substr(pos_, end - pos_);
  if (t.text.size() > text_limits::kMaxIdentifierBytes) {
    error(parse_code::kIdentifierTooLong, pos_,
          fmt::format("name is longer than {} bytes", text_limits::kMaxIdentifierBytes));
    t.bad = true;
  }
  pos_ = end;
}

void Lexer::lex_word(Token& t) {
  std::size_t end = pos_;
  while (end < src_.size() && spelling::is_word_char(src_[end])) ++end;
  t.kind = TokenKind::Word;
  t.text = src_.substr(pos_, end - pos_);
  if (t.text.size() > text_limits::kMaxIdentifierBytes) {
    error(parse_code::kIdentifierTooLong, pos_,
          fmt::format("word is longer than {} bytes", text_limits::kMaxIdentifierBytes));
    t.bad = true;
  }
  pos_ = end;
}

void Lexer::lex_number(Token& t) {
  const bool hex = pos_ + 1 < src_.size() && src_[pos_] == '0' && (src_[pos_ + 1] == 'x' || src_[pos_ + 1] == 'X');
  std::size_t end = pos_;
  while (end < src_.size()) {
    const char c = src_[end];
    if (spelling::is_ident_char(c)) {
      ++end;
    } else if (c == '.' && end + 1 < src_.size() && spelling::is_digit(src_[end + 1]) && !hex) {
      ++end;  // a decimal point; `..` (a range) is left alone
    } else if ((c == '+' || c == '-') && !hex && (src_[end - 1] == 'e' || src_[end - 1] == 'E') &&
               end + 1 < src_.size() && spelling::is_digit(src_[end + 1])) {
      ++end;  // an exponent sign
    } else {
      break;
    }
  }
  t.kind = TokenKind::Number;
  t.text = src_.substr(pos_, end - pos_);
  std::string why;
  if (t.text.size() > 64) {
    error(parse_code::kLiteralOutOfRange, pos_, "number literal is too long");
    t.bad = true;
  } else if (!classify_number(t.text, &why)) {
    error(parse_code::kMalformedNumber, pos_, why);
    t.bad = true;
  }
  pos_ = end;
}

void Lexer::lex_quoted(Token& t, char quote) {
  const bool is_name = quote == '`';
  const std::size_t limit = is_name ? text_limits::kMaxIdentifierBytes : text_limits::kMaxStringBytes;
  const std::size_t begin = pos_;
  t.kind = is_name ? TokenKind::QuotedIdentifier : TokenKind::String;
  std::size_t i = pos_ + 1;
  bool too_long = false;
  bool closed = false;
  auto append = [&](char c) {
    if (t.decoded.size() < limit)
      t.decoded.push_back(c);
    else
      too_long = true;
  };
  while (i < src_.size() && src_[i] != '\n') {
    const char c = src_[i];
    if (c == quote) {
      closed = true;
      ++i;
      break;
    }
    if (c != '\\') {
      append(c);
      ++i;
      continue;
    }
    const char e = i + 1 < src_.size() ? src_[i + 1] : '\0';
    switch (e) {
      case '\\': append('\\'); i += 2; continue;
      case '"': append('"'); i += 2; continue;
      case '`': append('`'); i += 2; continue;
      case 'n': append('\n'); i += 2; continue;
      case 't': append('\t'); i += 2; continue;
      case 'r': append('\r'); i += 2; continue;
      case 'x': {
        const int hi = i + 2 < src_.size() ? hex_value(src_[i + 2]) : -1;
        const int lo = i + 3 < src_.size() ? hex_value(src_[i + 3]) : -1;
        if (hi >= 0 && lo >= 0) {
          append(static_cast<char>(hi * 16 + lo));
          i += 4;
          continue;
        }
        break;
      }
      default: break;
    }
    error(parse_code::kBadEscape, i, "invalid escape sequence; use \\\\, \\\", \\`, \\n, \\t, \\r or \\xHH");
    t.bad = true;
    ++i;  // skip the backslash; the next character is read as itself
  }
  t.text = src_.substr(begin, i - begin);
  if (!closed) {
    error(parse_code::kUnterminatedString, begin,
          is_name ? "unterminated quoted name" : "unterminated string; strings end on the same line");
    t.bad = true;
  }
  if (too_long) {
    error(is_name ? parse_code::kIdentifierTooLong : parse_code::kStringTooLong, begin,
          fmt::format("{} is longer than {} bytes", is_name ? "name" : "string", limit));
    t.bad = true;
  }
  pos_ = i;
}

bool Lexer::lex_punct(Token& t) {
  const std::string_view rest = src_.substr(pos_);
  for (std::string_view p : punctuation()) {
    if (rest.starts_with(p)) {
      t.kind = TokenKind::Punct;
      t.text = src_.substr(pos_, p.size());
      pos_ += p.size();
      return true;
    }
  }
  return false;
}

}  // namespace gridcheck::ir::text
