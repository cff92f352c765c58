// vyre's barrier-settled exit proof (exit_uniformity.rs), reproduced exactly.
//
// vyre copies its state into each branch of an if and each pass of a loop, and merges the copies
// after. Here the state keeps an undo trail instead: a branch runs on the state itself, its changes
// are read off the trail and undone, and the merge writes back only the entries a branch touched.
// The results are those of the copying formulation; the cost of an if or a loop pass is
// proportional to what its body does, not to the number of locals in scope.

#include "ir/validate/exit_analysis.hpp"

#include <vector>

#include "ir/walk.hpp"

namespace gridcheck::ir::validation {
namespace {

bool acquires(MemoryOrdering o) {
  return o == MemoryOrdering::Acquire || o == MemoryOrdering::AcqRel || o == MemoryOrdering::SeqCst;
}

struct ExitProof {
  bool has_return = false;
  bool all_collective = true;
  void merge(ExitProof other) {
    has_return = has_return || other.has_return;
    all_collective = all_collective && other.all_collective;
  }
};

/// vyre's merge of one local: kept when both sides bind it, uniform when both sides say so.
std::optional<bool> merge_local(std::optional<bool> a, std::optional<bool> b) {
  if (!a || !b) return std::nullopt;
  return *a && *b;
}

/// A set of names, emptied in constant time.
class NameMarks {
 public:
  explicit NameMarks(std::size_t name_count) : marks_(name_count, 0) {}
  void clear() { ++generation_; }
  /// True when `name` was not yet in the set; adds it.
  bool insert(std::uint32_t name) {
    if (marks_[name] == generation_) return false;
    marks_[name] = generation_;
    return true;
  }
  bool contains(std::uint32_t name) const { return marks_[name] == generation_; }

 private:
  std::vector<std::uint64_t> marks_;
  std::uint64_t generation_ = 1;
};

/// What a branch or a loop pass left behind, relative to the state it started from.
struct Delta {
  std::vector<std::pair<std::uint32_t, std::optional<bool>>> locals;  ///< each touched local, final value
  std::vector<std::uint32_t> dirtied;  ///< buffers made dirty by it and still dirty at its end
  bool cleared = false;                ///< it ran an acquiring barrier
  bool loads_settled = false;
  bool unknown_write = false;
};

}  // namespace

/// The proof state (locals' uniformity, dirty buffers, two flags) with its undo trail, and the walk.
class ExitAnalysis::Walk {
 public:
  explicit Walk(const Program& p)
      : p_(p),
        locals_(p.name_count(), kUnset),
        dirty_stamp_(p.name_count(), 0),
        touched_(p.name_count()),
        touched_dirty_(p.name_count()),
        joined_(p.name_count()),
        joined_value_(p.name_count(), kUnset) {}

  bool run(std::span<const StmtId> steps, const OuterScope& outer) {
    std::optional<std::size_t> last_barrier;
    for (std::size_t i = 0; i < steps.size(); ++i)
      if (p_.stmt(steps[i]).kind == StmtKind::Barrier) last_barrier = i;
    if (!last_barrier) return false;
    outer_ = &outer;
    const std::size_t start = trail_.size();
    set_loads_settled(acquires(p_.stmt(steps[*last_barrier]).ordering()));
    ExitProof proof;
    for (std::size_t i = *last_barrier + 1; i < steps.size(); ++i) proof.merge(node(steps[i], true));
    rollback(start);
    outer_ = nullptr;
    return proof.has_return && proof.all_collective;
  }

 private:
  // Raw local slots: kUnset defers to the outer scope.
  static constexpr std::uint8_t kUnset = 0, kAbsent = 1, kDivergent = 2, kUniform = 3;

  enum class Field : std::uint8_t { Local, DirtyStamp, ClearedAt, LoadsSettled, UnknownWrite };
  struct Undo {
    Field field;
    std::uint32_t name;
    std::uint64_t old;
  };

  // ------------------------------------------------------------------------------------ state

  static std::uint8_t encode(std::optional<bool> value) { return !value ? kAbsent : *value ? kUniform : kDivergent; }
  static std::optional<bool> decode(std::uint8_t slot) {
    if (slot == kAbsent) return std::nullopt;
    return slot == kUniform;
  }

  std::optional<bool> local(std::uint32_t name) const {
    return locals_[name] == kUnset ? (*outer_)(NameId{name}) : decode(locals_[name]);
  }
  void set_local(std::uint32_t name, std::optional<bool> value) {
    if (local(name) == value) return;
    trail_.push_back(Undo{Field::Local, name, locals_[name]});
    locals_[name] = encode(value);
  }

