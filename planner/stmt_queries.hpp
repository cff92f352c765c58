#pragma once
// Structural questions the sound profile's transformations ask about statements and expressions:
// what a subtree contains (fences, workgroup barriers, returns), which locals it reads or assigns, and
// whether an expression is grid-invariant or safe to evaluate speculatively. Pure functions of the
// arena; they never modify a program.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ir/program.hpp"
#include "ir/typecheck.hpp"

namespace gridcheck::planner {

/// A grid_sync anywhere in the subtree (through every body).
bool has_fence(const ir::Program& p, ir::StmtId id);
bool has_fence(const ir::Program& p, std::span<const ir::StmtId> list);
/// A workgroup barrier (any barrier that is not a grid_sync) anywhere in the subtree.
bool has_workgroup_barrier(const ir::Program& p, ir::StmtId id);
bool has_workgroup_barrier(const ir::Program& p, std::span<const ir::StmtId> list);
/// A `return` anywhere in the subtree.
bool has_return(const ir::Program& p, ir::StmtId id);
bool has_return(const ir::Program& p, std::span<const ir::StmtId> list);

/// The locals a statement list reads (Var expressions) and assigns (Assign targets), at any depth:
/// flags by name index (sized by collect_local_uses to the program's name table), so that a Var costs
/// one byte write rather than a hash-set insertion.
class LocalUses {
 public:
  bool reads(ir::NameId n) const { return has(n, kRead); }
  bool assigns(ir::NameId n) const { return has(n, kAssign); }
  bool references(ir::NameId n) const { return has(n, kRead | kAssign); }

 private:
  friend void collect_local_uses(const ir::Program& p, std::span<const ir::StmtId> list, LocalUses& out);
  static constexpr std::uint8_t kRead = 1, kAssign = 2;
  bool has(ir::NameId n, std::uint8_t bits) const {
    return ir::index_of(n) < flags_.size() && (flags_[ir::index_of(n)] & bits) != 0;
  }
  void mark(ir::NameId n, std::uint8_t bit);
  std::vector<std::uint8_t> flags_;
};
void collect_local_uses(const ir::Program& p, std::span<const ir::StmtId> list, LocalUses& out);

/// Every Let and Loop variable name and every buffer name a program declares or binds.
std::unordered_set<std::string> bound_names(const ir::Program& p);
/// True when a name of bound_names(p) starts with `prefix`, found without building the set.
bool binds_name_starting_with(const ir::Program& p, std::string_view prefix);

/// Grid-invariant: the same value for every invocation, at every point of one launch. Built only
/// from literals, buffer lengths, workgroup counts and workgroup sizes with operators, selects,
/// casts and fma. On failure `why` names the first construct that is not (e.g. "a local `n`").
bool is_grid_invariant(const ir::Program& p, ir::ExprId e, std::string* why = nullptr);

/// Recomputable: the same value whenever the same invocation evaluates it in one dispatch (the grid
/// is the same for every segment). Built only from literals, buffer lengths, the invocation, local
/// and workgroup ids, workgroup counts and sizes with operators, selects, casts and fma — no local,
/// no load, no atomic.
bool is_recomputable(const ir::Program& p, ir::ExprId e);

/// Safe to evaluate for an invocation that has already returned: no load (it could race with other
/// invocations' writes), no atomic, no i32 division or remainder that can trap. `types` (optional)
/// tells i32 operations apart; without it every division by a non-literal counts as trapping.
bool is_speculatable(const ir::Program& p, ir::ExprId e, const ir::TypeTable* types = nullptr);

/// A statement without effect: an empty Block or Region, or an `if` over such statements whose
/// condition is speculatable (cannot trap). What cutting leaves around a fence at the edge of a
/// container.
bool is_noop(const ir::Program& p, ir::StmtId id, const ir::TypeTable* types = nullptr);

/// The value of a u32 literal expression, nullopt for anything else.
std::optional<std::uint32_t> u32_literal(const ir::Program& p, ir::ExprId e);

/// Number of statements in a subtree (itself included).
std::size_t statement_count(const ir::Program& p, std::span<const ir::StmtId> list);

}  // namespace gridcheck::planner
