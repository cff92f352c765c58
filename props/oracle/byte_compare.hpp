#pragma once
// Byte-for-byte comparison of one buffer between two runs, and the rule that says how f32 words
// may differ (exactly, or within N ulp when the program uses an operation Vulkan does not define
// exactly; ir/ops.hpp F32Precision).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/program.hpp"
#include "planner/executor.hpp"

namespace gridcheck::props {

/// Amber-style description of two byte buffers that differ.
struct ByteDiff {
  std::string buffer;
  ir::ScalarType element = ir::ScalarType::U32;
  std::uint64_t expected_bytes = 0, actual_bytes = 0;  ///< lengths
  std::uint64_t differing_elements = 0;
  std::uint64_t first_byte = 0;
  std::uint64_t element_index = 0;
  std::uint32_t expected_word = 0, actual_word = 0;  ///< the words at element_index (0 past the end)
  /// "3 values differed, first difference at byte 4: 2 != 0" (+ length note)
  std::string describe() const;
};

/// How f32 words are compared: exactly (ulp 0), or within `ulp` units in the last place.
struct ComparisonRule {
  std::uint32_t ulp = 0;
  std::string inexact_ops;  ///< "div, sqrt"
  /// "exact", or "f32 within N ulp (uses div, sqrt)".
  std::string describe() const;
};

/// The rule for a program's outputs on a GPU: exact unless it applies an inexact f32 operation.
ComparisonRule comparison_rule(const ir::Program& p);

/// Compares `actual` against `expected` under `rule`; nullopt when they are equal (same length,
/// every word equal or within the rule).
std::optional<ByteDiff> compare(std::string_view buffer, ir::ScalarType element, const planner::Bytes& expected,
                                const planner::Bytes& actual, const ComparisonRule& rule);

/// Exact comparison of one buffer's bytes; nullopt when equal.
std::optional<ByteDiff> diff_bytes(std::string_view buffer, ir::ScalarType element, const planner::Bytes& expected,
                                   const planner::Bytes& actual);

/// The little-endian word at `element` of `b` (0 past the end).
std::uint32_t word_at(const planner::Bytes& b, std::uint64_t element);

}  // namespace gridcheck::props
