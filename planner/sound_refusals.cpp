#include "planner/sound_refusals.hpp"

#include <fmt/format.h>

namespace gridcheck::planner::sound_refusal {
namespace {

ir::Diagnostic make(std::string code, ir::SourceLoc loc, std::string message, std::string fix) {
  ir::Diagnostic d;
  d.code = std::move(code);
  d.loc = loc;
  d.message = std::move(message);
  if (!fix.empty()) d.notes.push_back(ir::Diagnostic{ir::Severity::Note, "", "", {}, "fix: " + fix, {}});
  return d;
}

}  // namespace

ir::Diagnostic reserved_name(std::string_view name) {
  return make("SR001", {}, fmt::format("`{}` uses the prefix `__gc_` that the sound split reserves for its spill code", name),
              "rename it");
}

ir::Diagnostic fence_under_variant_if(ir::SourceLoc loc, std::string_view why) {
  return make("SR002", loc,
              fmt::format("a grid_sync under an `if` whose condition is not grid-invariant: it uses {}", why),
              "compute the condition from literals, buffer lengths, workgroup counts and sizes only, or hoist the "
              "grid_sync out of the `if`");
}

ir::Diagnostic fence_in_runtime_loop(ir::SourceLoc loc, std::string_view var) {
  return make("SR003", loc,
              fmt::format("a grid_sync in loop `{}` whose bounds are not u32 literals, so the loop cannot be unrolled",
                          var),
              "give the loop literal bounds, or hoist the grid_sync out of it");
}

ir::Diagnostic unroll_limit(ir::SourceLoc loc, std::string_view var, std::uint64_t iterations, std::uint64_t statements,
                            std::uint64_t max_iterations, std::uint64_t max_statements) {
  return make("SR004", loc,
              fmt::format("a grid_sync in loop `{}` of {} iterations ({} statements unrolled) exceeds the unrolling "
                          "limit of {} iterations and {} statements",
                          var, iterations, statements, max_iterations, max_statements),
              "run fewer iterations per dispatch, or use a backend with native grid sync");
}

ir::Diagnostic trapping_control_after_return(ir::SourceLoc loc, std::string_view what) {
  return make("SR005", loc,
              fmt::format("{} that contains a workgroup barrier follows a possible `return` and may trap when an "
                          "invocation that returned evaluates it",
                          what),
              "divide by a literal other than 0 and -1, or move the `return` after it");
}

ir::Diagnostic untyped_program(const ir::Diagnostics& type_errors) {
  ir::Diagnostic first;
  for (const ir::Diagnostic& d : type_errors)
    if (d.severity == ir::Severity::Error) {
      first = d;
      break;
    }
  return make("SR010", first.loc,
              fmt::format("the program does not type-check, so its locals cannot be spilled: {} [{}]", first.message,
                          first.code),
              "");
}

ir::Diagnostic invalid_segment(std::size_t segment, std::size_t segment_count, const ir::Diagnostic& first_error) {
  return make("SR900", {},
              fmt::format("segment {} of {} of the sound split does not validate: {} [{}]", segment, segment_count,
                          first_error.message, first_error.code),
              "");
}

}  // namespace gridcheck::planner::sound_refusal
