#pragma once
// Generic pre-order traversals over the arena. Visitors receive ids; they never see raw pointers
// that could dangle when a program grows.

#include "ir/program.hpp"

namespace gridcheck::ir {

/// Calls fn(ExprId) for `root` and every sub-expression, parents before operands.
template <typename Fn>
void for_each_expr(const Program& p, ExprId root, Fn&& fn) {
  if (root == kNoExpr) return;
  fn(root);
  const Expr& e = p.expr(root);
  for (ExprId operand : e.operands)
    if (operand != kNoExpr) for_each_expr(p, operand, fn);
}

/// Calls fn(ExprId) for each top-level operand expression of a statement (not its body).
template <typename Fn>
void for_each_stmt_operand(const Stmt& s, Fn&& fn) {
  for (ExprId e : s.exprs)
    if (e != kNoExpr) fn(e);
}

/// Calls fn(StmtId) for every statement of `list` and of every nested body, parents first
/// (an If's then-branch before its else-branch).
template <typename Fn>
void for_each_stmt(const Program& p, StmtList list, Fn&& fn) {
  for (StmtId id : p.list(list)) {
    fn(id);
    const Stmt& s = p.stmt(id);
    if (s.has_body()) {
      for_each_stmt(p, s.body, fn);
      for_each_stmt(p, s.otherwise, fn);
    }
  }
}

/// Calls fn(ExprId) for every expression reachable from `list`, sub-expressions included.
template <typename Fn>
void for_each_expr_in(const Program& p, StmtList list, Fn&& fn) {
  for_each_stmt(p, list, [&](StmtId id) {
    for_each_stmt_operand(p.stmt(id), [&](ExprId e) { for_each_expr(p, e, fn); });
  });
}

}  // namespace gridcheck::ir
