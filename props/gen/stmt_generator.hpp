#pragma once
// Statement generation for the case generator: operations (stores, atomics, lets, assignments,
// workgroup exchanges, barriers, guarded returns), nested ifs and loops, the fenced construct, and
// whole segments with their write and read obligations. Internal to the case generator.
//
// StmtGenerator's methods are defined in three files, one concept each:
// - stmt_generator.cpp: which operations are allowed where, and the plain operations;
// - stmt_control_flow.cpp: nested bodies, uniform / invocation ifs and loops, the fenced construct;
// - stmt_segment.cpp: one segment (fence interval) and its obligations.
//
// Rules enforced here:
// - Plain stores go only to buffers in this segment's write set, at the invocation's own slots
//   (gid + k·N); workgroup memory is stored at own slots (lid + k·wg).
// - Atomics touch only buffers in this segment's atomic set, with a commutative operator fixed per
//   element (add, or, and, xor, min, max by element index); the old value is bound to a local that
//   is never read. Atomic buffers are not read in that segment.
// - Cross-lane workgroup reads happen only in the exchange `let v = 0; sh[own] = e; barrier;
//   v = sh[any lane]; barrier`, in workgroup-uniform control flow.
// - Barriers (and exchanges) appear only in workgroup-uniform control flow, never under
//   per-invocation ifs or loops.
// - Returns: only under an invocation-dependent if, never in a loop or an exchange, and only in the
//   last segment (Returns) or in any segment (ReturnBeforeFence).
// - Fences: at the top level between segments; with FenceUnderControlFlow also once, in the last
//   segment, inside a grid-uniform if or a counted loop with literal bounds. With FencedElse that if
//   has an else, the branches hold different numbers of fences (0..2, one of them ≥ 1); with
//   LoopStart that loop starts at 1..3 and reads its variable after the fence (index and value).
//   Without FenceUnderControlFlow no fence is ever under control flow (FencedElse then only gives
//   every uniform if an else; LoopStart starts ordinary counted loops at 0..3).
// - WorkgroupTail: workgroup stores at a slot with a tail are guarded by `lid + k·wg < count`; the
//   initialisation is a loop over the slots with that guard; exchange reads are `any mod count`.
// - Nesting stays within config.max_nesting; each segment has at most config.max_ops_per_segment
//   top-level operations plus its obligations.
// - Obligations: every buffer this segment must write is written (stored or atomically updated)
//   at least once; a written buffer that needs_read is also loaded at an own slot.
// - With nothing allowed, an operation is `let v = <small literal>`.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "props/gen/expr_generator.hpp"
#include "props/gen/generator_state.hpp"

namespace gridcheck::props::casegen {

class StmtGenerator {
 public:
  StmtGenerator(GeneratorState& s, ExprGenerator& ex);

  /// The statements of segment s.segment (stmt_segment.cpp); resets the per-segment progress and
  /// leaves the segment's top-level locals visible to later segments.
  std::vector<ir::S> generate_segment();

 private:
  enum class OpKind { Store, Let, Assign, Atomic, Exchange, UniformIf, InvocationIf, UniformLoop, InvocationLoop,
                      ReturnIf, Barrier };

  bool on(Feature f) const { return s_.on(f); }

  /// The kinds `generate_op` may draw from, in a fixed order; each at most once (no allocation).
  struct OpKinds {
    std::array<OpKind, 11> kinds{};
    std::uint32_t count = 0;
    void push_back(OpKind k) { kinds[count++] = k; }
  };

  // stmt_generator.cpp
  OpKinds available(const Context& ctx) const;
  bool returns_allowed(const Context& ctx) const;
  /// Buffer `i` is in this segment's write set and random stores may target it (not `late`).
  bool plainly_writable(std::size_t i) const;
  bool any_written() const;
  bool any_atomic() const;
  /// Appends one generated operation (one or more statements) to `out`.
  void generate_op(const Context& ctx, std::vector<ir::S>& out);
  /// A buffer index drawn uniformly among those `candidate` accepts (one draw); ICE `none` if none.
  template <typename Candidate>
  std::size_t pick_buffer(Candidate candidate, const char* none);
  std::size_t pick_written();
  std::size_t pick_atomic();
  /// A plain store to buffer `i` at an own slot (marks it stored).
  ir::S store_op(std::size_t i, const Context& ctx);
  /// An atomic update of buffer `i` (marks it stored).
  ir::S atomic_op(std::size_t i);
  ir::S let_op(const Context& ctx);
  std::optional<LocalInfo> assign_target(const Context& ctx) const;
  ir::S assign_op(const Context& ctx);
  /// `let v = 0; sh[own] = e; barrier; v = sh[any lane]; barrier` in workgroup-uniform control
  /// flow: the only place where an invocation reads another lane's workgroup memory.
  void exchange_op(const Context& ctx, std::vector<ir::S>& out);
  /// `sh[lid + k·wg] = value`, guarded by `lid + k·wg < count` when slot k has a tail (draws nothing).
  ir::S workgroup_store(const BufferInfo& sh, std::uint32_t k, ir::E value);

  // stmt_control_flow.cpp
  std::vector<ir::S> nested_body(const Context& ctx);
  ir::S uniform_if(const Context& ctx);
  ir::S invocation_if(const Context& ctx);
  ir::S uniform_loop(const Context& ctx);
  ir::S invocation_loop(const Context& ctx);
  /// A fence under grid-uniform control flow (spec G5): `if true-ish { a; grid_sync; b }` or a
  /// counted loop around a fence.
  ir::S fenced_construct();
  /// Statements with `fences` grid syncs: a nested body, then per fence `grid_sync` and a nested body.
  std::vector<ir::S> fenced_body(const Context& ctx, std::uint32_t fences);

  // stmt_segment.cpp
  void initialise_workgroup_memory(std::vector<ir::S>& ops);
  void fulfil_obligations(std::vector<ir::S>& ops);
  /// LongFixpoint: `let c = late[own0]; late[own0] = min(c + 1, K); late[own1] = late[own1] ^ u32(c < K)`,
  /// state that changes on passes 1..K and then stays (the split needs min(K + 1, fixpoint) ≥ 4 passes).
  void converging_statement(std::vector<ir::S>& ops);

  GeneratorState& s_;
  ChoiceSource& c_;
  ir::Builder& b_;
  const GeneratorConfig& config_;
  ExprGenerator& ex_;
};

}  // namespace gridcheck::props::casegen
