// Phase 2, part 2: barriers and control-flow uniformity.
//
// Two analyses run side by side over one walk:
//  * vyre's (V010, V055), reproduced exactly: a value is workgroup-uniform when it is built from
//    literals, buf_len, the workgroup id (and our workgroup count and size) and uniform locals; a
//    `let` takes its value's uniformity, an `assign` can only clear it (`u = u && uniform(value)`),
//    a loop variable is uniform when the bounds are and the loop itself is not in divergent flow.
//    The walk is a single pre-order pass, as vyre's.
//  * ours, a three-level lattice (grid-uniform < varies per workgroup < varies per invocation) that is
//    sound where vyre's is not: an assignment under divergent control flow makes the local divergent,
//    and loop-carried assignments are iterated to a fixpoint. It gives G003 (a barrier that V010
//    misses), G002 (a grid_sync whose control depends on the workgroup id, docs/vyre-0.7.2.md#g6) and G001 (a
//    grid_sync nested under grid-uniform control flow, valid but not hoisted by the split, G5).
//    By construction it is never less strict than vyre's, so V010 always wins when both fire.

#include <fmt/format.h>

#include <algorithm>

#include <map>
#include <set>

#include "ir/validate/internal.hpp"
#include "ir/walk.hpp"

namespace gridcheck::ir::validation {
namespace {

// Our uniformity lattice.
enum Level : std::uint8_t { kGridUniform = 0, kPerWorkgroup = 1, kPerInvocation = 2 };

bool acquires(MemoryOrdering o) {
  return o == MemoryOrdering::Acquire || o == MemoryOrdering::AcqRel || o == MemoryOrdering::SeqCst;
}

// ------------------------------------------------------------------------------ V055 (vyre exact)

/// The state of vyre's barrier-settled exit proof (exit_uniformity.rs).
struct ExitState {
  std::map<std::uint32_t, bool> scope;  ///< local -> workgroup-uniform
  std::set<std::uint32_t> dirty;        ///< buffers written since the last acquiring barrier
  bool loads_settled = false;
  bool unknown_write = false;
  friend bool operator==(const ExitState&, const ExitState&) = default;
};

struct ExitProof {
  bool has_return = false;
  bool all_collective = true;
  void merge(ExitProof other) {
    has_return = has_return || other.has_return;
    all_collective = all_collective && other.all_collective;
  }
};

ExitState merge_states(ExitState left, const ExitState& right) {
  left.dirty.insert(right.dirty.begin(), right.dirty.end());
  left.loads_settled = left.loads_settled && right.loads_settled;
  left.unknown_write = left.unknown_write || right.unknown_write;
  for (auto it = left.scope.begin(); it != left.scope.end();) {
    auto other = right.scope.find(it->first);
    if (other == right.scope.end()) {
      it = left.scope.erase(it);
    } else {
      it->second = it->second && other->second;
      ++it;
    }
  }
  return left;
}

class ExitAnalysis {
 public:
  explicit ExitAnalysis(const Program& p) : p_(p) {}

  /// True when every return after the last straight-line barrier of `steps` is collective.
  bool exits_are_uniform(std::span<const StmtId> steps, ExitState state) {
    std::optional<std::size_t> last_barrier;
    for (std::size_t i = 0; i < steps.size(); ++i)
      if (p_.stmt(steps[i]).kind == StmtKind::Barrier) last_barrier = i;
    if (!last_barrier) return false;
    state.loads_settled = acquires(p_.stmt(steps[*last_barrier]).ordering());
    ExitProof proof;
    for (std::size_t i = *last_barrier + 1; i < steps.size(); ++i) proof.merge(node(steps[i], state, true));
    return proof.has_return && proof.all_collective;
  }

 private:
  bool uniform(ExprId id, const ExitState& st) const {
    const Expr& e = p_.expr(id);
    switch (e.kind) {
      case ExprKind::LitU32:
      case ExprKind::LitI32:
      case ExprKind::LitF32:
      case ExprKind::LitBool:
      case ExprKind::BufLen:
      case ExprKind::WorkgroupId:
      case ExprKind::NumWorkgroups:
      case ExprKind::WorkgroupSize: return true;
      case ExprKind::Var: {
        auto it = st.scope.find(e.payload);
        return it != st.scope.end() && it->second;
      }
      case ExprKind::Load:
        return st.loads_settled && !st.unknown_write && !st.dirty.contains(e.payload) && uniform(e.operands[0], st);
      case ExprKind::InvocationId:
      case ExprKind::LocalId:
      case ExprKind::Atomic: return false;
      case ExprKind::Binary:
      case ExprKind::Unary:
      case ExprKind::Select:
      case ExprKind::Cast:
      case ExprKind::Fma:
        for (ExprId operand : e.operands)
          if (operand != kNoExpr && !uniform(operand, st)) return false;
        return true;
    }
    return false;
  }

