#pragma once
// R, the oracle every other verdict hangs on: the case as one dispatch with true grid sync
// (docs/semantics.md §3.8), with the race detector, and a second run under the reversed schedule
// whose bytes must be the same (otherwise the case is invalid: "race").

#include "interp/interpreter.hpp"
#include "ir/case.hpp"
#include "props/oracle/case_report.hpp"
#include "props/oracle/oracle_options.hpp"

namespace gridcheck::props {

/// The interpreter options every oracle uses for `c`: the resource limits, the case deadline and the file for positions.
interp::RunOptions reference_run_options(const ir::Case& c, const OracleOptions& options);

/// Fills the reference part of `report` (reference, reference_verdict, reference_detail,
/// schedule_dependent) from R's runs of `c`.
void run_reference(const ir::Case& c, const OracleOptions& options, CaseReport& report);

}  // namespace gridcheck::props
