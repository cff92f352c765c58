#pragma once
// The one resource model of every command that executes a case (docs/semantics.md §3.9): a memory
// budget, a step budget (fuel) and a wall-clock budget per case, plus the interpreter's fixed shape
// limits. The CLI fills one ResourceLimits (`--max-memory`, `--fuel`, `--timeout`), props' OracleOptions
// carries it, and the interpreter (R and each split launch on H-cpu) obeys it. Exceeding any limit is
// a diagnostic (R011-R013, R021-R023) and the case verdict `invalid limit`, never a divergence.
//
// Memory is checked before anything is allocated, from the declarations alone (O(buffers) per case):
// case_buffer_bytes is one copy of every non-workgroup buffer; a command multiplies it by the copies
// it may hold at once (MemoryCopies) and refuses the case (R023, at the largest buffer's declaration)
// when the product exceeds max_memory. The interpreter's own state (frames, workgroup memory, race
// shadow) is checked against the same budget per dispatch (R013).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/case.hpp"
#include "ir/diagnostic.hpp"

namespace gridcheck::ir {

/// The step budget of a case a person gives (run, diff, replay): 2^28 instructions, a few seconds of
/// an endless loop. Commands that run thousands of candidate cases, some of them reduced into huge
/// loops, use smaller budgets unless --fuel sets one: reduce and mutants kCandidateFuel, fuzz
/// campaigns kCampaignFuel (docs/semantics.md §3.9).
inline constexpr std::uint64_t kDefaultFuel = std::uint64_t{1} << 28;
inline constexpr std::uint64_t kCandidateFuel = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kCampaignFuel = std::uint64_t{1} << 21;

/// The smaller of 4 GiB and half of the machine's physical memory (4 GiB when it cannot be read).
std::uint64_t default_max_memory();

struct ResourceLimits {
  /// Bytes a case may hold at once (inputs, R's buffers and shadows, the split's copies, outputs).
  std::uint64_t max_memory = default_max_memory();
  /// Interpreter instructions per dispatch (R: over all fixpoint launches; the split: per launch).
  std::uint64_t fuel = kDefaultFuel;
  /// Wall-clock seconds per case; 0 = no limit.
  double timeout_seconds = 0;
  // The interpreter's fixed shape limits (R011, R012), checked before a dispatch allocates.
  std::uint64_t max_invocations = std::uint64_t{1} << 28;   ///< invocations of one dispatch
  std::uint64_t max_workgroup_invocations = 65536;          ///< invocations of one workgroup
  std::uint64_t max_buffer_bytes = std::uint64_t{4} << 30;  ///< one storage buffer
};

using Clock = std::chrono::steady_clock;
using Deadline = std::optional<Clock::time_point>;

/// now + timeout_seconds, or nullopt when there is no time limit.
Deadline deadline_after(const ResourceLimits& limits);

/// How many copies of the case's buffers a command holds at most at once (an upper bound: copies
/// that live one after the other are counted as if they lived together).
struct MemoryCopies {
  /// R: the case's input bytes and their decoding, the dispatch's buffers, the result; with the race
  /// detector its shadow (1.5 per byte written) and the second schedule's buffers.
  static constexpr double kReference = 3;
  static constexpr double kReferenceWithRaces = 5;
  /// One split oracle on top of R: its inputs, the split's buffers, one launch's copy, its outputs.
  static constexpr double kSplit = 4;
};

/// Bytes of one copy of every non-workgroup buffer: its declared size, or its input data's size
/// when larger (a runtime-sized input), or its backend allocation (an output). Saturates.
std::uint64_t case_buffer_bytes(const Case& c);

/// The diagnostic R023 (at the largest buffer's declaration) when `copies` copies of the case's
/// buffers exceed limits.max_memory; nullopt when they fit. `what` names who holds the copies
/// ("R and the split").
std::optional<Diagnostic> check_case_memory(const Case& c, double copies, const ResourceLimits& limits,
                                            std::string_view what, const std::string& file);

/// True for the codes of a resource limit (R011-R013, R021-R023): their verdict is `invalid limit`.
bool is_limit_code(std::string_view code);

/// "4 GiB", "512 MiB", "1000 bytes": a byte count for a person.
std::string format_bytes(std::uint64_t bytes);

/// Parses a --max-memory value: a whole number of bytes with an optional suffix K, M, G, T (powers
/// of 1024; KiB/MiB/GiB/TiB and KB/MB/GB/TB mean the same), at least 1 and at most 2^62. Sets `error`.
std::optional<std::uint64_t> parse_byte_size(std::string_view text, std::string& error);

}  // namespace gridcheck::ir
