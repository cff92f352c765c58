#include "planner/split_dispatch.hpp"

#include <cstdint>
#include <new>
#include <optional>
#include <vector>

#include "planner/exact_convergence.hpp"
#include "planner/segment_plan.hpp"
#include "planner/split_errors.hpp"

namespace gridcheck::planner {

const Bytes* SplitRun::output(std::string_view name) const {
  for (std::size_t i = 0; i < output_names.size() && i < outputs.size(); ++i)
    if (output_names[i] == name) return &outputs[i];
  return nullptr;
}

std::vector<std::string> split_input_names(const Profile& profile, const ir::Program& program) {
  return profile.table.input_names(program);
}

namespace {

// `convergence: none`: every fixpoint run takes all of its passes.
class NeverConverges final : public Convergence {
 public:
  void start(const LiveMap&) override {}
  bool converged(const LiveMap&) override { return false; }
};

}  // namespace

std::unique_ptr<Convergence> plan_convergence(const DispatchRules& rules, const SplitPlan& plan) {
  switch (plan.convergence) {
    case PlanConvergence::Profile: return rules.convergence();
    case PlanConvergence::Fingerprint: return std::make_unique<FingerprintConvergence>();
    case PlanConvergence::Exact: return std::make_unique<ExactConvergence>();
    case PlanConvergence::None: return std::make_unique<NeverConverges>();
  }
  return rules.convergence();
}

namespace {

void fail(SplitRun& run, ir::Diagnostic diagnostic, std::optional<std::size_t> segment = std::nullopt,
          std::uint32_t pass = 0, std::optional<LaunchError> launch_error = std::nullopt) {
  run.failure = SplitFailure{std::move(diagnostic), std::move(launch_error), segment, pass};
}

// `resolve_fixpoint_iterations`: unset means 1; 0 is an error.
std::optional<std::uint32_t> resolve_iterations(const RunConfig& config) {
  const std::uint32_t n = config.fixpoint_iterations.value_or(1);
  if (n == 0) return std::nullopt;
  return n;
}

SplitRun dispatch_unsplit(const Profile& profile, const ir::Program& program, std::span<const Bytes> inputs,
                          const RunConfig& config, Executor& executor, std::vector<Bytes>& outputs) {
  SplitRun run;
  run.segment_count = 1;
  run.output_names = profile.table.output_names(program);
  const auto iterations = resolve_iterations(config);
  if (!iterations) {
    fail(run, split_error::zero_fixpoint());
    return run;
  }
  std::vector<const Bytes*> pointers;
  pointers.reserve(inputs.size());
  for (const Bytes& b : inputs) pointers.push_back(&b);
  const LaunchConfig launch = profile.dispatch.unsplit_launch(config, program, *iterations);
  run.launches.push_back(LaunchRecord{0, LaunchRecord::kUnsplit, launch});
  run.passes = 1;
  if (std::optional<LaunchError> error = executor.launch(program, pointers, launch, outputs)) {
    ir::Diagnostic diagnostic = split_error::unsplit_launch_failed(*error);
    fail(run, std::move(diagnostic), std::nullopt, 0, std::move(error));
    return run;
  }
  if (outputs.size() != run.output_names.size())
    fail(run, split_error::output_count(0, 1, outputs.size(), run.output_names.size()));
  return run;
}

}  // namespace

SplitRun run_plan_into(const Profile& profile, const ir::Program& program, const SplitPlan& plan,
                       std::span<const Bytes> inputs, const RunConfig& config, Executor& executor,
                       std::vector<Bytes>& outputs, const RunOptions& options) try {
  SplitRun run;
  run.split = true;
  run.segment_count = plan.segments.size();
  run.output_names = plan.final_outputs;
  const DispatchRules& rules = profile.dispatch;

  // Step 2: the invariant guard.
  if (plan.segments.empty()) {
    fail(run, split_error::no_segments());
    return run;
  }
  // Step 4: the caller's inputs, borrowed by name.
  if (inputs.size() != plan.caller_inputs.size()) {
    fail(run, split_error::input_count(inputs.size(), plan.caller_inputs));
    return run;
  }
  LiveMap live;
  for (std::size_t i = 0; i < inputs.size(); ++i) live.insert_or_assign(plan.caller_inputs[i], LiveBuffer::borrowed(inputs[i]));
  // The launch config of this run and the split's own live entries (nothing under vyre 0.7.2).
  RunConfig run_config = config;
  if (auto error = rules.prepare_launches(program, plan, run_config, live)) {
    fail(run, std::move(*error));
    return run;
  }
  // Step 5: zero seeds.
  if (auto error = rules.seed_inputs(program, plan, live)) {
    fail(run, std::move(*error));
    return run;
  }
  // Step 7.
  const auto iterations = resolve_iterations(run_config);
  if (!iterations) {
    fail(run, split_error::zero_fixpoint());
    return run;
  }
  const PassSchedule schedule = rules.schedule(*iterations);

  // Step 8: the whole-sequence loop.
  std::unique_ptr<Convergence> convergence = plan_convergence(rules, plan);
  convergence->set_pass_local(plan.scratch);
  convergence->start(live);
  std::vector<Bytes> slots;
  std::vector<const Bytes*> segment_inputs;
  // vyre_launch_guard is a pure function of the (unchanging) plan and the segment: once it let a
  // segment through, later passes need not walk that segment again. Any other guard runs every time.
  using Guard = std::optional<ir::Diagnostic> (*)(const SplitPlan&, std::size_t);
  const Guard* guard = rules.launch_guard.target<Guard>();
  const bool pure_guard = guard != nullptr && *guard == &vyre_launch_guard;
  std::vector<std::uint8_t> guard_passed(plan.segments.size(), 0);
  for (std::uint32_t pass = 0; pass < schedule.passes; ++pass) {
    for (std::size_t k = 0; k < plan.segments.size(); ++k) {
      const PlannedSegment& segment = plan.segments[k];
      if (auto error = rules.gather_inputs(plan, k, live, segment_inputs)) {
        fail(run, std::move(*error), k, pass);
        return run;
      }
      if (!guard_passed[k]) {
        if (auto error = rules.launch_guard(plan, k)) {
          fail(run, std::move(*error), k, pass);
          return run;
        }
        guard_passed[k] = pure_guard ? 1 : 0;
      }
      const LaunchConfig launch = rules.segment_launch(run_config, program, segment, schedule.segment_fixpoint);
      run.launches.push_back(LaunchRecord{pass, k, launch});
      if (std::optional<LaunchError> error = executor.launch(segment.program, segment_inputs, launch, slots)) {
        ir::Diagnostic diagnostic = split_error::launch_failed(k, plan.segments.size(), *error);
        fail(run, std::move(diagnostic), k, pass, std::move(error));
        return run;
      }
      if (auto error = rules.refresh(plan, k, slots, live)) {
        fail(run, std::move(*error), k, pass);
        return run;
      }
      if (options.observer) options.observer(SegmentEvent{pass, k, run.launches.size() - 1, &segment, &live});
    }
    run.passes = pass + 1;
    if (convergence->converged(live)) {
      run.converged_early = run.passes < schedule.passes;
      break;
    }
  }

  // Step 9.
  if (auto error = rules.collect_final(program, plan, live, outputs)) fail(run, std::move(*error));
  return run;
} catch (const std::bad_alloc& error) {
  SplitRun run;
  fail(run, split_error::reservation_failed("the live buffers", error.what()));
  return run;
}

SplitRun run_split_into(const Profile& profile, const ir::Program& program, std::span<const Bytes> inputs,
                        const RunConfig& config, Executor& executor, std::vector<Bytes>& outputs,
                        const RunOptions& options) try {
  // Step 1: a program without a fence is dispatched once with the caller's config.
  if (!profile.split.contains_fence(program)) return dispatch_unsplit(profile, program, inputs, config, executor, outputs);
  ir::Result<SplitPlan> plan = plan_split(profile, program);
  if (!plan) {
    SplitRun run;
    run.split = true;
    fail(run, plan.diagnostics().all().front());
    return run;
  }
  return run_plan_into(profile, program, plan.value(), inputs, config, executor, outputs, options);
} catch (const std::bad_alloc& error) {
  SplitRun run;
  fail(run, split_error::reservation_failed("the split plan", error.what()));
  return run;
}

SplitRun run_split(const Profile& profile, const ir::Program& program, std::span<const Bytes> inputs,
                   const RunConfig& config, Executor& executor, const RunOptions& options) {
  std::vector<Bytes> outputs;
  SplitRun run = run_split_into(profile, program, inputs, config, executor, outputs, options);
  if (run.ok()) run.outputs = std::move(outputs);
  return run;
}

}  // namespace gridcheck::planner
