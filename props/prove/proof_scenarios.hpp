#pragma once
// Internal to props/prove: the named counterexample scenarios that ProofOptions::scenarios
// searches. Each is a declaration class (access, is_output, live_out), the number of passes its
// shape needs, and constraints on the bounded model's pattern (bounded_encoding.hpp): a bounded
// counterexample that also meets them is an instance of the scenario. Not a public header.

#include <z3++.h>

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "planner/role_rule.hpp"
#include "props/prove/bounded_encoding.hpp"

namespace gridcheck::props::role_z3 {

struct Scenario {
  std::string_view id, title, spec;
  ir::BufferAccess access;
  bool is_output, live_out;
  std::uint32_t passes;
  /// Appends the scenario's constraints on `b`'s pattern; may be empty.
  std::function<void(const Bounded&, z3::expr_vector&)> constrain;
};

/// In the report's order.
const std::vector<Scenario>& scenarios();

/// Appends to `cons`: some segment references the buffer (excludes the B1 shape, which every rule
/// without a B1 fix has).
void referenced_somewhere(const Bounded& b, z3::expr_vector& cons);

}  // namespace gridcheck::props::role_z3
