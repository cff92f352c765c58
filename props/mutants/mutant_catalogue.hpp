#pragma once
// The mutation self-test's catalogue (docs/DESIGN.md §6 "Mutants", docs/mutants.md): named, deliberate
// planner faults, each a *difference from a base profile* made through the planner's rule and hook
// interfaces (planner/profile.hpp: copy the base, replace or wrap one member, rename). There is no
// source patching and no #ifdef: a mutant is a function from a base Profile to a Profile.
//
// Contents: the historic bugs of docs/vyre-0.7.2.md §9 (M0-M10 reintroduced; F1-F3 applied and F4 reverted on
// vyre-0.7.2, which has F1-F3 and our deterministic stand-in for F4), our own faults (dropped
// read-write passthrough, first writer off by one, stale refresh, skipped let propagation, wrong
// input order, ...) and megakernel planner faults (ours, plus props/megakernel_mutants.hpp: merged
// dependent waves, miscounted barriers, ...).
//
// A mutant is *killed* when some oracle tells it apart from its base's correct behaviour
// (props/mutant_run.hpp). A mutant marked `equivalent` carries the argument why no oracle can:
// it is listed, run and reported, but not counted in the kill rate.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "planner/profile.hpp"

namespace gridcheck::props {

/// Which part of the planner a mutant changes; decides which oracles apply.
enum class MutantKind : std::uint8_t {
  RoleRule,    ///< table.role: the Z3 role proof applies (plus corpus and fuzz)
  Split,       ///< split.*: fence detection, hoisting, cutting, let propagation
  Table,       ///< table.* other than role: scan, first writer, input/output names
  Dispatch,    ///< dispatch.*: seeding, gathering, refresh, schedule, convergence, launches, reassembly
  Megakernel,  ///< megakernel: the DAG oracle applies (the split never calls it)
};
std::string_view name_of(MutantKind kind);

/// The base a mutant is made from.
enum class MutantBase : std::uint8_t {
  Vyre,          ///< always vyre-0.7.2 (the fault only makes sense against 0.7.2's rules)
  SoundOrVyre,   ///< the `sound` profile when it is registered (planner::find_profile), else vyre-0.7.2
};

struct Mutant {
  std::string name;         ///< unique, used on the command line and in saved cases
  std::string description;  ///< one line: what is wrong
  std::string origin;       ///< "docs/vyre-0.7.2.md#h2 (M1)", "ours"
  MutantKind kind = MutantKind::Dispatch;
  MutantBase base = MutantBase::SoundOrVyre;
  /// Non-empty when the mutant is believed equivalent (no observable difference); the argument.
  std::string equivalent;
  /// The mutant profile from its base (name and description still the base's; see make_mutant).
  std::function<planner::Profile(const planner::Profile& base)> apply;
};

/// The whole catalogue, in a fixed order (historic first, then ours, then the shape faults, then megakernel).
const std::vector<Mutant>& mutant_catalogue();
/// nullptr when unknown.
const Mutant* find_mutant(std::string_view name);

/// The base profile the mutant is made from (see MutantBase).
const planner::Profile& mutant_base(const Mutant& mutant);
/// The mutant profile made from `base`, named after the mutant. Usable by the oracle directly
/// (props::OracleOptions takes `const planner::Profile*`); never registered globally.
planner::Profile make_mutant(const Mutant& mutant, const planner::Profile& base);
/// `profile` renamed: a mutant run under its base's name, so that a case's expectations recorded for
/// the base (`expect H-cpu vyre-0.7.2 ...`) are checked against the mutant's results.
planner::Profile renamed(const planner::Profile& profile, std::string name);

/// The megakernel mutants of props/megakernel_mutants.hpp (the DAG-property issue) as catalogue
/// entries (base vyre-0.7.2; its equivalent ones marked equivalent). Appended to the catalogue.
std::vector<Mutant> contributed_megakernel_mutants();

}  // namespace gridcheck::props
