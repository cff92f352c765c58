// validate_printed: builder-made IR validated against its printed text (docs/engineering.md#lesson-3).
#include "ir/text/parser.hpp"
#include "ir/text/printer.hpp"
#include "ir/validate/internal.hpp"
#include "ir/validate/validator.hpp"

namespace gridcheck::ir {

PrintedValidation validate_printed(const Program& p, std::string_view file, const ValidateOptions& options) {
  {
    // The printer treats a broken arena (G007, G008) as an internal error: do not print such IR.
    validation::Sink sink(p, file);
    validation::check_structure(p, sink);
    Diagnostics structure = sink.finish();
    for (const Diagnostic& d : structure)
      if (d.code == "G007" || d.code == "G008") return PrintedValidation{{}, std::move(structure)};
  }
  PrintedProgram printed = print_with_locations(p);
  Program located = p;
  for (std::size_t i = 0; i < printed.stmt_locs.size() && i < located.stmt_count(); ++i)
    if (printed.stmt_locs[i].known()) located.set_loc(StmtId{static_cast<std::uint32_t>(i)}, printed.stmt_locs[i]);
  for (std::size_t i = 0; i < printed.expr_locs.size() && i < located.expr_count(); ++i)
    if (printed.expr_locs[i].known()) located.set_loc(ExprId{static_cast<std::uint32_t>(i)}, printed.expr_locs[i]);
  // Buffer lines are printed in declaration order: read the text back and take their positions.
  if (const Result<Program> reread = parse_program(printed.text, file);
      reread.ok() && reread->buffers().size() == located.buffers().size()) {
    for (std::size_t i = 0; i < located.buffers().size(); ++i)
      located.mutable_buffers()[i].loc = reread->buffers()[i].loc;
  }
  return PrintedValidation{std::move(printed.text), validate(located, file, options)};
}

}  // namespace gridcheck::ir
