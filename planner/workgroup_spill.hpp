#pragma once
// Workgroup memory live across a fence (docs/vyre-0.7.2.md#c1). Under true grid sync a workgroup keeps its
// shared memory across grid_sync; each split segment is a new launch whose workgroup memory starts
// at zero. So every workgroup copies a buffer out at the end of a segment and back in at the start
// of a later one, all its invocations sharing the elements (e = j·W + local index):
//
//   epilogue:  barrier; loop __gc_j in 0..ceil(C/W) { let __gc_e = ...; if __gc_e < C { copy[wg·C + __gc_e] = sh[__gc_e] } }
//   prologue:  loop __gc_j ... { ... sh[__gc_e] = copy[wg·C + __gc_e] ... }; barrier
//
// in uniform control flow at the top of the segment, executed by every invocation (returned ones
// too, see return_guard.hpp). Per buffer and segment k (stores and loads found by a static scan):
//   spill at the end of k      if k stores it and a later segment loads it
//   restore at the start of k  if k references it, an earlier segment stored it (otherwise zeros are
//                              right) and k or a later segment loads it
// The copy keeps its value while no segment stores the buffer, so one spill serves every later
// restore. Each fixpoint pass is a new launch under true grid sync: workgroup memory restarts at
// zero, and the first store of a pass precedes every restore of that pass.

#include <span>
#include <vector>

#include "ir/program.hpp"
#include "planner/spill_layout.hpp"

namespace gridcheck::planner {

struct WorkgroupSpillPlan {
  /// Per segment: the workgroup buffers (declaration indices of `work`) to restore / to spill.
  std::vector<std::vector<std::size_t>> restore, spill;
  bool any() const;
};

WorkgroupSpillPlan plan_workgroup_spills(const ir::Program& work, const std::vector<std::vector<ir::StmtId>>& segments);

/// The restore code for the start of a segment (ends with a barrier), or the spill code for its end
/// (starts with a barrier); empty when `buffers` is.
std::vector<ir::StmtId> workgroup_restore_code(ir::Program& work, SpillLayout& layout,
                                               std::span<const std::size_t> buffers);
std::vector<ir::StmtId> workgroup_spill_code(ir::Program& work, SpillLayout& layout, std::span<const std::size_t> buffers);

}  // namespace gridcheck::planner
