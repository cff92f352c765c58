#pragma once
// The race detector (an Observer; docs/engineering.md#lesson-9, Oclgrind's RaceDetector with
// FastTrack-style per-element history).
//
// Rule: two accesses of the same element race when they come from different invocations, at least
// one writes, they are not both atomic, and no barrier orders them. A workgroup barrier orders only
// its own workgroup's accesses, and only those of the memory classes in its mask
// (barrier_memory_mask: workgroup buffers are workgroup memory, every other buffer storage); a
// grid_sync and a launch boundary order everyone. A failed compare-exchange is an atomic read. Two
// unordered plain writes of the same value are tolerated unless RunOptions::same_value_writes_race
// (Oclgrind's --uniform-writes default; the final bytes cannot depend on their order).
//
// The verdict does not depend on the schedule: whichever of two conflicting unordered accesses runs
// first, the second finds a record of the first. Per element and grid phase the detector keeps,
// apart for plain reads, plain writes, atomic writes and atomic reads: one record of a workgroup
// that ran earlier in the phase, the latest record of the workgroup running now, and a record of a
// second invocation of the current barrier interval; for plain writes also the values written
// (one value, or "several"), so that the same-value tolerance is exact.
//
// Shadow memory: 6 bytes per element of every buffer the program writes (read-only buffers cannot
// race and get none): a 32-bit tag (invocation interval + access kinds) and a 16-bit site. A tag
// holds the accesses of ONE invocation; the rare element touched by a second invocation in one
// grid phase moves to a pooled record of the full history (128 bytes). Because the engine runs
// workgroups one at a time between grid_syncs and numbers intervals in execution order, "ordered"
// reduces to comparisons of interval numbers.
//
// Reports name both invocations (global, local, workgroup ids), both sites and both access kinds;
// a pair of sites and kinds on one buffer is reported once, with an occurrence count and its first
// RaceReport::kMaxElements distinct elements.

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "interp/compiled_program.hpp"
#include "interp/observer.hpp"
#include "interp/result.hpp"

namespace gridcheck::interp {

/// The detector's per-program tables (sites of accesses, written buffers) of a compiled program.
RaceSites index_race_sites(const CompiledProgram& program);

class RaceDetector final : public Observer {
 public:
  /// `storage` gives each non-workgroup buffer's byte length (declaration order).
  RaceDetector(const CompiledProgram& program, std::span<const Bytes> storage, bool same_value_writes_race);

  /// Bytes of shadow memory the detector allocates up front for `program` over `storage`.
  static std::uint64_t shadow_bytes(const CompiledProgram& program, std::span<const Bytes> storage);

  /// The distinct races found, in detection order (at most kMaxReports; occurrences keep counting).
  std::vector<RaceReport> take_reports();
  /// True when the detector had to stop checking (too many barrier intervals in one grid phase).
  bool incomplete() const { return incomplete_; }

  static constexpr std::size_t kMaxReports = 64;

  void on_launch_begin(const LaunchContext& ctx) override;
  void on_workgroup_enter(std::uint32_t workgroup) override;
  void on_barrier_release(std::uint32_t workgroup, std::uint32_t pc) override;
  void on_fence_release(std::uint32_t fence_index, std::uint32_t pc, const MemoryView& memory) override;
  void on_load(const Access& a) override;
  void on_store(const Access& a) override;
  void on_atomic(const Access& a) override;

  enum Kind : std::uint8_t { kRead, kWrite, kAtomicWrite, kAtomicRead, kKinds };

  /// One access: `when` = interval number * invocations per workgroup + local id (0 = none).
  struct Rep {
    std::uint32_t when = 0;
    std::uint16_t site = 0;
  };
  /// The accesses of one kind to one element in the current grid phase.
  struct History {
    Rep earlier_group;  ///< one of a workgroup that ran before the current one (storage only)
    Rep latest;         ///< the latest of the current workgroup
    Rep other;          ///< one of latest's interval by another invocation than latest's
  };
  /// Summary of plain-write values: one value, or several.
  struct Values {
    std::uint32_t value = 0;
    bool several = false;
    bool any = false;
  };
  struct Full {
    History of[kKinds];
    Values earlier_groups, group, interval;  ///< plain writes of History::earlier_group's set, latest's workgroup, latest's interval
    /// The floor and first `when` of the workgroup this history was last aged for (kNotAged: never).
    /// Ageing is idempotent until either moves, so an access under the same pair skips it.
    std::uint32_t aged_floor = kNotAged;
    std::uint32_t aged_group = kNotAged;
    static constexpr std::uint32_t kNotAged = 0xFFFFFFFFu;
  };

 private:
  struct Shadow {
    std::vector<std::uint32_t> tags;
    std::vector<std::uint16_t> sites;
    bool workgroup = false;
  };
  void access(const Access& a, Kind kind);
  void escalate(Shadow& s, const Access& a);
  void check_full(Shadow& s, const Access& a, Kind kind, std::uint32_t when);
  bool new_interval(std::uint8_t mask);
  void next_epoch();
  void reset_shadow();
  void report(const Access& a, Kind kind, const Rep& other, Kind other_kind);
  std::uint32_t allocate_full();

  const CompiledProgram& prog_;
  bool strict_same_value_;
  std::uint32_t lanes_;
  LaunchContext ctx_;

  std::vector<Shadow> shadow_;  ///< per buffer; empty when the buffer is never written
  std::uint64_t shadow_cells_ = 0;
  std::vector<Full> pool_;
  std::vector<std::uint32_t> free_;

  // Intervals are numbered from 1 in execution order; workgroup_of_[n] is interval n's workgroup.
  std::vector<std::uint32_t> workgroup_of_;
  std::uint32_t phase_first_ = 0;        ///< `when` of the current grid phase's first access
  std::uint32_t group_first_ = 0;        ///< `when` of the current workgroup's first access
  std::uint32_t interval_first_[2] = {}; ///< per memory class (0 workgroup, 1 storage): the current interval's
  bool incomplete_ = false;

  RaceSites own_sites_;             ///< when the program came without its tables
  const RaceSites* sites_ = nullptr;  ///< the program's tables, or own_sites_
  const std::uint16_t* site_of_pc_ = nullptr;

  std::vector<RaceReport> reports_;
  std::unordered_map<std::uint64_t, std::size_t> seen_;
  std::uint64_t dropped_ = 0;
};

}  // namespace gridcheck::interp
