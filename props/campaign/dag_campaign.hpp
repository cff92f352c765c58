#pragma once
// The wave-DAG target of a fuzz campaign (`gridcheck fuzz --target dag`): each case is a random
// wave DAG (generate_dag) fused by one profile's megakernel rule (fuse_dag), judged by the DAG
// oracle (R-waves) next to R and the splits, shrunk through its choice sequence only (IR
// reduction would change the fusion instead of the DAG), and signed
// "megakernel/<plan problems>/<mode>", e.g. "megakernel/same-phase/race".

#include <optional>
#include <string>
#include <vector>

#include "planner/profile.hpp"
#include "props/campaign/campaign.hpp"
#include "props/gen/dag_generator.hpp"

namespace gridcheck::props {

/// The target; `planner` (whose megakernel rule fuses every case) must outlive the campaign.
/// With config.reuse_scratch each case's DAG is planned in a scratch that first planned the
/// case's generate_scratch_history (recorded as informational meta `dag_scratch_history`);
/// without it, in a fresh scratch.
CampaignTarget dag_campaign_target(const DagConfig& config, const planner::Profile& planner);

/// The failure of a DAG case: "megakernel" when an R-waves outcome diverges, "generator" when the
/// waves cannot run or R is unusable, else the first failing split's blame (as case_failure).
std::optional<std::string> dag_case_failure(const ir::Case& c, const OracleOptions& options, CaseReport& report);

/// The static plan problem kinds of a DAG case's kernel, sorted ("refused" when the planner
/// refused the DAG); empty for a correct schedule or a malformed case.
std::vector<std::string> dag_classes(const ir::Case& c);

}  // namespace gridcheck::props