  void invalidate_atomics(ExprId root, ExitState& st) const {
    if (root == kNoExpr) return;
    for_each_expr(p_, root, [&](ExprId id) {
      const Expr& e = p_.expr(id);
      if (e.kind == ExprKind::Atomic) st.dirty.insert(e.payload);
    });
  }

  ExitProof sequence(StmtList list, ExitState& st, bool path_uniform) {
    ExitProof proof;
    for (StmtId id : p_.list(list)) proof.merge(node(id, st, path_uniform));
    return proof;
  }

  ExitProof node(StmtId id, ExitState& st, bool path_uniform) {
    const Stmt& s = p_.stmt(id);
    switch (s.kind) {
      case StmtKind::Let:
      case StmtKind::Assign: {
        const bool u = uniform(s.exprs[0], st);
        invalidate_atomics(s.exprs[0], st);
        if (s.kind == StmtKind::Let)
          st.scope[index_of(s.names[0])] = u;
        else if (auto it = st.scope.find(index_of(s.names[0])); it != st.scope.end())
          it->second = u;
        return {};
      }
      case StmtKind::Store:
        invalidate_atomics(s.exprs[0], st);
        invalidate_atomics(s.exprs[1], st);
        st.dirty.insert(index_of(s.names[0]));
        return {};
      case StmtKind::If: {
        const bool cond_uniform = uniform(s.exprs[0], st);
        invalidate_atomics(s.exprs[0], st);
        ExitState then_state = st;
        ExitState else_state = st;
        ExitProof proof = sequence(s.body, then_state, path_uniform && cond_uniform);
        proof.merge(sequence(s.otherwise, else_state, path_uniform && cond_uniform));
        st = merge_states(std::move(then_state), else_state);
        return proof;
      }
      case StmtKind::Loop: {
        const bool bounds_uniform = uniform(s.exprs[0], st) && uniform(s.exprs[1], st);
        invalidate_atomics(s.exprs[0], st);
        invalidate_atomics(s.exprs[1], st);
        const ExitState before = st;
        ExitState entry = before;
        ExitProof accumulated;
        for (;;) {
          ExitState body = entry;
          body.scope[index_of(s.names[0])] = bounds_uniform;
          accumulated.merge(sequence(s.body, body, path_uniform && bounds_uniform));
          body.scope.erase(index_of(s.names[0]));
          ExitState next = merge_states(entry, body);
          if (next == entry) break;
          entry = std::move(next);
        }
        st = merge_states(before, entry);
        return accumulated;
      }
      case StmtKind::AsyncLoad:
      case StmtKind::AsyncStore:
        invalidate_atomics(s.exprs[0], st);
        invalidate_atomics(s.exprs[1], st);
        st.dirty.insert(index_of(s.names[1]));
        return {};
      case StmtKind::Trap: invalidate_atomics(s.exprs[0], st); return {};
      case StmtKind::AllReduce:
      case StmtKind::Broadcast: st.dirty.insert(index_of(s.names[0])); return {};
      case StmtKind::AllGather:
      case StmtKind::ReduceScatter: st.dirty.insert(index_of(s.names[1])); return {};
      case StmtKind::Return: return ExitProof{true, path_uniform};
      case StmtKind::Barrier:
        if (acquires(s.ordering())) {
          st.dirty.clear();
          st.loads_settled = true;
          st.unknown_write = false;
        }
        return {};
      case StmtKind::Block:
      case StmtKind::Region: return sequence(s.body, st, path_uniform);
      case StmtKind::Opaque: st.unknown_write = true; return {};
      case StmtKind::IndirectDispatch:
      case StmtKind::AsyncWait: return {};
    }
    return {};
  }

