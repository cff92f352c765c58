#include "props/oracle/split_oracle.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "planner/external_profile.hpp"
#include "planner/segment_plan.hpp"
#include "planner/sound_profile.hpp"
#include "planner/split_errors.hpp"
#include "props/oracle/byte_compare.hpp"
#include "props/oracle/case_bytes.hpp"
#include "props/oracle/first_divergence.hpp"
#include "props/oracle/interp_executor.hpp"
#include "props/oracle/phase_clock.hpp"
#include "props/oracle/reference_run.hpp"

namespace gridcheck::props {
namespace {

using planner::Bytes;

class SplitEvaluation {
 public:
  SplitEvaluation(const ir::Case& c, const OracleOptions& options, CaseReport& report)
      : c_(c), options_(options), report_(report) {}

  void run() {
    const planner::PlanCaseScope case_scope(c_.name);  // an external planner's request names the case
    if (report_.reference_verdict == ir::Verdict::Invalid) {
      for_each_profile([&](const planner::Profile& profile) {
        if (options_.cpu) report_.outcomes.push_back(invalid_outcome("H-cpu", profile));
        if (options_.gpu) report_.outcomes.push_back(invalid_outcome(options_.gpu_name, profile));
      });
      return;
    }
    // Only H-gpu is compared under the rule (H-cpu runs R's arithmetic: exact), and finding it
    // type-checks the whole program.
    if (options_.gpu) rule_ = comparison_rule(c_.program);
    for_each_profile([&](const planner::Profile& profile) {
      const std::vector<Bytes> inputs = split_inputs(profile);
      // H-gpu's blame and its segment-race verdict come from H-cpu, so H-cpu runs whenever H-gpu
      // does; it is reported only when asked for.
      std::optional<OracleOutcome> cpu;
      if (options_.cpu || options_.gpu) {
        // Races inside a segment launch (e.g. a propagated let that re-reads what the segment
        // writes) make the split's own result schedule-dependent: report them as the split's failure.
        interp::RunOptions per_launch = interp_options();
        per_launch.detect_races = options_.detect_races;
        // A segment the profile already validated while planning is only type-checked. The
        // programs launched (the case's, or those of a plan kept in the report) outlive the executor.
        per_launch.validate =
            !(profile.split.contains_fence(c_.program) && planner::plans_validated_segments(profile));
        InterpExecutor executor(per_launch, ProgramIdentity::Address);
        cpu = judge("H-cpu", profile, run_split(profile, inputs, executor), nullptr);
        if (options_.cpu && cpu->verdict == ir::Verdict::Diverge && options_.locate_first_divergence)
          locate_first_divergence(c_, options_, profile, inputs, *cpu);
        if (options_.cpu) report_.outcomes.push_back(*cpu);
      }
      if (options_.gpu) {
        const planner::RunConfig config{c_.grid, std::nullopt, c_.fixpoint};
        const planner::SplitRun run = options_.gpu(profile, c_.program, inputs, config);
        OracleOutcome gpu = judge(options_.gpu_name, profile, run, &*cpu);
        gpu.comparison_rule = rule_.describe();
        if (options_.gpu_resident) check_resident_mode(profile, inputs, config, run, gpu);
        report_.outcomes.push_back(std::move(gpu));
      }
    });
  }

 private:
  template <typename Fn>
  void for_each_profile(Fn&& fn) {
    if (options_.profiles.empty()) {
      fn(planner::default_profile());
      return;
    }
    for (const planner::Profile* p : options_.profiles) fn(*p);
  }

  interp::RunOptions interp_options() const { return reference_run_options(c_, options_); }

  OracleOutcome invalid_outcome(std::string oracle, const planner::Profile& profile) const {
    OracleOutcome s;
    s.oracle = std::move(oracle);
    s.profile = profile.name;
    s.verdict = ir::Verdict::Invalid;
    s.detail = report_.reference_detail;
    s.message = report_.schedule_dependent ? "the reference result depends on the schedule (R044)"
                                           : "the reference refused or could not run the case";
    return s;
  }

