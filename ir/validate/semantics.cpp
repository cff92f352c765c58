// Phase 2, part 1: scoping (V008, V032, V011, V119, V120), sequences (V112), stores (V036, V063,
// V121, V122), control-flow operand types (V123-V125), atomics (V009, V014, V025, V027, V042, V057,
// V058), collectives and async transfers (V046, V134), and gridcheck's warnings G004-G006, G010.
// Runs only on structurally sound programs: every id is in range and every load, store and atomic
// names a declared buffer.

#include <fmt/format.h>

#include "ir/ops.hpp"
#include "ir/validate/buffer_index.hpp"
#include "ir/validate/internal.hpp"
#include "ir/validate/scope_stack.hpp"
#include "ir/walk.hpp"

namespace gridcheck::ir::validation {
namespace {

/// The value of a u32 or i32 literal, sign-extended.
std::optional<std::int64_t> literal_int(const Expr& e) {
  if (e.kind == ExprKind::LitU32) return std::int64_t{e.payload};
  if (e.kind == ExprKind::LitI32) return std::int64_t{static_cast<std::int32_t>(e.payload)};
  return std::nullopt;
}

/// vyre's store_value_compatible for our scalar subset: same type, a bool flag into a u32 word (and
/// back), or the same-width signedness reinterpretation u32 <-> i32.
bool store_compatible(ScalarType value, ScalarType element) {
  if (value == element) return true;
  auto pair = [&](ScalarType a, ScalarType b) { return value == a && element == b; };
  return pair(ScalarType::Bool, ScalarType::U32) || pair(ScalarType::U32, ScalarType::Bool) ||
         pair(ScalarType::U32, ScalarType::I32) || pair(ScalarType::I32, ScalarType::U32);
}

bool writable(BufferAccess access) {
  return access == BufferAccess::ReadWrite || access == BufferAccess::WriteOnly || access == BufferAccess::Workgroup;
}

class SemanticChecker {
 public:
  SemanticChecker(const Program& p, const PartialTypes& types, const ValidateOptions& options, Sink& sink)
      : p_(p), types_(types), options_(options), sink_(sink), buffers_(p), scope_(p.name_count()) {}

  void run() { walk_list(p_.entry(), std::nullopt); }

 private:
  struct Binding {
    NameId name;
    StmtId declared_at;
    bool loop_var;
    StmtId first_sibling = declared_at;  ///< a let: the first let of its name in its sequence (V032)
  };

  const Binding* lookup(NameId name) const { return scope_.find(name); }

  std::optional<ScalarType> type_of(ExprId id) const {
    if (id == kNoExpr || !types_.has(id)) return std::nullopt;
    return types_.table[id];
  }

  std::string_view name(NameId id) const { return p_.name(id); }

  void walk_list(StmtList list, std::optional<Binding> loop_var) {
    const std::size_t outer_sequence = sequence_begin_;
    sequence_begin_ = scope_.size();
    if (loop_var) scope_.push(loop_var->name, *loop_var);
    const auto stmts = p_.list(list);
    bool reported_return = false;
    for (std::size_t i = 0; i < stmts.size(); ++i) {
      visit(stmts[i]);
      if (!reported_return && p_.stmt(stmts[i]).kind == StmtKind::Return && i + 1 < stmts.size()) {
        const std::size_t after = stmts.size() - i - 1;
        sink_.at(kErr, "V112", stmts[i],
                 fmt::format("return is followed by {} unreachable statement{}; it must be the last of its sequence",
                             after, after == 1 ? "" : "s"));
        reported_return = true;
      }
    }
    scope_.pop_to(sequence_begin_);
    sequence_begin_ = outer_sequence;
  }

  void check_operands(StmtId id) {
    for_each_stmt_operand(p_.stmt(id), [&](ExprId root) {
      for_each_expr(p_, root, [&](ExprId e) { check_expr(id, e); });
    });
  }

