#pragma once
// Planning a host split under a profile (docs/vyre-0.7.2.md §6.5 + §6.7, seed 000 `plan_host_grid_sync_segments`).

#include <vector>

#include "ir/diagnostic.hpp"
#include "planner/profile.hpp"
#include "planner/split_plan.hpp"

namespace gridcheck::planner {

/// The raw segments of `try_split_on_grid_sync` (docs/vyre-0.7.2.md §6.5): without a top-level fence after
/// hoisting, the source program itself (unhoisted, no let propagation); otherwise one program per
/// segment with the full source buffer table and workgroup size. `let_prefixes` (optional) gets the
/// propagated Let names of each segment.
struct RawSplit {
  std::vector<ir::Program> segments;
  std::vector<std::vector<std::string>> let_prefixes;
  std::size_t fence_count = 0;
};
RawSplit split_on_grid_sync(const Profile& profile, const ir::Program& program);

/// The profile's plan of `program`: `profile.plan(profile, program)`. For the built-in profiles
/// (compose_split_plan, profile.hpp) the raw segments whose buffer tables the profile's role rule
/// rewrote, with input and output names, plus the caller-input and final-output names of the
/// source; it fails only when the profile's `check` refuses the program (never under vyre-0.7.2).
ir::Result<SplitPlan> plan_split(const Profile& profile, const ir::Program& program);

/// `plan_host_grid_sync_segment_programs`: just the segment programs.
ir::Result<std::vector<ir::Program>> plan_segment_programs(const Profile& profile, const ir::Program& program);

}  // namespace gridcheck::planner
