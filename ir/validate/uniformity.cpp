// Phase 2, part 2: barriers and control-flow uniformity.
//
// Two analyses run side by side over one walk:
//  * vyre's (V010, V055): a value is workgroup-uniform when it is built from literals, buf_len, the
//    workgroup id (and our workgroup count and size) and uniform locals; a `let` takes its value's
//    uniformity, an `assign` can only clear it (`u = u && uniform(value)`), a loop variable is
//    uniform when the bounds are and the loop itself is not in divergent flow. One departure from
//    vyre: a load from a launch-invariant buffer (invariant_buffers.hpp) at a uniform index is
//    uniform, as a kernel argument is in OpenCL; vyre treats every load as divergent.
//    The walk is a single pre-order pass, as vyre's; V055's exit proof is in exit_analysis.cpp.
//  * ours, a three-level lattice (grid-uniform < varies per workgroup < varies per invocation) that is
//    sound where vyre's is not: an assignment under divergent control flow makes the local divergent,
//    and loop-carried assignments are iterated to a fixpoint. It gives G003 (a barrier that V010
//    misses), G002 (a grid_sync whose control depends on the workgroup id, docs/vyre-0.7.2.md#g6) and G001 (a
//    grid_sync nested under grid-uniform control flow, valid but not hoisted by the split, G5). A load
//    from a launch-invariant buffer has its index's level.
//    By construction it is never less strict than vyre's, so V010 always wins when both fire.

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "ir/validate/exit_analysis.hpp"
#include "ir/validate/internal.hpp"
#include "ir/validate/invariant_buffers.hpp"
#include "ir/validate/scope_stack.hpp"
#include "ir/walk.hpp"

namespace gridcheck::ir::validation {
namespace {

// Our uniformity lattice.
enum Level : std::uint8_t { kGridUniform = 0, kPerWorkgroup = 1, kPerInvocation = 2 };

class UniformityChecker {
 public:
  UniformityChecker(const Program& p, Sink& sink)
      : p_(p), sink_(sink), scope_(p.name_count()), contents_(p.stmt_count(), 0), exits_(p), invariant_(p) {}

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

  Binding* lookup(NameId name) { return scope_.find(name); }

  /// An expression's level under our lattice (with the assignment that raised it) and vyre's
  /// workgroup uniformity, found in one walk of the expression (both are pure functions of the
  /// expression and the scope; they were two walks).
  struct Facts {
    LevelInfo info;
    bool vyre_uniform = false;
  };

  Facts analyse(ExprId id) {
    const Expr& e = p_.expr(id);
    switch (e.kind) {
      case ExprKind::LitU32:
      case ExprKind::LitI32:
      case ExprKind::LitF32:
      case ExprKind::LitBool:
      case ExprKind::BufLen:
      case ExprKind::NumWorkgroups:
      case ExprKind::WorkgroupSize: return {{kGridUniform, std::nullopt}, true};
      case ExprKind::WorkgroupId: return {{kPerWorkgroup, std::nullopt}, true};
      case ExprKind::Load:
        // A load from a launch-invariant buffer has its index's level and uniformity.
        if (invariant_.contains(e.buffer())) return analyse(e.operands[0]);
        return {{kPerInvocation, std::nullopt}, false};
      case ExprKind::InvocationId:
      case ExprKind::LocalId:
      case ExprKind::Atomic: return {{kPerInvocation, std::nullopt}, false};
      case ExprKind::Var: {
        const Binding* b = lookup(e.var());
        if (b == nullptr) return {{kPerInvocation, std::nullopt}, false};
        return {{b->level, b->raised_by}, b->vyre_uniform};
      }
      case ExprKind::Binary:
      case ExprKind::Unary:
      case ExprKind::Select:
      case ExprKind::Cast:
      case ExprKind::Fma: {
        Facts result{{kGridUniform, std::nullopt}, true};
        for (ExprId operand : e.operands) {
          if (operand == kNoExpr) continue;
          const Facts x = analyse(operand);
          if (x.info.level > result.info.level ||
              (x.info.level == result.info.level && !result.info.via && x.info.via))
            result.info = x.info;
          result.vyre_uniform = result.vyre_uniform && x.vyre_uniform;
        }
        return result;
      }
    }
    return {{kPerInvocation, std::nullopt}, false};
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
    if (loop_var) scope_.push(loop_var->name, *loop_var);
    for (StmtId id : p_.list(list)) visit(id, ctx, emit);
    scope_.pop_to(begin);
  }

