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
// Two ways in: as an Observer (on_load / on_store / on_atomic with an Access), or driven directly by
// the engine when no other observer watches accesses (load / store / atomic below: the same checks,
// the common cases inline in the engine's loop, no virtual call and no Access built; engine.hpp).
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
  struct Storage;
  /// `reuse` (may be null): vectors kept from an earlier detector (Storage), handed back by the destructor.
  RaceDetector(const CompiledProgram& program, std::span<const Bytes> storage, bool same_value_writes_race,
               Storage* reuse = nullptr);
  ~RaceDetector() override;
  RaceDetector(const RaceDetector&) = delete;
  RaceDetector& operator=(const RaceDetector&) = delete;

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

  /// The engine's direct path: the same as on_load / on_store / on_atomic with an Access of these
  /// fields and the running workgroup (the one last entered). The engine calls no on_out_of_bounds
  /// on it there: the detector keeps Observer's empty one (nothing was read or written).
  /// The common cases (an element last touched before the access's floor, or by the same invocation
  /// in the same interval) are inline and need only the access's site (site_of(pc), which the engine
  /// keeps beside the instruction); the rest go to the observer path's code, with the instruction
  /// from `pc()`.
  /// `state` is direct_state() of the running workgroup interval: it changes only in on_launch_begin,
  /// on_workgroup_enter, on_barrier_release and on_fence_release, which the engine calls outside its
  /// loop, so the loop keeps a copy in its locals (the detector's members would be reloaded after
  /// every store to the shadow, which may alias them).
  template <class PcOf>
  void load(const auto& state, std::uint32_t buffer, std::uint32_t element, std::uint16_t site, std::uint32_t local,
            std::uint32_t value, const PcOf& pc) {
    plain<kRead>(state, buffer, element, site, local, value, value, pc);
  }
  template <class PcOf>
  void store(const auto& state, std::uint32_t buffer, std::uint32_t element, std::uint16_t site, std::uint32_t local,
             std::uint32_t value, std::uint32_t previous, const PcOf& pc) {
    plain<kWrite>(state, buffer, element, site, local, value, previous, pc);
  }
  /// What load and store read of the detector (above).
  auto direct_state() const {
    return DirectState{direct_.data(), {interval_first_[0], interval_first_[1]}, {floor_[0], floor_[1]}};
  }
  /// The site of the access at instruction `pc` (an index into the program's race sites).
  std::uint16_t site_of(std::uint32_t pc) const { return site_of_pc_[pc]; }
  /// False for a buffer whose accesses the direct path ignores (never written, so none can race;
  /// every buffer once the detector stopped): the engine may skip its loads.
  bool watches(std::uint32_t buffer) const { return direct_[buffer].tags != nullptr; }
  [[gnu::noinline]] void atomic(std::uint32_t buffer, std::uint32_t element, std::uint32_t pc, std::uint32_t local,
                                std::uint32_t value, std::uint32_t previous, bool compare_exchange_failed);

  enum Kind : std::uint8_t { kRead, kWrite, kAtomicWrite, kAtomicRead, kKinds };

  // A tag: kEscalated | pool index, or access-kind flags | `when` of the one invocation it holds.
  static constexpr std::uint32_t kEscalated = 0x80000000u;
  static constexpr std::uint32_t kWhenBits = 26;
  static constexpr std::uint32_t kWhenMask = (1u << kWhenBits) - 1;
  static constexpr std::uint32_t kFlagShift = 26;
  static constexpr std::uint32_t kKindFlags = 0xFu << kFlagShift;
  static constexpr std::uint32_t flag_of(Kind k) { return 1u << (kFlagShift + k); }
  /// The invocation's plain writes in its interval stored more than one value (or mix with atomics).
  static constexpr std::uint32_t kSeveralValues = 1u << 30;
  /// A tag keeps one site for all the kinds of its invocation: the site of the kind whose conflicts
  /// include the others' (a plain write's include everything; an atomic read's are included in all).
  static constexpr int site_rank(Kind k) { return k == kWrite ? 3 : k == kRead || k == kAtomicWrite ? 2 : 1; }
  /// The highest site_rank of the kinds in a tag's flags, by (tag >> kFlagShift) & 0xF.
  static constexpr std::uint8_t kBestRank[16] = {0, 2, 3, 3, 2, 2, 3, 3, 1, 2, 3, 3, 2, 2, 3, 3};

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
  /// Per buffer, what the direct path needs: the shadow (null when never written, and for every
  /// buffer once the detector is incomplete) and its memory class (0 workgroup, 1 storage).
  struct Direct {
    std::uint32_t* tags = nullptr;
    std::uint16_t* sites = nullptr;
    std::uint32_t storage = 0;
  };
  struct DirectState {
    const Direct* direct;
    std::uint32_t interval_first[2];
    std::uint32_t floor[2];
  };
  template <Kind kind, class PcOf>
  void plain(const DirectState& state, std::uint32_t buffer, std::uint32_t element, std::uint16_t site,
             std::uint32_t local, std::uint32_t value, std::uint32_t previous, const PcOf& pc);
  [[gnu::noinline]] void slow(std::uint32_t buffer, std::uint32_t element, std::uint32_t pc, std::uint32_t local,
                              std::uint32_t value, std::uint32_t previous, Kind kind);
  void access(const Access& a, Kind kind);
  void escalate(Shadow& s, const Access& a);
  /// By kind: the conflicts to check are known at compile time.
  template <Kind kind>
  void check_full(Shadow& s, const Access& a, std::uint32_t when);
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
  /// Per memory class: records below it are ordered before any access now (interval_first_[0], phase_first_).
  std::uint32_t floor_[2] = {};
  std::uint32_t workgroup_ = 0;          ///< the workgroup last entered
  std::vector<Direct> direct_;
  bool incomplete_ = false;

  RaceSites own_sites_;             ///< when the program came without its tables
  const RaceSites* sites_ = nullptr;  ///< the program's tables, or own_sites_
  const std::uint16_t* site_of_pc_ = nullptr;

  std::vector<RaceReport> reports_;
  std::unordered_map<std::uint64_t, std::size_t> seen_;
  std::uint64_t dropped_ = 0;
  Storage* reuse_ = nullptr;

 public:
  /// The vectors of a detector, kept between dispatches by a caller that runs many (interpreter.cpp's
  /// per-thread cache), as Engine::Storage: a detector given one takes them at construction, emptied
  /// with their capacity kept (the shadow's per-buffer vectors too), and moves them back at
  /// destruction. A detector behaves exactly as with fresh vectors.
  struct Storage {
    std::vector<Shadow> shadow;
    std::vector<Full> pool;
    std::vector<std::uint32_t> free, workgroup_of;
    std::vector<Direct> direct;
    /// Bytes held (capacities), for a cache's bound on what it keeps.
    std::size_t bytes() const;
  };
};

