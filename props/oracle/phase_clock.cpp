#include "props/oracle/phase_clock.hpp"

#include <algorithm>
#include <chrono>

#include "ir/ice.hpp"

namespace gridcheck::props {
namespace {

using Clock = std::chrono::steady_clock;

struct ThreadClock {
  PhaseTimes* sink = nullptr;
  Phase current = Phase::Other;
  std::uint32_t absorbing = 0;  ///< enclosing Nested::Absorb scopes
  Clock::time_point since;

  /// Charges the time since the last switch to the current phase and makes `next` current.
  void switch_to(Phase next) {
    const Clock::time_point now = Clock::now();
    sink->ns[static_cast<std::size_t>(current)] +=
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - since).count());
    since = now;
    current = next;
  }
};

thread_local ThreadClock t_clock;

constexpr std::array<std::string_view, kPhaseCount> kNames = {
    "generate", "reference", "schedule", "plan",  "compile", "pipeline",
    "launch",   "compare",   "convergence", "waves", "shrink",  "other"};

}  // namespace

std::string_view name_of(Phase p) { return kNames[static_cast<std::size_t>(p)]; }

std::uint64_t PhaseTimes::total() const {
  std::uint64_t sum = 0;
  for (std::uint64_t v : ns) sum += v;
  return sum;
}

PhaseTimes& PhaseTimes::operator+=(const PhaseTimes& other) {
  for (std::size_t i = 0; i < kPhaseCount; ++i) ns[i] += other.ns[i];
  return *this;
}

PhaseRecorder::PhaseRecorder(PhaseTimes& times) {
  GC_ASSERT(t_clock.sink == nullptr);
  t_clock.sink = &times;
  t_clock.current = Phase::Other;
  t_clock.absorbing = 0;
  t_clock.since = Clock::now();
}

PhaseRecorder::~PhaseRecorder() {
  t_clock.switch_to(Phase::Other);
  t_clock.sink = nullptr;
}

PhaseScope::PhaseScope(Phase phase, Nested nested) {
  if (t_clock.sink == nullptr || t_clock.absorbing > 0) return;
  active_ = true;
  absorbs_ = nested == Nested::Absorb;
  previous_ = t_clock.current;
  t_clock.switch_to(phase);
  if (absorbs_) ++t_clock.absorbing;
}

PhaseScope::~PhaseScope() {
  if (!active_ || t_clock.sink == nullptr) return;
  if (absorbs_) --t_clock.absorbing;
  t_clock.switch_to(previous_);
}

void recharge(Phase from, Phase to, std::uint64_t ns) {
  if (t_clock.sink == nullptr || t_clock.absorbing > 0) return;
  t_clock.switch_to(t_clock.current);  // bring `from` up to date
  auto& times = t_clock.sink->ns;
  const std::uint64_t moved = std::min(ns, times[static_cast<std::size_t>(from)]);
  times[static_cast<std::size_t>(from)] -= moved;
  times[static_cast<std::size_t>(to)] += moved;
}

}  // namespace gridcheck::props
