#include "planner/workgroup_spill.hpp"

#include <algorithm>

#include "planner/ir_emit.hpp"
#include "planner/stmt_queries.hpp"

namespace gridcheck::planner {

bool WorkgroupSpillPlan::any() const {
  for (std::size_t k = 0; k < restore.size(); ++k)
    if (!restore[k].empty() || !spill[k].empty()) return true;
  return false;
}

WorkgroupSpillPlan plan_workgroup_spills(const ir::Program& work, const std::vector<std::vector<ir::StmtId>>& segments) {
  const std::size_t n = segments.size();
  WorkgroupSpillPlan plan;
  plan.restore.resize(n);
  plan.spill.resize(n);
  // Only workgroup buffers are spilled: without one there is nothing to plan (and nothing to scan).
  if (std::none_of(work.buffers().begin(), work.buffers().end(),
                   [](const ir::BufferDecl& d) { return d.access == ir::BufferAccess::Workgroup; }))
    return plan;
  std::vector<BufferUses> uses(n);
  for (std::size_t k = 0; k < n; ++k) collect_buffer_uses(work, segments[k], uses[k]);
  for (std::size_t b = 0; b < work.buffers().size(); ++b) {
    const ir::BufferDecl& decl = work.buffers()[b];
    if (decl.access != ir::BufferAccess::Workgroup) continue;
    for (std::size_t k = 0; k < n; ++k) {
      bool stored_before = false, loaded_from_here = false, loaded_after = false;
      for (std::size_t j = 0; j < k; ++j) stored_before = stored_before || uses[j].stores.contains(decl.name);
      for (std::size_t j = k + 1; j < n; ++j) loaded_after = loaded_after || uses[j].loads.contains(decl.name);
      loaded_from_here = loaded_after || uses[k].loads.contains(decl.name);
      const bool referenced = uses[k].loads.contains(decl.name) || uses[k].stores.contains(decl.name);
      if (referenced && stored_before && loaded_from_here) plan.restore[k].push_back(b);
      if (uses[k].stores.contains(decl.name) && loaded_after) plan.spill[k].push_back(b);
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
