#include "gpu/word_compare.hpp"

#include <limits>

#include <fmt/format.h>

namespace gridcheck::gpu {
namespace {

bool is_nan(std::uint32_t x) { return (x & 0x7FFFFFFFu) > 0x7F800000u; }

/// Monotonic map of non-NaN f32 bits onto integers, with -0 and +0 both at 0.
std::int64_t ordinal(std::uint32_t x) {
  const std::int64_t magnitude = x & 0x7FFFFFFFu;
  return (x & 0x80000000u) != 0 ? -magnitude : magnitude;
}

}  // namespace

std::uint64_t f32_ulp_distance(std::uint32_t a, std::uint32_t b) {
  if (is_nan(a) || is_nan(b)) return is_nan(a) && is_nan(b) ? 0 : std::numeric_limits<std::uint64_t>::max();
  const std::int64_t d = ordinal(a) - ordinal(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

WordComparison compare_word(std::uint32_t expected, std::uint32_t actual, bool result_is_f32, ir::F32Precision precision) {
  if (!result_is_f32 || precision.exact) {
    if (expected == actual) return {true, "exact"};
    return {false, "exact (bits differ)"};
  }
  const std::uint64_t d = f32_ulp_distance(expected, actual);
  if (d == std::numeric_limits<std::uint64_t>::max()) return {false, fmt::format("within {} ulp (exactly one is NaN)", precision.ulp)};
  if (is_nan(expected) && is_nan(actual)) return {true, fmt::format("within {} ulp (both NaN)", precision.ulp)};
  if (d <= precision.ulp) return {true, fmt::format("within {} ulp (distance {})", precision.ulp, d)};
  return {false, fmt::format("beyond {} ulp (distance {})", precision.ulp, d)};
}

}  // namespace gridcheck::gpu
