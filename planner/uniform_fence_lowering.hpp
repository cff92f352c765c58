#pragma once
// The sound profile's first step: fences under control flow that is provably grid-uniform are
// brought into a form the cut can split (docs/vyre-0.7.2.md#g5; vyre 0.7.2 hoists fences only out of Block and
// Region, docs/vyre-0.7.2.md §6.4). Afterwards every grid_sync sits in a chain of Block, Region and If statements whose
// conditions are grid-invariant:
//
//   loop i in A..B { body }   with u32 literal bounds and a fence in `body`
//       -> block { let i = A; body } block { let i = A+1; body' } ...   (fresh nodes per iteration;
//          no block when B <= A: the loop never runs, and neither does its fence)
//   if c { ... grid_sync ... } else { ... }
//       -> kept; c must be grid-invariant (literals, buffer lengths, workgroup counts and sizes), so
//          the cut may evaluate it again in every segment the `if` spans (uniform_fence_lowering is
//          where that is checked; local_spill.hpp distributes the `if` over the cut)
//
// Anything else around a fence is refused: SR002 (the condition depends on a local, a load, an
// invocation or workgroup id), SR003 (loop bounds that are not u32 literals), SR004 (the unrolled
// loop exceeds UnrollLimits).

#include <cstdint>
#include <span>
#include <vector>

#include "ir/diagnostic.hpp"
#include "ir/program.hpp"

namespace gridcheck::planner {

struct UnrollLimits {
  std::uint32_t max_iterations = 64;    ///< per loop
  std::uint64_t max_statements = 4096;  ///< statements produced by one unrolled loop
};

/// Rewrites `entry` (statements of `work`, which receives the new nodes). Statements without a fence
/// are kept as they are.
ir::Result<std::vector<ir::StmtId>> lower_uniform_fences(ir::Program& work, std::span<const ir::StmtId> entry,
                                                         const UnrollLimits& limits = {});

}  // namespace gridcheck::planner
