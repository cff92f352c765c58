#include "planner/workgroup_spill.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "planner/ir_emit.hpp"

namespace gridcheck::planner {

bool WorkgroupSpillPlan::any() const {
  for (std::size_t k = 0; k < restore.size(); ++k)
    if (!restore[k].empty() || !spill[k].empty()) return true;
  return false;
}

namespace {

// Which names each segment loads from (Load) and stores to (Store), at any depth, as flags by name
// index: the facts collect_buffer_uses gives, without a hash set per segment.
constexpr std::uint8_t kLoads = 1, kStores = 2;

void mark_uses(const ir::Program& p, std::span<const ir::StmtId> list, std::vector<std::uint8_t>& uses) {
  const auto mark = [&](ir::NameId name, std::uint8_t bit) {
    if (ir::index_of(name) < uses.size()) uses[ir::index_of(name)] |= bit;
  };
  const auto loads = [&](const auto& self, ir::ExprId id) -> void {
    const ir::Expr& e = p.expr(id);
    if (e.kind == ir::ExprKind::Load) mark(e.buffer(), kLoads);
    for (ir::ExprId operand : e.operands)
      if (operand != ir::kNoExpr) self(self, operand);
  };
  for (ir::StmtId id : list) {
    const ir::Stmt& s = p.stmt(id);
    if (s.kind == ir::StmtKind::Store) mark(s.names[0], kStores);
    for (ir::ExprId e : s.exprs)
      if (e != ir::kNoExpr) loads(loads, e);
    if (s.has_body()) {
      mark_uses(p, p.list(s.body), uses);
      mark_uses(p, p.list(s.otherwise), uses);
    }
  }
}

}  // namespace

WorkgroupSpillPlan plan_workgroup_spills(const ir::Program& work, const std::vector<std::vector<ir::StmtId>>& segments) {
  const std::size_t n = segments.size();
  WorkgroupSpillPlan plan;
  plan.restore.resize(n);
  plan.spill.resize(n);
  // Only workgroup buffers are spilled: without one there is nothing to plan (and nothing to scan).
  if (std::none_of(work.buffers().begin(), work.buffers().end(),
                   [](const ir::BufferDecl& d) { return d.access == ir::BufferAccess::Workgroup; }))
    return plan;
  std::vector<std::vector<std::uint8_t>> uses(n, std::vector<std::uint8_t>(work.name_count(), 0));
  for (std::size_t k = 0; k < n; ++k) mark_uses(work, segments[k], uses[k]);
  const auto has = [&](std::size_t k, ir::NameId name, std::uint8_t bit) {
    return ir::index_of(name) < uses[k].size() && (uses[k][ir::index_of(name)] & bit) != 0;
  };
  for (std::size_t b = 0; b < work.buffers().size(); ++b) {
    const ir::BufferDecl& decl = work.buffers()[b];
    if (decl.access != ir::BufferAccess::Workgroup) continue;
    for (std::size_t k = 0; k < n; ++k) {
      bool stored_before = false, loaded_from_here = false, loaded_after = false;
      for (std::size_t j = 0; j < k; ++j) stored_before = stored_before || has(j, decl.name, kStores);
      for (std::size_t j = k + 1; j < n; ++j) loaded_after = loaded_after || has(j, decl.name, kLoads);
      loaded_from_here = loaded_after || has(k, decl.name, kLoads);
      const bool referenced = has(k, decl.name, kLoads) || has(k, decl.name, kStores);
      if (referenced && stored_before && loaded_from_here) plan.restore[k].push_back(b);
      if (has(k, decl.name, kStores) && loaded_after) plan.spill[k].push_back(b);
    }
  }
  return plan;
}

namespace {

// loop __gc_j in 0..ceil(C/W) { let __gc_e = __gc_j·W + local; if __gc_e < C { copy(e) } }
ir::StmtId copy_loop(Emit& emit, const ir::BufferDecl& buffer, ir::NameId copy, bool out) {
  const ir::NameId j = emit.name("__gc_j"), e = emit.name("__gc_e");
  const std::uint32_t count = buffer.count;
  const ir::StmtId element =
      emit.let(e, emit.var(j) * emit.workgroup_invocations() + emit.linear_local());
  ir::E slot = emit.linear_workgroup() * emit.u32(count) + emit.var(e);
  const ir::StmtId move = out ? emit.store(copy, slot, emit.load(buffer.name, emit.var(e)))
                              : emit.store(buffer.name, emit.var(e), emit.load(copy, slot));
  const ir::StmtId guarded = emit.if_(emit.var(e) < emit.u32(count), std::vector<ir::StmtId>{move});
  ir::E trips = (emit.u32(count) + emit.workgroup_invocations() - emit.u32(1)) / emit.workgroup_invocations();
  return emit.loop(j, emit.u32(0), trips, std::vector<ir::StmtId>{element, guarded});
}

}  // namespace

std::vector<ir::StmtId> workgroup_restore_code(ir::Program& work, SpillLayout& layout,
                                               std::span<const std::size_t> buffers) {
  std::vector<ir::StmtId> code;
  if (buffers.empty()) return code;
  Emit emit(work);
  for (std::size_t b : buffers) {
    const ir::BufferDecl decl = work.buffers()[b];
    code.push_back(copy_loop(emit, decl, layout.workgroup_copy(decl), /*out=*/false));
  }
  code.push_back(emit.barrier());
  return code;
}

std::vector<ir::StmtId> workgroup_spill_code(ir::Program& work, SpillLayout& layout, std::span<const std::size_t> buffers) {
  std::vector<ir::StmtId> code;
  if (buffers.empty()) return code;
  Emit emit(work);
  code.push_back(emit.barrier());
  for (std::size_t b : buffers) {
    const ir::BufferDecl decl = work.buffers()[b];
    code.push_back(copy_loop(emit, decl, layout.workgroup_copy(decl), /*out=*/true));
  }
  return code;
}

}  // namespace gridcheck::planner
