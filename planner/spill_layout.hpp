#pragma once
// Where the sound split keeps what must survive a fence (docs/DESIGN.md §3 "true grid sync"): the scratch
// buffers it adds to the segments, and the index of every value in them.
//
//   __gc_spill_<type>   one per scalar type; local `v` of that type has slot s:
//                       element s·N + inv  (N invocations, inv = linear global invocation index).
//                       Slots are per name and type: two locals of one name are never in scope
//                       together (no shadowing, docs/semantics.md §3.2), so they share a slot (an unrolled
//                       loop's copies of a local use one slot)
//   __gc_returned       per invocation: 1 when it executed `return` in an earlier segment
//   __gc_wg_<name>      per workgroup: a copy of workgroup buffer `name` (count C):
//                       element wg·C + e   (wg = linear workgroup index)
//
// In a segment, `inv` and `N` are the locals `__gc_inv` and `__gc_n` (declared by the segment's
// prologue, see sound_lowering.cpp). The buffers are read_write, runtime-sized, bound after the
// source's largest binding, and sized per run from the launch grid (ScratchBuffer).

#include <array>
#include <map>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "planner/ir_emit.hpp"
#include "planner/split_plan.hpp"

namespace gridcheck::planner {

inline constexpr std::string_view kReservedPrefix = "__gc_";

class SpillLayout {
 public:
  explicit SpillLayout(ir::Program& work);

  /// The locals every segment's prologue may declare.
  ir::NameId invocation_local() const { return inv_; }
  ir::NameId count_local() const { return n_; }
  ir::NameId returned_local() const { return ret_; }
  /// Whether any expression made so far reads invocation_local() / count_local(). Only this layout
  /// emits those names (the `__gc_` prefix is refused in a source), so when false no segment reads them.
  bool emitted_invocation_reads() const { return emitted_inv_; }
  bool emitted_count_reads() const { return emitted_n_; }

  /// `__gc_spill_T[slot·N + inv] = v` for local `v` (declared by `let`), allocating its slot.
  ir::StmtId spill(ir::StmtId let, ir::ScalarType type);
  /// `__gc_spill_T[slot·N + inv]`: the value `spill` saved.
  ir::E restored(ir::StmtId let, ir::ScalarType type);

  /// `__gc_returned[inv] != 0` and `__gc_returned[inv] = select(__gc_ret, 1, 0)`.
  ir::E returned_flag();
  ir::StmtId store_returned_flag();

  /// The per-workgroup copy of workgroup buffer `buffer`.
  ir::NameId workgroup_copy(const ir::BufferDecl& buffer);

  /// Declares the scratch buffers used so far in `work` (after its declarations) and describes them.
  std::vector<ScratchBuffer> declare();

 private:
  std::uint32_t slot(ir::StmtId let, ir::ScalarType type);
  ir::E slot_index(std::uint32_t slot);

  ir::Program& work_;
  Emit emit_;
  ir::NameId inv_, n_, ret_;
  std::array<ir::NameId, 4> spill_buffers_;
  std::array<std::uint32_t, 4> slots_{};
  std::map<std::pair<ir::NameId, ir::ScalarType>, std::uint32_t> slot_of_;
  ir::NameId returned_;
  bool uses_returned_ = false;
  bool emitted_inv_ = false, emitted_n_ = false;
  struct WorkgroupCopy {
    ir::NameId copy;
    ir::ScalarType element;
    std::uint32_t count;
    std::string original;
  };
  std::vector<WorkgroupCopy> workgroup_copies_;
};

}  // namespace gridcheck::planner
