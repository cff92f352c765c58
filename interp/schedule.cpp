#include "interp/schedule.hpp"

#include <charconv>
#include <numeric>

namespace gridcheck::interp {

std::optional<Schedule> Schedule::parse(std::string_view text) {
  if (text == "in-order") return in_order();
  if (text == "reversed") return reversed();
  constexpr std::string_view kPrefix = "shuffle:";
  if (text.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view digits = text.substr(kPrefix.size());
  std::uint64_t seed = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), seed);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return shuffle(seed);
}

std::string Schedule::to_string() const {
  switch (kind) {
    case Kind::InOrder: return "in-order";
    case Kind::Reversed: return "reversed";
    case Kind::Shuffle: return "shuffle:" + std::to_string(seed);
  }
  return "in-order";
}

std::uint64_t OrderGenerator::random() {
  // splitmix64: the same generator the case format uses for random inputs.
  state_ += 0x9e3779b97f4a7c15ull;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void OrderGenerator::next(std::vector<std::uint32_t>& order, std::uint32_t n) {
  order.resize(n);
  switch (schedule_.kind) {
    case Schedule::Kind::InOrder: std::iota(order.begin(), order.end(), 0u); break;
    case Schedule::Kind::Reversed:
      for (std::uint32_t i = 0; i < n; ++i) order[i] = n - 1 - i;
      break;
    case Schedule::Kind::Shuffle:
      std::iota(order.begin(), order.end(), 0u);
      for (std::uint32_t i = n; i > 1; --i) {  // Fisher-Yates
        const auto j = static_cast<std::uint32_t>(random() % i);
        std::swap(order[i - 1], order[j]);
      }
      break;
  }
}

}  // namespace gridcheck::interp
