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

#include <span>
#include <vector>

#include "gpu/resident_session.hpp"
#include "planner/profile.hpp"
#include "planner/split_dispatch.hpp"

namespace gridcheck::gpu {

planner::SplitRun run_plan_resident(const planner::Profile& profile, const ir::Program& program, const planner::SplitPlan& plan,
                                    std::span<const planner::Bytes> inputs, const planner::RunConfig& config,
                                    ResidentSession& session, std::vector<planner::Bytes>& outputs,
                                    const planner::RunOptions& options = {});

/// run_split_into's routing (a fence-free program is one launch), then run_plan_resident.
planner::SplitRun run_split_resident(const planner::Profile& profile, const ir::Program& program,
                                     std::span<const planner::Bytes> inputs, const planner::RunConfig& config,
                                     ResidentSession& session, std::vector<planner::Bytes>& outputs,
                                     const planner::RunOptions& options = {});

}  // namespace gridcheck::gpu
