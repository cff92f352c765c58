#pragma once
// Expression generation for the case generator: literals, leaves (builtins, buffer lengths, locals,
// loads), typed expressions, own-slot indexing and branch conditions. Internal to the case
// generator; every decision is drawn from the state's ChoiceSource.
//
// Rules enforced here:
// - Own slots use the linear ids (linear_gid / linear_lid: x, y, z with MultiDimGrid), so a plainly
//   written buffer is still touched only at the invocation's own slots on 2-D / 3-D shapes.
// - Loads: a buffer written plainly in this segment is read only at the invocation's own slots
//   (gid + k·N); any other storage buffer at any index (out of bounds reads 0). Buffers updated
//   atomically in this segment, the atomic counter and the unreferenced output are never loaded.
//   Workgroup memory is read at own slots (lid + k·wg), and only once this segment has written it
//   (or with WorkgroupAcrossFence); cross-lane reads are the exchange's (stmt_generator).
// - Every load and buffer length marks the buffer as loaded in this segment (read obligations).
// - Locals: those in open scopes, plus locals of earlier segments only when pure and never
//   assigned (or with LocalsAcrossFence).
// - Operators cannot trap: i32 division only by literals other than 0 and -1; f32 only operations
//   Vulkan computes exactly.
// - uniform_condition is grid-uniform (literals, workgroup counts, buffer lengths) or, unless
//   grid_uniform is asked for, workgroup-uniform (wgid); invocation_condition may diverge per
//   invocation.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "props/gen/generator_state.hpp"

namespace gridcheck::props::casegen {

class ExprGenerator {
 public:
  explicit ExprGenerator(GeneratorState& s);

  /// A value type: u32, or any of kTypes with ScalarTypes.
  ir::ScalarType draw_value_type();
  /// The zero of `t` (draws nothing).
  ir::E zero(ir::ScalarType t);
  /// A literal of type `t` from a small table (u32 also any word).
  Typed literal(ir::ScalarType t);
  /// An expression of type `t` at nesting `depth`; a leaf at config.max_expr_depth.
  Typed expr(ir::ScalarType t, const Context& ctx, std::uint32_t depth);

  /// Total invocations N: a literal with an explicit grid, the dispatch size with `grid auto`.
  ir::E invocation_count();
  /// The invocation's linear index in the grid, gid.x + gid.y·X + gid.z·X·Y (draws nothing).
  ir::E linear_gid();
  /// The invocation's linear index in its workgroup, lid.x + lid.y·wg.x + lid.z·wg.x·wg.y (draws nothing).
  ir::E linear_lid();
  /// The invocation's k-th own slot of a storage buffer: gid + k·N, gid linear (draws nothing).
  ir::E own_slot(std::uint32_t k);
  /// The invocation's k-th own slot of workgroup memory: lid + k·wg, lid linear (draws nothing).
  ir::E own_workgroup_slot(std::uint32_t k);

  /// Grid-uniform (literals, counts, buffer lengths) or, when allowed, workgroup-uniform (+ wgid).
  ir::E uniform_condition(bool grid_uniform);
  /// A condition that may differ between invocations.
  ir::E invocation_condition(const Context& ctx);

 private:
  bool on(Feature f) const { return s_.on(f); }

  /// Fills locals_ with the locals of type `t` visible here that this segment may read.
  void readable_locals(ir::ScalarType t);
  /// Fills loadable_ with the readable storage/workgroup buffers with element type `t` (not
  /// atomically updated here).
  void loadable(ir::ScalarType t, const Context& ctx);
  Typed load(std::size_t i, const Context& ctx);
  Typed leaf(ir::ScalarType t, const Context& ctx);
  /// `lhs op rhs` over operands of type `operands`, drawing the right operand before the left
  /// (the caller draws `op` first).
  Typed binary(ir::BinOp op, ir::ScalarType operands, const Context& ctx, std::uint32_t depth);
  Typed select(ir::ScalarType t, const Context& ctx, std::uint32_t d);

  GeneratorState& s_;
  ChoiceSource& c_;
  ir::Builder& b_;
  const GeneratorConfig& config_;
  // leaf()'s candidates: filled, then read by its one draw before anything recurses (a load's index
  // expression is drawn after the buffer is chosen), so one pair serves every depth without allocating.
  std::vector<const LocalInfo*> locals_;
  std::vector<std::size_t> loadable_;
};

}  // namespace gridcheck::props::casegen
