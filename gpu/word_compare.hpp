#pragma once
// The host-side verifier for one result word (docs/engineering.md#lesson-12: engines never compare). Exact
// operations must match bit for bit; f32 operations whose precision Vulkan does not define exactly
// (F32Precision in ir/ops.hpp) match within the table's ULP bound. Every comparison names the rule
// it applied, so a report can say "sin: within 4096 ulp (distance 2)".

#include <cstdint>
#include <string>

#include "ir/ops.hpp"

namespace gridcheck::gpu {

struct WordComparison {
  bool equal = false;
  std::string rule;  ///< "exact", "exact (both NaN)", "within 3 ulp (distance 1)", "beyond 3 ulp (distance 9)", ...
};

/// Distance in units in the last place between two f32 values, counting -0 and +0 as one point;
/// 0 for two NaNs; UINT64_MAX when exactly one is NaN.
std::uint64_t f32_ulp_distance(std::uint32_t a, std::uint32_t b);

/// Compares a result word of type `result` from operation precision `precision` (ignored unless the
/// result is f32 and the precision is inexact).
WordComparison compare_word(std::uint32_t expected, std::uint32_t actual, bool result_is_f32, ir::F32Precision precision);

}  // namespace gridcheck::gpu
