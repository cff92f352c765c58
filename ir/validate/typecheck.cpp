#include "ir/typecheck.hpp"

#include <fmt/format.h>

#include "ir/validate/buffer_index.hpp"
#include "ir/validate/scope_stack.hpp"

namespace gridcheck::ir {
namespace {

// Diagnostic codes of type inference (our own "G1xx" range; see docs/engineering.md).
constexpr const char* kUndeclaredVariable = "G100";
constexpr const char* kUnknownBuffer = "G101";
constexpr const char* kOperandTypesDiffer = "G102";
constexpr const char* kOperatorRejectsType = "G103";
constexpr const char* kSelectArmsDiffer = "G104";
constexpr const char* kFmaNotF32 = "V028";
constexpr const char* kAssignChangesType = "G105";

class TypeChecker {
 public:
  TypeChecker(const Program& p, std::string_view file) : p_(p), file_(file), buffers_(p), scope_(p.name_count()) {
    table_.expr_types.assign(p.expr_count(), ScalarType::U32);
    known_.assign(p.expr_count(), 0);
  }

  PartialTypes run_partial() {
    check_list(p_.entry());
    return PartialTypes{std::move(table_), std::move(known_), std::move(diags_), std::move(subjects_)};
  }

  Result<TypeTable> run() {
    check_list(p_.entry());
    if (diags_.has_errors()) return std::move(diags_);
    return std::move(table_);
  }

 private:
  std::optional<ScalarType> lookup(NameId name) const {
    if (const ScalarType* t = scope_.find(name)) return *t;
    return std::nullopt;
  }

  void error(const char* code, ExprId id, std::string message) {
    diags_.error(code, std::string(file_), p_.loc(id), std::move(message));
    subjects_.push_back(PartialTypes::Subject{id, std::nullopt});
  }
  void error(const char* code, StmtId id, std::string message) {
    diags_.error(code, std::string(file_), p_.loc(id), std::move(message));
    subjects_.push_back(PartialTypes::Subject{kNoExpr, id});
  }

  void check_list(StmtList list) {
    const std::size_t mark = scope_.size();
    for (StmtId id : p_.list(list)) check_stmt(id);
    scope_.pop_to(mark);
  }

  void check_stmt(StmtId id) {
    const Stmt& s = p_.stmt(id);
    switch (s.kind) {
      case StmtKind::Let: {
        const auto t = infer(s.exprs[0]);
        scope_.push(s.names[0], t.value_or(ScalarType::U32));
        break;
      }
      case StmtKind::Assign: {
        const auto t = infer(s.exprs[0]);
        const auto declared = lookup(s.names[0]);
        // An assignment to an undeclared name is the validator's V120; only a type change is ours.
        if (t && declared && *t != *declared)
          error(kAssignChangesType, id,
                fmt::format("assignment would change the type of '{}' from {} to {}", p_.name(s.names[0]),
                            name_of(*declared), name_of(*t)));
        break;
      }
      case StmtKind::Loop: {
        infer(s.exprs[0]);
        infer(s.exprs[1]);
        const std::size_t mark = scope_.size();
        scope_.push(s.names[0], ScalarType::U32);
        check_list(s.body);
        scope_.pop_to(mark);
        break;
      }
      case StmtKind::If:
        infer(s.exprs[0]);
        check_list(s.body);
        check_list(s.otherwise);
        break;
      case StmtKind::Block:
      case StmtKind::Region: check_list(s.body); break;
      default:
        for (ExprId e : s.exprs)
          if (e != kNoExpr) infer(e);
        break;
    }
  }

  void set(ExprId id, ScalarType t) {
    table_.expr_types[index_of(id)] = t;
    known_[index_of(id)] = 1;
  }

  std::optional<ScalarType> buffer_element(ExprId id, NameId buffer) {
    const BufferDecl* decl = buffers_.find(buffer);
    if (decl == nullptr) {
      error(kUnknownBuffer, id, fmt::format("unknown buffer '{}'", p_.name(buffer)));
      return std::nullopt;
    }
    return decl->element;
  }

