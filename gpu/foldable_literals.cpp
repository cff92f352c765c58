#include "gpu/foldable_literals.hpp"

#include <set>

#include "ir/walk.hpp"

namespace gridcheck::gpu {
namespace {

using ir::BinOp;
using ir::ExprId;
using ir::ExprKind;
using ir::ScalarType;
using ir::StmtKind;
using ir::UnOp;

bool is_integer(ScalarType t) { return t == ScalarType::U32 || t == ScalarType::I32; }

/// Integer operators whose result is an integer computed from the operands' integer values alone.
bool is_integer_arithmetic(BinOp op) {
  switch (op) {
    case BinOp::Add: case BinOp::Sub: case BinOp::Mul: case BinOp::Div: case BinOp::Mod:
    case BinOp::WrappingAdd: case BinOp::WrappingSub: case BinOp::BitAnd: case BinOp::BitOr: case BinOp::BitXor:
    case BinOp::Shl: case BinOp::Shr: case BinOp::AbsDiff: case BinOp::Min: case BinOp::Max:
    case BinOp::SaturatingAdd: case BinOp::SaturatingSub: case BinOp::SaturatingMul:
    case BinOp::RotateLeft: case BinOp::RotateRight: case BinOp::MulHigh:
      return true;
    default:
      return false;
  }
}

bool is_comparison(BinOp op) {
  return op == BinOp::Eq || op == BinOp::Ne || op == BinOp::Lt || op == BinOp::Gt || op == BinOp::Le || op == BinOp::Ge;
}

bool is_integer_unary(UnOp op) {
  return op == UnOp::BitNot || op == UnOp::Popcount || op == UnOp::Clz || op == UnOp::Ctz || op == UnOp::ReverseBits ||
         op == UnOp::Negate || op == UnOp::Abs;
}

/// Where a word goes: only into an index or a branch decision (Steer), or possibly into a value (Value).
enum class Use : std::uint8_t { Steer, Value };

class Analysis {
 public:
  Analysis(const ir::Program& p, const ir::TypeTable& types)
      : p_(p), types_(types), steer_(p.expr_count(), false), value_(p.expr_count(), false) {}

  std::vector<bool> run() {
    ir::for_each_stmt(p_, p_.entry(), [&](ir::StmtId id) { visit_stmt(p_.stmt(id)); });
    // What a local is given (a `let`, an assignment, a loop's bounds) steers only when the local does. Visiting
    // those expressions can make more names escape (a `let` that reads another local as a value), so repeat
    // until no name is added; visits are remembered, so each round only does new work.
    std::size_t escaping = 0;
    do {
      escaping = escaping_names_.size();
      for (const ir::Stmt* s : bindings_) {
        const Use use = escaping_names_.count(ir::index_of(s->names[0])) > 0 ? Use::Value : Use::Steer;
        visit(s->exprs[0], use);
        visit(s->exprs[1], use);
      }
    } while (escaping_names_.size() != escaping);
    std::vector<bool> foldable(p_.expr_count(), false);
    for (std::size_t i = 0; i < foldable.size(); ++i) {
      if (!steer_[i] || value_[i]) continue;
      const ExprKind k = p_.expr(ExprId{static_cast<std::uint32_t>(i)}).kind;
      foldable[i] = k == ExprKind::LitU32 || k == ExprKind::LitI32 || k == ExprKind::LitBool || k == ExprKind::WorkgroupSize;
    }
    return foldable;
  }

 private:
  void visit_stmt(const ir::Stmt& s) {
    switch (s.kind) {
      case StmtKind::Store:
        visit(s.exprs[0], Use::Steer);
        visit(s.exprs[1], Use::Value);
        return;
      case StmtKind::If:
        visit(s.exprs[0], Use::Steer);
        return;
      case StmtKind::Let:
      case StmtKind::Assign:
      case StmtKind::Loop:
        bindings_.push_back(&s);  // visited once every local's uses are known
        return;
      default:
        ir::for_each_stmt_operand(s, [&](ExprId e) { visit(e, Use::Value); });
        return;
    }
  }

  void visit(ExprId id, Use use) {
    if (id == ir::kNoExpr) return;
    const std::size_t i = ir::index_of(id);
    std::vector<bool>& seen = use == Use::Steer ? steer_ : value_;
    if (seen[i]) return;  // its operands were visited with this use already
    seen[i] = true;
    const ir::Expr& e = p_.expr(id);
    switch (e.kind) {
      case ExprKind::Var:
        if (use == Use::Value) escaping_names_.insert(ir::index_of(e.var()));
        return;
      case ExprKind::Load:
        visit(e.operands[0], Use::Steer);
        return;
      case ExprKind::Select:  // the condition only chooses an arm; the arms are the value
        visit(e.operands[0], Use::Steer);
        visit(e.operands[1], Use::Value);
        visit(e.operands[2], Use::Value);
        return;
      case ExprKind::Atomic:
        visit(e.operands[0], Use::Steer);
        visit(e.operands[1], Use::Value);
        visit(e.operands[2], Use::Value);
        return;
      case ExprKind::Binary: {
        const bool integer_operands = is_integer(types_[e.operands[0]]);
        const BinOp op = e.bin_op();
        const bool passes = (integer_operands && (is_integer_arithmetic(op) || is_comparison(op))) ||
                            op == BinOp::And || op == BinOp::Or;
        visit(e.operands[0], passes ? use : Use::Value);
        visit(e.operands[1], passes ? use : Use::Value);
        return;
      }
      case ExprKind::Unary: {
        const UnOp op = e.un_op();
        const bool passes = (is_integer(types_[e.operands[0]]) && is_integer_unary(op)) || op == UnOp::LogicalNot;
        visit(e.operands[0], passes ? use : Use::Value);
        return;
      }
      default:
        for (ExprId operand : e.operands) visit(operand, Use::Value);
        return;
    }
  }

  const ir::Program& p_;
  const ir::TypeTable& types_;
  std::vector<bool> steer_;  ///< reached in a steering context at least once
  std::vector<bool> value_;  ///< reached in a value context at least once
  std::set<std::uint32_t> escaping_names_;
  std::vector<const ir::Stmt*> bindings_;  ///< the `let`s, assignments and loops, by their local
};

}  // namespace

std::vector<bool> foldable_literals(const ir::Program& program, const ir::TypeTable& types) {
  return Analysis(program, types).run();
}

}  // namespace gridcheck::gpu
