#pragma once
// Parsing the text format (docs/format.md). The parser only builds the tree and checks what the text
// itself can get wrong (syntax, literals, limits, references from input/expect lines to buffers);
// program typing and the validator rules are ir::typecheck and ir/validate. Every statement,
// expression and buffer declaration of the result carries its SourceLoc.

#include <string_view>

#include "ir/case.hpp"
#include "ir/diagnostic.hpp"

namespace gridcheck::ir {

/// Parses a whole `.gc` case file. `file` is only used in diagnostics (and stored in Case::file).
/// Fails with P-coded diagnostics (several, sorted by position, at most text_limits::kMaxErrors).
Result<Case> parse_case(std::string_view text, std::string_view file);

/// Parses the program part alone (what `print(const Program&)` writes): `workgroup_size`, `buffer`
/// lines and one `kernel { }` or `entry { }` block. Handy for text-in tests of passes.
Result<Program> parse_program(std::string_view text, std::string_view file);

}  // namespace gridcheck::ir
