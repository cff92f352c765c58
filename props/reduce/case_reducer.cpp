#include "props/reduce/case_reducer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_set>
#include <vector>

#include "ir/typecheck.hpp"
#include "ir/walk.hpp"

namespace gridcheck::props {
namespace {

using ir::Expr;
using ir::ExprId;
using ir::ExprKind;
using ir::Program;
using ir::Stmt;
using ir::StmtId;
using ir::StmtKind;
using ir::StmtList;

/// One change to a program, addressed by ids of the program it applies to.
struct Edit {
  std::unordered_set<std::uint32_t> deleted;  ///< statements to drop (with their bodies)
  std::optional<StmtId> inlined;              ///< If/Loop/Block/Region replaced by one of its bodies
  bool inline_otherwise = false;              ///< for If: splice the else branch instead of the then branch
  std::optional<ExprId> replaced;             ///< expression to replace
  std::optional<Expr> replacement_literal;    ///< ... by this literal
  int replacement_operand = -1;               ///< ... or by its operand with this index
};

/// Copies `from` applying `edit`; the result is compacted so ids are dense again.
class Rewriter {
 public:
  Rewriter(const Program& from, const Edit& edit) : from_(from), to_(from), edit_(edit) {}

  Program run() {
    to_.set_entry(copy_list(from_.entry()));
    return to_.compacted();
  }

 private:
  std::vector<StmtId> copy_list(StmtList list) {
    std::vector<StmtId> out;
    for (StmtId id : from_.list(list)) {
      if (edit_.deleted.count(ir::index_of(id)) != 0) continue;
      const Stmt& s = from_.stmt(id);
      if (edit_.inlined == id) {
        if (s.kind == StmtKind::Loop) {
          // The loop variable stays declared: `let i = from` before the body.
          Stmt let{StmtKind::Let};
          let.names[0] = s.names[0];
          let.exprs[0] = copy_expr(s.exprs[0]);
          out.push_back(to_.add_stmt(let, from_.loc(id)));
        }
        const std::vector<StmtId> body = copy_list(edit_.inline_otherwise ? s.otherwise : s.body);
        out.insert(out.end(), body.begin(), body.end());
        continue;
      }
      Stmt copy = s;
      for (ExprId& e : copy.exprs) e = copy_expr(e);
      if (copy.has_body()) {
        copy.body = to_.add_list(copy_list(s.body));
        copy.otherwise = to_.add_list(copy_list(s.otherwise));
      }
      out.push_back(to_.add_stmt(copy, from_.loc(id)));
    }
    return out;
  }

  ExprId copy_expr(ExprId id) {
    if (id == ir::kNoExpr) return id;
    if (edit_.replaced == id) {
      if (edit_.replacement_literal) return to_.add_expr(*edit_.replacement_literal, from_.loc(id));
      return copy_expr(from_.expr(id).operands[static_cast<std::size_t>(edit_.replacement_operand)]);
    }
    Expr e = from_.expr(id);
    for (ExprId& operand : e.operands) operand = copy_expr(operand);
    return to_.add_expr(e, from_.loc(id));
  }

  const Program& from_;
  Program to_;
  const Edit& edit_;
};

Program apply(const Program& p, const Edit& edit) { return Rewriter(p, edit).run(); }

std::vector<StmtId> statements_preorder(const Program& p) {
  std::vector<StmtId> out;
  ir::for_each_stmt(p, p.entry(), [&](StmtId id) { out.push_back(id); });
  return out;
}

std::vector<ExprId> expressions_preorder(const Program& p) {
  std::vector<ExprId> out;
  ir::for_each_expr_in(p, p.entry(), [&](ExprId id) { out.push_back(id); });
  return out;
}

/// Every statement list of the program (entry first), for chunked deletion.
std::vector<std::vector<StmtId>> statement_lists(const Program& p) {
  std::vector<std::vector<StmtId>> out;
  auto add = [&](StmtList l) {
    if (l.count > 0) out.emplace_back(p.list(l).begin(), p.list(l).end());
  };
  add(p.entry());
  ir::for_each_stmt(p, p.entry(), [&](StmtId id) {
    const Stmt& s = p.stmt(id);
    if (s.has_body()) add(s.body), add(s.otherwise);
  });
  return out;
}

Expr literal(ir::ScalarType type, std::uint32_t value) {
  Expr e;
  switch (type) {
    case ir::ScalarType::U32: e.kind = ExprKind::LitU32; break;
    case ir::ScalarType::I32: e.kind = ExprKind::LitI32; break;
    case ir::ScalarType::F32:
      e.kind = ExprKind::LitF32;
      value = value == 0 ? 0u : 0x3F800000u;  // 0.0f or 1.0f
      break;
    case ir::ScalarType::Bool: e.kind = ExprKind::LitBool; break;
  }
  e.payload = value;
  return e;
}

bool is_literal_value(const Expr& e, std::uint32_t bits) { return e.is_literal() && e.payload == bits; }

std::unordered_set<std::uint32_t> referenced_buffer_names(const Program& p) {
  std::unordered_set<std::uint32_t> names;
  ir::for_each_stmt(p, p.entry(), [&](StmtId id) {
    const Stmt& s = p.stmt(id);
    switch (s.kind) {
      case StmtKind::Store:
      case StmtKind::AllReduce:
      case StmtKind::Broadcast:
      case StmtKind::IndirectDispatch: names.insert(ir::index_of(s.names[0])); break;
      case StmtKind::AllGather:
      case StmtKind::ReduceScatter:
      case StmtKind::AsyncLoad:
      case StmtKind::AsyncStore:
        names.insert(ir::index_of(s.names[0]));
        names.insert(ir::index_of(s.names[1]));
        break;
      default: break;
    }
  });
  ir::for_each_expr_in(p, p.entry(), [&](ExprId id) {
    const Expr& e = p.expr(id);
    if (e.kind == ExprKind::Load || e.kind == ExprKind::BufLen || e.kind == ExprKind::Atomic)
      names.insert(ir::index_of(e.buffer()));
  });
  return names;
}

class Reducer {
 public:
  Reducer(const ir::Case& start, const Interestingness& interesting, const ReduceOptions& options)
      : best_(start), interesting_(interesting), options_(options) {
    best_.outputs.clear();  // recorded outputs no longer hold once the program changes
  }

