#pragma once
// Internal to props/prove: the inductive proof (docs/proof.md §4) that covers every K and every N.
// One (pass, segment) step of the split and of true grid sync is encoded over an abstract state,
// with an invariant that must hold initially (base), be preserved by every step whose scan facts are
// consistent with the rest of the sequence (step), and imply correct final outputs at the end of
// any pass (final_output). Each of the three is one query, whose Z3 failure is an `unknown`
// outcome with its message. Not a public header.

#include <string>

#include "props/prove/role_encoder.hpp"
#include "props/prove/role_proof.hpp"

namespace gridcheck::props::role_z3 {

/// The three queries and the non-vacuity check (InductiveResult) for the table `en` encodes. A Z3
/// failure while encoding makes all three `unknown` with its message; it never throws.
InductiveResult prove_inductive(Encoder& en, const ProofOptions& options);

/// An InductiveResult whose three queries are `unknown` for `reason`.
InductiveResult inductive_unknown(const std::string& reason);

}  // namespace gridcheck::props::role_z3
