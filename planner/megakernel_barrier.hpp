#pragma once
// The megakernel barrier planner of vyre-driver 0.7.2 (`megakernel_barrier.rs`, seed 004; spec
// docs/vyre-0.7.2.md §7.1): turns a wave dependency DAG into Kahn layers, the minimum number of barrier-free groups.
//
// Exact output contract (ported line by line, including the parts a property test pins):
//  - wave_count == 0: InvalidWave for deps[0] if there are dependencies, else no groups;
//  - no dependencies: one group [0..wave_count);
//  - edges are checked in input order; per edge the range check precedes the self check, so the
//    first bad edge decides the error;
//  - duplicate edges are allowed (counted and decremented twice);
//  - layer 0 is ascending; every later layer is in discovery order (the current layer in order,
//    each wave's targets in input order), so later layers are not sorted: (0->3),(1->2) gives
//    [[0,1],[3,2]];
//  - a cycle reports wave_count - scheduled, which counts waves downstream of the cycle too;
//  - global_barriers = groups - 1 (0 without groups).
// Errors are typed (MegakernelError); to_string gives vyre's Display text ending in "Fix: ...".
// Allocation failure is reported as StorageReserveFailed, never thrown.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ir/diagnostic.hpp"
#include "planner/expected.hpp"

namespace gridcheck::planner {

/// Directed dependency: `before` must complete before `after` runs.
struct WaveDependency {
  std::size_t before = 0;
  std::size_t after = 0;
  friend constexpr bool operator==(WaveDependency, WaveDependency) = default;
};

/// One barrier-free group of independent waves.
struct BarrierGroup {
  std::vector<std::size_t> waves;
  friend bool operator==(const BarrierGroup&, const BarrierGroup&) = default;
};

struct BarrierPlan {
  std::vector<BarrierGroup> groups;
  /// Global synchronisation points between the groups.
  std::size_t global_barriers = 0;
  friend bool operator==(const BarrierPlan&, const BarrierPlan&) = default;
};

enum class MegakernelErrorKind : std::uint8_t {
  InvalidWave,           ///< an endpoint outside 0..wave_count
  SelfDependency,        ///< before == after
  Cycle,                 ///< the graph has a cycle
  ByteCountOverflow,     ///< CSR arithmetic overflowed (cannot happen in practice)
  StorageReserveFailed,  ///< scratch or result storage could not be reserved
};

struct MegakernelError {
  MegakernelErrorKind kind = MegakernelErrorKind::InvalidWave;
  std::size_t wave_count = 0;         ///< InvalidWave
  std::size_t before = 0;             ///< InvalidWave
  std::size_t after = 0;              ///< InvalidWave
  std::size_t wave = 0;               ///< SelfDependency
  std::size_t unscheduled_waves = 0;  ///< Cycle
  std::string_view field;             ///< ByteCountOverflow, StorageReserveFailed (a static string)
  std::size_t requested = 0;          ///< StorageReserveFailed
  std::string message;                ///< StorageReserveFailed: the allocator's text

  static MegakernelError invalid_wave(std::size_t wave_count, std::size_t before, std::size_t after);
  static MegakernelError self_dependency(std::size_t wave);
  static MegakernelError cycle(std::size_t unscheduled_waves);
  static MegakernelError overflow(std::string_view field);
  static MegakernelError reserve_failed(std::string_view field, std::size_t requested, std::string message);

  friend bool operator==(const MegakernelError&, const MegakernelError&) = default;
};

/// vyre's Display text, e.g. "megakernel wave 1 depends on itself. Fix: remove the self-edge or ...".
std::string to_string(const MegakernelError& error);
/// The same error as a user diagnostic: codes S101 (invalid wave) .. S105 (reservation), the vyre
/// text lower-cased into the gridcheck message style with the "Fix:" part as a note.
ir::Diagnostic to_diagnostic(const MegakernelError& error);

namespace detail {

/// std::allocator whose value-less construct default-initialises, so resize() leaves integers
/// uninitialised: the CSR target and wave-order arrays are written in full before they are read.
template <typename T>
struct UninitAllocator : std::allocator<T> {
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = UninitAllocator<U>;
  };
  UninitAllocator() = default;
  template <typename U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// One width of CSR scratch: in-degrees, offsets (wave_count + 2 entries: counted at [before + 2],
/// prefix-summed, then advanced as write cursors at [before + 1], which leaves wave w's targets
/// at [offsets[w], offsets[w + 1])), targets in input order, and the Kahn order (the layers one
/// after another).
template <typename Index>
struct CsrBuffers {
  std::vector<Index, UninitAllocator<Index>> indegree;
  std::vector<Index, UninitAllocator<Index>> offsets;
  std::vector<Index, UninitAllocator<Index>> targets;
  std::vector<Index, UninitAllocator<Index>> order;
};

}  // namespace detail

/// Caller-owned CSR scratch, reusable across calls. Graphs with fewer than 2^32 - 1 waves and
/// dependencies use 32-bit indices (half the memory traffic); larger ones use 64-bit indices in a
/// second set of buffers. Both sets only grow.
class BarrierScratch {
 public:
  BarrierScratch() = default;
  /// Scratch reserved for `wave_count` waves and `dependency_count` edges.
  static Expected<BarrierScratch, MegakernelError> try_with_capacity(std::size_t wave_count,
                                                                     std::size_t dependency_count);
  /// Retained wave capacity of the CSR buffers (in-degrees, offsets - 2, order; the larger of the
  /// two index widths).
  std::size_t wave_capacity() const;
  /// Retained edge capacity of the CSR target array (the larger of the two index widths).
  std::size_t dependency_capacity() const;

 private:
  friend Expected<BarrierPlan, MegakernelError> plan_megakernel_barriers_with_scratch(
      std::size_t, std::span<const WaveDependency>, BarrierScratch&);
  friend Expected<BarrierPlan, MegakernelError> plan_megakernel_barriers_wide(std::size_t,
                                                                              std::span<const WaveDependency>,
                                                                              BarrierScratch&);
  std::optional<MegakernelError> try_reserve_shape(std::size_t wave_count, std::size_t dependency_count, bool wide);

  detail::CsrBuffers<std::uint32_t> narrow_;
  detail::CsrBuffers<std::size_t> wide_;
  std::vector<std::size_t> layer_ends_;  ///< end of each Kahn layer in the order array
};

/// Plans with fresh scratch sized for this graph.
Expected<BarrierPlan, MegakernelError> plan_megakernel_barriers(std::size_t wave_count,
                                                                std::span<const WaveDependency> dependencies);

/// Plans using (and growing, never shrinking) the caller's scratch.
Expected<BarrierPlan, MegakernelError> plan_megakernel_barriers_with_scratch(
    std::size_t wave_count, std::span<const WaveDependency> dependencies, BarrierScratch& scratch);

/// The same planner with 64-bit CSR indices, which plan_megakernel_barriers_with_scratch uses only
/// for 2^32 - 1 or more waves or dependencies; exposed so tests can compare it with the 32-bit path.
Expected<BarrierPlan, MegakernelError> plan_megakernel_barriers_wide(std::size_t wave_count,
                                                                     std::span<const WaveDependency> dependencies,
                                                                     BarrierScratch& scratch);

}  // namespace gridcheck::planner
