#include "props/gen/case_shapes.hpp"


namespace gridcheck::props {
namespace {

std::uint32_t fences_in(const ir::Program& p, ir::StmtList list) {
  std::uint32_t n = 0;
  for (ir::StmtId id : p.list(list)) {
    const ir::Stmt& s = p.stmt(id);
    if (s.is_fence()) ++n;
    if (s.has_body()) n += fences_in(p, s.body) + fences_in(p, s.otherwise);
  }
  return n;
}

void walk(const ir::Program& p, ir::StmtList list, CaseShapes& out) {
  for (ir::StmtId id : p.list(list)) {
    const ir::Stmt& s = p.stmt(id);
    if (!s.has_body()) continue;
    if (s.kind == ir::StmtKind::Loop) {
      const ir::Expr& from = p.expr(s.exprs[0]);
      const bool literal_start = from.kind == ir::ExprKind::LitU32;
      if (!literal_start || from.payload != 0) out.loop_start = true;
      if (literal_start && from.payload > 0 && fences_in(p, s.body) > 0) out.fenced_loop_start = true;
    }
    if (s.kind == ir::StmtKind::If && !s.otherwise.empty()) {
      const std::uint32_t then_fences = fences_in(p, s.body), else_fences = fences_in(p, s.otherwise);
      if (then_fences + else_fences > 0) out.fenced_else = true;
      if (then_fences != else_fences) out.fenced_else_unequal = true;
    }
    walk(p, s.body, out);
    walk(p, s.otherwise, out);
  }
}

}  // namespace

CaseShapes shapes_of(const ir::Case& c) {
  CaseShapes out;
  const ir::Program& p = c.program;
  const auto wg = p.workgroup_size();
  out.workgroup_y = wg[1] > 1;
  out.workgroup_z = wg[2] > 1;
  if (c.grid) {
    out.grid_y = (*c.grid)[1] > 1;
    out.grid_z = (*c.grid)[2] > 1;
  }
  const std::uint32_t lanes = p.invocations_per_workgroup();
  for (const ir::BufferDecl& b : p.buffers())
    if (b.access == ir::BufferAccess::Workgroup && lanes > 0 && b.count % lanes != 0) out.workgroup_tail = true;
  walk(p, p.entry(), out);
  out.max_fixpoint = c.fixpoint;
  out.fixpoint_4 = c.fixpoint >= 4;
  return out;
}

std::vector<std::string> all_shape_names() {
  return {"workgroup_y", "workgroup_z", "grid_y", "grid_z", "workgroup_tail", "loop_start", "fenced_loop_start",
          "fenced_else", "fenced_else_unequal", "fixpoint_4"};
}

std::vector<std::string> shape_names(const CaseShapes& s) {
  const bool present[] = {s.workgroup_y,  s.workgroup_z,       s.grid_y,      s.grid_z,
                          s.workgroup_tail, s.loop_start,      s.fenced_loop_start,
                          s.fenced_else,  s.fenced_else_unequal, s.fixpoint_4};
  const std::vector<std::string> names = all_shape_names();
  std::vector<std::string> out;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (present[i]) out.push_back(names[i]);
  return out;
}

}  // namespace gridcheck::props
