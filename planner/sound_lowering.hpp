#pragma once
// The sound profile's `split.lower` (profile.hpp): the source program rewritten so that the generic
// cut (docs/vyre-0.7.2.md §6.3-§6.5: peel, hoist, cut at top-level fences, re-wrap) produces segments whose
// sequence equals one launch with true grid sync (docs/DESIGN.md §3), or a refusal (sound_refusals.hpp).
//
//   1. names with the reserved prefix `__gc_` are refused (SR001); output_byte_range is dropped from
//      every declaration, so segments pass whole buffers to each other and only the final outputs are
//      sliced (docs/vyre-0.7.2.md#g3, sound_profile.cpp)
//   2. fences under grid-uniform if/loop are lowered (uniform_fence_lowering.hpp; SR002-SR004)
//   3. the program is cut at every fence with each live local spilled and restored
//      (local_spill.hpp; docs/vyre-0.7.2.md#s10-d)
//   4. segments that do nothing are dropped (an empty segment is a trailing or doubled fence)
//   5. each segment gets the returned-flag guard when an earlier segment may have returned
//      (return_guard.hpp; docs/vyre-0.7.2.md#g2), and workgroup memory copies (workgroup_spill.hpp; docs/vyre-0.7.2.md#s10-c)
//   6. the result: entry `[region seg0, grid_sync, region seg1, ...]`, the scratch buffers declared
//      after the source's (spill_layout.hpp)
//
// A program without a fence comes back with only step 1 applied (one segment, no scratch).

#include "ir/diagnostic.hpp"
#include "ir/program.hpp"
#include "planner/profile.hpp"
#include "planner/uniform_fence_lowering.hpp"

namespace gridcheck::planner {

struct SoundLoweringOptions {
  UnrollLimits unroll;
};

ir::Result<LoweredSource> sound_lower(const ir::Program& source, const SoundLoweringOptions& options = {});

}  // namespace gridcheck::planner
