#include "props/campaign/dag_campaign.hpp"

#include <algorithm>

#include "props/gen/dag_case.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/waves_oracle.hpp"

namespace gridcheck::props {
namespace {

const OracleOutcome* first_failing(const CaseReport& report, bool waves) {
  for (const OracleOutcome& s : report.outcomes) {
    if ((s.oracle == kWavesOracle) != waves) continue;
    if (s.verdict == ir::Verdict::Diverge || s.verdict == ir::Verdict::Error) return &s;
  }
  return nullptr;
}

/// "race" of "megakernel race".
std::string mode_of(const OracleOutcome& s) {
  const std::size_t space = s.detail.find(' ');
  return space == std::string::npos ? "-" : s.detail.substr(space + 1);
}

}  // namespace

std::optional<std::string> dag_case_failure(const ir::Case& c, const OracleOptions& options, CaseReport& report) {
  OracleOptions quick = options;
  quick.locate_first_divergence = false;
  report = evaluate_case(c, quick);
  for (const OracleOutcome& s : report.outcomes)
    if (s.oracle == kWavesOracle && s.verdict == ir::Verdict::Invalid) return std::string("generator");
  if (first_failing(report, /*waves=*/true) != nullptr) return std::string(kMegakernelBlame);
  if (report.reference_verdict == ir::Verdict::Invalid) return std::string("generator");
  if (const OracleOutcome* s = first_failing(report, /*waves=*/false)) {
    std::string blame = s->verdict == ir::Verdict::Error ? std::string("backend") : s->detail;
    if (options.locate_first_divergence) report = evaluate_case(c, options);
    return blame;
  }
  return std::nullopt;
}

std::vector<std::string> dag_classes(const ir::Case& c) {
  for (const auto& [key, value] : c.meta)
    if (key == "dag_plan" && !value.empty() && value.front() != '[') return {"refused"};
  const auto dag = read_dag(c);
  if (!dag) return {};
  std::vector<std::string> kinds = problem_kinds(plan_problems(fused_schedule(c), dag->wave_count(), dag->edges));
  std::sort(kinds.begin(), kinds.end());
  return kinds;
}

CampaignTarget dag_campaign_target(const DagConfig& config, const planner::Profile& planner) {
  CampaignTarget t;
  t.name = "dag";
  t.generate = [config, &planner](ChoiceSource& choices) {
    const WaveDag dag = generate_dag(choices, config, /*named=*/false);  // the fused case is named
    if (!config.reuse_scratch) return fuse_dag(dag, planner);
    // One scratch for the case's history and then its DAG, both decoded from the case's choices,
    // so a failure that needs the history replays and shrinks like any other.
    const std::vector<PlannerInput> history = generate_scratch_history(choices, config, dag.wave_count(), dag.edges.size());
    planner::BarrierScratch scratch;
    for (const PlannerInput& in : history) (void)planner.megakernel(in.wave_count, in.edges, scratch);
    ir::Case c = fuse_dag(dag, planner, scratch);
    if (!history.empty()) c.meta.emplace_back(std::string(kScratchHistoryKey), format_history(history));
    return c;
  };
  t.failure = dag_case_failure;
  t.classes = dag_classes;
  t.pattern = [](const ir::Case&, const CaseReport& report) -> std::string {
    if (const OracleOutcome* s = first_failing(report, /*waves=*/true)) return mode_of(*s);
    return "-";
  };
  t.reduce_ir = false;
  t.keep_meta = true;  // the DAG lives in the meta lines
  return t;
}

}  // namespace gridcheck::props