  bool dirty(std::uint32_t buffer) const { return dirty_stamp_[buffer] > cleared_at_; }
  /// True when `buffer` was clean.
  bool mark_dirty(std::uint32_t buffer) {
    if (dirty(buffer)) return false;
    trail_.push_back(Undo{Field::DirtyStamp, buffer, dirty_stamp_[buffer]});
    dirty_stamp_[buffer] = ++clock_;
    return true;
  }
  void clear_dirty() {
    trail_.push_back(Undo{Field::ClearedAt, 0, cleared_at_});
    cleared_at_ = clock_;
  }

  void set_loads_settled(bool v) {
    if (loads_settled_ == v) return;
    trail_.push_back(Undo{Field::LoadsSettled, 0, loads_settled_});
    loads_settled_ = v;
  }
  void set_unknown_write(bool v) {
    if (unknown_write_ == v) return;
    trail_.push_back(Undo{Field::UnknownWrite, 0, unknown_write_});
    unknown_write_ = v;
  }

  void rollback(std::size_t mark) {
    while (trail_.size() > mark) {
      const Undo u = trail_.back();
      trail_.pop_back();
      switch (u.field) {
        case Field::Local: locals_[u.name] = static_cast<std::uint8_t>(u.old); break;
        case Field::DirtyStamp: dirty_stamp_[u.name] = u.old; break;
        case Field::ClearedAt: cleared_at_ = u.old; break;
        case Field::LoadsSettled: loads_settled_ = u.old != 0; break;
        case Field::UnknownWrite: unknown_write_ = u.old != 0; break;
      }
    }
  }

  /// The changes made since trail position `mark`, as final values.
  Delta delta_since(std::size_t mark) {
    Delta d;
    touched_.clear();
    touched_dirty_.clear();
    for (std::size_t i = mark; i < trail_.size(); ++i) {
      const Undo& u = trail_[i];
      if (u.field == Field::Local && touched_.insert(u.name)) d.locals.emplace_back(u.name, local(u.name));
      if (u.field == Field::DirtyStamp && dirty(u.name) && touched_dirty_.insert(u.name)) d.dirtied.push_back(u.name);
      if (u.field == Field::ClearedAt) d.cleared = true;
    }
    d.loads_settled = loads_settled_;
    d.unknown_write = unknown_write_;
    return d;
  }

  /// The state becomes vyre's merge_states(then, else) of two branches run from it.
  void join(const Delta& then_branch, const Delta& else_branch) {
    joined_.clear();
    for (const auto& [name, value] : then_branch.locals) {
      joined_.insert(name);
      joined_value_[name] = encode(value);
    }
    for (const auto& [name, else_value] : else_branch.locals) {
      const bool in_both = joined_.contains(name);
      const std::optional<bool> then_value = in_both ? decode(joined_value_[name]) : local(name);
      if (in_both) joined_value_[name] = kUnset;  // merged here, not again below
      set_local(name, merge_local(then_value, else_value));
    }
    for (const auto& [name, then_value] : then_branch.locals)
      if (joined_value_[name] != kUnset) set_local(name, merge_local(then_value, local(name)));
    if (then_branch.cleared && else_branch.cleared) clear_dirty();
    for (std::uint32_t buffer : then_branch.dirtied) mark_dirty(buffer);
    for (std::uint32_t buffer : else_branch.dirtied) mark_dirty(buffer);
    set_loads_settled(then_branch.loads_settled && else_branch.loads_settled);
    set_unknown_write(then_branch.unknown_write || else_branch.unknown_write);
  }

  /// The state (a loop's entry state) becomes vyre's merge_states(entry, body) of a pass run from it.
  /// True when that changed it.
  bool narrow(const Delta& pass) {
    bool changed = false;
    for (const auto& [name, value] : pass.locals) {
      const std::optional<bool> entry = local(name);
      const std::optional<bool> merged = merge_local(entry, value);
      changed = changed || merged != entry;
      set_local(name, merged);
    }
    for (std::uint32_t buffer : pass.dirtied) changed = mark_dirty(buffer) || changed;
    changed = changed || (loads_settled_ && !pass.loads_settled) || (!unknown_write_ && pass.unknown_write);
    set_loads_settled(loads_settled_ && pass.loads_settled);
    set_unknown_write(unknown_write_ || pass.unknown_write);
    return changed;
  }

  // ------------------------------------------------------------------------------------- walk

  bool uniform(ExprId id) const {
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
      case ExprKind::Var: return local(e.payload).value_or(false);
      case ExprKind::Load:
        return loads_settled_ && !unknown_write_ && !dirty(e.payload) && uniform(e.operands[0]);
      case ExprKind::InvocationId:
      case ExprKind::LocalId:
      case ExprKind::Atomic: return false;
      case ExprKind::Binary:
      case ExprKind::Unary:
      case ExprKind::Select:
      case ExprKind::Cast:
      case ExprKind::Fma:
        for (ExprId operand : e.operands)
          if (operand != kNoExpr && !uniform(operand)) return false;
        return true;
    }
    return false;
  }

