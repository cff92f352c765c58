#pragma once
// A buffer-role rule that is sound for storage buffers (proved by `gridcheck prove --rule sound`,
// docs/proof.md): with it, every element a segment reads holds what it holds under true grid sync,
// every final output equals the true final value, and the split raises no "has no bytes" (S007) or
// "final output not produced" (S009) error — for every buffer declaration whose caller-input and
// reference-input predicates agree (docs/semantics.md §2.2; the read/uniform + live_out declarations that
// validation warns about with G012 are out of scope), any number of segments and any fixpoint count.
//
// The rule (first match wins; r / w = the segment reads / writes B):
//   access == workgroup          -> as vyre 0.7.2 (keep unchanged when referenced, else omit)
//   w                            -> read_write: the segment consumes the live value. Whatever B held
//                                   before may still be live in the slots this segment does not write
//                                   (caller bytes, an earlier segment's writes, or — under fixpoint —
//                                   any segment's writes of the previous pass), so a write-only role
//                                   (zero-filled) is never safe: this fixes docs/vyre-0.7.2.md §10 A1-A4 and F1.
//   r                            -> read (uniform sources stay uniform, docs/vyre-0.7.2.md#g9)
//   last segment, B a final output (ir::is_dispatch_output of the source)
//                                -> read_write passthrough, so an output that no segment references
//                                   comes back as its live value: caller bytes or zeros (fixes B1)
//   otherwise                    -> omit (the live map keeps the value)
// Rewritten declarations never carry is_output / pipeline_live_out (final values are reassembled by
// name). Backend-allocated buffers consumed by a segment are zero-seeded by the dispatch loop
// (docs/vyre-0.7.2.md §6.8 step 5), which is exactly their true initial value.

#include "planner/profile.hpp"
#include "planner/role_rule.hpp"

namespace gridcheck::planner {

/// The sound rule (see the file comment).
RoleDecision sound_role(const RoleFacts& facts);

/// vyre-0.7.2 with `table.role = sound_role`, named "sound-roles". Only the role rule differs: the
/// dispatch loop, the scan and the output-range handling are vyre's (so G1/G3 and the docs/vyre-0.7.2.md §10
/// (c)/(d) divergences remain; the full `sound` profile addresses those).
const Profile& sound_roles_profile();

}  // namespace gridcheck::planner
