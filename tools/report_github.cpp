#include "tools/report_github.hpp"

#include <fmt/format.h>

namespace gridcheck::tools {

std::string github_escape_data(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      default: out += c;
    }
  }
  return out;
}

std::string github_escape_property(std::string_view text) {
  std::string out;
  for (char c : github_escape_data(text)) {
    switch (c) {
      case ':': out += "%3A"; break;
      case ',': out += "%2C"; break;
      default: out += c;
    }
  }
  return out;
}

std::string github_annotation(const ir::Diagnostic& d) {
  const std::string_view command = d.severity == ir::Severity::Error     ? "error"
                                   : d.severity == ir::Severity::Warning ? "warning"
                                                                         : "notice";
  std::string properties;
  const auto add = [&](std::string_view key, std::string_view value) {
    properties += fmt::format("{}{}={}", properties.empty() ? "" : ",", key, github_escape_property(value));
  };
  if (!d.file.empty()) add("file", d.file);
  if (d.loc.line > 0) add("line", std::to_string(d.loc.line));
  if (d.loc.line > 0 && d.loc.col > 0) add("col", std::to_string(d.loc.col));
  add("title", d.code.empty() ? std::string("gridcheck") : fmt::format("gridcheck {}", d.code));
  std::string message = d.code.empty() ? d.message : fmt::format("{}: {}", d.code, d.message);
  for (const ir::Diagnostic& note : d.notes)
    message += note.file.empty() || note.loc.line == 0
                   ? fmt::format("\nnote: {}", note.message)
                   : fmt::format("\n{}:{}:{}: note: {}", note.file, note.loc.line, note.loc.col, note.message);
  return fmt::format("::{} {}::{}\n", command, properties, github_escape_data(message));
}

}  // namespace gridcheck::tools
