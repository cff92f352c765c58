#pragma once
// The `sound` profile (docs/DESIGN.md §4): our planner, registered in profile.cpp and the default. On every
// valid, race-free program it returns what one launch with true grid sync returns (docs/DESIGN.md §3), byte
// for byte, or it refuses the program before running anything (sound_refusals.hpp, codes SR###).
//
// Members replaced in the vyre-0.7.2 profile (everything else is vyre's):
//   split.lower             sound_lower: fences under uniform if/loop lowered, locals and workgroup
//                           memory spilled across fences, returned flags (sound_lowering.hpp)
//   split.contains_fence    always_split: every dispatch goes through the plan, so fence-free
//                           programs get the same grid and output-range rules
//   split.propagate_lets    none: values cross fences through the spill buffers (docs/vyre-0.7.2.md#s10-d)
//   table.scan              scan_segment_accesses_complete (docs/vyre-0.7.2.md#f2 fixed)
//   table.role              sound_role (planner/sound_role_rule.hpp: docs/vyre-0.7.2.md §10 A1-A5, B1, F1)
//   table.check             every segment program validates (else SR900)
//   dispatch.prepare_launches  the whole program's grid for every launch — the caller's, or the
//                           reference grid (docs/semantics.md §3.1) from the caller's buffers (fixes G1) — and
//                           the zeroed scratch buffers sized for it
//   dispatch.convergence    ExactConvergence (F3 fixed)
//   dispatch.collect_final  the final outputs sliced to their source output_byte_range (G3:
//                           segments pass whole buffers)

#include <optional>
#include <vector>

#include "ir/diagnostic.hpp"
#include "planner/profile.hpp"

namespace gridcheck::planner {

/// `base` (the vyre-0.7.2 profile) with the members above replaced, named "sound".
Profile make_sound_profile(Profile base);

/// split.contains_fence of the sound profile: true for every program.
bool always_split(const ir::Program& program);

/// dispatch.prepare_launches of the sound profile. The grid: config.grid when set, else
/// ir::reference_grid of `source` with the element count of each buffer taken from its live bytes
/// (the caller's), else its backend allocation, else its declared count (S013 when it fails). Then
/// each SplitPlan::scratch buffer is added to `live` as zeros (S001 when it would not fit 2^32
/// words).
std::optional<ir::Diagnostic> sound_prepare_launches(const ir::Program& source, const SplitPlan& plan, RunConfig& config,
                                                     LiveMap& live);

/// dispatch.collect_final of the sound profile: the final outputs in plan order, each cut to its
/// source declaration's output_byte_range (as a native readback does, docs/semantics.md §5.4), moved out of
/// `live` rather than copied into `outputs`' old allocations. S009 when a final name is not live.
std::optional<ir::Diagnostic> collect_final_sliced(const ir::Program& source, const SplitPlan& plan, LiveMap& live,
                                                   std::vector<Bytes>& outputs);

/// table.check of the sound profile: SR900 for the first segment that does not validate. Sets the
/// `types` of each segment that validated (ir::validate's type table).
ir::Diagnostics check_segments_validate(const ir::Program& source, SplitPlan& plan);

/// True when `profile` makes its plans with compose_split_plan and its table.check is
/// check_segments_validate (the sound profile, and any copy that keeps both): every segment of a
/// plan it makes passed ir::validate without an error, so an executor need not validate it again.
bool plans_validated_segments(const Profile& profile);

}  // namespace gridcheck::planner
