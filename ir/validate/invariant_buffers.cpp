#include "ir/validate/invariant_buffers.hpp"

#include "ir/walk.hpp"

namespace gridcheck::ir::validation {

void InvariantBuffers::walk() const {
  walked_ = true;
  const Program& p = p_;
  invariant_.assign(p.name_count(), false);
  std::vector<bool> declared(p.name_count(), false);
  for (const BufferDecl& b : p.buffers()) {
    // Only the first declaration of a name counts (Program::find_buffer); V107 rejects the rest.
    if (index_of(b.name) >= declared.size() || declared[index_of(b.name)]) continue;
    declared[index_of(b.name)] = true;
    invariant_[index_of(b.name)] = b.access == BufferAccess::ReadOnly || b.access == BufferAccess::Uniform;
  }
  const auto written = [&](NameId name) {
    if (index_of(name) < invariant_.size()) invariant_[index_of(name)] = false;
  };
  // Atomics matter only on a buffer declared read or uniform (others are never invariant): when no
  // atomic of the arena, reachable or not, names one, the expressions need no walk.
  bool atomic_on_candidate = false;
  for (std::uint32_t i = 0; i < p.expr_count() && !atomic_on_candidate; ++i) {
    const Expr& e = p.expr(ExprId{i});
    atomic_on_candidate = e.kind == ExprKind::Atomic && index_of(e.buffer()) < invariant_.size() &&
                          invariant_[index_of(e.buffer())];
  }
  bool opaque = false;
  for_each_stmt(p, p.entry(), [&](StmtId id) {
    const Stmt& s = p.stmt(id);
    switch (s.kind) {
      case StmtKind::Store:
      case StmtKind::Assign:
      case StmtKind::AllReduce:
      case StmtKind::Broadcast: written(s.names[0]); break;
      case StmtKind::AllGather:
      case StmtKind::ReduceScatter:
      case StmtKind::AsyncLoad:
      case StmtKind::AsyncStore: written(s.names[1]); break;
      case StmtKind::Opaque: opaque = true; break;
      default: break;
    }
    // Atomics write their buffer wherever they sit (one walk for statements and expressions).
    if (!atomic_on_candidate) return;
    for_each_stmt_operand(s, [&](ExprId root) {
      for_each_expr(p, root, [&](ExprId e) {
        if (p.expr(e).kind == ExprKind::Atomic) written(p.expr(e).buffer());
      });
    });
  });
  if (opaque) invariant_.assign(invariant_.size(), false);
}

}  // namespace gridcheck::ir::validation