  ir::Case run() {
    bool progress = true;
    while (progress && !exhausted()) {
      progress = false;
      progress |= case_level_pass();
      progress |= chunk_deletion_pass();
      progress |= inline_pass();
      progress |= expression_pass();
    }
    return best_;
  }

  ReduceStats stats() const { return stats_; }

 private:
  bool exhausted() const { return stats_.attempts >= options_.max_attempts; }

  bool try_candidate(ir::Case candidate, const std::string& what) {
    if (exhausted()) {
      stats_.budget_exhausted = true;
      return false;
    }
    ++stats_.attempts;
    if (!interesting_(candidate)) return false;
    ++stats_.accepted;
    best_ = std::move(candidate);
    if (options_.on_step) options_.on_step(what);
    return true;
  }

  bool try_program(const Edit& edit, const std::string& what) {
    ir::Case candidate = best_;
    candidate.program = apply(best_.program, edit);
    drop_buffers_no_longer_referenced(candidate);
    return try_candidate(std::move(candidate), what);
  }

  /// Removing a buffer's last use and the buffer itself is one step: the use alone would leave an
  /// unreferenced declaration, which is a different program class (for example an output no
  /// segment produces, docs/vyre-0.7.2.md#b1).
  void drop_buffers_no_longer_referenced(ir::Case& candidate) const {
    const auto before = referenced_buffer_names(best_.program);
    const auto after = referenced_buffer_names(candidate.program);
    auto& buffers = candidate.program.mutable_buffers();
    for (std::size_t i = buffers.size(); i-- > 0;) {
      const std::uint32_t name = ir::index_of(buffers[i].name);
      if (before.count(name) == 0 || after.count(name) != 0) continue;
      const std::string spelled(candidate.program.name(buffers[i].name));
      std::erase_if(candidate.inputs, [&](const ir::InputData& in) { return in.buffer == spelled; });
      buffers.erase(buffers.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }

  // Deletes runs of statements, largest runs first (ddmin over every list).
  bool chunk_deletion_pass() {
    bool any = false;
    bool changed = true;
    while (changed && !exhausted()) {
      changed = false;
      for (const std::vector<StmtId>& list : statement_lists(best_.program)) {
        for (std::size_t chunk = list.size(); chunk >= 1 && !changed; chunk /= 2) {
          for (std::size_t begin = 0; begin < list.size() && !changed; begin += chunk) {
            Edit edit;
            for (std::size_t i = begin; i < std::min(list.size(), begin + chunk); ++i)
              edit.deleted.insert(ir::index_of(list[i]));
            changed = try_program(edit, fmt::format("deleted {} statement(s)", edit.deleted.size()));
          }
        }
        if (changed) break;  // ids changed: enumerate again
      }
      any |= changed;
    }
    return any;
  }

  bool inline_pass() {
    bool any = false;
    bool changed = true;
    while (changed && !exhausted()) {
      changed = false;
      const std::vector<StmtId> stmts = statements_preorder(best_.program);
      for (StmtId id : stmts) {
        // A successful try replaces best_, so nothing may refer into it across try_program.
        if (!best_.program.stmt(id).has_body()) continue;
        const bool is_root = best_.program.entry_stmts().size() == 1 && best_.program.entry_stmts()[0] == id;
        if (is_root) continue;
        const int bodies = best_.program.stmt(id).kind == StmtKind::If ? 2 : 1;
        for (int which = 0; which < bodies && !changed; ++which) {
          Edit edit;
          edit.inlined = id;
          edit.inline_otherwise = which == 1;
          changed = try_program(edit, "inlined a body");
        }
        if (changed) break;
      }
      any |= changed;
    }
    return any;
  }

  bool expression_pass() {
    bool any = false;
    bool changed = true;
    while (changed && !exhausted()) {
      changed = false;
      const auto types = ir::typecheck(best_.program);
      if (!types.ok()) return any;
      for (ExprId id : expressions_preorder(best_.program)) {
        const Expr e = best_.program.expr(id);  // a copy: a successful try replaces best_
        const ir::ScalarType type = (*types)[id];
        // Operands of the same type first (they keep structure), then the literals 0 and 1.
        for (int k = 0; k < e.operand_count() && !changed; ++k) {
          const ExprId operand = e.operands[static_cast<std::size_t>(k)];
          if ((*types)[operand] != type) continue;
          Edit edit;
          edit.replaced = id;
          edit.replacement_operand = k;
          changed = try_program(edit, "replaced an expression by its operand");
        }
        for (std::uint32_t value : {0u, 1u}) {
          if (changed) break;
          const Expr lit = literal(type, value);
          if (is_literal_value(e, lit.payload) && e.kind == lit.kind) continue;
          if (e.is_literal() && value == 1) continue;  // 0 is simpler than any literal; 1 only for non-literals
          Edit edit;
          edit.replaced = id;
          edit.replacement_literal = lit;
          changed = try_program(edit, fmt::format("replaced an expression by {}", value));
        }
        if (changed) break;
      }
      any |= changed;
    }
    return any;
  }

  bool case_level_pass() {
    bool any = false;
    if (best_.fixpoint > 1) {
      ir::Case c = best_;
      c.fixpoint = 1;
      any |= try_candidate(std::move(c), "fixpoint 1");
    }
    if (best_.grid) {
      for (int axis = 0; axis < 3; ++axis) {
        while ((*best_.grid)[axis] > 1 && !exhausted()) {
          ir::Case c = best_;
          (*c.grid)[axis] = (*c.grid)[axis] / 2;
          if (!try_candidate(std::move(c), "halved the grid")) break;
          any = true;
        }
      }
    }
    for (int axis = 0; axis < 3; ++axis) {
      while (best_.program.workgroup_size()[axis] > 1 && !exhausted()) {
        ir::Case c = best_;
        auto wg = c.program.workgroup_size();
        wg[axis] /= 2;
        c.program.set_workgroup_size(wg);
        if (!try_candidate(std::move(c), "halved the workgroup size")) break;
        any = true;
      }
    }
    any |= remove_unreferenced_buffers();
    any |= simplify_inputs();
    return any;
  }

  bool remove_unreferenced_buffers() {
    bool any = false;
    for (std::size_t i = best_.program.buffers().size(); i-- > 0 && !exhausted();) {
      const auto referenced = referenced_buffer_names(best_.program);
      const ir::BufferDecl decl = best_.program.buffers()[i];
      if (referenced.count(ir::index_of(decl.name)) != 0) continue;
      ir::Case c = best_;
      auto& buffers = c.program.mutable_buffers();
      buffers.erase(buffers.begin() + static_cast<std::ptrdiff_t>(i));
      const std::string name(best_.program.name(decl.name));
      std::erase_if(c.inputs, [&](const ir::InputData& in) { return in.buffer == name; });
      any |= try_candidate(std::move(c), fmt::format("removed buffer '{}'", name));
    }
    return any;
  }

  bool simplify_inputs() {
    bool any = false;
    for (std::size_t i = 0; i < best_.inputs.size() && !exhausted(); ++i) {
      for (std::uint32_t value : {0u, 1u}) {
        const ir::InputData& in = best_.inputs[i];
        if (in.kind == ir::InputData::Kind::Fill && in.first <= value) break;
        ir::Case c = best_;
        ir::InputData& target = c.inputs[i];
        if (target.kind == ir::InputData::Kind::Values) target.length = static_cast<std::uint32_t>(target.values.size());
        const ir::BufferDecl* decl = c.program.find_buffer(target.buffer);
        if (decl != nullptr && decl->count != 0) target.length = 0;
        target.kind = ir::InputData::Kind::Fill;
        target.first = value;
        target.values.clear();
        if (try_candidate(std::move(c), fmt::format("input '{}' filled with {}", in.buffer, value))) {
          any = true;
          break;
        }
      }
    }
    return any;
  }

  ir::Case best_;
  const Interestingness& interesting_;
  const ReduceOptions& options_;
  ReduceStats stats_;
};

}  // namespace

std::size_t statement_count(const ir::Program& p) {
  std::size_t n = 0;
  ir::for_each_stmt(p, p.entry(), [&](StmtId) { ++n; });
  return n;
}

ir::Case reduce_case(const ir::Case& start, const Interestingness& interesting, const ReduceOptions& options,
                     ReduceStats* stats) {
  Reducer reducer(start, interesting, options);
  ir::Case result = reducer.run();
  if (stats != nullptr) *stats = reducer.stats();
  return result;
}

}  // namespace gridcheck::props
