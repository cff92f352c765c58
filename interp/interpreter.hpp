#pragma once
// The reference interpreter R (docs/DESIGN.md §3): the whole program as one dispatch with TRUE grid sync.
// A grid_sync releases only when every non-finished invocation of the grid waits at it; locals,
// workgroup memory, returned invocations and storage writes all persist across it (native
// cooperative semantics, docs/semantics.md §1 — not vyre's §3.8 reference, which drops them).
//
// Three entry points, from high to low level:
//   run_case       a parsed case: inputs materialised by name, grid from the case or inferred by the
//                  reference rule (docs/semantics.md §3.1), fixpoint, outputs = reference outputs;
//   run_reference  a program plus one byte vector per reference input (docs/semantics.md §3.1 step 2);
//   execute        a program plus the bytes of EVERY non-workgroup buffer, updated in place — the
//                  seam a planner::Executor wraps (no output slicing, no zero-filling).
// Every entry point returns a typed RunResult (result.hpp) and never throws or aborts on user input.
//
// Before anything is allocated a run is refused (status invalid) when the program does not validate
// (ir::validate; ir::typecheck only, with `validate = false`), contains what the reference does not
// run (docs/semantics.md §3.7: async, collectives, indirect dispatch, opaque), or exceeds a resource limit.
// The IR `trap` statement runs: executing it gives a trap result (TrapKind::TrapStatement).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "interp/compiled_program.hpp"
#include "interp/result.hpp"
#include "interp/schedule.hpp"
#include "ir/case.hpp"
#include "ir/program.hpp"
#include "ir/resource_limits.hpp"
#include "ir/typecheck.hpp"

namespace gridcheck::interp {

class Observer;

/// The resource model (ir/resource_limits.hpp, docs/semantics.md §3.9): shape limits and the memory
/// budget checked before allocation (R011-R013, R023), the step budget (R021) and the deadline (R022).
using ResourceLimits = ir::ResourceLimits;

/// With a deadline, the engine reads the clock once per this many instructions (a few milliseconds).
inline constexpr std::int64_t kDeadlineCheckSteps = std::int64_t{1} << 22;

struct RunOptions {
  Schedule schedule;
  /// Run the race detector (race_detector.hpp). Costs time and memory; off by default.
  bool detect_races = false;
  /// Report two unordered plain writes of the same value as a race (off: tolerated, as Oclgrind's
  /// --uniform-writes; the bytes cannot depend on their order).
  bool same_value_writes_race = false;
  /// Out-of-bounds accesses (docs/semantics.md §3.4): Error makes the status `oob` (R042), Warning
  /// adds a warning, Defined says nothing. nullopt: the case's `oob` line in run_case, else Error.
  /// A planner::Executor over R runs segments with Defined: their accesses are the program's.
  std::optional<ir::MemoryCheck> oob;
  /// Reads of workgroup memory before any write to the element in the launch (UninitDetector):
  /// Error makes the status `uninit` (R043). nullopt: the case's `uninit` line, else Error.
  std::optional<ir::MemoryCheck> uninit;
  /// Run ir::validate first (refuse on errors). Off: only ir::typecheck, for deliberately invalid
  /// programs in tests (for example to reach the dynamic divergence checks).
  bool validate = true;
  /// limits.fuel: the instruction budget over all launches of one dispatch; running out gives status
  /// out_of_fuel (R021, verdict `invalid limit`). limits.max_memory bounds one dispatch's buffers and
  /// state (R013); run_case also checks the case's buffers before decoding its inputs (R023).
  ResourceLimits limits;
  /// Past this instant the run stops with status out_of_fuel (R022, verdict `invalid limit`); checked
  /// when a dispatch starts and every kDeadlineCheckSteps instructions. nullopt: no time limit.
  ir::Deadline deadline;
  /// Extra observers (not owned); see observer.hpp.
  std::vector<Observer*> observers;
  /// Labels diagnostics.
  std::string file;
};

/// A program checked and compiled once, runnable many times (benchmarks, schedule sweeps).
struct PreparedProgram {
  CompiledProgram compiled;
  ir::Diagnostics warnings;  ///< validator warnings
  std::vector<ir::BufferDecl> buffers;
};

/// Validates (per options) and compiles.
ir::Result<PreparedProgram> prepare(const ir::Program& program, const RunOptions& options = {});
/// The same for a program the caller validated itself: `checked` is ir::typecheck's table of
/// `program` (e.g. the validator's), used instead of type-checking again when options.validate is
/// off. With options.validate on it is ignored (validation gives the table).
ir::Result<PreparedProgram> prepare(const ir::Program& program, const RunOptions& options, const ir::TypeTable& checked);

/// One dispatch of `grid` workgroups, `fixpoint` times in a row (fixpoint >= 1), over `buffers`: the
/// bytes of each non-workgroup buffer in declaration order, initial contents in, final contents
/// out. Element counts come from the byte lengths (bytes / 4). `outputs` stays empty.
RunResult execute(const PreparedProgram& program, std::span<Bytes> buffers, Grid grid, std::uint32_t fixpoint = 1,
                  const RunOptions& options = {});
RunResult execute(const ir::Program& program, std::span<Bytes> buffers, Grid grid, std::uint32_t fixpoint = 1,
                  const RunOptions& options = {});

/// The reference dispatch (docs/semantics.md §3.1): `inputs` holds one byte vector per ir::is_reference_input
/// buffer in declaration order (a static buffer needs at least count·4 bytes; extra bytes are kept);
/// backend-allocated outputs start zero-filled at ir::backend_allocation_bytes; workgroup memory is
/// zeroed per workgroup. `grid` nullopt: ir::reference_grid. Outputs: every ir::is_reference_output
/// buffer in declaration order, sliced to its output_byte_range.
RunResult run_reference(const ir::Program& program, std::span<const Bytes> inputs, std::optional<Grid> grid = std::nullopt,
                        std::uint32_t fixpoint = 1, const RunOptions& options = {});

/// A case: each ir::InputData materialised into its buffer (a reference input without data starts
/// zero-filled at its declared count), the case's grid or the inferred one, the case's fixpoint.
RunResult run_case(const ir::Case& c, const RunOptions& options = {});

/// The caller bytes of each reference input of a case, in declaration order (what run_case feeds
/// run_reference), or the diagnostics explaining why the inputs are unusable.
ir::Result<std::vector<Bytes>> case_inputs(const ir::Case& c);

}  // namespace gridcheck::interp