  const Program& p_;
};

// --------------------------------------------------------------------------------- the main walk

class UniformityChecker {
 public:
  UniformityChecker(const Program& p, Sink& sink) : p_(p), sink_(sink) {}

  void run() { walk_list(p_.entry(), Ctx{}, true, std::nullopt); }

 private:
  struct Binding {
    NameId name;
    std::uint8_t level;  ///< ours
    bool vyre_uniform;   ///< vyre's workgroup uniformity
    std::optional<StmtId> raised_by = std::nullopt;  ///< the assignment that last raised `level`
  };

  /// Our level of an expression, and the assignment that raised it, when a local's was.
  struct LevelInfo {
    std::uint8_t level = kGridUniform;
    std::optional<StmtId> via;
  };

  /// The control context of a statement.
  struct Ctx {
    std::uint8_t level = kGridUniform;  ///< ours: max level of every enclosing condition and bound
    bool vyre_divergent = false;        ///< vyre: some enclosing condition or bound is not uniform
    bool nested = false;                ///< under some if or loop
    std::optional<StmtId> vyre_cause;   ///< outermost if/loop that made vyre_divergent true
    std::optional<StmtId> group_cause;  ///< outermost if/loop whose level is >= kPerWorkgroup
    std::optional<StmtId> lane_cause;   ///< outermost if/loop whose level is kPerInvocation
    std::optional<StmtId> lane_via;     ///< the assignment that made lane_cause's condition divergent
  };

  Binding* lookup(NameId name) {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->name == name) return &*it;
    return nullptr;
  }

  LevelInfo level(ExprId id) {
    const Expr& e = p_.expr(id);
    switch (e.kind) {
      case ExprKind::LitU32:
      case ExprKind::LitI32:
      case ExprKind::LitF32:
      case ExprKind::LitBool:
      case ExprKind::BufLen:
      case ExprKind::NumWorkgroups:
      case ExprKind::WorkgroupSize: return {kGridUniform, std::nullopt};
      case ExprKind::WorkgroupId: return {kPerWorkgroup, std::nullopt};
      case ExprKind::InvocationId:
      case ExprKind::LocalId:
      case ExprKind::Load:
      case ExprKind::Atomic: return {kPerInvocation, std::nullopt};
      case ExprKind::Var: {
        const Binding* b = lookup(e.var());
        if (b == nullptr) return {kPerInvocation, std::nullopt};
        return {b->level, b->raised_by};
      }
      case ExprKind::Binary:
      case ExprKind::Unary:
      case ExprKind::Select:
      case ExprKind::Cast:
      case ExprKind::Fma: {
        LevelInfo result;
        for (ExprId operand : e.operands) {
          if (operand == kNoExpr) continue;
          const LevelInfo x = level(operand);
          if (x.level > result.level || (x.level == result.level && !result.via && x.via)) result = x;
        }
        return result;
      }
    }
    return {kPerInvocation, std::nullopt};
  }

  bool vyre_uniform(ExprId id) {
    const Expr& e = p_.expr(id);
    switch (e.kind) {
      case ExprKind::LitU32:
      case ExprKind::LitI32:
      case ExprKind::LitF32:
      case ExprKind::LitBool:
      case ExprKind::BufLen:
      case ExprKind::WorkgroupId:
      case ExprKind::NumWorkgroups:
      case ExprKind::WorkgroupSize: return true;
      case ExprKind::Var: {
        const Binding* b = lookup(e.var());
        return b != nullptr && b->vyre_uniform;
      }
      case ExprKind::InvocationId:
      case ExprKind::LocalId:
      case ExprKind::Load:
      case ExprKind::Atomic: return false;
      case ExprKind::Binary:
      case ExprKind::Unary:
      case ExprKind::Select:
      case ExprKind::Cast:
      case ExprKind::Fma:
        for (ExprId operand : e.operands)
          if (operand != kNoExpr && !vyre_uniform(operand)) return false;
        return true;
    }
    return false;
  }

  /// The context of the body of `control` (an if or loop) whose condition/bounds have `lvl` / `uniform`.
  static Ctx enter(const Ctx& outer, StmtId control, LevelInfo info, bool uniform) {
    const std::uint8_t lvl = info.level;
    Ctx c = outer;
    c.nested = true;
    if (!outer.vyre_divergent && !uniform) {
      c.vyre_divergent = true;
      c.vyre_cause = control;
    }
    if (outer.level < kPerWorkgroup && lvl >= kPerWorkgroup) c.group_cause = control;
    if (outer.level < kPerInvocation && lvl >= kPerInvocation) {
      c.lane_cause = control;
      c.lane_via = info.via;
    }
    c.level = std::max(outer.level, lvl);
    return c;
  }

