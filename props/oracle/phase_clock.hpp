#pragma once
// Where a campaign's time goes (`fuzz --json` "phases", bench/fuzz_throughput.sh): a per-thread
// clock that charges wall time to one phase at a time.
//
// A thread records only while a PhaseRecorder is alive on it; every PhaseScope on that thread then
// charges the wall time from its start to its end, less the time of the scopes nested inside it,
// to its phase, and time outside every scope goes to Phase::Other. So the phases of a recorder sum
// to its lifetime. Without a recorder a PhaseScope reads no clock (one thread-local load), so
// library code may carry scopes on its hot paths.
//
// What each phase holds is written in docs/campaigns.md ("Where the time goes").

#include <array>
#include <cstdint>
#include <string_view>

namespace gridcheck::props {

enum class Phase : std::uint8_t {
  Generate,     ///< decoding a case from its choices
  Reference,    ///< R: validation, compilation and the run with the race detector
  Schedule,     ///< R's second run under the counterpart schedule (docs/semantics.md §3.6)
  Plan,         ///< planning the split (plan_split)
  Compile,      ///< H-cpu: validating and compiling a segment; H-gpu: GLSL to SPIR-V (glslang, spirv-val)
  Pipeline,     ///< H-gpu: the rest of kernel preparation (validation, lowering, pipeline creation)
  Launch,       ///< running segment launches (H-cpu: the interpreter; H-gpu: upload, submit, wait, read-back)
  Compare,      ///< judging a split's outputs against R's
  Convergence,  ///< the convergence oracle's own R run
  Waves,        ///< the waves oracle (R-waves) of DAG cases
  Shrink,       ///< shrinking a failure and saving it
  Other,        ///< everything else (bookkeeping, waiting for the coordinating thread)
};
inline constexpr std::size_t kPhaseCount = 12;

std::string_view name_of(Phase p);

struct PhaseTimes {
  std::array<std::uint64_t, kPhaseCount> ns{};

  std::uint64_t operator[](Phase p) const { return ns[static_cast<std::size_t>(p)]; }
  std::uint64_t total() const;
  PhaseTimes& operator+=(const PhaseTimes& other);
};

/// Records this thread's phases into `times` (added to what it holds) from construction to
/// destruction. One recorder per thread at a time (a second one is an ICE).
class PhaseRecorder {
 public:
  explicit PhaseRecorder(PhaseTimes& times);
  ~PhaseRecorder();
  PhaseRecorder(const PhaseRecorder&) = delete;
  PhaseRecorder& operator=(const PhaseRecorder&) = delete;
};

/// What a scope does with the scopes nested inside it.
enum class Nested : std::uint8_t {
  Split,   ///< they take their own time out of this scope's
  Absorb,  ///< they charge nothing: all of this scope's time is its phase's (shrinking, R-waves)
};

/// Charges its lifetime (less nested scopes, unless it absorbs them) to `phase` when a recorder is
/// active on the thread and no enclosing scope absorbs it.
class PhaseScope {
 public:
  explicit PhaseScope(Phase phase, Nested nested = Nested::Split);
  ~PhaseScope();
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  Phase previous_ = Phase::Other;
  bool active_ = false;
  bool absorbs_ = false;
};

/// Moves up to `ns` nanoseconds already charged to `from` over to `to` (for times a callee measured
/// itself, such as a GPU executor's compile time inside a Launch scope). No-op without a recorder.
void recharge(Phase from, Phase to, std::uint64_t ns);

}  // namespace gridcheck::props
