#pragma once
// Saved killing cases (corpus/mutants/<mutant>.gc, written by `gridcheck mutants`): a case that
// tells one catalogue mutant apart from its base, replayed. It holds only while the base still
// passes it and the mutant still fails it, so a saved case keeps checking the oracle that found it.

#include <string>

#include "ir/case.hpp"
#include "props/mutants/case_meta.hpp"
#include "props/mutants/mutant_pair.hpp"

namespace gridcheck::props {

/// A saved killing case, replayed: meta `mutant` names the catalogue mutant, meta `base` its base
/// profile. The base must pass the case (expectations, meta `base_launches`, a deterministic plan;
/// for a contract case, meta `contract_waves`/`contract_edges`: no docs/vyre-0.7.2.md §7.1 violation) and the mutant
/// must fail it.
struct KillingCaseCheck {
  bool usable = false;        ///< the meta names a known mutant and base
  bool base_passes = false;
  bool mutant_fails = false;
  std::string message;        ///< the base's failures, or what told the mutant apart
  bool ok() const { return usable && base_passes && mutant_fails; }
};
KillingCaseCheck check_killing_case(const ir::Case& c, const ir::ResourceLimits& limits = mutant_limits());

}  // namespace gridcheck::props
