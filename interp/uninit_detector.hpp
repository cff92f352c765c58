#pragma once
// The uninitialised-read detector (an Observer; docs/semantics.md §3.4). R fills workgroup memory
// with zeros when a workgroup starts; a GPU does not. A load of a workgroup-memory element that no
// invocation of its workgroup has stored to earlier in the same launch reads that zero, and is
// reported. Storage buffers are never uninitialised: their bytes come from the caller (an input
// without data is zeros by the case format) or are zero-filled backend allocations.
//
// Shadow: one bit per workgroup-memory word per workgroup that holds memory at the same time — one
// workgroup when the program has no grid_sync (workgroups run to completion one at a time), every
// workgroup of the grid when it has one (workgroup memory persists across a grid_sync).

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "interp/compiled_program.hpp"
#include "interp/observer.hpp"
#include "interp/result.hpp"

namespace gridcheck::interp {

class UninitDetector final : public Observer {
 public:
  explicit UninitDetector(const CompiledProgram& program);

  /// Bytes of shadow the detector may allocate for `program` dispatched over `workgroups`.
  static std::uint64_t shadow_bytes(const CompiledProgram& program, std::uint64_t workgroups);

  /// One report per (buffer, site, launch) pair, in order of first occurrence (at most kMaxReports;
  /// later pairs are counted in dropped()).
  std::vector<UninitReport> take_reports() { return std::move(reports_); }
  std::uint64_t dropped() const { return dropped_; }

  static constexpr std::size_t kMaxReports = 64;

  void on_launch_begin(const LaunchContext& ctx) override;
  void on_workgroup_enter(std::uint32_t workgroup) override;
  void on_load(const Access& a) override;
  void on_store(const Access& a) override;

 private:
  std::vector<std::uint64_t>& bits_of(std::uint32_t workgroup);

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
