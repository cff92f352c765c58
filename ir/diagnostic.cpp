#include "ir/diagnostic.hpp"

#include <fmt/format.h>

#include <vector>

namespace gridcheck::ir {

std::string_view DiagnosticRenderer::line(std::uint32_t number) {
  if (starts_.empty()) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n') starts_.push_back(i + 1);
  }
  if (number == 0 || number > starts_.size()) return {};
  const std::size_t start = starts_[number - 1];
  std::size_t end = text_.find('\n', start);
  if (end == std::string_view::npos) end = text_.size();
  std::string_view result = text_.substr(start, end - start);
  if (!result.empty() && result.back() == '\r') result.remove_suffix(1);
  return result;
}

std::string DiagnosticRenderer::operator()(const Diagnostic& d) {
  std::string out;
  render_one(out, d);
  return out;
}

void DiagnosticRenderer::render_one(std::string& out, const Diagnostic& d) {
  std::string where;
  if (!d.file.empty()) where = d.file;
  if (d.loc.known()) where += fmt::format("{}{}:{}", where.empty() ? "" : ":", d.loc.line, d.loc.col);
  if (!where.empty()) where += ": ";
  if (d.code.empty())
    out += fmt::format("{}{}: {}\n", where, name_of(d.severity), d.message);
  else
    out += fmt::format("{}{}[{}]: {}\n", where, name_of(d.severity), d.code, d.message);
  if (d.loc.known() && !text_.empty()) {
    const std::string_view text = line(d.loc.line);
    if (!text.empty() || d.loc.col <= 1) {
      out += fmt::format("  {}\n  ", text);
      // Keep tabs so the caret lines up under the same column in a terminal.
      for (std::uint32_t c = 1; c < d.loc.col && c - 1 < text.size(); ++c) out += text[c - 1] == '\t' ? '\t' : ' ';
      out += "^\n";
    }
  }
  for (const Diagnostic& note : d.notes) render_one(out, note);
}

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

std::string render(const Diagnostic& d, std::string_view source_text) { return DiagnosticRenderer(source_text)(d); }

std::string render(const Diagnostics& ds, std::string_view source_text) {
  DiagnosticRenderer renderer(source_text);
  std::string out;
  for (const Diagnostic& d : ds) out += renderer(d);
  return out;
}

}  // namespace gridcheck::ir
