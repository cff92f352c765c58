#pragma once
// Internal to ir/text: the writer behind print(), which tracks line:col as it goes so that it can
// record where each statement and expression starts.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/program.hpp"

namespace gridcheck::ir::text {

class ProgramPrinter {
 public:
  explicit ProgramPrinter(const Program& p);

  void write(std::string_view s) { out_ += s; }  ///< `s` holds no newline
  void newline();
  SourceLoc here() const;

  void workgroup_size_line();
  void buffer_lines();
  /// `kernel { }` when the entry is one root Region without source region, else `entry { }`.
  void body_block();
  /// A value list `[a, b, c]` in an element type, wrapped 16 values to a line.
  void value_list(ScalarType element, const std::vector<std::uint32_t>& values);

  std::string take() { return std::move(out_); }
  std::vector<SourceLoc>& stmt_locs() { return stmt_locs_; }
  std::vector<SourceLoc>& expr_locs() { return expr_locs_; }
  std::vector<SourceLoc>& buffer_locs() { return buffer_locs_; }

 private:
  void indent();
  void block(StmtList body);  ///< `{`, the statements one level deeper, `}` (or `{}` when empty)
  void stmt(StmtId id);
  void expr(ExprId id, int min_precedence);
  void call(std::string_view name, std::initializer_list<ExprId> args);
  std::string name(NameId id) const;

  const Program& p_;
  std::string out_;
  std::uint32_t line_ = 1;
  std::size_t line_start_ = 0;
  std::uint32_t depth_ = 0;
  std::vector<SourceLoc> stmt_locs_;
  std::vector<SourceLoc> expr_locs_;
  std::vector<SourceLoc> buffer_locs_;
};

}  // namespace gridcheck::ir::text