  std::vector<Bytes> split_inputs(const planner::Profile& profile) const {
    std::vector<Bytes> inputs;
    for (const std::string& name : planner::split_input_names(profile, c_.program))
      inputs.push_back(case_bytes(c_, name));
    return inputs;
  }

  /// planner::run_split, with the planning timed on its own (phase_clock.hpp) and the plan kept in
  /// the report for the oracles after this one.
  planner::SplitRun run_split(const planner::Profile& profile, const std::vector<Bytes>& inputs,
                              InterpExecutor& executor) const {
    const planner::RunConfig config{c_.grid, std::nullopt, c_.fixpoint};
    if (!profile.split.contains_fence(c_.program))  // dispatched once, unsplit: nothing to plan
      return planner::run_split(profile, c_.program, inputs, config, executor);
    std::optional<PhaseScope> planning(std::in_place, Phase::Plan);
    ir::Result<planner::SplitPlan> planned = planner::plan_split(profile, c_.program);
    planning.reset();
    if (!planned) {  // as run_split reports a plan's refusal
      planner::SplitRun run;
      run.split = true;
      run.failure = planner::SplitFailure{planned.diagnostics().all().front(), std::nullopt, std::nullopt, 0};
      return run;
    }
    auto plan = std::make_shared<const planner::SplitPlan>(std::move(planned).value());
    report_.plans.emplace_back(profile.name, plan);
    // Segments the profile validated while planning keep their type table: not type-checked again.
    for (const planner::PlannedSegment& segment : plan->segments)
      if (segment.types) executor.adopt_checked(segment.program, *segment.types);
    std::vector<Bytes> outputs;
    planner::SplitRun run = planner::run_plan_into(profile, c_.program, *plan, inputs, config, executor, outputs);
    if (run.ok()) run.outputs = std::move(outputs);
    return run;
  }

