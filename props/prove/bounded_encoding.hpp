#pragma once
// Internal to props/prove: the bounded model (docs/proof.md §2) for one K (segments) and N (passes)
// as Z3 constraints over one element of one buffer. The free constants are the pattern (declaration
// class, per-segment scan facts, per-(pass, segment) element reads and writes) and the element
// values. Every model of `constraints` is a valid Pattern (role_model.hpp); `constraints` and
// `violation` are satisfiable together with a given pattern exactly when simulate() reports a
// violation for it (role_crossval_test.cpp checks the agreement by execution). Not a public header.

#include <z3++.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "props/prove/role_encoder.hpp"
#include "props/prove/role_model.hpp"

namespace gridcheck::props::role_z3 {

struct Bounded {
  std::uint32_t segments = 0, passes = 0;
  z3::expr decl;
  std::vector<z3::expr> reads, writes;
  std::vector<std::vector<z3::expr>> element_read, element_write;
  z3::expr_vector constraints;
  z3::expr violation;
};

/// `state` prefixes the names of the per-step state constants, so that two tables can be encoded over
/// the same pattern in one context (find_distinguishing_pattern); the pattern's constants (decl,
/// scan, element pattern, values) are shared by name.
Bounded encode_bounded(Encoder& en, std::uint32_t n_seg, std::uint32_t n_pass, std::string_view state = "");

/// The pattern of a model of `b`'s constraints.
Pattern extract_pattern(const Bounded& b, const z3::model& m);

}  // namespace gridcheck::props::role_z3
