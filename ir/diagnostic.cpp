#include "ir/diagnostic.hpp"

#include <fmt/format.h>

namespace gridcheck::ir {
namespace {

std::string_view line_of(std::string_view text, std::uint32_t line) {
  std::uint32_t current = 1;
  std::size_t start = 0;
  while (current < line) {
    const std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) return {};
    start = nl + 1;
    ++current;
  }
  std::size_t end = text.find('\n', start);
  if (end == std::string_view::npos) end = text.size();
  std::string_view result = text.substr(start, end - start);
  if (!result.empty() && result.back() == '\r') result.remove_suffix(1);
  return result;
}

void render_one(std::string& out, const Diagnostic& d, std::string_view source_text) {
  std::string where;
  if (!d.file.empty()) where = d.file;
  if (d.loc.known()) where += fmt::format("{}{}:{}", where.empty() ? "" : ":", d.loc.line, d.loc.col);
  if (!where.empty()) where += ": ";
  if (d.code.empty())
    out += fmt::format("{}{}: {}\n", where, name_of(d.severity), d.message);
  else
    out += fmt::format("{}{}[{}]: {}\n", where, name_of(d.severity), d.code, d.message);
  if (d.loc.known() && !source_text.empty()) {
    const std::string_view line = line_of(source_text, d.loc.line);
    if (!line.empty() || d.loc.col <= 1) {
      out += fmt::format("  {}\n  ", line);
      // Keep tabs so the caret lines up under the same column in a terminal.
      for (std::uint32_t c = 1; c < d.loc.col && c - 1 < line.size(); ++c) out += line[c - 1] == '\t' ? '\t' : ' ';
      out += "^\n";
    }
  }
  for (const Diagnostic& note : d.notes) render_one(out, note, source_text);
}

}  // namespace

std::string_view name_of(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

bool Diagnostics::has_errors() const {
  for (const Diagnostic& d : list_)
    if (d.severity == Severity::Error) return true;
  return false;
}

std::string render(const Diagnostic& d, std::string_view source_text) {
  std::string out;
  render_one(out, d, source_text);
  return out;
}

std::string render(const Diagnostics& ds, std::string_view source_text) {
  std::string out;
  for (const Diagnostic& d : ds) render_one(out, d, source_text);
  return out;
}

}  // namespace gridcheck::ir
