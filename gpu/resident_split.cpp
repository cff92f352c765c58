#include "gpu/resident_split.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "ir/ice.hpp"
#include "planner/live_buffers.hpp"
#include "planner/segment_plan.hpp"
#include "planner/split_errors.hpp"

namespace gridcheck::gpu {
namespace {

using planner::Bytes;
using planner::LaunchError;
using planner::LiveBuffer;
using planner::LiveMap;
using planner::SplitRun;

void fail(SplitRun& run, ir::Diagnostic diagnostic, std::optional<std::size_t> segment = std::nullopt, std::uint32_t pass = 0,
          std::optional<LaunchError> launch_error = std::nullopt) {
  run.failure = planner::SplitFailure{std::move(diagnostic), std::move(launch_error), segment, pass};
}

ir::Diagnostic read_back_failed(const LaunchError& e) {
  ir::Diagnostic d;
  d.code = "S011";
  d.message = fmt::format("reading back the resident buffers failed: {}", e.message);
  return d;
}

/// The host view of the session's live buffers (the named ones, or all): caller inputs that no launch
/// produced since their upload are borrowed from `inputs`, everything else is owned.
std::optional<LaunchError> host_view(ResidentSession& session, const planner::SplitPlan& plan, std::span<const Bytes> inputs,
                                     const std::vector<std::string>* only, LiveMap& live) {
  live.clear();
  for (const std::string& name : only ? *only : session.names()) {
    if (!session.has(name)) continue;
    bool borrowed = false;
    for (std::size_t i = 0; i < plan.caller_inputs.size(); ++i)
      if (plan.caller_inputs[i] == name && session.is_uploaded(name)) {
        live.insert_or_assign(name, LiveBuffer::borrowed(inputs[i]));
        borrowed = true;
      }
    if (borrowed) continue;
    Bytes bytes;
    if (std::optional<LaunchError> e = session.download(name, bytes)) return e;
    live.insert_or_assign(name, LiveBuffer::owned(std::move(bytes)));
  }
  return std::nullopt;
}

/// Queues staging copies of what host_view(only) will download, so that they come with the next sync
/// (a device whose buffer memory the host reads uncached would otherwise need a submission per name).
void prefetch_view(ResidentSession& session, const planner::SplitPlan& plan, const std::vector<std::string>* only) {
  std::vector<std::string> names;
  for (const std::string& name : only ? *only : session.names()) {
    bool borrowed = false;
    for (const std::string& input : plan.caller_inputs) borrowed = borrowed || (input == name && session.is_uploaded(name));
    if (!borrowed) names.push_back(name);
  }
  session.prefetch(names);
}

/// run_plan_resident; with `prepared`, its labels and kernel slots (prepared->plan is `plan`).
SplitRun run_plan(const planner::Profile& profile, const ir::Program& program, const planner::SplitPlan& plan,
                  std::span<const Bytes> inputs, const planner::RunConfig& config, ResidentSession& session,
                  std::vector<Bytes>& outputs, const planner::RunOptions& options, PreparedSplit* prepared) {
  SplitRun run;
  run.split = true;
  run.segment_count = plan.segments.size();
  run.output_names = plan.final_outputs;
  const planner::DispatchRules& rules = profile.dispatch;
  if (plan.segments.empty()) {
    fail(run, planner::split_error::no_segments());
    return run;
  }
  if (inputs.size() != plan.caller_inputs.size()) {
    fail(run, planner::split_error::input_count(inputs.size(), plan.caller_inputs));
    return run;
  }
  // Steps 4-5 on the host (the seeding rule is the profile's), then everything goes to the device.
  LiveMap live;
  for (std::size_t i = 0; i < inputs.size(); ++i) live.insert_or_assign(plan.caller_inputs[i], LiveBuffer::borrowed(inputs[i]));
  // The run's launch config and the split's own buffers (the sound profile's grid and scratch).
  planner::RunConfig run_config = config;
  if (auto error = rules.prepare_launches(program, plan, run_config, live)) {
    fail(run, std::move(*error));
    return run;
  }
  if (auto error = rules.seed_inputs(program, plan, live)) {
    fail(run, std::move(*error));
    return run;
  }
  // Nothing of an earlier run stays visible by name; what this run uploads again is overwritten in place.
  std::vector<std::string_view> keep;
  keep.reserve(live.size());
  for (const auto& [name, buffer] : live) keep.push_back(name);  // the map's order: sorted
  session.begin_run(keep);
  for (const auto& [name, buffer] : live)
    if (std::optional<LaunchError> e = session.upload(name, buffer.bytes())) {
      fail(run, read_back_failed(*e), std::nullopt, 0, e);
      return run;
    }
  const std::uint32_t iterations = run_config.fixpoint_iterations.value_or(1);
  if (iterations == 0) {
    fail(run, planner::split_error::zero_fixpoint());
    return run;
  }
  const planner::PassSchedule schedule = rules.schedule(iterations);
  run.launches.reserve(static_cast<std::size_t>(schedule.passes) * plan.segments.size());
  std::vector<KernelSlot> run_slots(prepared != nullptr ? 0 : plan.segments.size());
  std::unique_ptr<planner::Convergence> convergence = planner::plan_convergence(rules, plan);
  convergence->start(live);

  for (std::uint32_t pass = 0; pass < schedule.passes; ++pass) {
    for (std::size_t k = 0; k < plan.segments.size(); ++k) {
      const planner::PlannedSegment& segment = plan.segments[k];
      for (const std::string& name : segment.input_names)
        if (!session.has(name)) {
          fail(run, planner::split_error::input_without_bytes(k, plan.segments.size(), name), k, pass);
          return run;
        }
      const planner::LaunchConfig launch = rules.segment_launch(run_config, program, segment, schedule.segment_fixpoint);
      run.launches.push_back(planner::LaunchRecord{pass, k, launch});
      KernelSlot* slot = nullptr;
      if (prepared != nullptr) {
        session.set_label(prepared->labels[k]);
        slot = &prepared->slots[k];
      } else {
        session.set_label(fmt::format("segment {} of {}", k + 1, plan.segments.size()));
        slot = &run_slots[k];  // the plan outlives the run: later passes skip the lookup
      }
      std::optional<LaunchError> error = session.launch(segment.program, launch, segment.input_names, segment.output_names, slot);
      if (!error && options.observer) {
        error = session.sync();
        if (!error) error = host_view(session, plan, inputs, nullptr, live);
        if (!error) options.observer(planner::SegmentEvent{pass, k, run.launches.size() - 1, &segment, &live});
      }
      if (error) {
        fail(run, planner::split_error::launch_failed(k, plan.segments.size(), *error), k, pass, error);
        return run;
      }
    }
    run.passes = pass + 1;
    if (schedule.passes > 1) {
      prefetch_view(session, plan, nullptr);
      std::optional<LaunchError> error = session.sync();
      if (error) {
        // The trap belongs to one launch of this pass: name that segment, as the host loop would.
        const std::size_t k = session.trapped_launch().value_or(0) % plan.segments.size();
        fail(run, planner::split_error::launch_failed(k, plan.segments.size(), *error), k, pass, error);
        return run;
      }
      if (auto e = host_view(session, plan, inputs, nullptr, live)) {
        fail(run, read_back_failed(*e), std::nullopt, pass, e);
        return run;
      }
      if (convergence->converged(live)) {
        run.converged_early = run.passes < schedule.passes;
        break;
      }
    }
  }
  prefetch_view(session, plan, &plan.final_outputs);
  if (std::optional<LaunchError> error = session.sync()) {
    const std::size_t launches_in_last_pass = plan.segments.size();
    const std::size_t k = session.trapped_launch().value_or(0) % launches_in_last_pass;
    fail(run, planner::split_error::launch_failed(k, plan.segments.size(), *error), k, run.passes ? run.passes - 1 : 0, error);
    return run;
  }
  if (auto e = host_view(session, plan, inputs, &plan.final_outputs, live)) {
    fail(run, read_back_failed(*e), std::nullopt, run.passes, e);
    return run;
  }
  if (auto error = rules.collect_final(program, plan, live, outputs)) fail(run, std::move(*error));
  return run;
}

/// run_split_resident's step 1: one launch with the caller's config, the caller's inputs bound by
/// declaration name.
SplitRun run_unsplit(const planner::Profile& profile, const ir::Program& program, std::span<const Bytes> inputs,
                     const planner::RunConfig& config, ResidentSession& session, std::vector<Bytes>& outputs, KernelSlot* slot) {
  SplitRun run;
  run.segment_count = 1;
  run.output_names = profile.table.output_names(program);
  const std::uint32_t iterations = config.fixpoint_iterations.value_or(1);
  if (iterations == 0) {
    fail(run, planner::split_error::zero_fixpoint());
    return run;
  }
  const std::vector<std::string> in_names = profile.table.input_names(program);
  if (inputs.size() != in_names.size()) {
    fail(run, planner::split_error::input_count(inputs.size(), in_names));
    return run;
  }
  const planner::LaunchConfig launch = profile.dispatch.unsplit_launch(config, program, iterations);
  run.launches.push_back(planner::LaunchRecord{0, planner::LaunchRecord::kUnsplit, launch});
  run.passes = 1;
  std::vector<std::string_view> keep(in_names.begin(), in_names.end());
  std::sort(keep.begin(), keep.end());
  session.begin_run(keep);
  std::optional<LaunchError> error;
  for (std::size_t i = 0; i < in_names.size() && !error; ++i) error = session.upload(in_names[i], inputs[i]);
  if (!error) error = session.launch(program, launch, in_names, run.output_names, slot);
  if (!error) session.prefetch(run.output_names);
  if (!error) error = session.sync();
  outputs.resize(run.output_names.size());
  for (std::size_t i = 0; i < run.output_names.size() && !error; ++i) error = session.download(run.output_names[i], outputs[i]);
  if (error) fail(run, planner::split_error::unsplit_launch_failed(*error), std::nullopt, 0, error);
  return run;
}

SplitRun plan_failed(ir::Diagnostic diagnostic) {
  SplitRun run;
  run.split = true;
  fail(run, std::move(diagnostic));
  return run;
}

}  // namespace

SplitRun run_plan_resident(const planner::Profile& profile, const ir::Program& program, const planner::SplitPlan& plan,
                           std::span<const Bytes> inputs, const planner::RunConfig& config, ResidentSession& session,
                           std::vector<Bytes>& outputs, const planner::RunOptions& options) {
  return run_plan(profile, program, plan, inputs, config, session, outputs, options, nullptr);
}

PreparedSplit prepare_split_resident(const planner::Profile& profile, const ir::Program& program) {
  PreparedSplit p;
  p.profile = &profile;
  p.program = program;
  p.split = profile.split.contains_fence(program);
  if (!p.split) {
    p.slots.resize(1);
    return p;
  }
  ir::Result<planner::SplitPlan> plan = planner::plan_split(profile, p.program);
  if (!plan) {
    p.plan_error = plan.diagnostics().all().front();
    return p;
  }
  p.plan = std::move(plan).value();
  const std::size_t n = p.plan->segments.size();
  for (std::size_t k = 0; k < n; ++k) p.labels.push_back(fmt::format("segment {} of {}", k + 1, n));
  p.slots.resize(n);
  return p;
}

SplitRun run_prepared_resident(PreparedSplit& prepared, std::span<const Bytes> inputs, const planner::RunConfig& config,
                               ResidentSession& session, std::vector<Bytes>& outputs, const planner::RunOptions& options) {
  GC_ASSERT(prepared.profile != nullptr);
  if (!prepared.split) return run_unsplit(*prepared.profile, prepared.program, inputs, config, session, outputs, &prepared.slots[0]);
  if (prepared.plan_error) return plan_failed(*prepared.plan_error);
  return run_plan(*prepared.profile, prepared.program, *prepared.plan, inputs, config, session, outputs, options, &prepared);
}

SplitRun run_split_resident(const planner::Profile& profile, const ir::Program& program, std::span<const Bytes> inputs,
                            const planner::RunConfig& config, ResidentSession& session, std::vector<Bytes>& outputs,
                            const planner::RunOptions& options) {
  if (!profile.split.contains_fence(program)) return run_unsplit(profile, program, inputs, config, session, outputs, nullptr);
  ir::Result<planner::SplitPlan> plan = planner::plan_split(profile, program);
  if (!plan) return plan_failed(plan.diagnostics().all().front());
  return run_plan(profile, program, *plan, inputs, config, session, outputs, options, nullptr);
}

}  // namespace gridcheck::gpu
