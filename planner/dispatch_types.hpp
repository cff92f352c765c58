#pragma once
// Vocabulary of the split's dispatch loop (docs/vyre-0.7.2.md §6.8) shared by the Profile hooks and run_split.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "planner/executor.hpp"
#include "planner/live_buffers.hpp"
#include "planner/split_plan.hpp"

namespace gridcheck::planner {

/// What the caller asks of one dispatch (vyre's DispatchConfig fields that matter to the split).
struct RunConfig {
  /// The caller's explicit grid (workgroup counts); nullopt = none (docs/vyre-0.7.2.md#g1 under vyre-0.7.2).
  std::optional<std::array<std::uint32_t, 3>> grid;
  std::optional<std::array<std::uint32_t, 3>> workgroup_override;
  /// nullopt means 1; 0 is an error (S010).
  std::optional<std::uint32_t> fixpoint_iterations;
};

/// How the loop repeats: `passes` over the whole segment sequence at most, each segment launched
/// with `segment_fixpoint` (vyre 0.7.2: N passes of fixpoint 1; the pre-H2 bug M4: 1 pass of N).
struct PassSchedule {
  std::uint32_t passes = 1;
  std::uint32_t segment_fixpoint = 1;
};

/// Decides after each whole pass whether the loop stops early (docs/vyre-0.7.2.md §6.8 step 8, H3).
class Convergence {
 public:
  virtual ~Convergence() = default;
  /// The plan's scratch buffers (SplitPlan::scratch): pass-local, since every pass writes what it
  /// reads of them before reading it, so they are not part of the state a pass leaves to the next
  /// and an early exit may leave them out. Called once, before start(); the default keeps them.
  virtual void set_pass_local(std::span<const ScratchBuffer>) {}
  /// Called once before the first pass with the initial live map.
  virtual void start(const LiveMap& live) = 0;
  /// Called after every pass; true stops the loop.
  virtual bool converged(const LiveMap& live) = 0;
};

/// vyre 0.7.2: stop when the owned-accumulator fingerprint equals the previous pass's. Pass 1 is
/// never compared with the initial state, so N >= 2 always runs at least 2 passes.
class FingerprintConvergence final : public Convergence {
 public:
  void start(const LiveMap&) override { previous_.reset(); }
  bool converged(const LiveMap& live) override;

 private:
  std::optional<std::uint64_t> previous_;
};

/// After each segment launch (and its refresh), for traces and first-divergence reports.
struct SegmentEvent {
  std::uint32_t pass = 0;
  std::size_t segment = 0;
  std::size_t launch = 0;  ///< 0-based launch number over the whole run
  const PlannedSegment* planned = nullptr;
  const LiveMap* live = nullptr;
};
using SegmentObserver = std::function<void(const SegmentEvent&)>;

}  // namespace gridcheck::planner