  /// Judges one split run against R (and, for H-gpu, against the H-cpu outcome for blame).
  OracleOutcome judge(std::string oracle, const planner::Profile& profile, const planner::SplitRun& run,
                     const OracleOutcome* cpu) const {
    const PhaseScope timed(Phase::Compare);
    OracleOutcome s;
    s.oracle = std::move(oracle);
    s.profile = profile.name;
    s.output_names = run.output_names;
    s.outputs = run.outputs;
    s.launches = run.launch_count();
    s.comparison_rule = s.oracle == "H-cpu" ? "exact" : rule_.describe();
    const bool gpu = cpu != nullptr;
    const std::string blame = gpu && cpu->verdict == ir::Verdict::Match ? "lowering/driver" : "planner";
    const interp::RunResult& r = report_.reference;

    // A data race inside a segment launch is a property of the planned segments, not of the
    // backend: the GPU's bytes are merely one schedule's. H-gpu inherits H-cpu's race verdict.
    if (gpu && cpu->failure && cpu->failure->launch_error &&
        cpu->failure->launch_error->kind == planner::LaunchErrorKind::Race) {
      s.verdict = ir::Verdict::Diverge;
      s.detail = "planner";
      s.message = "a segment launch of the split races (found by H-cpu's race detector): " +
                  cpu->failure->launch_error->message;
      return s;
    }

    if (!run.ok()) {
      s.failure = run.failure;
      const ir::Diagnostic& d = run.failure->diagnostic;
      if (planner::is_refusal(d)) {  // a profile's (or an external planner's) refusal before running
        s.verdict = ir::Verdict::Refused;
        s.detail = d.code;
        s.message = d.message;
        return s;
      }
      if (planner::is_planner_process_error(d)) {  // S300-S310: never blamed on the split
        s.verdict = ir::Verdict::Error;
        s.detail = "planner-process";
        s.message = fmt::format("{} [{}]", d.message, d.code);
        return s;
      }
      const auto& le = run.failure->launch_error;
      // A launch on the interpreter past a resource limit (fuel, deadline, memory): `invalid limit`,
      // never a blame (docs/semantics.md §3.9).
      if (le && (le->kind == planner::LaunchErrorKind::OutOfFuel ||
                 (!gpu && le->kind == planner::LaunchErrorKind::Resource))) {
        s.verdict = ir::Verdict::Invalid;
        s.detail = "limit";
        s.message = fmt::format("a launch of the split ran past a resource limit: {}", le->message);
        return s;
      }
      const bool r_failed_alike = le && r.status == interp::RunStatus::Trap && le->kind == planner::LaunchErrorKind::Trap;
      if (r_failed_alike) {
        s.verdict = ir::Verdict::Match;
        s.message = fmt::format("both trapped: {}", le->message);
        return s;
      }
      if (le && le->kind == planner::LaunchErrorKind::Backend && gpu) {
        s.verdict = ir::Verdict::Error;
        s.detail = "backend";
        s.message = le->message;
        return s;
      }
      s.verdict = ir::Verdict::Diverge;
      s.detail = blame;
      s.message = fmt::format("R {} but the split failed: {} [{}]", r.ok() ? "succeeded" : interp::name_of(r.status),
                              d.message, d.code);
      return s;
    }
    if (!r.ok()) {
      s.verdict = ir::Verdict::Diverge;
      s.detail = blame;
      s.message = fmt::format("R ended with {} but the split succeeded", interp::name_of(r.status));
      return s;
    }
    const ComparisonRule rule = s.oracle == "H-cpu" ? ComparisonRule{} : rule_;
    for (const interp::OutputBuffer& expected : r.outputs) {
      const Bytes* actual = run.output(expected.name);
      if (actual == nullptr) {
        s.verdict = ir::Verdict::Diverge;
        s.detail = blame;
        s.message = fmt::format("the split returned no output '{}'", expected.name);
        return s;
      }
      if (auto diff = compare(expected.name, expected.element, expected.bytes, *actual, rule)) {
        s.verdict = ir::Verdict::Diverge;
        s.detail = blame;
        FirstDivergence fd;
        fd.final_diff = *diff;
        s.message = diff->describe();
        s.divergence = fd;
        return s;
      }
    }
    s.verdict = ir::Verdict::Match;
    s.message = fmt::format("{} output{} equal ({})", r.outputs.size(), r.outputs.size() == 1 ? "" : "s",
                            rule.describe());
    return s;
  }

  /// Resident mode must reproduce host mode exactly: same success or failure, same bytes.
  void check_resident_mode(const planner::Profile& profile, const std::vector<Bytes>& inputs,
                           const planner::RunConfig& config, const planner::SplitRun& host, OracleOutcome& outcome) const {
    const planner::SplitRun resident = options_.gpu_resident(profile, c_.program, inputs, config);
    std::string difference;
    if (host.ok() != resident.ok()) {
      difference = fmt::format("host mode {} but resident mode {}", host.ok() ? "succeeded" : "failed",
                               resident.ok() ? "succeeded" : "failed: " + resident.failure->diagnostic.message);
    } else if (host.ok()) {
      for (std::size_t i = 0; i < host.output_names.size() && difference.empty(); ++i) {
        const Bytes* r = resident.output(host.output_names[i]);
        if (r == nullptr) {
          difference = fmt::format("resident mode returned no '{}'", host.output_names[i]);
        } else if (auto diff = compare(host.output_names[i], ir::ScalarType::U32, host.outputs[i], *r, ComparisonRule{})) {
          difference = "resident mode differs from host mode: " + diff->describe();
        }
      }
    }
    if (difference.empty()) return;
    outcome.verdict = ir::Verdict::Diverge;
    outcome.detail = "lowering/driver";
    outcome.message = difference;
  }

  const ir::Case& c_;
  const OracleOptions& options_;
  CaseReport& report_;
  ComparisonRule rule_;  ///< comparison_rule of the case when H-gpu runs; exact otherwise
};

}  // namespace

void SplitOracle::evaluate(const ir::Case& c, const OracleOptions& options, CaseReport& report) const {
  SplitEvaluation(c, options, report).run();
}

}  // namespace gridcheck::props
