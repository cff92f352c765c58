#pragma once
// Shared by the catalogue's parts (mutant_catalogue*.cpp). Not a public header.
//
// The catalogue is built by appending each family's mutants in a fixed order: the history of
// docs/vyre-0.7.2.md §9, then our own faults, then the shape faults, then the megakernel planner's (mutant_catalogue.hpp: tests, docs and
// saved cases name mutants, and the report lists them in catalogue order). Each family's part only
// appends; the order of its `add` calls is the order of its entries.

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/types.hpp"
#include "planner/profile.hpp"
#include "planner/role_rule.hpp"
#include "props/mutants/mutant_catalogue.hpp"

namespace gridcheck::props::catalogue_builders {

/// Appends catalogue entries in call order; `add(name, description, origin, kind, base, apply)`,
/// with the argument for an equivalent mutant last.
class MutantAppender {
 public:
  explicit MutantAppender(std::vector<Mutant>& out) : out_(out) {}
  void operator()(std::string name, std::string description, std::string origin, MutantKind kind, MutantBase base,
                  std::function<planner::Profile(const planner::Profile&)> apply, std::string equivalent = {}) const {
    out_.push_back(Mutant{std::move(name), std::move(description), std::move(origin), kind, base,
                          std::move(equivalent), std::move(apply)});
  }

 private:
  std::vector<Mutant>& out_;
};

/// Appends the history of docs/vyre-0.7.2.md §9: M0-M10 reintroduced, F1-F3 applied and F4 reverted on vyre-0.7.2.
void add_historic_mutants(std::vector<Mutant>& all);
/// Appends our own faults of the split, the tables and the dispatch (origin "ours").
void add_own_mutants(std::vector<Mutant>& all);
/// Appends faults that only the generator's shape features expose (origin "ours (generator shape …)").
void add_shape_mutants(std::vector<Mutant>& all);
/// Appends the megakernel planner's faults: ours, then contributed_megakernel_mutants().
void add_megakernel_mutants(std::vector<Mutant>& all);

// ------------------------------------------------------------------- role-rule mutant helpers

/// Whether the role rule decided to rewrite the buffer to `access`.
inline bool is_rewrite_to(const planner::RoleDecision& d, ir::BufferAccess access) {
  return d.disposition == planner::Disposition::Rewrite && d.access == access;
}

/// A decision that rewrites the buffer to `access` (with the kind that access implies).
inline planner::RoleDecision rewrite(ir::BufferAccess access, std::string_view reason) {
  planner::RoleDecision d;
  d.disposition = planner::Disposition::Rewrite;
  d.access = access;
  d.kind = planner::rederived_kind(access);
  d.reason = reason;
  return d;
}

/// The base's role rule with `change` applied to its decision.
inline planner::Profile wrap_role(
    const planner::Profile& base,
    std::function<planner::RoleDecision(const planner::RoleFacts&, planner::RoleDecision)> change) {
  planner::Profile p = base;
  p.table.role = [inner = base.table.role, change = std::move(change)](const planner::RoleFacts& f) {
    return change(f, inner(f));
  };
  return p;
}

}  // namespace gridcheck::props::catalogue_builders
