#include "planner/ir_emit.hpp"


#include "ir/ice.hpp"

namespace gridcheck::planner {

ir::E Emit::expr(const ir::Expr& e) { return ir::E{&p_, p_.add_expr(e, loc_)}; }
ir::StmtId Emit::stmt(const ir::Stmt& s) { return p_.add_stmt(s, loc_); }

ir::E Emit::u32(std::uint32_t v) {
  ir::Expr e;
  e.kind = ir::ExprKind::LitU32;
  e.payload = v;
  return expr(e);
}

ir::E Emit::boolean(bool v) {
  ir::Expr e;
  e.kind = ir::ExprKind::LitBool;
  e.payload = v ? 1 : 0;
  return expr(e);
}

ir::E Emit::zero(ir::ScalarType type) {
  ir::Expr e;
  switch (type) {
    case ir::ScalarType::U32: e.kind = ir::ExprKind::LitU32; break;
    case ir::ScalarType::I32: e.kind = ir::ExprKind::LitI32; break;
    case ir::ScalarType::F32: e.kind = ir::ExprKind::LitF32; break;
    case ir::ScalarType::Bool: e.kind = ir::ExprKind::LitBool; break;
  }
  e.payload = 0;
  return expr(e);
}

ir::E Emit::var(ir::NameId name) {
  ir::Expr e;
  e.kind = ir::ExprKind::Var;
  e.payload = ir::index_of(name);
  return expr(e);
}

ir::E Emit::load(ir::NameId buffer, ir::E index) {
  ir::Expr e;
  e.kind = ir::ExprKind::Load;
  e.payload = ir::index_of(buffer);
  e.operands = {index.id, ir::kNoExpr, ir::kNoExpr};
  return expr(e);
}

ir::E Emit::builtin(ir::ExprKind kind, std::uint32_t axis) {
  ir::Expr e;
  e.kind = kind;
  e.op = static_cast<std::uint8_t>(axis);
  return expr(e);
}

ir::E Emit::logical_not(ir::E x) {
  ir::Expr e;
  e.kind = ir::ExprKind::Unary;
  e.op = static_cast<std::uint8_t>(ir::UnOp::LogicalNot);
  e.operands = {x.id, ir::kNoExpr, ir::kNoExpr};
  return expr(e);
}

ir::E Emit::select(ir::E cond, ir::E if_true, ir::E if_false) {
  ir::Expr e;
  e.kind = ir::ExprKind::Select;
  e.operands = {cond.id, if_true.id, if_false.id};
  return expr(e);
}

ir::E Emit::linear_invocation() {
  using K = ir::ExprKind;
  ir::E extent_x = builtin(K::NumWorkgroups, 0) * builtin(K::WorkgroupSize, 0);
  ir::E extent_y = builtin(K::NumWorkgroups, 1) * builtin(K::WorkgroupSize, 1);
  return builtin(K::InvocationId, 0) +
         extent_x * (builtin(K::InvocationId, 1) + extent_y * builtin(K::InvocationId, 2));
}

ir::E Emit::invocation_count() {
  using K = ir::ExprKind;
  return builtin(K::NumWorkgroups, 0) * builtin(K::WorkgroupSize, 0) * builtin(K::NumWorkgroups, 1) *
         builtin(K::WorkgroupSize, 1) * builtin(K::NumWorkgroups, 2) * builtin(K::WorkgroupSize, 2);
}

ir::E Emit::linear_workgroup() {
  using K = ir::ExprKind;
  return builtin(K::WorkgroupId, 0) +
         builtin(K::NumWorkgroups, 0) * (builtin(K::WorkgroupId, 1) + builtin(K::NumWorkgroups, 1) * builtin(K::WorkgroupId, 2));
}

ir::E Emit::linear_local() {
  using K = ir::ExprKind;
  return builtin(K::LocalId, 0) +
         builtin(K::WorkgroupSize, 0) * (builtin(K::LocalId, 1) + builtin(K::WorkgroupSize, 1) * builtin(K::LocalId, 2));
}

ir::E Emit::workgroup_invocations() {
  using K = ir::ExprKind;
  return builtin(K::WorkgroupSize, 0) * builtin(K::WorkgroupSize, 1) * builtin(K::WorkgroupSize, 2);
}

ir::StmtId Emit::let(ir::NameId name, ir::E value) {
  ir::Stmt s;
  s.kind = ir::StmtKind::Let;
  s.names[0] = name;
  s.exprs[0] = value.id;
  return stmt(s);
}

ir::StmtId Emit::assign(ir::NameId name, ir::E value) {
  ir::Stmt s;
  s.kind = ir::StmtKind::Assign;
  s.names[0] = name;
  s.exprs[0] = value.id;
  return stmt(s);
}

ir::StmtId Emit::store(ir::NameId buffer, ir::E index, ir::E value) {
  ir::Stmt s;
  s.kind = ir::StmtKind::Store;
  s.names[0] = buffer;
  s.exprs = {index.id, value.id};
  return stmt(s);
}

ir::StmtId Emit::if_(ir::E cond, std::span<const ir::StmtId> then_body, std::span<const ir::StmtId> else_body) {
  ir::Stmt s;
  s.kind = ir::StmtKind::If;
  s.exprs[0] = cond.id;
  s.body = p_.add_list(std::vector<ir::StmtId>(then_body.begin(), then_body.end()));
  s.otherwise = p_.add_list(std::vector<ir::StmtId>(else_body.begin(), else_body.end()));
  return stmt(s);
}

ir::StmtId Emit::loop(ir::NameId var, ir::E from, ir::E to, std::span<const ir::StmtId> body) {
  ir::Stmt s;
  s.kind = ir::StmtKind::Loop;
  s.names[0] = var;
  s.exprs = {from.id, to.id};
  s.body = p_.add_list(std::vector<ir::StmtId>(body.begin(), body.end()));
  return stmt(s);
}

ir::StmtId Emit::barrier() {
  ir::Stmt s;
  s.kind = ir::StmtKind::Barrier;
  s.op = static_cast<std::uint8_t>(ir::MemoryOrdering::SeqCst);
  return stmt(s);
}

ir::StmtId Emit::grid_sync() {
  ir::Stmt s;
  s.kind = ir::StmtKind::Barrier;
  s.op = static_cast<std::uint8_t>(ir::MemoryOrdering::GridSync);
  return stmt(s);
}

ir::StmtId Emit::region(ir::NameId generator, ir::NameId source_region, std::span<const ir::StmtId> body) {
  ir::Stmt s;
  s.kind = ir::StmtKind::Region;
  s.names[0] = generator;
  s.names[1] = source_region;
  s.body = p_.add_list(std::vector<ir::StmtId>(body.begin(), body.end()));
  return stmt(s);
}

ir::StmtId Emit::rebuild(ir::StmtId original, std::span<const ir::StmtId> body, std::span<const ir::StmtId> otherwise) {
  ir::Stmt s = p_.stmt(original);
  GC_ASSERT(s.has_body());
  const ir::SourceLoc loc = p_.loc(original);
  s.body = p_.add_list(std::vector<ir::StmtId>(body.begin(), body.end()));
  s.otherwise = p_.add_list(std::vector<ir::StmtId>(otherwise.begin(), otherwise.end()));
  return p_.add_stmt(s, loc);
}

}  // namespace gridcheck::planner