  void walk_list(StmtList list, const Ctx& ctx, bool emit, std::optional<Binding> loop_var) {
    const std::size_t begin = scope_.size();
    if (loop_var) scope_.push_back(*loop_var);
    for (StmtId id : p_.list(list)) visit(id, ctx, emit);
    scope_.resize(begin);
  }

  void visit(StmtId id, const Ctx& ctx, bool emit) {
    const Stmt& s = p_.stmt(id);
    switch (s.kind) {
      case StmtKind::Let: {
        const LevelInfo value = level(s.exprs[0]);
        scope_.push_back(Binding{s.names[0], value.level, vyre_uniform(s.exprs[0]), value.via});
        break;
      }
      case StmtKind::Assign:
        if (Binding* b = lookup(s.names[0])) {
          const std::uint8_t value_level = level(s.exprs[0]).level;
          const bool value_uniform = vyre_uniform(s.exprs[0]);
          const std::uint8_t raised = std::max({b->level, value_level, ctx.level});
          if (raised > b->level) b->raised_by = id;
          b->level = raised;
          b->vyre_uniform = b->vyre_uniform && value_uniform;
        }
        break;
      case StmtKind::If: {
        const Ctx inner = enter(ctx, id, level(s.exprs[0]), vyre_uniform(s.exprs[0]));
        walk_list(s.body, inner, emit, std::nullopt);
        walk_list(s.otherwise, inner, emit, std::nullopt);
        break;
      }
      case StmtKind::Loop: visit_loop(id, s, ctx, emit); break;
      case StmtKind::Block:
      case StmtKind::Region: walk_list(s.body, ctx, emit, std::nullopt); break;
      case StmtKind::Barrier:
        if (emit) check_barrier(id, s, ctx);
        break;
      default: break;
    }
  }

  void visit_loop(StmtId id, const Stmt& s, const Ctx& ctx, bool emit) {
    const LevelInfo from = level(s.exprs[0]);
    const LevelInfo to = level(s.exprs[1]);
    const LevelInfo bounds = to.level > from.level || (to.level == from.level && !from.via) ? to : from;
    const bool bounds_uniform = vyre_uniform(s.exprs[0]) && vyre_uniform(s.exprs[1]);
    const Ctx inner = enter(ctx, id, bounds, bounds_uniform);
    const Binding var{s.names[0], std::max(bounds.level, ctx.level), bounds_uniform && !ctx.vyre_divergent, bounds.via};
    if (emit) check_back_edge(id, s, var);
    // Ours: iterate the body until loop-carried assignments stop raising levels. vyre's flags are
    // restored after each silent pass, so the final pass sees them as vyre's single pass does. A
    // silent walk (inside an enclosing loop's iteration) stops at the fixpoint: one more pass would
    // change nothing, which keeps nested loops linear rather than exponential in their depth.
    for (;;) {
      const std::vector<Binding> saved = scope_;
      walk_list(s.body, inner, false, var);
      bool changed = false;
      for (std::size_t i = 0; i < saved.size(); ++i) {
        changed = changed || scope_[i].level != saved[i].level;
        if (emit) scope_[i].vyre_uniform = saved[i].vyre_uniform;
      }
      if (!changed) break;
    }
    if (emit) walk_list(s.body, inner, true, var);
  }

