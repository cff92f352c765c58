#include "props/gen/choice_source.hpp"

namespace gridcheck::props {

ChoiceSource ChoiceSource::random(std::uint64_t seed) {
  ChoiceSource s;
  s.state_ = seed;
  return s;
}

ChoiceSource ChoiceSource::replay(std::vector<std::uint32_t> choices) {
  ChoiceSource s;
  s.replaying_ = true;
  s.replay_ = std::move(choices);
  return s;
}

ChoiceSource ChoiceSource::replay_then_random(std::vector<std::uint32_t> prefix, std::uint64_t seed) {
  ChoiceSource s = replay(std::move(prefix));
  s.state_ = seed;
  s.random_after_replay_ = true;
  return s;
}

bool ChoiceSource::replaying() {
  if (replaying_ && random_after_replay_ && position_ == replay_.size()) replaying_ = false;
  return replaying_;
}

std::uint32_t ChoiceSource::next_raw() {
  if (replaying()) return position_ < replay_.size() ? replay_[position_++] : 0u;
  state_ += 0x9e3779b97f4a7c15ull;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<std::uint32_t>(z ^ (z >> 31));
}

std::uint32_t ChoiceSource::below(std::uint32_t bound) {
  if (bound <= 1) return 0;
  const std::uint32_t v = next_raw() % bound;
  recorded_.push_back(v);
  return v;
}

bool ChoiceSource::chance(std::uint32_t num, std::uint32_t den) {
  if (replaying()) {
    const std::uint32_t v = next_raw() != 0 ? 1u : 0u;
    recorded_.push_back(v);
    return v != 0;
  }
  const bool yes = next_raw() % den < num;
  recorded_.push_back(yes ? 1u : 0u);
  return yes;
}

std::uint32_t ChoiceSource::word() {
  const std::uint32_t v = next_raw();
  recorded_.push_back(v);
  return v;
}

}  // namespace gridcheck::props
