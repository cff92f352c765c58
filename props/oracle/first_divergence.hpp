#pragma once
// Where a diverging split first went wrong: re-runs the split on H-cpu and R with observers,
// finds the first segment whose end state differs from R's memory at the matching fence, and the
// invocation (and IR site) that last wrote the differing element in R.

#include <span>

#include "ir/case.hpp"
#include "planner/profile.hpp"
#include "props/oracle/case_report.hpp"
#include "props/oracle/oracle_options.hpp"

namespace gridcheck::props {

/// Adds the first divergent pass/segment and R's last writer to `outcome` (a diverging H-cpu
/// outcome of `profile` on `c`, whose split ran on `inputs`), and rewrites its message. Leaves it
/// alone when the segments do not line up with R's fences (a fence that was not hoisted).
void locate_first_divergence(const ir::Case& c, const OracleOptions& options, const planner::Profile& profile,
                             std::span<const planner::Bytes> inputs, OracleOutcome& outcome);

}  // namespace gridcheck::props
