#include "planner/program_copy.hpp"

namespace gridcheck::planner {

ProgramCopier::ProgramCopier(const ir::Program& from, ir::Program& to)
    : from_(from), to_(to), names_(from.name_count(), ir::kNoName) {}

ir::NameId ProgramCopier::name(ir::NameId id) {
  if (id == ir::kNoName) return ir::kNoName;
  ir::NameId& slot = names_[ir::index_of(id)];
  if (slot == ir::kNoName) slot = to_.intern(from_.name(id));
  return slot;
}

ir::ExprId ProgramCopier::expr(ir::ExprId id) {
  if (id == ir::kNoExpr) return ir::kNoExpr;
  ir::Expr e = from_.expr(id);
  for (ir::ExprId& operand : e.operands)
    if (operand != ir::kNoExpr) operand = expr(operand);  // most slots are empty: no call for them
  switch (e.kind) {
    case ir::ExprKind::Var:
    case ir::ExprKind::Load:
    case ir::ExprKind::BufLen:
    case ir::ExprKind::Atomic: e.payload = ir::index_of(name(ir::NameId{e.payload})); break;
    default: break;
  }
  return to_.add_expr(e, from_.loc(id));
}

ir::StmtId ProgramCopier::stmt(ir::StmtId id) {
  ir::Stmt s = from_.stmt(id);
  for (ir::NameId& n : s.names) n = name(n);
  for (ir::ExprId& e : s.exprs)
    if (e != ir::kNoExpr) e = expr(e);
  if (s.has_body()) {
    s.body = list(s.body);
    s.otherwise = list(s.otherwise);
  }
  return to_.add_stmt(s, from_.loc(id));
}

ir::StmtList ProgramCopier::list(std::span<const ir::StmtId> ids) {
  // Nested lists share one stack of copied ids: each pushes above its parent's and pops its own.
  const std::size_t base = stack_.size();
  for (ir::StmtId id : ids) {
    const ir::StmtId copied = stmt(id);
    stack_.push_back(copied);
  }
  const ir::StmtList out = to_.add_list(std::span<const ir::StmtId>(stack_).subspan(base));
  stack_.resize(base);
  return out;
}

ir::BufferDecl ProgramCopier::buffer(const ir::BufferDecl& decl) {
  ir::BufferDecl copy = decl;
  copy.name = name(decl.name);
  return copy;
}

ir::ExprId clone_expr(ir::Program& p, ir::ExprId id) {
  if (id == ir::kNoExpr) return ir::kNoExpr;
  ir::Expr e = p.expr(id);  // by value: the arena grows below
  for (ir::ExprId& operand : e.operands) operand = clone_expr(p, operand);
  return p.add_expr(e, p.loc(id));
}

std::vector<ir::StmtId> clone_stmts(ir::Program& p, std::span<const ir::StmtId> ids) {
  const std::vector<ir::StmtId> originals(ids.begin(), ids.end());  // `ids` may point into the pool
  std::vector<ir::StmtId> out;
  out.reserve(originals.size());
  for (ir::StmtId id : originals) out.push_back(clone_stmt(p, id));
  return out;
}

ir::StmtId clone_stmt(ir::Program& p, ir::StmtId id) {
  ir::Stmt s = p.stmt(id);
  for (ir::ExprId& e : s.exprs) e = clone_expr(p, e);
  if (s.has_body()) {
    const std::vector<ir::StmtId> body = clone_stmts(p, p.list(s.body));
    const std::vector<ir::StmtId> otherwise = clone_stmts(p, p.list(s.otherwise));
    s.body = p.add_list(body);
    s.otherwise = p.add_list(otherwise);
  }
  return p.add_stmt(s, p.loc(id));
}

ir::Program program_from(const ir::Program& from, std::span<const ir::BufferDecl> buffers,
                         std::span<const ir::StmtId> entry) {
  ir::Program to;
  to.set_workgroup_size(from.workgroup_size());
  ProgramCopier copier(from, to);
  for (const ir::BufferDecl& decl : buffers) to.add_buffer(copier.buffer(decl));
  to.set_entry(copier.list(entry));
  return to;
}

}  // namespace gridcheck::planner
