#pragma once
// Shrinks a recorded choice sequence while a predicate holds (Hypothesis-style internal
// reduction): delete runs of choices (8, 4, 2, 1), then lower single choices (to 0, halve, minus 1).
// Every candidate decodes to a valid case by construction, so the predicate only has to judge the
// failure, never validity.

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

namespace gridcheck::props {

struct ChoiceShrinkOptions {
  std::uint32_t max_attempts = 2000;
  const std::atomic<bool>* stop = nullptr;
};

/// Returns the smallest sequence found (shortlex: fewer choices, then smaller values).
std::vector<std::uint32_t> shrink_choices(std::vector<std::uint32_t> choices,
                                          const std::function<bool(const std::vector<std::uint32_t>&)>& interesting,
                                          const ChoiceShrinkOptions& options, std::uint32_t* attempts = nullptr);

}  // namespace gridcheck::props