  void check_shadowing(StmtId id, NameId local, std::string_view what) {
    const Binding* outer = lookup(local);
    if (outer == nullptr || options_.allow_shadowing) return;
    sink_.at(kErr, "V008", id, fmt::format("{} '{}' shadows a binding of the same name", what, name(local)));
    sink_.note(outer->declared_at, fmt::format("'{}' is declared here", name(local)));
  }

  void visit(StmtId id) {
    const Stmt& s = p_.stmt(id);
    check_operands(id);
    switch (s.kind) {
      case StmtKind::Let: {
        const NameId local = s.names[0];
        // Bindings of this sequence lie above sequence_begin_, and a let of this sequence hides every
        // other binding of its name, so the innermost binding tells whether a sibling let exists.
        const std::size_t innermost = scope_.innermost(local);
        const bool has_sibling =
            innermost != scope_.npos && innermost >= sequence_begin_ && !scope_[innermost].loop_var;
        const Binding* sibling = has_sibling ? &scope_[innermost] : nullptr;
        Binding binding{local, id, false};
        if (sibling != nullptr) {
          binding.first_sibling = sibling->first_sibling;
          sink_.at(kErr, "V032", id, fmt::format("duplicate let '{}' in the same scope", name(local)));
          sink_.note(sibling->first_sibling, fmt::format("'{}' is first declared here", name(local)));
        } else {
          check_shadowing(id, local, "let");
        }
        scope_.push(local, binding);
        break;
      }
      case StmtKind::Assign: check_assign(id, s); break;
      case StmtKind::Store: check_store(id, s); break;
      case StmtKind::If:
        if (auto t = type_of(s.exprs[0]); t && *t != ScalarType::U32 && *t != ScalarType::Bool)
          sink_.at(kErr, "V123", id, fmt::format("if condition has type {}; it must be u32 or bool", name_of(*t)),
                   s.exprs[0]);
        walk_list(s.body, std::nullopt);
        walk_list(s.otherwise, std::nullopt);
        break;
      case StmtKind::Loop:
        if (auto t = type_of(s.exprs[0]); t && *t != ScalarType::U32)
          sink_.at(kErr, "V124", id, fmt::format("loop lower bound has type {}; it must be u32", name_of(*t)),
                   s.exprs[0]);
        if (auto t = type_of(s.exprs[1]); t && *t != ScalarType::U32)
          sink_.at(kErr, "V125", id, fmt::format("loop upper bound has type {}; it must be u32", name_of(*t)),
                   s.exprs[1]);
        check_shadowing(id, s.names[0], "loop variable");
        walk_list(s.body, Binding{s.names[0], id, true});
        break;
      case StmtKind::Block:
      case StmtKind::Region: walk_list(s.body, std::nullopt); break;
      case StmtKind::AllReduce:
      case StmtKind::Broadcast:
      case StmtKind::AllGather:
      case StmtKind::ReduceScatter: check_collective(id, s); break;
      case StmtKind::AsyncLoad:
      case StmtKind::AsyncStore: check_async(id, s); break;
      default: break;
    }
  }

  void check_assign(StmtId id, const Stmt& s) {
    const NameId target = s.names[0];
    if (const Binding* b = lookup(target)) {
      if (b->loop_var) {
        sink_.at(kErr, "V011", id, fmt::format("assignment to loop variable '{}'; loop variables are immutable",
                                               name(target)));
        sink_.note(b->declared_at, "the loop is here");
      }
      return;
    }
    if (const BufferDecl* buffer = buffers_.find(target)) {
      if (buffer->access != BufferAccess::ReadWrite)
        sink_.at(kErr, "V119", id,
                 fmt::format("assignment to {} buffer '{}'; only a read_write buffer may be assigned",
                             name_of(buffer->access), name(target)));
      else
        sink_.at(kErr, "G009", id,
                 fmt::format("assignment to buffer '{}'; write buffer elements with a store", name(target)));
      return;
    }
    sink_.at(kErr, "V120", id, fmt::format("assignment to undeclared variable '{}'", name(target)));
  }

