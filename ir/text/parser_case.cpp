// The top level of a case file: header comments, the directive lines and the final checks.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "ir/text/limits.hpp"
#include "ir/text/parse_codes.hpp"
#include "ir/text/parser.hpp"
#include "ir/text/parser_impl.hpp"

namespace gridcheck::ir::text {
namespace {

struct Directive {
  std::string_view keyword;
  void (Parser::*parse)(const Token&);
  bool in_program;  ///< allowed in a program text (parse_program)
};

}  // namespace

Diagnostics Parser::run() {
  if (text_.size() > text_limits::kMaxFileBytes) {
    error(parse_code::kFileTooLarge, SourceLoc{1, 1},
          fmt::format("file is larger than the limit of {} bytes", text_limits::kMaxFileBytes));
    return diagnostics_;
  }
  if (mode_ == Mode::Case) collect_header_comments();
  for (;;) {
    skip_newlines();
    if (peek().kind == TokenKind::End) break;
    const std::uint64_t before = consumed_;
    parse_directive();
    if (consumed_ == before) next();  // never loop without progress
  }
  if (!stopped_) {
    if (mode_ == Mode::Case && !seen_case_.known())
      error(parse_code::kMissingSection, SourceLoc{1, 1}, "case file has no case line");
    if (!seen_body_.known())
      error(parse_code::kMissingSection, SourceLoc{1, 1}, "text has no kernel or entry block");
  }

  // Lexical and syntax diagnostics in source order; "too many errors" stays last.
  std::vector<Diagnostic> all;
  std::optional<Diagnostic> stop;
  for (const Diagnostic& d : diagnostics_) {
    if (d.code == parse_code::kTooManyErrors)
      stop = d;
    else
      all.push_back(d);
  }
  for (const auto& [offset, d] : lexer_.diagnostics()) all.push_back(d);
  std::stable_sort(all.begin(), all.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
  });
  // One token can add more than one lexical error, so the total may pass the limit by a little.
  if (stop && all.size() > text_limits::kMaxErrors) all.resize(text_limits::kMaxErrors);
  Diagnostics out;
  for (Diagnostic& d : all) out.add(std::move(d));
  if (stop) out.add(*stop);
  return out;
}

void Parser::collect_header_comments() {
  // The `#` lines before the first directive are kept (fmt prints them back); other comments are not.
  std::string_view rest = text_;
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.front() != '#') break;
    line.remove_prefix(1);
    if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    case_.header_comments.emplace_back(line);
  }
}

void Parser::parse_directive() {
  static constexpr std::array<Directive, 12> kDirectives = {{
      {"case", &Parser::parse_case_line, false},
      {"meta", &Parser::parse_meta, false},
      {"workgroup_size", &Parser::parse_workgroup_size, true},
      {"grid", &Parser::parse_grid, false},
      {"fixpoint", &Parser::parse_fixpoint, false},
      {"oob", &Parser::parse_memory_check, false},
      {"uninit", &Parser::parse_memory_check, false},
      {"buffer", &Parser::parse_buffer, true},
      {"input", &Parser::parse_input, false},
      {"kernel", &Parser::parse_body_section, true},
      {"entry", &Parser::parse_body_section, true},
      {"expect", &Parser::parse_expect, false},
  }};
  const Token kw = next();
  if (kw.kind != TokenKind::Identifier) {
    unexpected(kw, "a directive such as case, buffer, kernel or expect");
    skip_line();
    return;
  }
  for (const Directive& d : kDirectives) {
    if (kw.text != d.keyword) continue;
    if (mode_ == Mode::Program && !d.in_program) {
      error(parse_code::kUnknownDirective, kw.loc,
            fmt::format("{} lines belong in a case file, not in a program text", d.keyword));
      skip_line();
      return;
    }
    (this->*d.parse)(kw);
    return;
  }
  error(parse_code::kUnknownDirective, kw.loc, fmt::format("unknown directive {}", kw.text.substr(0, 32)));
  skip_line();
}

bool Parser::first_time(std::string_view section, const Token& kw, SourceLoc& seen) {
  if (!seen.known()) {
    seen = kw.loc;
    return true;
  }
  error(parse_code::kDuplicateSection, kw.loc, fmt::format("second {}; the first is on line {}", section, seen.line));
  skip_line();
  return false;
}

void Parser::parse_case_line(const Token& kw) {
  if (!first_time("case line", kw, seen_case_)) return;
  Token name = next_word();
  if (name.kind == TokenKind::Word || name.kind == TokenKind::String || name.kind == TokenKind::QuotedIdentifier) {
    case_.name = std::string(name.value());
  } else {
    unexpected(name, "a case name");
    unread(std::move(name));
    skip_line();
    return;
  }
  if (peek().kind == TokenKind::String) case_.description = next().decoded;
  finish_line();
}

