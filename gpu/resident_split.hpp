#pragma once
// The split's dispatch loop (planner::run_plan_into, docs/vyre-0.7.2.md §6.8) with the live buffers resident on the
// device (docs/DESIGN.md §8 "resident" mode): caller inputs are uploaded once, every segment launch binds its
// buffers by name in a ResidentSession (gather + refresh without host copies), launches are queued into
// one command buffer with barriers between them, and only final outputs are read back.
//
// Honoured profile hooks: prepare_launches, seed_inputs, schedule, segment_launch, unsplit_launch, convergence,
// collect_final (the last two on host bytes read back after each pass; only when the schedule has more
// than one pass). Not honoured: gather_inputs / refresh (the session's by-name rule is vyre's
// `borrowed_grid_sync_inputs_by_name` / `refresh_named_outputs`; a mutant that replaces them runs in
// host mode only). With an observer, the loop syncs after every segment to show it the live map.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpu/resident_session.hpp"
#include "planner/profile.hpp"
#include "planner/split_dispatch.hpp"

namespace gridcheck::gpu {

/// A split prepared once for run after run of one program: its plan (the profile's, or why planning
/// failed), the launch labels and one KernelSlot per launched program, so that a run neither plans nor
/// formats labels nor looks up kernels (docs/gpu.md "Resident mode"). Owns a copy of the program. One
/// thread at a time (the slots are filled by the runs); any session, of any context (a slot refills for
/// another context or store).
struct PreparedSplit {
  const planner::Profile* profile = nullptr;
  ir::Program program;
  bool split = false;                      ///< false: fence-free, one launch (run_split_into's routing)
  std::optional<planner::SplitPlan> plan;  ///< split and planned
  std::optional<ir::Diagnostic> plan_error;  ///< split and planning failed: every run fails with it
  std::vector<std::string> labels;         ///< per segment: "segment k of S"
  std::vector<KernelSlot> slots;           ///< per segment, or one for the fence-free launch
};

/// Plans `program` under `profile` (when it has a fence) once. `profile` must outlive the result.
PreparedSplit prepare_split_resident(const planner::Profile& profile, const ir::Program& program);

/// run_split_resident(prepared.profile, prepared.program, ...) without its planning: the same runs,
/// launches, bytes and failures.
planner::SplitRun run_prepared_resident(PreparedSplit& prepared, std::span<const planner::Bytes> inputs,
                                        const planner::RunConfig& config, ResidentSession& session,
                                        std::vector<planner::Bytes>& outputs, const planner::RunOptions& options = {});

planner::SplitRun run_plan_resident(const planner::Profile& profile, const ir::Program& program, const planner::SplitPlan& plan,
                                    std::span<const planner::Bytes> inputs, const planner::RunConfig& config,
                                    ResidentSession& session, std::vector<planner::Bytes>& outputs,
                                    const planner::RunOptions& options = {});

/// run_split_into's routing (a fence-free program is one launch), then run_plan_resident: plans on every
/// call (prepare_split_resident + run_prepared_resident plan once).
planner::SplitRun run_split_resident(const planner::Profile& profile, const ir::Program& program,
                                     std::span<const planner::Bytes> inputs, const planner::RunConfig& config,
                                     ResidentSession& session, std::vector<planner::Bytes>& outputs,
                                     const planner::RunOptions& options = {});

}  // namespace gridcheck::gpu
