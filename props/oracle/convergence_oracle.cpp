#include "props/oracle/convergence_oracle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interp/interpreter.hpp"
#include "interp/observer.hpp"
#include "planner/exact_convergence.hpp"
#include "planner/external_profile.hpp"
#include "planner/segment_plan.hpp"
#include "props/oracle/phase_clock.hpp"
#include "props/oracle/reference_run.hpp"

namespace gridcheck::props {
namespace {

enum class Promise { Exact, Fingerprint, None };

/// The documented convergence of a built-in profile, by name.
std::optional<Promise> built_in_promise(std::string_view name) {
  if (name == planner::sound().name) return Promise::Exact;
  if (name == planner::vyre_0_7_2().name) return Promise::Fingerprint;
  return std::nullopt;
}

Promise promised_convergence(const planner::Profile& profile, const planner::SplitPlan& plan) {
  switch (plan.convergence) {
    case planner::PlanConvergence::Exact: return Promise::Exact;
    case planner::PlanConvergence::Fingerprint: return Promise::Fingerprint;
    case planner::PlanConvergence::None: return Promise::None;
    case planner::PlanConvergence::Profile: break;
  }
  if (auto p = built_in_promise(profile.name)) return *p;
  // A planner mutant (props/mutants make_mutant) is named after the fault and described as "mutant
  // of BASE: ..."; it is held to its base's promise.
  constexpr std::string_view kMutantOf = "mutant of ";
  if (std::string_view d = profile.description; d.starts_with(kMutantOf)) {
    d.remove_prefix(kMutantOf.size());
    if (auto p = built_in_promise(d.substr(0, d.find(':')))) return *p;
  }
  if (!profile.dispatch.convergence) return Promise::Exact;
  const std::unique_ptr<planner::Convergence> check = profile.dispatch.convergence();
  if (dynamic_cast<const planner::FingerprintConvergence*>(check.get()) != nullptr) return Promise::Fingerprint;
  // ExactConvergence, and any other early exit: the loop is deterministic, so the first pass whose
  // state repeats is the only right place to stop.
  return Promise::Exact;
}

template <typename Fn>
void for_each_profile(const OracleOptions& options, Fn&& fn) {
  if (options.profiles.empty()) {
    fn(planner::default_profile());
    return;
  }
  for (const planner::Profile* p : options.profiles) fn(*p);
}

}  // namespace

ReferenceRepeat reference_repeat(const ir::Case& c, const OracleOptions& options) {
  RepeatRecorder recorder;
  interp::RunOptions o = reference_run_options(c, options);
  o.detect_races = false;  // R's verdict is already in the report; only its states are wanted
  o.observers.push_back(&recorder);
  const interp::RunResult r = interp::run_case(c, o);
  if (!r.ok()) return {};
  return {recorder.end_repeat};
}

void ConvergenceOracle::evaluate(const ir::Case& c, const OracleOptions& options, CaseReport& report) const {
  if (c.fixpoint < 2 || !report.reference.ok() || report.reference_verdict != ir::Verdict::Ok) return;
  const PhaseScope timed(Phase::Convergence, Nested::Absorb);
  std::optional<ReferenceRepeat> repeat;  // computed once, when a profile needs it
  const planner::PlanCaseScope case_scope(c.name);
  for_each_profile(options, [&](const planner::Profile& profile) {
    const OracleOutcome* cpu = report.find("H-cpu", profile.name);
    if (cpu == nullptr || cpu->verdict != ir::Verdict::Match || cpu->failure || cpu->launches == 0) return;
    if (!profile.split.contains_fence(c.program)) return;  // unsplit: one launch of fixpoint N
    // The split oracle's plan, else (another oracle list) a plan of our own.
    std::optional<ir::Result<planner::SplitPlan>> own;
    const planner::SplitPlan* plan = report.plan(profile.name);
    if (plan == nullptr) {
      own.emplace(planner::plan_split(profile, c.program));
      if (!own->ok()) return;
      plan = &own->value();
    }
    if (plan->segments.empty()) return;
    const Promise promise = promised_convergence(profile, *plan);
    if (!repeat)
      repeat = report.repeat_recorded ? ReferenceRepeat{report.repeat_end} : reference_repeat(c, options);
    const std::uint32_t n = c.fixpoint;
    const std::uint32_t p = repeat->end.value_or(n);
    const std::size_t segments = plan->segments.size();
    const std::size_t k = cpu->launches / segments;
    bool ok = cpu->launches % segments == 0;
    std::string expected;
    switch (promise) {
      case Promise::Exact:
        ok = ok && k == p;
        expected = fmt::format("exact convergence stops after pass {}", p);
        break;
      case Promise::Fingerprint:
        ok = ok && k >= 2 && k <= p;
        expected = fmt::format("fingerprint convergence stops after pass 2..{}", p);
        break;
      case Promise::None:
        ok = ok && k == n;
        expected = fmt::format("without convergence all {} passes run", n);
        break;
    }
    OracleOutcome s;
    s.oracle = std::string(name());
    s.profile = profile.name;
    s.comparison_rule = "pass count";
    s.verdict = ok ? ir::Verdict::Match : ir::Verdict::Diverge;
    s.detail = ok ? "" : "planner";
    const std::string r_state = repeat->end.has_value() ? fmt::format("R's state repeats after pass {}", p)
                                                    : fmt::format("R's state changes in every one of its {} passes", n);
    const std::string ran = cpu->launches % segments == 0
                                ? fmt::format("the split ran {} pass{}", k, k == 1 ? "" : "es")
                                : fmt::format("the split ran {} launches over {} segments", cpu->launches, segments);
    s.message = fmt::format("{}, {} ({})", ran, r_state, expected);
    report.outcomes.push_back(std::move(s));
  });
}

}  // namespace gridcheck::props