  // Returns the type of `id` (also recorded in the table), or nullopt after reporting an error.
  std::optional<ScalarType> infer(ExprId id) {
    const Expr& e = p_.expr(id);
    std::optional<ScalarType> t;
    switch (e.kind) {
      case ExprKind::LitU32:
      case ExprKind::LitI32:
      case ExprKind::LitF32:
      case ExprKind::LitBool: t = e.literal_type(); break;
      case ExprKind::Var:
        t = lookup(e.var());
        if (!t) error(kUndeclaredVariable, id, fmt::format("undeclared variable '{}'", p_.name(e.var())));
        break;
      case ExprKind::Load:
        infer(e.operands[0]);
        t = buffer_element(id, e.buffer());
        break;
      case ExprKind::BufLen:
        buffer_element(id, e.buffer());
        t = ScalarType::U32;
        break;
      case ExprKind::InvocationId:
      case ExprKind::LocalId:
      case ExprKind::WorkgroupId:
      case ExprKind::NumWorkgroups:
      case ExprKind::WorkgroupSize: t = ScalarType::U32; break;
      case ExprKind::Binary: t = infer_binary(id, e); break;
      case ExprKind::Unary: {
        const auto x = infer(e.operands[0]);
        if (x) {
          t = result_type(e.un_op(), *x);
          if (!t)
            error(kOperatorRejectsType, id,
                  fmt::format("operator '{}' does not accept {}", info(e.un_op()).mnemonic, name_of(*x)));
        }
        break;
      }
      case ExprKind::Select: {
        infer(e.operands[0]);
        const auto a = infer(e.operands[1]);
        const auto b = infer(e.operands[2]);
        if (a && b && *a != *b)
          error(kSelectArmsDiffer, id,
                fmt::format("select arms have different types, {} and {}", name_of(*a), name_of(*b)));
        else
          t = a;
        break;
      }
      case ExprKind::Cast:
        infer(e.operands[0]);
        t = e.cast_target();
        break;
      case ExprKind::Fma: {
        bool all_f32 = true;
        bool all_known = true;
        for (ExprId operand : e.operands) {
          const auto x = infer(operand);
          all_known = all_known && x.has_value();
          all_f32 = all_f32 && x == ScalarType::F32;
        }
        if (all_known && !all_f32) error(kFmaNotF32, id, "fma requires f32 operands");
        if (all_f32) t = ScalarType::F32;
        break;
      }
      case ExprKind::Atomic:
        for (ExprId operand : e.operands)
          if (operand != kNoExpr) infer(operand);
        buffer_element(id, e.buffer());
        t = ScalarType::U32;
        break;
    }
    if (t) set(id, *t);
    return t;
  }

  std::optional<ScalarType> infer_binary(ExprId id, const Expr& e) {
    const auto l = infer(e.operands[0]);
    const auto r = infer(e.operands[1]);
    if (!l || !r) return std::nullopt;
    const BinOpInfo& op = info(e.bin_op());
    const std::string_view spelling = op.infix.empty() ? op.mnemonic : op.infix;
    if (*l != *r) {
      error(kOperandTypesDiffer, id,
            fmt::format("operands of '{}' have different types, {} and {}", spelling, name_of(*l), name_of(*r)));
      return std::nullopt;
    }
    const auto t = result_type(e.bin_op(), *l);
    if (!t)
      error(kOperatorRejectsType, id, fmt::format("operator '{}' does not accept {}", spelling, name_of(*l)));
    return t;
  }

  const Program& p_;
  std::string_view file_;
  TypeTable table_;
  std::vector<std::uint8_t> known_;
  Diagnostics diags_;
  std::vector<PartialTypes::Subject> subjects_;
  validation::BufferIndex buffers_;
  validation::ScopeStack<ScalarType> scope_;
};

}  // namespace

Result<TypeTable> typecheck(const Program& p, std::string_view file) { return TypeChecker(p, file).run(); }

PartialTypes typecheck_partial(const Program& p, std::string_view file) { return TypeChecker(p, file).run_partial(); }

}  // namespace gridcheck::ir