  void check_barrier(StmtId id, const Stmt& s, const Ctx& ctx) {
    const MemoryOrdering ordering = s.ordering();
    if (!is_valid_for_barrier(ordering))
      sink_.at(kErr, "V043", id,
               "barrier with relaxed ordering synchronizes nothing; use acquire, release, acq_rel or seq_cst");
    const std::string what = ordering == MemoryOrdering::GridSync ? "grid_sync" : "barrier";
    if (ctx.vyre_divergent) {
      sink_.at(kErr, "V010", id,
               fmt::format("{} may be reached by only part of a workgroup: it is under control flow that is not "
                           "workgroup-uniform",
                           what));
      sink_.note(*ctx.vyre_cause, "this condition or bound varies within a workgroup");
      return;
    }
    if (ctx.level >= kPerInvocation) {
      sink_.at(kErr, "G003", id,
               fmt::format("{} may be reached by only part of a workgroup: its control flow depends on a local "
                           "assigned under divergent control flow or in an earlier iteration",
                           what));
      sink_.note(*ctx.lane_cause, "this condition or bound varies within a workgroup");
      if (ctx.lane_via) sink_.note(*ctx.lane_via, "because of this assignment");
      return;
    }
    if (ordering != MemoryOrdering::GridSync) return;
    if (ctx.level >= kPerWorkgroup) {
      sink_.at(kErr, "G002", id,
               "grid_sync may be reached by only part of the grid: its control flow depends on the workgroup id");
      sink_.note(*ctx.group_cause, "this condition or bound varies between workgroups");
      return;
    }
    if (ctx.nested)
      sink_.at(kWarn, "G001", id,
               "grid_sync nested in an if or loop is valid, but the vyre 0.7.2 split does not hoist it, so its "
               "segment still contains the fence");
  }

  // V055: docs/semantics.md §4, vyre barrier.rs check_loop_back_edge.
  void splice(StmtList list, std::vector<StmtId>& out) const {
    for (StmtId id : p_.list(list)) {
      const Stmt& s = p_.stmt(id);
      if (s.kind == StmtKind::Block || s.kind == StmtKind::Region)
        splice(s.body, out);
      else
        out.push_back(id);
    }
  }

  template <typename Pred>
  bool anywhere(StmtId id, Pred pred) const {
    if (pred(p_.stmt(id))) return true;
    const Stmt& s = p_.stmt(id);
    if (!s.has_body()) return false;
    for (StmtId child : p_.list(s.body))
      if (anywhere(child, pred)) return true;
    for (StmtId child : p_.list(s.otherwise))
      if (anywhere(child, pred)) return true;
    return false;
  }

  std::optional<StmtId> some_return(StmtId id) const {
    if (p_.stmt(id).kind == StmtKind::Return) return id;
    std::optional<StmtId> found;
    for_each_stmt(p_, p_.stmt(id).body, [&](StmtId child) {
      if (p_.stmt(child).kind == StmtKind::Return) found = child;
    });
    if (p_.stmt(id).kind == StmtKind::If)
      for_each_stmt(p_, p_.stmt(id).otherwise, [&](StmtId child) {
        if (p_.stmt(child).kind == StmtKind::Return) found = child;
      });
    return found;
  }

  void check_back_edge(StmtId loop, const Stmt& s, const Binding& var) {
    std::vector<StmtId> steps;
    splice(s.body, steps);
    auto is_barrier = [](const Stmt& x) { return x.kind == StmtKind::Barrier; };
    auto is_return = [](const Stmt& x) { return x.kind == StmtKind::Return; };
    const bool collective =
        std::any_of(steps.begin(), steps.end(), [&](StmtId id) { return anywhere(id, is_barrier); });
    if (!collective) return;
    std::optional<std::size_t> last_exit;
    for (std::size_t i = 0; i < steps.size(); ++i)
      if (anywhere(steps[i], is_return)) last_exit = i;
    if (!last_exit) return;
    for (std::size_t i = *last_exit + 1; i < steps.size(); ++i)
      if (p_.stmt(steps[i]).kind == StmtKind::Barrier) return;
    ExitState state;
    for (const Binding& b : scope_) state.scope[index_of(b.name)] = b.vyre_uniform;
    state.scope[index_of(var.name)] = var.vyre_uniform;
    if (ExitAnalysis(p_).exits_are_uniform(std::span(steps).first(*last_exit + 1), state)) return;
    sink_.at(kErr, "V055", loop,
             fmt::format("an invocation may return from loop '{}' after its last unconditional barrier while "
                         "others take the back edge; end the body with an unconditional barrier",
                         p_.name(s.names[0])));
    if (auto ret = some_return(steps[*last_exit])) sink_.note(*ret, "the invocation may return here");
  }

  const Program& p_;
  Sink& sink_;
  std::vector<Binding> scope_;
};

}  // namespace

void check_uniformity(const Program& p, Sink& sink) { UniformityChecker(p, sink).run(); }

}  // namespace gridcheck::ir::validation
