#include "props/oracle/case_report.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gridcheck::props {

std::string FirstDivergence::describe() const {
  std::string out = final_diff.describe();
  if (segment && segment_diff)
    out += fmt::format("; first divergent segment: pass {} segment {} ({})", *pass, *segment, segment_diff->describe());
  if (last_writer)
    out += fmt::format("; last written in R by {}{}", interp::to_string(*last_writer),
                       last_writer_site ? " at " + interp::to_string(*last_writer_site) : "");
  return out;
}

const OracleOutcome* CaseReport::find(std::string_view oracle, std::string_view profile) const {
  for (const OracleOutcome& s : outcomes)
    if (s.oracle == oracle && s.profile == profile) return &s;
  return nullptr;
}

const planner::SplitPlan* CaseReport::plan(std::string_view profile) const {
  for (const auto& [name, plan] : plans)
    if (name == profile) return plan.get();
  return nullptr;
}

bool CaseReport::agrees() const {
  if (reference_verdict == ir::Verdict::Invalid) return false;
  return std::all_of(outcomes.begin(), outcomes.end(), [](const OracleOutcome& s) {
    return s.verdict == ir::Verdict::Match || s.verdict == ir::Verdict::Refused;
  });
}

}  // namespace gridcheck::props
