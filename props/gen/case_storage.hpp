#pragma once
// The storage plan of a generated case: which buffers exist (with their roles, element types and
// own-slot counts) and, per segment (fence interval), which buffers are written plainly, which are
// updated atomically, which must be written at least once, and which must also be read back.
// Internal to the case generator.
//
// Rules enforced here:
// - Every case has one input `in` and one or two outputs `out<i>`; an output is read_write +
//   pipeline_live_out instead of is_output with chance 1/4. Other buffers come with their features.
// - Buffer counts are slots · N (N = invocations in the grid), or slots · wg for workgroup memory,
//   so that every invocation owns the slots gid + k·N (lid + k·wg).
// - WorkgroupTail: the workgroup buffer holds 1..3·wg elements (slots = ceil(count / wg)), so the
//   own slot lid + k·wg exists only while it is below the count (stores are guarded, stmt_generator).
// - LongFixpoint: an output `late` (u32, 2 own slots, zero-filled) written only by the converging
//   statement of one segment (stmt_segment), with a saturation bound K in 3..7.
// - A write_only buffer under a fixpoint is the A4 mechanism, so it is declared only without a
//   fixpoint or with FixpointPartialOutputs.
// - Write sets: a read_write buffer is written in each segment with chance 1/2; an output /
//   write-only / runtime-sized buffer has one first segment where it must be written (more with
//   MultiSegmentOutputs; write_only multi-segment also the next segment); the atomic counter must
//   be updated in one segment and may be in others (chance 1/3). Inputs, uniforms, workgroup memory
//   and the unreferenced output are never in a write set.
// - Read obligations (needs_read): a segment that writes a read_write buffer also reads it at an
//   own slot (unless RwWrittenUnread); under a fixpoint, so does one that writes an output or
//   write-only buffer (unless FixpointPartialOutputs).

#include <cstddef>

#include "props/gen/generator_state.hpp"

namespace gridcheck::props::casegen {

/// Declares every buffer of the case (needs the shape) and fills s.buffers in binding order.
void declare_buffers(GeneratorState& s);

/// Draws s.written, s.atomic and s.must_write for every segment × buffer.
void draw_write_sets(GeneratorState& s);

/// True when this segment must also read buffer `i` because it writes it (keeps benign cases
/// out of the write-only role traps of docs/vyre-0.7.2.md#s10-a).
bool needs_read(const GeneratorState& s, std::size_t i);

}  // namespace gridcheck::props::casegen
