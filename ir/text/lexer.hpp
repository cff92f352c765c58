#pragma once
// The lexer of the text format: a cursor over the source that the parser pulls tokens from. It never
// fails: a lexical error becomes a diagnostic and the lexer moves on. Diagnostics are kept with the
// source offset they belong to, so that `rewind` (used when the parser re-reads a line in word mode)
// drops those of the re-read text.
//
// Two modes: Code splits operators (driven by the operator table) and numbers; Word reads the
// word-shaped arguments of header lines (`H-cpu`, `vyre-0.7.2`, `lowering/driver`) as single tokens.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/diagnostic.hpp"
#include "ir/source_loc.hpp"

namespace gridcheck::ir::text {

enum class TokenKind : std::uint8_t {
  Identifier,        ///< [A-Za-z_][A-Za-z0-9_]*
  QuotedIdentifier,  ///< `...`; value() holds the decoded name; never a keyword
  Word,              ///< Word mode only
  Number,            ///< starts with a digit; interpreted by literal.hpp
  String,            ///< "..."; value() holds the decoded bytes
  Punct,             ///< operators and delimiters
  Newline,
  End,
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text;  ///< the raw source slice
  std::string decoded;    ///< String / QuotedIdentifier contents after escapes
  SourceLoc loc;
  std::size_t offset = 0;
  std::size_t line_start = 0;  ///< offset of the first byte of loc.line
  bool bad = false;            ///< a lexical error was reported for this token

  bool is_punct(std::string_view p) const { return kind == TokenKind::Punct && text == p; }
  /// An unquoted identifier spelled `kw` (keywords are contextual; see docs/format.md).
  bool is_keyword(std::string_view kw) const { return kind == TokenKind::Identifier && text == kw; }
  bool is_name() const { return kind == TokenKind::Identifier || kind == TokenKind::QuotedIdentifier; }
  /// The name a Identifier / QuotedIdentifier / Word / String stands for.
  std::string_view value() const {
    return kind == TokenKind::QuotedIdentifier || kind == TokenKind::String ? std::string_view(decoded) : text;
  }
  bool ends_statement() const {
    return kind == TokenKind::Newline || kind == TokenKind::End || is_punct(";") || is_punct("}");
  }
};

/// A human word for a token in messages ("end of line", "number", "identifier").
std::string describe(const Token& t);

class Lexer {
 public:
  enum class Mode : std::uint8_t { Code, Word };

  Lexer(std::string_view source, std::string file);

  Token next(Mode mode = Mode::Code);
  /// Moves back to the start of `t` (a token this lexer produced) and forgets the diagnostics reported
  /// at or after it.
  void rewind(const Token& t);
  std::size_t position() const { return pos_; }
  /// The lexical diagnostics so far, each with the offset it was reported at.
  const std::vector<std::pair<std::size_t, Diagnostic>>& diagnostics() const { return diagnostics_; }

 private:
  void skip_blanks_and_comments();
  Token make(TokenKind kind, std::size_t begin, std::size_t begin_line_start, std::uint32_t begin_line);
  void error(std::string_view code, std::size_t offset, std::string message);
  SourceLoc loc_at(std::size_t offset) const;
  void lex_identifier(Token& t);
  void lex_number(Token& t);
  void lex_quoted(Token& t, char quote);
  void lex_word(Token& t);
  bool lex_punct(Token& t);

  std::string_view src_;
  std::string file_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  std::uint32_t line_ = 1;
  std::vector<std::pair<std::size_t, Diagnostic>> diagnostics_;
};

}  // namespace gridcheck::ir::text
