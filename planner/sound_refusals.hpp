#pragma once
// The sound profile's refusals (docs/DESIGN.md §4): a program the sound split cannot prove equal to true grid
// sync is refused before anything runs, with a diagnostic naming the construct and its location
// (the statement's line:col when the IR came from text). The oracle reports a split failure whose
// code starts with "SR" as `refused` (props/oracle.cpp). Codes are stable:
//
//   SR001  a local or buffer uses the planner's reserved prefix `__gc_`
//   SR002  a grid_sync under an `if` whose condition is not grid-invariant (literals, buffer lengths,
//          workgroup counts and sizes): the split could not recompute it identically after the cut
//   SR003  a grid_sync in a loop whose bounds are not u32 literals (the loop cannot be unrolled)
//   SR004  a grid_sync in a loop whose unrolling exceeds the limits (iterations or statements)
//   SR005  a barrier-bearing `if` or loop after a possible `return` whose condition or bounds may
//          trap (a returned invocation would evaluate it)
//   SR010  the program does not type-check (the split needs each local's type to spill it)
//   SR900  a lowered segment does not validate (an internal limitation of the sound split; reported
//          as a refusal, never run)

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ir/diagnostic.hpp"

namespace gridcheck::planner::sound_refusal {

inline constexpr std::string_view kPrefix = "SR";

ir::Diagnostic reserved_name(std::string_view name);
ir::Diagnostic fence_under_variant_if(ir::SourceLoc loc, std::string_view why);
ir::Diagnostic fence_in_runtime_loop(ir::SourceLoc loc, std::string_view var);
ir::Diagnostic unroll_limit(ir::SourceLoc loc, std::string_view var, std::uint64_t iterations, std::uint64_t statements,
                            std::uint64_t max_iterations, std::uint64_t max_statements);
ir::Diagnostic trapping_control_after_return(ir::SourceLoc loc, std::string_view what);
ir::Diagnostic untyped_program(const ir::Diagnostics& type_errors);
ir::Diagnostic invalid_segment(std::size_t segment, std::size_t segment_count, const ir::Diagnostic& first_error);

}  // namespace gridcheck::planner::sound_refusal
