#pragma once
// The uninitialised-read detector (docs/semantics.md §3.4). R fills workgroup memory with zeros
// when a workgroup starts; a GPU does not. A load of a workgroup-memory element that no invocation
// of its workgroup has stored to earlier in the same launch reads that zero, and is reported.
// Storage buffers are never uninitialised: their bytes come from the caller (an input without data
// is zeros by the case format) or are zero-filled backend allocations.
//
// Shadow: one bit per workgroup-memory word per workgroup that holds memory at the same time — one
// workgroup when the program has no grid_sync (workgroups run to completion one at a time), every
// workgroup of the grid when it has one (workgroup memory persists across a grid_sync).
//
// Not an Observer: the engine drives it directly (engine.hpp), so that a run whose only check is
// this one keeps the unobserved loop. The engine calls begin_launch and enter_workgroup where an
// observer gets on_launch_begin and on_workgroup_enter, sets a word's bit in shadow(workgroup) on
// each in-bounds workgroup-memory store, and on an in-bounds workgroup-memory load whose bit is
// clear calls report (atomics neither set nor check bits).

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "interp/compiled_program.hpp"
#include "interp/observer.hpp"
#include "interp/result.hpp"

namespace gridcheck::interp {

class UninitDetector final {
 public:
  explicit UninitDetector(const CompiledProgram& program);

  /// Bytes of shadow the detector may allocate for `program` dispatched over `workgroups`.
  static std::uint64_t shadow_bytes(const CompiledProgram& program, std::uint64_t workgroups);

  /// One report per (buffer, site, launch) pair, in order of first occurrence (at most kMaxReports;
  /// later pairs are counted in dropped()).
  std::vector<UninitReport> take_reports() { return std::move(reports_); }
  std::uint64_t dropped() const { return dropped_; }

  static constexpr std::size_t kMaxReports = 64;

  void begin_launch(const LaunchContext& ctx);
  /// A workgroup starts or resumes; its shadow starts clear the first time in a launch.
  void enter_workgroup(std::uint32_t workgroup);
  /// The running workgroup's shadow: bit w of word w / 64 is set once workgroup word w was stored.
  /// Valid until the next begin_launch.
  std::uint64_t* shadow(std::uint32_t workgroup) { return written_[prog_.has_fence ? workgroup : 0].data(); }
  /// A load of a workgroup word whose shadow bit is clear.
  [[gnu::cold]] void report(const Access& a);

 private:
  const CompiledProgram& prog_;
  LaunchContext ctx_;
  std::uint32_t words_per_workgroup_ = 0;
  /// Per workgroup (one slot without a grid_sync): the words written in this launch.
  std::vector<std::vector<std::uint64_t>> written_;
  std::vector<bool> entered_;  ///< per workgroup: entered in this launch (grid_sync programs)
  std::vector<UninitReport> reports_;
  std::unordered_map<std::uint64_t, std::size_t> seen_;  ///< (launch, buffer, pc) -> report
  std::uint64_t dropped_ = 0;
};

}  // namespace gridcheck::interp