  void check_store(StmtId id, const Stmt& s) {
    const BufferDecl* buffer = buffers_.find(s.names[0]);
    if (buffer == nullptr) return;  // phase 1 reported it
    const std::string_view bname = name(s.names[0]);
    if (!writable(buffer->access))
      sink_.at(kErr, "V063", id, fmt::format("store into {} buffer '{}', which is not writable",
                                             name_of(buffer->access), bname));
    const ExprId index = s.exprs[0];
    if (auto t = type_of(index); t && *t != ScalarType::U32)
      sink_.at(kErr, "V122", id, fmt::format("store index has type {}; it must be u32", name_of(*t)), index);
    if (auto lit = literal_int(p_.expr(index))) {
      if (*lit < 0)
        sink_.at(kErr, "V036", id, fmt::format("store index {} into '{}' is negative", *lit, bname), index);
      else if (buffer->count > 0 && *lit >= buffer->count)
        sink_.at(kErr, "V036", id,
                 fmt::format("store index {} is out of bounds for '{}' (count {})", *lit, bname, buffer->count), index);
    }
    if (auto t = type_of(s.exprs[1]); t && !store_compatible(*t, buffer->element))
      sink_.at(kErr, "V121", id,
               fmt::format("stored value has type {} but '{}' holds {}", name_of(*t), bname, name_of(buffer->element)),
               s.exprs[1]);
  }

  void check_collective(StmtId id, const Stmt& s) {
    if (!options_.allow_collectives)
      sink_.at(kErr, "V046", id,
               fmt::format("{} needs backend collective support, which default validation does not assume",
                           describe(p_, id)));
    const bool pair = s.kind == StmtKind::AllGather || s.kind == StmtKind::ReduceScatter;
    const BufferDecl* decls[2] = {nullptr, nullptr};
    for (int slot = 0; slot < (pair ? 2 : 1); ++slot) {
      decls[slot] = buffers_.find(s.names[slot]);
      if (decls[slot] == nullptr)
        sink_.at(kErr, "V046", id, fmt::format("collective names unknown buffer '{}'", name(s.names[slot])));
      else if (decls[slot]->access == BufferAccess::Workgroup)
        sink_.at(kErr, "V046", id,
                 fmt::format("collective buffer '{}' is workgroup memory; it must be device storage",
                             name(s.names[slot])));
    }
    if (pair && decls[0] && decls[1] && decls[0]->element != decls[1]->element)
      sink_.at(kErr, "V046", id,
               fmt::format("collective input '{}' holds {} but output '{}' holds {}", name(s.names[0]),
                           name_of(decls[0]->element), name(s.names[1]), name_of(decls[1]->element)));
  }

  void check_async(StmtId id, const Stmt& s) {
    for (int slot = 0; slot < 2; ++slot)
      if (buffers_.find(s.names[slot]) == nullptr)
        sink_.at(kWarn, "G010", id,
                 fmt::format("async {} '{}' is not a declared buffer; vyre treats it as a storage tier the dispatch "
                             "does not bind",
                             slot == 0 ? "source" : "destination", name(s.names[slot])));
    if (const BufferDecl* dest = buffers_.find(s.names[1]); dest && !writable(dest->access))
      sink_.at(kErr, "V134", id,
               fmt::format("async transfer writes into {} buffer '{}', which is not writable", name_of(dest->access),
                           name(s.names[1])));
  }

  void check_literal_index(StmtId id, const Expr& e, ExprId index, const BufferDecl& buffer, bool atomic) {
    const auto lit = literal_int(p_.expr(index));
    if (!lit) return;
    const std::string_view what = atomic ? "atomic" : "load";
    if (*lit < 0)
      sink_.at(kWarn, "G005", id, fmt::format("{} index {} is negative; the {} traps", what, *lit, what), index);
    else if (buffer.count > 0 && *lit >= buffer.count)
      sink_.at(kWarn, "G005", id,
               fmt::format("{} index {} is out of bounds for '{}' (count {}); {}", what, *lit, name(NameId{e.payload}),
                           buffer.count, atomic ? "it writes nothing and returns zero" : "it reads zero"),
               index);
  }

