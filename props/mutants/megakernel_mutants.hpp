#pragma once
// Deliberate faults of the megakernel barrier planner (docs/vyre-0.7.2.md §7.1), each made by replacing
// `Profile::megakernel` on a copy of a profile (no source patching): the mutants the DAG property
// (props/dag_oracle.hpp) must kill. Equivalent mutants return another correct plan and must NOT be
// flagged: they check that the property has no false positives. A later mutant catalogue
// (`gridcheck mutants`) includes these.

#include <functional>
#include <string_view>
#include <vector>

#include "planner/profile.hpp"

namespace gridcheck::props {

struct MegakernelMutant {
  std::string_view name;         ///< "mk-merge-dependent"
  std::string_view description;  ///< one line
  bool equivalent = false;       ///< every plan it returns is still correct (not killable)
  /// The faulty rule, wrapping the profile's own.
  std::function<planner::MegakernelPlanner(planner::MegakernelPlanner base)> wrap;
};

/// The catalogue, killable mutants first.
const std::vector<MegakernelMutant>& megakernel_mutants();
const MegakernelMutant* find_megakernel_mutant(std::string_view name);

/// A copy of `base` named "<mutant>" whose megakernel rule is the mutant's; everything else is base.
planner::Profile with_mutant(const planner::Profile& base, const MegakernelMutant& mutant);

}  // namespace gridcheck::props
