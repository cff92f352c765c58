#pragma once
// The two rules that turn a program into a dispatch grid when the caller gives none:
//  - the **reference** rule (docs/semantics.md §3.1 steps 4–6): what R uses for a case with `grid auto`;
//  - the backend **LaunchPlan** rule (docs/semantics.md §5.7): what a CUDA/wgpu backend launches, which the
//    planner's vyre-0.7.2 profile and the GPU executor apply per segment (divergence G1).
// Both are pure functions of their arguments.

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "ir/diagnostic.hpp"
#include "ir/program.hpp"

namespace gridcheck::ir {

using Grid = std::array<std::uint32_t, 3>;

/// True when an atomic expression is reachable from the entry.
bool has_atomics(const Program& p);
/// True when the program declares a workgroup buffer.
bool has_workgroup_buffers(const Program& p);

/// docs/semantics.md §3.1 steps 4–6. `element_counts` holds the element count of every buffer in declaration
/// order (workgroup entries are ignored): for a runtime-sized buffer, the caller's byte length / 4.
/// `caller_floor` is the caller's minimum element count (0 = none).
///   max_output = max count over reference outputs; max_input = max over the other non-workgroup
///   buffers (at least 1); dispatch = max(max_output, pg_nodes, 1, (no outputs || workgroup buffer ||
///   atomic) ? max_input : 1, caller_floor); total_wg = ceil(dispatch / (sx·sy·sz)) (at least 1);
///   no axis of the workgroup larger than 1: [total_wg,1,1]; else each such axis gets the smallest k
///   with k^n >= total_wg (vyre computes ceil(total_wg^(1/n)) in floating point; we use the exact
///   integer root), the others 1.
/// Fails (code G120) when the grid would not fit in u32 words.
Result<Grid> reference_grid(const Program& p, std::span<const std::uint64_t> element_counts,
                            std::uint64_t caller_floor = 0);

/// A backend launch (docs/semantics.md §5.7).
struct LaunchPlan {
  Grid grid = {1, 1, 1};
  /// Parameter word 0: PTX kernels exit every lane whose global id is >= element_count.
  std::uint64_t element_count = 1;
};

/// docs/semantics.md §5.7. With `grid_override`: that grid, element_count = grid.x · wg.x. Without: element_count
/// = max declared count over non-workgroup buffers when the program has a workgroup buffer or an
/// atomic; else the max count over output/input-output bindings (BindingRole Output or InputOutput)
/// when one is > 0, else the max non-workgroup count (at least 1); the grid is
/// [ceil(element_count / wg.x), 1, 1]. Counts are declared counts (0 for runtime-sized buffers).
/// Fails (code G121) without an override when the workgroup is not one-dimensional, as the backends do.
Result<LaunchPlan> launch_plan(const Program& p, std::optional<Grid> grid_override = std::nullopt);

}  // namespace gridcheck::ir
