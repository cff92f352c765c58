#pragma once
// Internal to props/prove: the bounded question — is there a counterexample of K segments and N
// passes, under extra constraints? — and the minimisation of its answer. Every pattern Search finds is
// checked against the simulator (role_model.hpp); one it does not confirm is still returned, and is
// recorded as a model error, which only a bug in the encoding produces. Not a public header.

#include <z3++.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "props/prove/bounded_encoding.hpp"
#include "props/prove/role_encoder.hpp"
#include "props/prove/role_model.hpp"
#include "props/prove/role_proof.hpp"

namespace gridcheck::props::role_z3 {

/// Queries over one Encoder (one context, one table). The referenced objects outlive the Search.
struct Search {
  Encoder& en;
  const RoleTable& table;  ///< the table `en` encodes, for confirming counterexamples
  const ProofOptions& options;
  std::vector<std::string>& model_errors;

  /// One (K, N) query with extra constraints (`extra` may be empty); on sat and when `found` is not
  /// null, the minimised pattern. A Z3 failure is an `unknown` outcome with its message, never an
  /// exception.
  QueryOutcome check(std::uint32_t n_seg, std::uint32_t n_pass,
                     const std::function<void(const Bounded&, z3::expr_vector&)>& extra, std::optional<Pattern>* found);
};

/// `s` holds a query over `b` whose last check was sat. Switches off every element and scan literal
/// it can (greedy, with assumptions) while the query stays satisfiable, and returns the final
/// model's pattern. Throws z3::exception on a Z3 failure (the callers catch it).
Pattern minimise(z3::solver& s, const Bounded& b);

}  // namespace gridcheck::props::role_z3
