#include "props/reduce/choice_shrinker.hpp"

#include <algorithm>

namespace gridcheck::props {

std::vector<std::uint32_t> shrink_choices(std::vector<std::uint32_t> best,
                                          const std::function<bool(const std::vector<std::uint32_t>&)>& interesting,
                                          const ChoiceShrinkOptions& options, std::uint32_t* attempts_out) {
  std::uint32_t attempts = 0;
  auto stopped = [&] {
    return attempts >= options.max_attempts || (options.stop != nullptr && options.stop->load());
  };
  auto attempt = [&](const std::vector<std::uint32_t>& candidate) {
    if (stopped()) return false;
    ++attempts;
    if (!interesting(candidate)) return false;
    best = candidate;
    return true;
  };

  bool progress = true;
  while (progress && !stopped()) {
    progress = false;
    // Deleting runs removes whole features and statements; try the end first, where later choices
    // (statements, expressions) live, so earlier structure choices stay aligned.
    for (std::size_t run : {std::size_t{8}, std::size_t{4}, std::size_t{2}, std::size_t{1}}) {
      for (std::size_t end = best.size(); end >= run && !stopped();) {
        std::vector<std::uint32_t> candidate = best;
        candidate.erase(candidate.begin() + static_cast<std::ptrdiff_t>(end - run),
                        candidate.begin() + static_cast<std::ptrdiff_t>(end));
        if (attempt(candidate)) {
          progress = true;
          end = std::min(end, best.size());
        } else {
          --end;
        }
      }
    }
    for (std::size_t i = 0; i < best.size() && !stopped(); ++i) {
      if (best[i] == 0) continue;
      for (std::uint32_t value : {0u, best[i] / 2, best[i] - 1}) {
        if (value >= best[i]) continue;
        std::vector<std::uint32_t> candidate = best;
        candidate[i] = value;
        if (attempt(candidate)) {
          progress = true;
          break;
        }
      }
    }
  }
  if (attempts_out != nullptr) *attempts_out = attempts;
  return best;
}

}  // namespace gridcheck::props