  void visit(StmtId id, const Ctx& ctx, bool emit) {
    const Stmt& s = p_.stmt(id);
    switch (s.kind) {
      case StmtKind::Let: {
        const Facts value = analyse(s.exprs[0]);
        scope_.push(s.names[0], Binding{s.names[0], value.info.level, value.vyre_uniform, value.info.via});
        break;
      }
      case StmtKind::Assign:
        if (const std::size_t index = scope_.innermost(s.names[0]); index != scope_.npos) {
          Binding& b = scope_[index];
          const Facts value = analyse(s.exprs[0]);
          const std::uint8_t value_level = value.info.level;
          const bool value_uniform = value.vyre_uniform;
          const std::uint8_t raised = std::max({b.level, value_level, ctx.level});
          if (raised > b.level) {
            b.raised_by = id;
            lowest_raised_ = std::min(lowest_raised_, index);
          }
          b.level = raised;
          if (b.vyre_uniform && !value_uniform) {
            if (!emit) cleared_vyre_.push_back(index);
            b.vyre_uniform = false;
          }
        }
        break;
      case StmtKind::If: {
        const Facts condition = analyse(s.exprs[0]);
        const Ctx inner = enter(ctx, id, condition.info, condition.vyre_uniform);
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
    const Facts from_facts = analyse(s.exprs[0]);
    const Facts to_facts = analyse(s.exprs[1]);
    const LevelInfo from = from_facts.info;
    const LevelInfo to = to_facts.info;
    const LevelInfo bounds = to.level > from.level || (to.level == from.level && !from.via) ? to : from;
    const bool bounds_uniform = from_facts.vyre_uniform && to_facts.vyre_uniform;
    const Ctx inner = enter(ctx, id, bounds, bounds_uniform);
    const Binding var{s.names[0], std::max(bounds.level, ctx.level), bounds_uniform && !ctx.vyre_divergent, bounds.via};
    if (emit) check_back_edge(id, s, var);
    // Ours: iterate the body until loop-carried assignments stop raising levels. vyre's flags are
    // restored after each silent pass, so the final pass sees them as vyre's single pass does. A
    // silent walk (inside an enclosing loop's iteration) stops at the fixpoint: one more pass would
    // change nothing, which keeps nested loops linear rather than exponential in their depth.
    // A pass changed something when it raised the level of a binding open before it. Levels only
    // rise and vyre's flags only clear, so the raises and clears of a pass are all there is to
    // detect and to restore.
    for (;;) {
      const std::size_t outer = scope_.size();
      const std::size_t enclosing_lowest = lowest_raised_;
      const std::size_t cleared_mark = cleared_vyre_.size();
      lowest_raised_ = kNoBinding;
      walk_list(s.body, inner, false, var);
      const bool changed = lowest_raised_ < outer;
      lowest_raised_ = std::min(enclosing_lowest, lowest_raised_);
      if (emit) {
        for (std::size_t i = cleared_mark; i < cleared_vyre_.size(); ++i)
          if (cleared_vyre_[i] < outer) scope_[cleared_vyre_[i]].vyre_uniform = true;
        cleared_vyre_.resize(cleared_mark);
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
    if (ordering == MemoryOrdering::GridSync && s.barrier_memory() != BarrierMemory::All)
      sink_.at(kErr, "G014", id,
               fmt::format("grid_sync with memory {}: a grid_sync orders all memory; drop the memory scope",
                           name_of(s.barrier_memory())));
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

  static constexpr std::uint8_t kKnown = 1, kHasBarrier = 2, kHasReturn = 4;

  /// kHasBarrier / kHasReturn: whether `id` is, or nests, a barrier / a return. Memoised per statement.
  std::uint8_t contents(StmtId id) {
    if (contents_[index_of(id)] & kKnown) return contents_[index_of(id)];
    const Stmt& s = p_.stmt(id);
    std::uint8_t c = kKnown;
    if (s.kind == StmtKind::Barrier) c |= kHasBarrier;
    if (s.kind == StmtKind::Return) c |= kHasReturn;
    if (s.has_body()) {
      for (StmtId child : p_.list(s.body)) c |= contents(child);
      for (StmtId child : p_.list(s.otherwise)) c |= contents(child);
    }
    contents_[index_of(id)] = c;
    return c;
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
    const bool collective =
        std::any_of(steps.begin(), steps.end(), [&](StmtId id) { return (contents(id) & kHasBarrier) != 0; });
    if (!collective) return;
    std::optional<std::size_t> last_exit;
    for (std::size_t i = 0; i < steps.size(); ++i)
      if (contents(steps[i]) & kHasReturn) last_exit = i;
    if (!last_exit) return;
    for (std::size_t i = *last_exit + 1; i < steps.size(); ++i)
      if (p_.stmt(steps[i]).kind == StmtKind::Barrier) return;
    // vyre's proof starts from every open binding's flag, the loop variable's last.
    const ExitAnalysis::OuterScope outer = [&](NameId name) -> std::optional<bool> {
      if (name == var.name) return var.vyre_uniform;
      if (const Binding* b = scope_.find(name)) return b->vyre_uniform;
      return std::nullopt;
    };
    if (exits_.exits_are_uniform(std::span(steps).first(*last_exit + 1), outer)) return;
    sink_.at(kErr, "V055", loop,
             fmt::format("an invocation may return from loop '{}' after its last unconditional barrier while "
                         "others take the back edge; end the body with an unconditional barrier",
                         p_.name(s.names[0])));
    if (auto ret = some_return(steps[*last_exit])) sink_.note(*ret, "the invocation may return here");
  }

  static constexpr std::size_t kNoBinding = std::numeric_limits<std::size_t>::max();

  const Program& p_;
  Sink& sink_;
  ScopeStack<Binding> scope_;
  /// The lowest scope index whose level the current loop pass raised (kNoBinding: none).
  std::size_t lowest_raised_ = kNoBinding;
  /// Scope indices whose vyre flag a silent pass cleared, for the enclosing emitting loop to restore.
  std::vector<std::size_t> cleared_vyre_;
  std::vector<std::uint8_t> contents_;  ///< by statement: kKnown | kHasBarrier | kHasReturn
  ExitAnalysis exits_;
  InvariantBuffers invariant_;
};

}  // namespace

void check_uniformity(const Program& p, Sink& sink) { UniformityChecker(p, sink).run(); }

}  // namespace gridcheck::ir::validation
