#pragma once
// How names, words and strings are spelled in the text format; shared by the lexer (what it accepts)
// and the printer (what it writes), so the two cannot drift apart.
//
//   identifier  [A-Za-z_][A-Za-z0-9_]*           locals, buffers; `true`/`false` are reserved
//   `quoted`    any bytes, string escapes         a name that is not a plain identifier
//   word        [A-Za-z0-9_./-]+                  case names, oracles, profiles, verdict details
//   "string"    escapes \\ \" \` \n \t \r \xHH    generators, tags, descriptions, meta values

#include <string>
#include <string_view>

namespace gridcheck::ir::spelling {

constexpr bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
constexpr bool is_word_char(char c) { return is_ident_char(c) || c == '.' || c == '-' || c == '/'; }

/// A plain identifier that the lexer reads as a name (not too long, not reserved).
bool is_plain_identifier(std::string_view s);
/// `true` and `false`: the only words that can never name a local or a buffer without quoting.
bool is_reserved(std::string_view s);
/// A non-empty run of word characters, not too long.
bool is_word(std::string_view s);

/// `s` as a string literal: "..." with escapes for \ " ` and bytes below 0x20 or 0x7f.
std::string quoted_string(std::string_view s);
/// A name as the printer writes it: plain when possible, else `...` with string escapes.
std::string name(std::string_view s);
/// A word as the printer writes it: bare when it is a word, else a string literal.
std::string word_or_string(std::string_view s);

}  // namespace gridcheck::ir::spelling
