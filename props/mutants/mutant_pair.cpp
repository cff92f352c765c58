#include "props/mutants/mutant_pair.hpp"

#include <fmt/format.h>

#include <vector>

#include "ir/equality.hpp"
#include "planner/segment_plan.hpp"
#include "props/mutants/case_meta.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"

namespace gridcheck::props {

ir::ResourceLimits mutant_limits() {
  ir::ResourceLimits limits;
  limits.fuel = ir::kCandidateFuel;
  return limits;
}

PairReport evaluate_pair(const ir::Case& c, const planner::Profile& base, const planner::Profile& mutant,
                         const ir::ResourceLimits& limits) {
  OracleOptions options;
  options.profiles = {&base, &mutant};
  options.limits = limits;
  options.locate_first_divergence = false;
  const CaseReport both = evaluate_case(c, options);
  PairReport pair;
  pair.base = both;
  pair.mutant = both;
  pair.base.outcomes.clear();
  pair.mutant.outcomes.clear();
  for (const OracleOutcome& s : both.outcomes) {
    if (s.profile == base.name) {
      pair.base.outcomes.push_back(s);
    } else if (s.profile == mutant.name) {
      pair.mutant.outcomes.push_back(s);
      pair.mutant.outcomes.back().profile = base.name;
    } else {  // no profile (R-waves of the case's own kernel): the same for both
      pair.base.outcomes.push_back(s);
      pair.mutant.outcomes.push_back(s);
    }
  }
  return pair;
}

const OracleOutcome* first_cpu_outcome(const CaseReport& report) {
  for (const OracleOutcome& s : report.outcomes)
    if (s.oracle == "H-cpu") return &s;
  return nullptr;
}

bool reference_is_valid(const CaseReport& report) { return report.reference_verdict != ir::Verdict::Invalid; }

std::size_t split_launches(const CaseReport& report, std::string_view profile) {
  for (const OracleOutcome& s : report.outcomes)
    if (s.oracle == "H-cpu" && s.profile == profile) return s.launches;
  return 0;
}

namespace {

std::uint64_t plan_fingerprint(const planner::Profile& profile, const ir::Program& program) {
  if (!profile.split.contains_fence(program)) return 1;
  ir::Result<planner::SplitPlan> plan = planner::plan_split(profile, program);
  if (!plan) return 2;
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](const std::string& s) { h = ir::fnv1a64(s.data(), s.size(), h); };
  for (const planner::PlannedSegment& seg : plan->segments) {
    const std::uint64_t ch = ir::content_hash(seg.program);
    h = ir::fnv1a64(&ch, sizeof ch, h);
    for (const std::string& n : seg.input_names) mix("i" + n);
    for (const std::string& n : seg.output_names) mix("o" + n);
    for (const std::string& n : seg.let_prefix) mix("l" + n);
  }
  return h;
}

}  // namespace

bool plan_is_deterministic(const planner::Profile& profile, const ir::Program& program, int repeats) {
  const std::uint64_t first = plan_fingerprint(profile, program);
  for (int i = 1; i < repeats; ++i)
    if (plan_fingerprint(profile, program) != first) return false;
  return true;
}

std::optional<std::string> tell_apart(const ir::Case& expected, const PairReport& pair, std::size_t base_launches,
                                      const planner::Profile& mutant) {
  const std::vector<ExpectationFailure> failures = check_expectations(expected, pair.mutant);
  if (!failures.empty())
    return fmt::format("{}{}", failures.front().message,
                       failures.size() > 1 ? fmt::format(" (+{} more)", failures.size() - 1) : "");
  const OracleOutcome* m = first_cpu_outcome(pair.mutant);
  if (m != nullptr && reference_is_valid(pair.mutant) && m->launches != base_launches)
    return fmt::format("{} launches where the base makes {}", m->launches, base_launches);
  if (!plan_is_deterministic(mutant, expected.program)) return std::string("the plan differs from run to run");
  return std::nullopt;
}

ir::Case with_base_expectations(const ir::Case& c, const CaseReport& base_report, const planner::Profile& base) {
  ir::Case out = c;
  record_expectations(out, base_report);
  set_meta(out, "base_launches", std::to_string(split_launches(base_report, base.name)));
  return out;
}

}  // namespace gridcheck::props
