#include "planner/stmt_queries.hpp"

#include <fmt/format.h>

#include "ir/walk.hpp"

namespace gridcheck::planner {
namespace {

template <typename Pred>
bool any_stmt(const ir::Program& p, std::span<const ir::StmtId> list, const Pred& pred) {
  for (ir::StmtId id : list) {
    const ir::Stmt& s = p.stmt(id);
    if (pred(s)) return true;
    if (s.has_body() && (any_stmt(p, p.list(s.body), pred) || any_stmt(p, p.list(s.otherwise), pred))) return true;
  }
  return false;
}

template <typename Fn>
void each_stmt(const ir::Program& p, std::span<const ir::StmtId> list, const Fn& fn) {
  for (ir::StmtId id : list) {
    const ir::Stmt& s = p.stmt(id);
    fn(s);
    if (s.has_body()) {
      each_stmt(p, p.list(s.body), fn);
      each_stmt(p, p.list(s.otherwise), fn);
    }
  }
}

bool is_workgroup_barrier(const ir::Stmt& s) { return s.kind == ir::StmtKind::Barrier && !s.is_fence(); }

}  // namespace

bool has_fence(const ir::Program& p, std::span<const ir::StmtId> list) {
  return any_stmt(p, list, [](const ir::Stmt& s) { return s.is_fence(); });
}
bool has_fence(const ir::Program& p, ir::StmtId id) { return has_fence(p, std::span<const ir::StmtId>(&id, 1)); }

bool has_workgroup_barrier(const ir::Program& p, std::span<const ir::StmtId> list) {
  return any_stmt(p, list, is_workgroup_barrier);
}
bool has_workgroup_barrier(const ir::Program& p, ir::StmtId id) {
  return has_workgroup_barrier(p, std::span<const ir::StmtId>(&id, 1));
}

bool has_return(const ir::Program& p, std::span<const ir::StmtId> list) {
  return any_stmt(p, list, [](const ir::Stmt& s) { return s.kind == ir::StmtKind::Return; });
}
bool has_return(const ir::Program& p, ir::StmtId id) { return has_return(p, std::span<const ir::StmtId>(&id, 1)); }

void LocalUses::mark(ir::NameId n, std::uint8_t bit) {
  const std::uint32_t i = ir::index_of(n);
  if (i >= flags_.size()) flags_.resize(std::size_t{i} + 1, 0);  // a name beyond the table (not in valid IR)
  flags_[i] = static_cast<std::uint8_t>(flags_[i] | bit);
}

void collect_local_uses(const ir::Program& p, std::span<const ir::StmtId> list, LocalUses& out) {
  if (out.flags_.size() < p.name_count()) out.flags_.resize(p.name_count(), 0);
  const auto reads = [&](const auto& self, ir::ExprId id) -> void {
    const ir::Expr& e = p.expr(id);
    if (e.kind == ir::ExprKind::Var) out.mark(e.var(), LocalUses::kRead);
    for (ir::ExprId operand : e.operands)
      if (operand != ir::kNoExpr) self(self, operand);
  };
  each_stmt(p, list, [&](const ir::Stmt& s) {
    if (s.kind == ir::StmtKind::Assign) out.mark(s.names[0], LocalUses::kAssign);
    for (ir::ExprId root : s.exprs)
      if (root != ir::kNoExpr) reads(reads, root);
  });
}

std::unordered_set<std::string> bound_names(const ir::Program& p) {
  std::unordered_set<std::string> names;
  for (const ir::BufferDecl& b : p.buffers()) names.emplace(p.name(b.name));
  each_stmt(p, p.entry_stmts(), [&](const ir::Stmt& s) {
    if (s.kind == ir::StmtKind::Let || s.kind == ir::StmtKind::Loop) names.emplace(p.name(s.names[0]));
  });
  return names;
}

bool binds_name_starting_with(const ir::Program& p, std::string_view prefix) {
  bool found = false;
  for (const ir::BufferDecl& b : p.buffers()) found = found || p.name(b.name).starts_with(prefix);
  each_stmt(p, p.entry_stmts(), [&](const ir::Stmt& s) {
    if (s.kind == ir::StmtKind::Let || s.kind == ir::StmtKind::Loop) found = found || p.name(s.names[0]).starts_with(prefix);
  });
  return found;
}

bool is_grid_invariant(const ir::Program& p, ir::ExprId root, std::string* why) {
  bool ok = true;
  ir::for_each_expr(p, root, [&](ir::ExprId id) {
    if (!ok) return;
    const ir::Expr& e = p.expr(id);
    switch (e.kind) {
      case ir::ExprKind::LitU32:
      case ir::ExprKind::LitI32:
      case ir::ExprKind::LitF32:
      case ir::ExprKind::LitBool:
      case ir::ExprKind::BufLen:
      case ir::ExprKind::NumWorkgroups:
      case ir::ExprKind::WorkgroupSize:
      case ir::ExprKind::Binary:
      case ir::ExprKind::Unary:
      case ir::ExprKind::Select:
      case ir::ExprKind::Cast:
      case ir::ExprKind::Fma: return;
      case ir::ExprKind::Var:
        ok = false;
        if (why) *why = fmt::format("the local `{}`", p.name(e.var()));
        return;
      case ir::ExprKind::Load:
        ok = false;
        if (why) *why = fmt::format("a load from `{}`", p.name(e.buffer()));
        return;
      case ir::ExprKind::InvocationId:
      case ir::ExprKind::LocalId:
      case ir::ExprKind::WorkgroupId:
        ok = false;
        if (why)
          *why = e.kind == ir::ExprKind::InvocationId ? "the invocation id"
                 : e.kind == ir::ExprKind::LocalId    ? "the local invocation id"
                                                      : "the workgroup id";
        return;
      case ir::ExprKind::Atomic:
        ok = false;
        if (why) *why = fmt::format("an atomic on `{}`", p.name(e.buffer()));
        return;
    }
  });
  return ok;
}

bool is_recomputable(const ir::Program& p, ir::ExprId root) {
  bool ok = true;
  ir::for_each_expr(p, root, [&](ir::ExprId id) {
    const ir::ExprKind k = p.expr(id).kind;
    ok = ok && k != ir::ExprKind::Var && k != ir::ExprKind::Load && k != ir::ExprKind::Atomic;
  });
  return ok;
}

bool is_speculatable(const ir::Program& p, ir::ExprId root, const ir::TypeTable* types) {
  bool ok = true;
  ir::for_each_expr(p, root, [&](ir::ExprId id) {
    if (!ok) return;
    const ir::Expr& e = p.expr(id);
    if (e.kind == ir::ExprKind::Load || e.kind == ir::ExprKind::Atomic) {
      ok = false;
      return;
    }
    if (e.kind != ir::ExprKind::Binary || (e.bin_op() != ir::BinOp::Div && e.bin_op() != ir::BinOp::Mod)) return;
    const ir::ExprId lhs = e.operands[0];
    if (types != nullptr && ir::index_of(lhs) < types->expr_types.size() && (*types)[lhs] != ir::ScalarType::I32)
      return;  // u32 x/0 and f32 division are defined
    const ir::Expr& divisor = p.expr(e.operands[1]);
    if (divisor.kind == ir::ExprKind::LitU32 || divisor.kind == ir::ExprKind::LitF32) return;
    if (divisor.kind == ir::ExprKind::LitI32 && divisor.payload != 0 && divisor.payload != 0xFFFFFFFFu) return;
    ok = false;  // i32 x / 0 and MIN / -1 trap
  });
  return ok;
}

bool is_noop(const ir::Program& p, ir::StmtId id, const ir::TypeTable* types) {
  const ir::Stmt& s = p.stmt(id);
  auto all_noop = [&](ir::StmtList list) {
    for (ir::StmtId child : p.list(list))
      if (!is_noop(p, child, types)) return false;
    return true;
  };
  switch (s.kind) {
    case ir::StmtKind::Block:
    case ir::StmtKind::Region: return all_noop(s.body);
    case ir::StmtKind::If: return is_speculatable(p, s.exprs[0], types) && all_noop(s.body) && all_noop(s.otherwise);
    default: return false;
  }
}

std::optional<std::uint32_t> u32_literal(const ir::Program& p, ir::ExprId e) {
  if (e == ir::kNoExpr || p.expr(e).kind != ir::ExprKind::LitU32) return std::nullopt;
  return p.expr(e).payload;
}

std::size_t statement_count(const ir::Program& p, std::span<const ir::StmtId> list) {
  std::size_t n = 0;
  each_stmt(p, list, [&](const ir::Stmt&) { ++n; });
  return n;
}

}  // namespace gridcheck::planner