template <RaceDetector::Kind kind, class PcOf>
inline void RaceDetector::plain(const DirectState& state, std::uint32_t buffer, std::uint32_t element,
                                std::uint16_t site, std::uint32_t local, std::uint32_t value, std::uint32_t previous,
                                const PcOf& pc) {
  static_assert(kind == kRead || kind == kWrite);
  // Field by field, not a copy of the Direct: GCC keeps a copy on the stack for the slow call.
  const Direct* const d = state.direct + buffer;
  std::uint32_t* const tags = d->tags;
  if (tags == nullptr) return;  // never written (no race possible), or the detector stopped
  const std::uint32_t t = tags[element];
  const std::uint32_t storage = d->storage;
  const std::uint32_t when = state.interval_first[storage] + local;
  constexpr std::uint32_t flag = flag_of(kind);
  if ((t & kEscalated) == 0) [[likely]] {
    const std::uint32_t held = t & kWhenMask;
    if (held < state.floor[storage]) [[likely]] {  // everything it held is ordered before this access
      tags[element] = when | flag;
      d->sites[element] = site;
      return;
    }
    if (held == when) {  // the same invocation again, same interval: access()'s same case
      const std::uint32_t kinds = (t & kKindFlags) | flag;
      constexpr std::uint32_t w = flag_of(kWrite), aw = flag_of(kAtomicWrite);
      if (kind == kWrite || (kinds & (aw | w)) != aw) {  // not a read beside an atomic write only
        std::uint32_t several = t & kSeveralValues;
        if (kind == kWrite && (t & (w | aw)) && value != previous) several = kSeveralValues;
        if ((kinds & (w | aw)) == (w | aw)) several = kSeveralValues;
        if (site_rank(kind) >= kBestRank[(t & kKindFlags) >> kFlagShift]) d->sites[element] = site;
        tags[element] = when | kinds | several;
        return;
      }
    }
  }
  slow(buffer, element, pc(), local, value, previous, kind);
}

}  // namespace gridcheck::interp