  void invalidate_atomics(ExprId root) {
    if (root == kNoExpr) return;
    for_each_expr(p_, root, [&](ExprId id) {
      const Expr& e = p_.expr(id);
      if (e.kind == ExprKind::Atomic) mark_dirty(e.payload);
    });
  }

  ExitProof sequence(StmtList list, bool path_uniform) {
    ExitProof proof;
    for (StmtId id : p_.list(list)) proof.merge(node(id, path_uniform));
    return proof;
  }

  ExitProof node(StmtId id, bool path_uniform) {
    const Stmt& s = p_.stmt(id);
    switch (s.kind) {
      case StmtKind::Let:
      case StmtKind::Assign: {
        const bool u = uniform(s.exprs[0]);
        invalidate_atomics(s.exprs[0]);
        const std::uint32_t name = index_of(s.names[0]);
        if (s.kind == StmtKind::Let || local(name)) set_local(name, u);
        return {};
      }
      case StmtKind::Store:
        invalidate_atomics(s.exprs[0]);
        invalidate_atomics(s.exprs[1]);
        mark_dirty(index_of(s.names[0]));
        return {};
      case StmtKind::If: {
        const bool cond_uniform = uniform(s.exprs[0]);
        invalidate_atomics(s.exprs[0]);
        const std::size_t start = trail_.size();
        ExitProof proof = sequence(s.body, path_uniform && cond_uniform);
        const Delta then_branch = delta_since(start);
        rollback(start);
        proof.merge(sequence(s.otherwise, path_uniform && cond_uniform));
        const Delta else_branch = delta_since(start);
        rollback(start);
        join(then_branch, else_branch);
        return proof;
      }
      case StmtKind::Loop: {
        const bool bounds_uniform = uniform(s.exprs[0]) && uniform(s.exprs[1]);
        invalidate_atomics(s.exprs[0]);
        invalidate_atomics(s.exprs[1]);
        const std::uint32_t var = index_of(s.names[0]);
        // vyre iterates entry := merge(entry, body) to a fixpoint and then merges the state before
        // the loop with it, which gives the final entry again (merging only ever narrows).
        ExitProof accumulated;
        for (;;) {
          const std::size_t start = trail_.size();
          set_local(var, bounds_uniform);
          accumulated.merge(sequence(s.body, path_uniform && bounds_uniform));
          set_local(var, std::nullopt);
          const Delta pass = delta_since(start);
          rollback(start);
          if (!narrow(pass)) break;
        }
        return accumulated;
      }
      case StmtKind::AsyncLoad:
      case StmtKind::AsyncStore:
        invalidate_atomics(s.exprs[0]);
        invalidate_atomics(s.exprs[1]);
        mark_dirty(index_of(s.names[1]));
        return {};
      case StmtKind::Trap: invalidate_atomics(s.exprs[0]); return {};
      case StmtKind::AllReduce:
      case StmtKind::Broadcast: mark_dirty(index_of(s.names[0])); return {};
      case StmtKind::AllGather:
      case StmtKind::ReduceScatter: mark_dirty(index_of(s.names[1])); return {};
      case StmtKind::Return: return ExitProof{true, path_uniform};
      case StmtKind::Barrier:
        if (acquires(s.ordering())) {
          clear_dirty();
          set_loads_settled(true);
          set_unknown_write(false);
        }
        return {};
      case StmtKind::Block:
      case StmtKind::Region: return sequence(s.body, path_uniform);
      case StmtKind::Opaque: set_unknown_write(true); return {};
      case StmtKind::IndirectDispatch:
      case StmtKind::AsyncWait: return {};
    }
    return {};
  }

  const Program& p_;
  const OuterScope* outer_ = nullptr;
  std::vector<std::uint8_t> locals_;        ///< by name: kUnset, kAbsent, kDivergent or kUniform
  std::vector<std::uint64_t> dirty_stamp_;  ///< by buffer name: clock_ when last made dirty
  std::uint64_t cleared_at_ = 0;            ///< a buffer is dirty when its stamp is later than this
  std::uint64_t clock_ = 0;
  bool loads_settled_ = false;
  bool unknown_write_ = false;
  std::vector<Undo> trail_;
  // Scratch for delta_since and join.
  NameMarks touched_;
  NameMarks touched_dirty_;
  NameMarks joined_;
  std::vector<std::uint8_t> joined_value_;
};

ExitAnalysis::ExitAnalysis(const Program& p) : p_(p) {}
ExitAnalysis::~ExitAnalysis() = default;

bool ExitAnalysis::exits_are_uniform(std::span<const StmtId> steps, const OuterScope& outer) {
  if (!walk_) walk_ = std::make_unique<Walk>(p_);
  return walk_->run(steps, outer);
}

}  // namespace gridcheck::ir::validation
