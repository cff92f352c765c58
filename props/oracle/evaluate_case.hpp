#pragma once
// The differential oracle (docs/DESIGN.md §5): one case through R (true grid sync), then through
// every oracle plug-in (oracle_plugin.hpp; by default H-cpu, H-gpu when a GPU runner is set, and
// R-waves for DAG cases), byte for byte against R.

#include "ir/case.hpp"
#include "props/oracle/case_report.hpp"
#include "props/oracle/oracle_options.hpp"

namespace gridcheck::props {

/// R, then each oracle of `options.oracles` (empty: builtin_oracles()) in order.
CaseReport evaluate_case(const ir::Case& c, const OracleOptions& options);

}  // namespace gridcheck::props