void Parser::parse_meta(const Token&) {
  Token key = next_word();
  if (key.kind != TokenKind::Word && key.kind != TokenKind::String) {
    unexpected(key, "a meta key");
    unread(std::move(key));
    skip_line();
    return;
  }
  Token value = next_word();
  if (value.kind != TokenKind::Word && value.kind != TokenKind::String) {
    unexpected(value, "a meta value (a word or a string)");
    unread(std::move(value));
    skip_line();
    return;
  }
  case_.meta.emplace_back(std::string(key.value()), std::string(value.value()));
  finish_line();
}

void Parser::parse_workgroup_size(const Token& kw) {
  if (!first_time("workgroup_size line", kw, seen_workgroup_size_)) return;
  std::array<std::uint32_t, 3> size{};
  std::uint64_t product = 1;
  for (std::uint32_t& component : size) {
    Token where;
    const std::optional<std::uint64_t> v = number_arg("a workgroup size component", &where);
    if (!v) {
      skip_line();
      return;
    }
    if (*v > text_limits::kMaxWorkgroupInvocations) {
      error(parse_code::kWorkgroupSizeOutOfRange, where.loc,
            fmt::format("workgroup size component exceeds {}", text_limits::kMaxWorkgroupInvocations));
      skip_line();
      return;
    }
    component = static_cast<std::uint32_t>(*v);
    product *= *v;
  }
  if (product > text_limits::kMaxWorkgroupInvocations) {
    error(parse_code::kWorkgroupSizeOutOfRange, kw.loc,
          fmt::format("workgroup has {} invocations; the limit is {}", product, text_limits::kMaxWorkgroupInvocations));
    skip_line();
    return;
  }
  program().set_workgroup_size(size);
  finish_line();
}

void Parser::parse_grid(const Token& kw) {
  if (!first_time("grid line", kw, seen_grid_)) return;
  if (peek().is_keyword("auto")) {
    next();
    case_.grid.reset();
    finish_line();
    return;
  }
  std::array<std::uint32_t, 3> grid{};
  for (std::uint32_t& component : grid) {
    Token where;
    const std::optional<std::uint64_t> v = number_arg("auto or three workgroup counts", &where);
    if (!v) {
      skip_line();
      return;
    }
    if (*v == 0 || *v > text_limits::kMaxGridComponent) {
      error(parse_code::kGridOutOfRange, where.loc,
            fmt::format("grid workgroup count must be between 1 and {}", text_limits::kMaxGridComponent));
      skip_line();
      return;
    }
    component = static_cast<std::uint32_t>(*v);
  }
  case_.grid = grid;
  finish_line();
}

void Parser::parse_fixpoint(const Token& kw) {
  if (!first_time("fixpoint line", kw, seen_fixpoint_)) return;
  Token where;
  const std::optional<std::uint64_t> v = number_arg("the number of launches", &where);
  if (!v) {
    skip_line();
    return;
  }
  if (*v == 0 || *v > text_limits::kMaxFixpoint) {
    error(parse_code::kFixpointOutOfRange, where.loc,
          fmt::format("fixpoint must be between 1 and {}", text_limits::kMaxFixpoint));
    skip_line();
    return;
  }
  case_.fixpoint = static_cast<std::uint32_t>(*v);
  finish_line();
}

void Parser::parse_memory_check(const Token& kw) {
  const bool oob = kw.text == "oob";
  if (!first_time(oob ? "oob line" : "uninit line", kw, oob ? seen_oob_ : seen_uninit_)) return;
  const Token word = next();
  const std::optional<MemoryCheck> check =
      word.kind == TokenKind::Identifier ? memory_check_from_name(word.text) : std::nullopt;
  if (!check) {
    error(parse_code::kUnknownMemoryCheck, word.loc,
          fmt::format("expected error, warning or defined after '{}'", kw.text));
    skip_line();
    return;
  }
  (oob ? case_.oob : case_.uninit) = *check;
  finish_line();
}

void Parser::parse_body_section(const Token& kw) {
  if (!first_time("kernel or entry block", kw, seen_body_)) return;
  reported_unclosed_block_ = false;
  const std::optional<StmtList> body = parse_block(1);
  if (!body) {
    skip_line();
    return;
  }
  if (kw.text == "kernel") {
    Stmt root{StmtKind::Region};
    root.names[0] = program().intern(kRootRegionGenerator);
    root.body = *body;
    const StmtId id = add_stmt(root, kw.loc);
    program().set_entry(std::span<const StmtId>(&id, 1));
  } else {
    program().set_entry(*body);
  }
  finish_line();
}

}  // namespace gridcheck::ir::text

namespace gridcheck::ir {

Result<Case> parse_case(std::string_view text, std::string_view file) {
  text::Parser parser(text, file, text::Parser::Mode::Case);
  Diagnostics diagnostics = parser.run();
  if (diagnostics.has_errors()) return diagnostics;
  return std::move(parser.result());
}

Result<Program> parse_program(std::string_view text, std::string_view file) {
  text::Parser parser(text, file, text::Parser::Mode::Program);
  Diagnostics diagnostics = parser.run();
  if (diagnostics.has_errors()) return diagnostics;
  return std::move(parser.result().program);
}

}  // namespace gridcheck::ir
