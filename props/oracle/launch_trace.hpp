#pragma once
// Every buffer after every step of one case: R's grid phases (true grid sync: a phase ends at a
// grid_sync release or at the end of a fixpoint iteration) and the H-cpu split's launches, for
// `diff --dump-launches` and `diff --html` (docs/reports.md "Launch dumps", "HTML page").
//
// A split launch is *aligned* with R's phase iteration·segments + segment when every fixpoint
// iteration of R has exactly as many phases as the plan has segments (every fence at the top of the
// kernel); an unsplit launch is aligned with R's last phase. Otherwise (a plan that drops or adds
// a cut, e.g. a trailing grid_sync) only the launch of the plan's last segment in each pass is
// aligned, with R's last phase of that iteration. A launch that is not aligned is still recorded,
// with no R phase to compare.
//
// H-cpu only: the split runs on the interpreter (InterpExecutor) with the planner's SegmentObserver;
// an H-gpu run has no per-launch hook (GpuSplitRunner takes none).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/case.hpp"
#include "planner/profile.hpp"
#include "planner/split_dispatch.hpp"
#include "props/oracle/oracle_options.hpp"

namespace gridcheck::props {

/// One buffer's bytes after a step.
struct TracedBuffer {
  std::string name;
  planner::Bytes bytes;
  /// R only: one bit per element (LSB first within each byte), set when R stored (or atomically
  /// wrote) the element during this phase.
  std::vector<std::uint8_t> stored;
  /// R only: the source lines of the stores to this buffer during this phase, ascending.
  std::vector<std::uint32_t> store_lines;
};

/// R's memory at the end of one grid phase.
struct ReferencePhase {
  std::uint32_t iteration = 0;   ///< fixpoint iteration (R's launch), 0-based
  std::uint32_t phase = 0;       ///< grid phase within the iteration, 0-based
  std::uint32_t fence_line = 0;  ///< the grid_sync whose release ended it; 0: the iteration's end
  std::vector<TracedBuffer> buffers;  ///< every storage buffer, in declaration order
};

/// The split's live buffers after one launch and its refresh.
struct SplitLaunch {
  std::size_t index = 0;  ///< 0-based over the run
  std::uint32_t pass = 0;
  std::size_t segment = planner::LaunchRecord::kUnsplit;
  std::optional<std::size_t> reference_phase;  ///< the aligned R phase (index into LaunchTrace::reference)
  std::vector<TracedBuffer> buffers;           ///< every live buffer, by name
};

struct SplitTrace {
  std::string profile;
  std::size_t segment_count = 0;
  bool aligned = false;  ///< every launch lines up with an R phase (see above); false: only pass ends
  std::vector<SplitLaunch> launches;
  std::optional<planner::SplitFailure> failure;
};

struct BufferInfo {
  std::string name;
  ir::ScalarType element = ir::ScalarType::U32;
  std::uint32_t line = 0;   ///< the declaration's line
  planner::Bytes initial;   ///< the caller's bytes (zeros when it has none)
};

struct LaunchTrace {
  std::vector<BufferInfo> buffers;        ///< the program's storage buffers, declaration order
  std::vector<ReferencePhase> reference;  ///< R's phases in order (empty when R refused the program)
  std::vector<SplitTrace> splits;         ///< one per profile of `options` (the default profile when none)
  /// Top-level grid_sync lines of the kernel (the source's segment boundaries), ascending.
  std::vector<std::uint32_t> fence_lines;
  /// The kernel's first and last source lines (0 when unknown).
  std::uint32_t kernel_first_line = 0, kernel_last_line = 0;
  /// Steps (R phases and split launches) not recorded: the trace holds at most options.limits.max_memory
  /// bytes, R's phases half of it, and keeps the first steps (each list above is a prefix, launch
  /// indices equal positions).
  std::size_t steps_left_out = 0;
};

/// Runs R (one schedule, no race detector) and each profile's split on H-cpu with observers and
/// records every step, up to the memory budget (LaunchTrace::steps_left_out). A program R refuses (invalid) has no phases and no split is run; R's
/// failure at run time (a trap) leaves the phases it completed; a split that fails keeps its
/// launches so far and the failure.
LaunchTrace trace_launches(const ir::Case& c, const OracleOptions& options);

/// The first element (4-byte word) where `a` and `b` differ, over the shorter of the two, or the
/// first element past it when their lengths differ; nullopt when equal.
std::optional<std::size_t> first_different_element(const planner::Bytes& a, const planner::Bytes& b);

/// R's bytes of `buffer` in `phase` as the split sees them: sliced to the declaration's
/// output_byte_range when the split's bytes are that long (docs/semantics.md §5.4).
planner::Bytes reference_view(const ir::Program& program, const ReferencePhase& phase, const std::string& buffer,
                              std::size_t split_size);

}  // namespace gridcheck::props
