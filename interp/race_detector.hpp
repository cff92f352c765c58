#pragma once
// The race detector (an Observer; docs/engineering.md#lesson-9, Oclgrind's RaceDetector with per-element shadow).
//
// Rule: two accesses of the same element race when they come from different invocations, at least
// one is a write, they are not both atomic, and no barrier orders them. A workgroup barrier orders
// only accesses of its own workgroup; a grid_sync and a launch boundary order everyone. Two
// unordered plain writes of the same value are tolerated unless RunOptions::same_value_writes_race
// (Oclgrind's --uniform-writes default; the final bytes cannot depend on their order).
//
// Shadow memory: one 8-byte cell per element of every buffer the program writes (read-only buffers
// cannot race and get none). A cell holds the accesses of ONE invocation in one barrier interval
// (interval id, local id, site, read/write/atomic bits); the rare element touched by a second
// invocation of the same grid phase moves to a 24-byte pooled record (last writer + two readers).
// Interval ids map to (grid phase, workgroup); because the engine runs workgroups one at a time
// between grid_syncs, "unordered" is: same grid phase, and a different workgroup or the same
// interval. Workgroup memory shares one shadow across workgroups (a cell of another workgroup or
// phase is simply stale).
//
// Reports name both invocations (global, local, workgroup ids) and both sites; a pair of sites on
// one buffer is reported once, with an occurrence count.

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "interp/compiled_program.hpp"
#include "interp/observer.hpp"
#include "interp/result.hpp"

namespace gridcheck::interp {

class RaceDetector final : public Observer {
 public:
  /// `storage` gives each non-workgroup buffer's byte length (declaration order).
  RaceDetector(const CompiledProgram& program, std::span<const Bytes> storage, bool same_value_writes_race);

  /// Bytes of shadow memory the detector allocates up front for `program` over `storage`.
  static std::uint64_t shadow_bytes(const CompiledProgram& program, std::span<const Bytes> storage);

  /// The distinct races found, in detection order (at most kMaxReports; occurrences keep counting).
  std::vector<RaceReport> take_reports() { return std::move(reports_); }
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

  // A cell and a record: interval id (0 = empty) with flags in the top bits, local id, site.
  struct Rec {
    std::uint32_t tag = 0;
    std::uint16_t local = 0;
    std::uint16_t site = 0;
  };
  struct Full {
    Rec w, r, x;
  };

 private:
  enum Kind : std::uint8_t { kRead, kWrite, kAtomic };
  void access(const Access& a, Kind kind);
  void new_interval(std::uint32_t workgroup);
  void next_epoch();
  void reset_shadow();
  bool stale(const Rec& rec, bool workgroup_memory) const;
  bool unordered(const Rec& rec) const;
  bool same_invocation(const Rec& rec, std::uint32_t local) const;
  void check_full(Full& f, const Access& a, Kind kind, bool workgroup_memory);
  void report(const Access& a, Kind kind, const Rec& other, Kind other_kind);
  std::uint32_t allocate_full();

  const CompiledProgram& prog_;
  bool strict_same_value_;
  LaunchContext ctx_;

  std::vector<std::vector<Rec>> shadow_;  ///< per buffer; empty when the buffer is never written
  std::uint64_t shadow_cells_ = 0;
  std::vector<Full> pool_;
  std::vector<std::uint32_t> free_;
  struct SegInfo {
    std::uint32_t epoch;
    std::uint32_t workgroup;
  };
  std::vector<SegInfo> segs_;  ///< index = interval id; 0 unused
  std::uint32_t epoch_ = 0;
  std::uint32_t cur_seg_ = 0;
  std::uint32_t cur_wg_ = 0;
  bool incomplete_ = false;

  std::vector<std::uint16_t> site_of_pc_;
  std::vector<std::uint32_t> pc_of_site_;

  std::vector<RaceReport> reports_;
  std::unordered_map<std::uint64_t, std::size_t> seen_;
  std::uint64_t dropped_ = 0;
};

}  // namespace gridcheck::interp
