#pragma once
// A stream of bounded random choices that can be recorded and replayed (Hypothesis-style internal
// reduction). Generators draw every decision from a ChoiceSource; because any sequence of words
// decodes to *some* valid case, shrinking the recorded sequence (deleting words, lowering values)
// always yields a valid case. Choice 0 is by convention the simplest option, and an exhausted replay
// source answers 0, so shorter and smaller sequences decode to simpler cases.

#include <cstdint>
#include <vector>

namespace gridcheck::props {

class ChoiceSource {
 public:
  /// Fresh choices from a seeded PRNG (splitmix64), recorded as they are drawn.
  static ChoiceSource random(std::uint64_t seed);
  /// Replays `choices`; each answer is reduced modulo its bound; 0 once exhausted.
  static ChoiceSource replay(std::vector<std::uint32_t> choices);
  /// Replays `prefix`, then draws fresh choices from a PRNG seeded with `seed`; records both.
  static ChoiceSource replay_then_random(std::vector<std::uint32_t> prefix, std::uint64_t seed);

  /// A value in [0, bound). bound 0 or 1 draws nothing and returns 0.
  std::uint32_t below(std::uint32_t bound);
  /// A value in [lo, hi] (inclusive); lo when the stream is exhausted.
  std::uint32_t between(std::uint32_t lo, std::uint32_t hi) { return lo + below(hi - lo + 1); }
  /// True with probability num/den in random mode; a recorded 1 means true.
  bool chance(std::uint32_t num, std::uint32_t den);
  /// A raw 32-bit word (literals); recorded as is.
  std::uint32_t word();

  /// The choices drawn so far (the recipe that replays this case).
  const std::vector<std::uint32_t>& recorded() const { return recorded_; }
  std::size_t draws() const { return recorded_.size(); }

 private:
  std::uint32_t next_raw();
  /// Whether the next draw replays (leaves replay mode at the end of a replay_then_random prefix).
  bool replaying();

  bool replaying_ = false;
  bool random_after_replay_ = false;  ///< replay_then_random: leave replay mode at the prefix's end
  std::uint64_t state_ = 0;
  std::vector<std::uint32_t> replay_;
  std::size_t position_ = 0;
  std::vector<std::uint32_t> recorded_;
};

}  // namespace gridcheck::props
