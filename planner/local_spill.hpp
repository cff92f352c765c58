#pragma once
// The sound split's cut (docs/vyre-0.7.2.md §10 D1-D5): every fence becomes a segment boundary, and each local
// that is live across a boundary is spilled by its invocation at the end of the segment and reloaded
// at the start of the next one — the value, never the initialiser re-executed.
//
// Precondition: uniform_fence_lowering ran, so every fence sits in a chain of Block, Region and If
// statements (If conditions grid-invariant). A container that holds a fence is cut into one piece
// per segment it spans, `C{piece0} | C{piece1} | ...`; an If becomes `if c {then_k} else {else_k}`
// in each (the shorter branch padded with empty pieces: an extra fence is harmless), so c is
// evaluated again in every piece.
//
// Scoping (docs/semantics.md §3.2): a local crosses a fence only from a scope the fence splits — the enclosing
// Block, Region or If branch, up to the root. Each scope handles its own locals: for local v (type
// T, declared in piece d of its scope) and the cut after piece j >= d,
//   spill at the end of piece j     if v is read after the cut and piece j declares or assigns v
//   restore at the start of piece j+1  if piece j+1 reads or assigns v:
//       `let v = <spilled value>` when v is read after the cut, else `let v = <zero of T>` (only
//       assigned from here on; its old value is dead)
// A slot keeps its value until v is spilled again, so a local untouched by a segment is neither
// restored nor spilled there. A local that is never assigned and whose value is recomputable and
// cannot trap (stmt_queries.hpp: ids, sizes, lengths and literals only) is not spilled at all: its
// restore evaluates the initialiser again, which gives the same value and keeps a workgroup-uniform
// local uniform for the validator (V010) and the GPU. Spills and restores of a scope sit at the end and start of that
// scope's own piece, where v is in scope.

#include <span>
#include <unordered_set>
#include <vector>

#include "ir/program.hpp"
#include "ir/typecheck.hpp"
#include "planner/spill_layout.hpp"

namespace gridcheck::planner {

struct LocalSpillCut {
  /// The top-level statements of each segment, in order (segments.size() == fences + 1).
  std::vector<std::vector<ir::StmtId>> segments;
  /// The restore lets the cut added (safe to execute for an invocation that returned).
  std::unordered_set<ir::StmtId> restores;
  std::size_t spilled_locals = 0;  ///< (let, cut) pairs spilled
};

/// Cuts `entry` (statements of `work`; new nodes go there). `types` types every expression of the
/// lowered program (each Let's value); `layout` allocates the spill slots.
LocalSpillCut cut_with_local_spills(ir::Program& work, std::span<const ir::StmtId> entry, const ir::TypeTable& types,
                                    SpillLayout& layout);

}  // namespace gridcheck::planner
