#pragma once
// One case under a base profile and one of its mutants, and what tells the two apart: the
// mutation self-test's notion of a kill (props/mutants/mutant_run.hpp, docs/mutants.md). The
// mutant's outcomes are reported under the base's name, so expectations recorded for the base are
// checked against the mutant's results. A mutant is told apart by a failed base expectation, by
// another H-cpu launch count than the base's, or by a plan that changes from run to run.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/case.hpp"
#include "ir/resource_limits.hpp"
#include "planner/profile.hpp"
#include "props/oracle/case_report.hpp"

namespace gridcheck::props {

/// Base and mutant on one case with one R run. `mutant` is the mutant's split outcomes under the
/// base's name, so check_expectations reads a case's base expectations against it.
struct PairReport {
  CaseReport base;
  CaseReport mutant;
};
/// The limits evaluate_pair uses unless given: ir::ResourceLimits with ir::kCandidateFuel (mutant
/// checks run thousands of cases; docs/semantics.md §3.9).
ir::ResourceLimits mutant_limits();

PairReport evaluate_pair(const ir::Case& c, const planner::Profile& base, const planner::Profile& mutant,
                         const ir::ResourceLimits& limits = mutant_limits());

/// The first H-cpu outcome in a report, whatever its profile (nullptr when there is none).
const OracleOutcome* first_cpu_outcome(const CaseReport& report);

/// Whether R's run in a report is usable (its verdict is not Invalid).
bool reference_is_valid(const CaseReport& report);

/// The H-cpu launch count of `profile` in a report (0 when it did not run).
std::size_t split_launches(const CaseReport& report, std::string_view profile);

/// Whether planning `program` under `profile` `repeats` times gives the same segments every time.
bool plan_is_deterministic(const planner::Profile& profile, const ir::Program& program, int repeats = 16);

/// What tells the mutant apart from the base on a case whose expectations are the base's: a failed
/// expectation, another launch count than `base_launches`, or a nondeterministic plan. nullopt: none.
std::optional<std::string> tell_apart(const ir::Case& expected, const PairReport& pair, std::size_t base_launches,
                                      const planner::Profile& mutant);

/// `c` with its expectations replaced by the base's results (R, and H-cpu under the base's name)
/// and the base's launch count in meta `base_launches`.
ir::Case with_base_expectations(const ir::Case& c, const CaseReport& base_report, const planner::Profile& base);

}  // namespace gridcheck::props
