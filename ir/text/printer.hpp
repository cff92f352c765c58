#pragma once
// Printing IR and cases as canonical text (docs/format.md). For every program the parser accepts,
// parse(print(p)) is structurally equal to p and print(parse(print(p))) == print(p). Printing never
// fails; a program whose shape the text cannot express (an arena invariant broken by hand-made IR,
// such as a builtin axis above 2) is an internal error.

#include <string>
#include <vector>

#include "ir/case.hpp"
#include "ir/source_loc.hpp"

namespace gridcheck::ir {

/// The whole case file: header comments, case line, dispatch, buffers, inputs, kernel, expectations.
std::string print(const Case& c);
/// The program part: `workgroup_size`, the buffer lines and the `kernel { }` (or `entry { }`) block.
std::string print(const Program& p);

/// print(p) plus where each node landed, so that diagnostics about IR made with the builder can point
/// at line:col of this text. Indexed by StmtId / ExprId; nodes not reachable from the entry keep an
/// unknown location. The same locations the parser would record when reading `text` back.
struct PrintedProgram {
  std::string text;
  std::vector<SourceLoc> stmt_locs;
  std::vector<SourceLoc> expr_locs;
  std::vector<SourceLoc> buffer_locs;  ///< by declaration index: the buffer's name on its line
};
PrintedProgram print_with_locations(const Program& p);

}  // namespace gridcheck::ir