  void check_expr(StmtId id, ExprId eid) {
    const Expr& e = p_.expr(eid);
    switch (e.kind) {
      case ExprKind::Load: {
        const BufferDecl* buffer = buffers_.find(e.buffer());
        if (buffer == nullptr) return;
        if (buffer->access == BufferAccess::WriteOnly)
          sink_.at(kWarn, "G004", id,
                   fmt::format("load from write_only buffer '{}'; a GPU lowering with a writeonly qualifier "
                               "cannot read it",
                               name(e.buffer())),
                   eid);
        check_literal_index(id, e, e.operands[0], *buffer, false);
        break;
      }
      case ExprKind::Atomic: check_atomic(id, eid, e); break;
      case ExprKind::Binary: {
        const BinOp op = e.bin_op();
        if (op != BinOp::Div && op != BinOp::Mod) break;
        const Expr& rhs = p_.expr(e.operands[1]);
        if (type_of(e.operands[0]) == ScalarType::I32 && rhs.kind == ExprKind::LitI32 && rhs.payload == 0)
          sink_.at(kWarn, "G006", id,
                   fmt::format("i32 {} by a literal zero traps when it is reached",
                               op == BinOp::Div ? "division" : "remainder"),
                   eid);
        break;
      }
      default: break;
    }
  }

  void check_atomic(StmtId id, ExprId eid, const Expr& e) {
    const BufferDecl* buffer = buffers_.find(e.buffer());
    if (buffer == nullptr) return;
    const std::string_view op = info(e.atomic_op()).mnemonic;
    const std::string_view bname = name(e.buffer());
    if (!is_valid_for_rmw(e.ordering))
      sink_.at(kErr, "V042", id,
               fmt::format("{} uses ordering {}, which is not valid for a read-modify-write", op,
                           name_of(e.ordering)),
               eid);
    if (buffer->access == BufferAccess::Workgroup)
      sink_.at(kErr, "V025", id, fmt::format("{} on workgroup buffer '{}'; atomics need read_write storage", op, bname),
               eid);
    else if (buffer->access != BufferAccess::ReadWrite)
      sink_.at(kErr, "V009", id,
               fmt::format("{} on {} buffer '{}'; atomics need read_write storage", op, name_of(buffer->access), bname),
               eid);
    if (buffer->element != ScalarType::U32)
      sink_.at(kErr, "V014", id,
               fmt::format("{} on '{}', which holds {}; atomics need u32 elements", op, bname,
                           name_of(buffer->element)),
               eid);
    if (auto t = type_of(e.operands[0]); t && *t != ScalarType::U32)
      sink_.at(kErr, "V027", id, fmt::format("atomic index has type {}; it must be u32", name_of(*t)), e.operands[0]);
    if (auto t = type_of(e.operands[1]); t && *t != ScalarType::U32)
      sink_.at(kErr, "V057", id, fmt::format("atomic value has type {}; it must be u32", name_of(*t)), e.operands[1]);
    if (e.operands[2] != kNoExpr)
      if (auto t = type_of(e.operands[2]); t && *t != ScalarType::U32)
        sink_.at(kErr, "V058", id, fmt::format("expected value has type {}; it must be u32", name_of(*t)),
                 e.operands[2]);
    check_literal_index(id, e, e.operands[0], *buffer, true);
  }

  const Program& p_;
  const PartialTypes& types_;
  const ValidateOptions& options_;
  Sink& sink_;
  BufferIndex buffers_;
  ScopeStack<Binding> scope_;
  std::size_t sequence_begin_ = 0;  ///< scope_.size() when the innermost sequence began
};

}  // namespace

void check_semantics(const Program& p, const PartialTypes& types, const ValidateOptions& options, Sink& sink) {
  SemanticChecker(p, types, options, sink).run();
}

}  // namespace gridcheck::ir::validation
