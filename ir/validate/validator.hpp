#pragma once
// The program validator (docs/semantics.md §4 plus gridcheck's own checks; rule table in docs/validation.md).
//
// Two phases, as Tint's validator (docs/engineering.md#lesson-3):
//   1. structure: the arena is well formed (ids in range, operand counts, enum values, no cycles),
//      every buffer reference resolves, and the program-level rules hold (V105-V109, V126/V127, V130 ...);
//   2. semantics, only when phase 1 found no error: scoping, types, buffer access, atomics, barrier
//      uniformity (V010, V055, G001-G003) and the rest.
//
// Diagnostics carry the node's SourceLoc when it has one (IR parsed from text). A diagnostic about
// IR built in C++ (no locations) gets a note naming the statement's path from the entry, for example
// `at entry[0].body[2].then[0] (barrier grid_sync)`; `validate_printed` instead gives such IR the
// line:col positions of its printed form.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ir/diagnostic.hpp"
#include "ir/program.hpp"
#include "ir/typecheck.hpp"

namespace gridcheck::ir {

struct ValidateOptions {
  /// vyre's `allow_shadowing` (default off, as in the reference): a `let` or loop variable may reuse
  /// the name of an enclosing binding. Duplicate sibling lets (V032) stay errors.
  bool allow_shadowing = false;
  /// vyre's default validation rejects every collective node (V046: no backend collective support).
  /// Set this to validate programs meant only for the planner's buffer scan (docs/vyre-0.7.2.md §6.7).
  bool allow_collectives = false;
};

/// Every error and warning of `p`, ordered by position (program-level diagnostics first).
/// `file` only labels the diagnostics. The program is valid when the result has no error.
Diagnostics validate(const Program& p, std::string_view file = {}, const ValidateOptions& options = {});
/// The same, also setting `types` to the table typecheck(p) returns when the validator's type
/// inference ran and reported no error (else nullopt): a caller that validates first need not
/// type-check again.
Diagnostics validate(const Program& p, std::string_view file, const ValidateOptions& options,
                     std::optional<TypeTable>& types);

/// True when `validate` reports no error (warnings allowed).
bool is_valid(const Program& p, const ValidateOptions& options = {});

/// Validates IR built in C++ against its printed form (docs/engineering.md#lesson-3): prints `p` with
/// `print_with_locations`, gives every node and buffer the line:col it has in that text, and validates.
/// `render(result.diagnostics, result.text)` then shows carets. A program too malformed to print (G007,
/// G008) gets its phase-1 diagnostics, located by statement path, and an empty `text`.
struct PrintedValidation {
  std::string text;
  Diagnostics diagnostics;
};
PrintedValidation validate_printed(const Program& p, std::string_view file = "<printed>",
                                   const ValidateOptions& options = {});

/// One row of the rule table (docs/validation.md lists the same rows with examples).
struct ValidationRule {
  std::string_view code;
  Severity severity;
  int phase;                 ///< 1 = structure, 2 = semantics
  std::string_view origin;   ///< "vyre" (docs/semantics.md §4 / vyre 0.7.2 numbering) or "gridcheck"
  std::string_view summary;  ///< one line
};

/// Every code `validate` can report, sorted by code. Type-inference codes (G100-G105, V028) included.
std::span<const ValidationRule> validation_rules();
const ValidationRule* find_validation_rule(std::string_view code);

}  // namespace gridcheck::ir
