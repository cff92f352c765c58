#pragma once
// The host-split dispatch loop (docs/vyre-0.7.2.md §6.8, vyre-driver 0.7.2 `dispatch_grid_sync_split_generic`)
// over an Executor, under a profile. Running H-cpu or H-gpu is
//
//   planner::RunConfig config{c.grid, std::nullopt, c.fixpoint};
//   planner::SplitRun run = planner::run_split(planner::vyre_0_7_2(), c.program, inputs, config, executor);
//   if (!run.ok()) report(run.failure->diagnostic); else compare(run.output_names, run.outputs);
//
// where `inputs` are the caller's bytes of SplitPlan::caller_inputs (split_input_names) in order.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostic.hpp"
#include "planner/dispatch_types.hpp"
#include "planner/executor.hpp"
#include "planner/profile.hpp"
#include "planner/split_plan.hpp"

namespace gridcheck::planner {

/// One executor launch.
struct LaunchRecord {
  static constexpr std::size_t kUnsplit = static_cast<std::size_t>(-1);
  std::uint32_t pass = 0;
  std::size_t segment = kUnsplit;  ///< kUnsplit for the single launch of a fence-free program
  LaunchConfig config;
};

struct SplitFailure {
  ir::Diagnostic diagnostic;                ///< S001..S011 (see split_errors.hpp)
  std::optional<LaunchError> launch_error;  ///< S011: the executor's typed error
  std::optional<std::size_t> segment;       ///< the segment being gathered, launched or refreshed
  std::uint32_t pass = 0;
};

struct SplitRun {
  bool split = false;              ///< false: no fence, the program was dispatched once, unsplit
  std::size_t segment_count = 0;   ///< planned segments (1 when unsplit)
  std::uint32_t passes = 0;        ///< whole-sequence passes run
  bool converged_early = false;    ///< the convergence check stopped the loop before the budget
  std::vector<LaunchRecord> launches;
  std::vector<std::string> output_names;  ///< final outputs, in order
  std::vector<Bytes> outputs;             ///< run_split only; run_split_into fills the caller's slots
  std::optional<SplitFailure> failure;

  bool ok() const { return !failure.has_value(); }
  std::size_t launch_count() const { return launches.size(); }
  /// The bytes of final output `name` (run_split only); nullptr when there is none.
  const Bytes* output(std::string_view name) const;
};

struct RunOptions {
  /// Called after every segment launch and refresh (not for an unsplit dispatch).
  SegmentObserver observer;
};

/// The caller-input names of `program` under `profile`, in the order run_split takes them.
std::vector<std::string> split_input_names(const Profile& profile, const ir::Program& program);

/// Runs `program` through the split. `inputs` are the caller's bytes, borrowed for the whole run.
/// The final outputs land in `outputs`, whose slots (allocations) are reused.
SplitRun run_split_into(const Profile& profile, const ir::Program& program, std::span<const Bytes> inputs,
                        const RunConfig& config, Executor& executor, std::vector<Bytes>& outputs,
                        const RunOptions& options = {});

/// As run_split_into, with the outputs in SplitRun::outputs.
SplitRun run_split(const Profile& profile, const ir::Program& program, std::span<const Bytes> inputs,
                   const RunConfig& config, Executor& executor, const RunOptions& options = {});

/// The early-exit check of one run of `plan`: the plan's own choice (SplitPlan::convergence) when
/// it makes one, else the profile's dispatch.convergence. Every dispatch loop (host, resident) uses it.
std::unique_ptr<Convergence> plan_convergence(const DispatchRules& rules, const SplitPlan& plan);

/// The dispatch loop over an existing plan (no routing check: the plan is run even if it has one
/// segment). For harnesses that plan once and run many inputs.
SplitRun run_plan_into(const Profile& profile, const ir::Program& program, const SplitPlan& plan,
                       std::span<const Bytes> inputs, const RunConfig& config, Executor& executor,
                       std::vector<Bytes>& outputs, const RunOptions& options = {});

}  // namespace gridcheck::planner
