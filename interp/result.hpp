#pragma once
// The typed outcome of one reference run (docs/engineering.md#lesson-11). A run is exactly one of
//   ok          every invocation finished; `outputs` hold the results, `oob` the out-of-bounds report
//   trap        an invocation trapped (i32 division by zero, IR `trap`, ...): kind, location, invocation
//   out_of_fuel a budget ran out: the step budget (R021, an endless loop or a budget too small) or
//               the deadline (R022); `steps`. As a verdict: `invalid` detail "limit" (as every
//               resource limit, docs/semantics.md §3.9), never a result of the program
//   invalid     the program or the case was refused before running: `diagnostics`
//   divergence  barrier divergence (DivergenceInfo): a barrier or grid_sync reached by only part of the
//               workgroup/grid, or different barriers reached. Its own status so that props can tell
//               it from a validation refusal; as a case verdict it is `invalid` with detail
//               "divergence".
//   race        the race detector found at least one data race (`races`); the run completed and
//               `outputs` hold what this schedule produced. As a verdict: `invalid` detail "race".
//   oob         an out-of-bounds access under MemoryCheck::Error (`oob`); the run completed with the
//               defined behaviour of docs/semantics.md §3.4. As a verdict: `invalid` detail "oob".
//   uninit      a read of workgroup memory before any write to that element in the launch, under
//               MemoryCheck::Error (`uninit`). As a verdict: `invalid` detail "uninit".
//   nondeterministic  the outputs depend on the schedule although no data race was found (the order of
//               atomics decides them; schedule_check.hpp). As a verdict: `invalid` detail "nondeterministic".
// When several apply, the first in the order race, oob, uninit is the status; every one of them
// is in `diagnostics`.
// Every non-ok status also carries one diagnostic (code R...) in `diagnostics` so that a caller can
// render any outcome the same way.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/case.hpp"
#include "ir/diagnostic.hpp"
#include "ir/scalar_semantics.hpp"
#include "ir/types.hpp"

namespace gridcheck::interp {

using Bytes = std::vector<std::uint8_t>;
using Grid = std::array<std::uint32_t, 3>;

enum class RunStatus : std::uint8_t { Ok, Trap, OutOfFuel, Invalid, Divergence, Race, OutOfBounds, Uninitialized,
                                    Nondeterministic };
std::string_view name_of(RunStatus status);

/// The three ids of one invocation (each per axis x, y, z).
struct InvocationIds {
  Grid global{};
  Grid local{};
  Grid workgroup{};
  friend bool operator==(const InvocationIds&, const InvocationIds&) = default;
};
/// "gid (1,0,0) lid (1,0,0) wg (0,0,0)"
std::string to_string(const InvocationIds& ids);

/// Where in the program something happened: the source position when the IR came from text, and
/// always a path from the entry ("entry[0].body[2].then[0]") and a short description ("store to out").
struct Site {
  ir::SourceLoc loc;
  std::string path;
  std::string what;
  friend bool operator==(const Site&, const Site&) = default;
};
/// "3:5 (store to out)" or "entry[0].body[1] (store to out)"
std::string to_string(const Site& site);

struct TrapInfo {
  ir::TrapKind kind = ir::TrapKind::None;
  Site site;
  InvocationIds invocation;
  std::uint32_t launch = 0;  ///< fixpoint iteration (0-based)
  std::string message;
};

enum class DivergenceKind : std::uint8_t {
  BranchMismatch,     ///< an if whose body holds a barrier takes different branches across the workgroup/grid
  TripCountMismatch,  ///< a loop whose body holds a barrier runs different trip counts
  DifferentBarriers,  ///< invocations wait at different barrier statements
  BarrierAndFence,    ///< some invocations wait at a workgroup barrier, others at a grid_sync
};
std::string_view name_of(DivergenceKind kind);

struct DivergenceInfo {
  DivergenceKind kind = DivergenceKind::DifferentBarriers;
  /// Scope of the barrier involved: false = workgroup, true = the whole grid (a grid_sync).
  bool grid_scope = false;
  Site first_site, second_site;  ///< both locations (for a branch mismatch: the if, and the barrier it guards)
  InvocationIds first, second;   ///< the two invocations that disagree
  std::uint32_t launch = 0;
  std::string message;
};

enum class AccessKind : std::uint8_t { Load, Store, Atomic };
std::string_view name_of(AccessKind kind);

/// Out-of-bounds accesses of one buffer (loads read the typed zero; stores and atomics do nothing).
struct OobRecord {
  std::string buffer;
  bool workgroup_memory = false;
  std::uint64_t element_count = 0;  ///< the buffer's elements in this run
  std::uint64_t loads = 0, stores = 0, atomics = 0;
  /// The first out-of-bounds access (in this run's schedule order).
  AccessKind first_kind = AccessKind::Load;
  std::uint64_t first_index = 0;
  Site first_site;
  InvocationIds first_invocation;
  std::uint64_t total() const { return loads + stores + atomics; }
};

/// Reads of one workgroup buffer, from one site, of elements no invocation of the workgroup had
/// written in the launch (they read the zero R fills workgroup memory with).
struct UninitReport {
  std::string buffer;
  Site site;
  std::uint64_t first_element = 0;
  InvocationIds first_invocation;
  std::uint32_t launch = 0;
  std::uint64_t occurrences = 1;
};

/// One data race: two accesses of one element by different invocations, unordered by any barrier,
/// at least one a write, not both atomic. Repeats of the same pair of sites (and kinds) are counted
/// in `occurrences` and not reported again; `elements` lists the first kMaxElements distinct
/// elements they touched (`element` is the first).
struct RaceReport {
  std::string buffer;
  bool workgroup_memory = false;
  std::uint64_t element = 0;
  struct Access {
    AccessKind kind = AccessKind::Load;
    Site site;
    InvocationIds invocation;
  };
  Access first, second;  ///< in execution order
  std::uint32_t launch = 0;
  std::uint64_t occurrences = 1;
  static constexpr std::size_t kMaxElements = 8;
  std::vector<std::uint64_t> elements;
  std::string message;
};

/// Final bytes of one reference output, sliced to its output_byte_range.
struct OutputBuffer {
  std::string name;
  ir::ScalarType element = ir::ScalarType::U32;
  Bytes bytes;
};

struct RunResult {
  RunStatus status = RunStatus::Ok;
  /// Reference outputs in declaration order (filled by ok and race; empty otherwise and for
  /// `interp::execute`, which returns the bytes in place).
  std::vector<OutputBuffer> outputs;
  std::vector<OobRecord> oob;  ///< buffers with at least one out-of-bounds access, declaration order
  std::optional<TrapInfo> trap;
  std::optional<DivergenceInfo> divergence;
  std::vector<RaceReport> races;
  std::vector<UninitReport> uninit;  ///< at most UninitDetector::kMaxReports, by first occurrence
  ir::Diagnostics diagnostics;
  std::uint64_t steps = 0;   ///< instructions executed, all launches
  Grid grid = {0, 0, 0};     ///< the dispatch grid used (0s when refused before choosing one)

  bool ok() const { return status == RunStatus::Ok; }
  /// The case verdict of this outcome: ok, trap, or invalid (invalid, out_of_fuel, divergence, race, ...).
  ir::Verdict verdict() const;
  /// The verdict detail: "race", "divergence", the trap kind name, "limit" for a resource limit
  /// (out_of_fuel, or a refusal whose first error has an ir::is_limit_code), or the first diagnostic code.
  std::string detail() const;
  const OutputBuffer* output(std::string_view name) const;
};

}  // namespace gridcheck::interp
