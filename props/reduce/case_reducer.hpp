#pragma once
// Delta debugging over the IR (spirv-reduce style "opportunities", docs/engineering.md#lesson-7). Shrinks a case
// while a caller-supplied predicate stays true. The predicate owns validity: it must reject
// candidates that do not validate or are racy, so reduction never drifts into undefined behaviour
// (docs/engineering.md#l2). Used by `gridcheck reduce` and to finish shrinking fuzz failures.

#include <cstdint>
#include <functional>
#include <string>

#include "ir/case.hpp"

namespace gridcheck::props {

/// True when the candidate is still "interesting" (valid, race-free, and keeps the verdict).
using Interestingness = std::function<bool(const ir::Case&)>;

struct ReduceOptions {
  std::uint32_t max_attempts = 20000;  ///< predicate calls before giving up (each may run R and splits)
  /// Called after each accepted step with a short description, for progress output.
  std::function<void(const std::string&)> on_step;
};

struct ReduceStats {
  std::uint32_t attempts = 0;
  std::uint32_t accepted = 0;
  bool budget_exhausted = false;
};

/// Returns the smallest case found; `start` itself when nothing smaller is interesting.
/// Precondition: interesting(start) is true.
ir::Case reduce_case(const ir::Case& start, const Interestingness& interesting, const ReduceOptions& options = {},
                     ReduceStats* stats = nullptr);

/// Statements reachable from the entry, counting nested ones (the size measure of reductions).
std::size_t statement_count(const ir::Program& p);

}  // namespace gridcheck::props
