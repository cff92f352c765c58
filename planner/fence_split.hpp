#pragma once
// The host split proper (docs/vyre-0.7.2.md §6.2–§6.6, vyre-driver 0.7.2 `barrier_split.rs` and
// `let_propagation.rs`): fence detection, wrapper peeling, hoisting fences out of blocks and
// regions, cutting into segments, let propagation and re-wrapping. Each step is a free function
// that a Profile's SplitRules points at; a profile (or a mutant) swaps any one of them.
//
// Work arena: the steps run on `HostSplit::work`, a copy of the source program to which hoisting
// appends the rebuilt Block/Region pieces. Every StmtId below refers to that arena. Segment programs
// are then deep-copied out of it, so each one holds only its own nodes.

#include <cstddef>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "ir/program.hpp"

namespace gridcheck::planner {

/// One peeled single-node wrapper (docs/vyre-0.7.2.md §6.3): a Block, or a Region with its generator and
/// source_region (names of the work arena).
struct Wrapper {
  ir::StmtKind kind = ir::StmtKind::Block;
  ir::NameId generator = ir::kNoName;
  ir::NameId source_region = ir::kNoName;
};

struct Peeled {
  std::vector<Wrapper> wrappers;  ///< outermost first
  std::vector<ir::StmtId> inner;
};

/// The nodes of one segment, before re-wrapping.
struct SegmentNodes {
  std::vector<ir::StmtId> let_prefix;  ///< propagated Lets, prepended in this order (docs/vyre-0.7.2.md §6.6)
  std::vector<ir::StmtId> body;        ///< the run of nodes between two top-level fences
};

struct HostSplit {
  ir::Program work;                     ///< source arena plus the hoisted containers
  std::vector<Wrapper> wrappers;        ///< from peeling, outermost first
  std::vector<ir::StmtId> hoisted;      ///< the inner sequence after hoisting
  std::size_t fence_count = 0;          ///< top-level fences of `hoisted`
  std::vector<SegmentNodes> segments;   ///< fence_count + 1 lists; empty when fence_count == 0
  /// Every segment program starts as a copy of this: the source's workgroup size and buffer table
  /// in an arena that holds only the buffer names (built by make_segment_skeleton).
  ir::Program skeleton;
};

/// The skeleton of HostSplit: workgroup size and buffer table of `source`, no nodes.
ir::Program make_segment_skeleton(const ir::Program& source);

/// Orders the free names of a segment (and the variables of a propagated Let's value) before they
/// are resolved. vyre 0.7.2 iterates a HashSet (nondeterministic, docs/vyre-0.7.2.md#f4); our vyre-0.7.2
/// profile sorts by name, which only changes the order of independent prefix Lets, never their
/// meaning.
using NameOrder = std::function<void(std::vector<std::string_view>& names)>;
void sort_names(std::vector<std::string_view>& names);

// ----------------------------------------------------------------------- vyre 0.7.2 steps

/// docs/vyre-0.7.2.md §6.2: a GridSync barrier anywhere, through If (both branches), Loop, Block and Region.
bool contains_grid_sync(const ir::Program& program);

/// docs/vyre-0.7.2.md §6.3: while the sequence is exactly one Region or Block, record it and descend.
Peeled peel_wrappers(const ir::Program& program);

/// docs/vyre-0.7.2.md §6.4: hoists fences out of Block and Region (never If or Loop). A container whose hoisted body
/// has top-level fences becomes `C(piece0), fence, C(piece1), ...`; empty pieces are kept; a Region
/// piece keeps generator and source_region. New nodes are added to `work`.
std::vector<ir::StmtId> hoist_grid_sync_barriers(ir::Program& work, std::span<const ir::StmtId> sequence);

/// docs/vyre-0.7.2.md §6.5 step 3: cuts at each top-level fence; fences dropped, empty lists kept.
std::vector<SegmentNodes> cut_at_fences(const ir::Program& work, std::span<const ir::StmtId> hoisted);

/// docs/vyre-0.7.2.md §6.6: let propagation with re-execution semantics. For each segment, the free variables
/// (referenced in any expression, minus every Let/Loop name defined anywhere in the segment) are
/// resolved against the last Let of that name in a pre-order walk of `hoisted`; a resolved Let's
/// own variables are resolved first (whether or not the segment defines them); unknown names are
/// ignored. The resolved Lets fill `let_prefix` in dependency order.
void propagate_lets(const ir::Program& work, std::span<const ir::StmtId> hoisted,
                    std::vector<SegmentNodes>& segments, const NameOrder& order);

/// docs/vyre-0.7.2.md §6.5 step 5: re-wraps the segment (prefix, then body) in the wrapper stack, innermost first.
/// A Region wrapper loses its source_region. The program keeps the full source buffer table and
/// workgroup size (it starts from `split.skeleton`).
ir::Program rewrap_segment(const ir::Program& source, const HostSplit& split, const SegmentNodes& segment);

/// Number of GridSync barriers anywhere in a statement list (tests, refusals).
std::size_t count_fences(const ir::Program& program, ir::StmtList list);

}  // namespace gridcheck::planner
