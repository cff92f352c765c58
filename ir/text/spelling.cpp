#include "ir/text/spelling.hpp"

#include <fmt/format.h>

#include "ir/text/limits.hpp"

namespace gridcheck::ir::spelling {
namespace {

std::string escaped(std::string_view s, char quote) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back(quote);
  for (const char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '`': out += "\\`"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (byte < 0x20 || byte == 0x7f)
          out += fmt::format("\\x{:02x}", byte);
        else
          out.push_back(c);
    }
  }
  out.push_back(quote);
  return out;
}

}  // namespace

bool is_plain_identifier(std::string_view s) {
  if (s.empty() || s.size() > text_limits::kMaxIdentifierBytes || !is_ident_start(s[0])) return false;
  for (const char c : s)
    if (!is_ident_char(c)) return false;
  return !is_reserved(s);
}

bool is_reserved(std::string_view s) { return s == "true" || s == "false"; }

bool is_word(std::string_view s) {
  if (s.empty() || s.size() > text_limits::kMaxIdentifierBytes) return false;
  for (const char c : s)
    if (!is_word_char(c)) return false;
  return true;
}

std::string quoted_string(std::string_view s) { return escaped(s, '"'); }

std::string name(std::string_view s) { return is_plain_identifier(s) ? std::string(s) : escaped(s, '`'); }

std::string word_or_string(std::string_view s) { return is_word(s) ? std::string(s) : quoted_string(s); }

}  // namespace gridcheck::ir::spelling
