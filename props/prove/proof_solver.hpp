#pragma once
// Internal to props/prove: how every query of the proof is solved. A query's solver gives up after
// ProofOptions::timeout_ms with `unknown` rather than running on; set_seeds() fixes Z3's global
// random seeds, so that a query's answer and model repeat from run to run (short of a timeout).
// Not a public header.

#include <z3++.h>

#include <chrono>

#include "props/prove/role_proof.hpp"

namespace gridcheck::props::role_z3 {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// A solver for one query, bounded by the per-query timeout.
z3::solver make_solver(z3::context& ctx, const ProofOptions& options);

/// unsat: Holds, sat: Fails, unknown: Unknown.
QueryVerdict verdict_of(z3::check_result r);

/// Z3's global random seeds (smt.random_seed, sat.random_seed) from options.seed.
void set_seeds(const ProofOptions& options);

}  // namespace gridcheck::props::role_z3
