#pragma once
// A test case: one program plus how to dispatch it, the caller's input data and what each oracle is
// expected to say (docs/DESIGN.md §2 "Text format", docs/semantics.md §5 verdicts). Parsed from and printed to one `.gc` file.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.hpp"

namespace gridcheck::ir {

/// How the caller's bytes of one input buffer are produced. All values are 32-bit words in the
/// buffer's element encoding (u32, i32 two's complement, bool 0/1, f32 IEEE bits).
struct InputData {
  enum class Kind : std::uint8_t {
    Values,  ///< an explicit list
    Fill,    ///< `length` copies of `first`
    Series,  ///< first, first+step, ... (wrapping integer arithmetic; f32 adds in float)
    Random,  ///< `length` words from the documented splitmix64 stream of `seed`
  };
  std::string buffer;
  Kind kind = Kind::Values;
  std::vector<std::uint32_t> values;  ///< Values
  std::uint32_t first = 0;            ///< Fill value / Series start
  std::uint32_t step = 0;             ///< Series step
  std::uint64_t seed = 0;             ///< Random
  /// Element count for Fill/Series/Random; 0 = the buffer's declared count.
  std::uint32_t length = 0;
  SourceLoc loc;
};

/// Which execution an expectation is about (docs/DESIGN.md §3).
enum class Oracle : std::uint8_t {
  Reference,  ///< R: the whole program, true grid sync
  SplitCpu,   ///< H-cpu: the planner's segments on the interpreter
  SplitGpu,   ///< H-gpu: the planner's segments on Vulkan (host and resident modes agree)
  WholeGpu,   ///< W-gpu: a fence-free program as one Vulkan dispatch
  Waves,      ///< R-waves: a DAG case's waves one launch each under R vs. its fused program (docs/dag.md)
};

/// The outcome vocabulary. R reports ok / trap / out_of_fuel / invalid; a split reports match /
/// diverge / refused / invalid / error relative to R (docs/DESIGN.md §5).
enum class Verdict : std::uint8_t { Ok, Match, Diverge, Refused, Invalid, Trap, OutOfFuel, Error };

/// What R makes of one class of memory error (docs/semantics.md §3.4): an out-of-bounds access, or a
/// read of workgroup memory before any write to that element in the launch.
enum class MemoryCheck : std::uint8_t {
  Error,    ///< the run's verdict is `invalid oob` / `invalid uninit` (the default)
  Warning,  ///< a warning diagnostic; the verdict is unchanged
  Defined,  ///< the defined behaviour (a load reads 0, a store does nothing), not reported
};

struct Expectation {
  Oracle oracle = Oracle::Reference;
  std::string profile;  ///< planner profile for split oracles ("vyre-0.7.2", "sound"); empty for R
  Verdict verdict = Verdict::Ok;
  std::string detail;   ///< e.g. "race", "planner", "lowering/driver", a trap kind, an error code
  SourceLoc loc;
};

/// Expected final bytes of one buffer under one oracle: the words, or an FNV-1a-64 of the bytes.
struct ExpectedOutput {
  Oracle oracle = Oracle::Reference;
  std::string profile;
  std::string buffer;
  std::optional<std::vector<std::uint32_t>> words;
  std::optional<std::uint64_t> hash;
  SourceLoc loc;
};

/// The number of launches a split oracle made under one profile (`expect H-cpu sound launches 4`):
/// every segment launch of every pass, or 1 for an unsplit dispatch (docs/format.md "Expectations").
struct ExpectedLaunches {
  Oracle oracle = Oracle::SplitCpu;  ///< H-cpu or H-gpu (the parser accepts no other)
  std::string profile;
  std::uint32_t count = 0;
  SourceLoc loc;
};

struct Case {
  std::string name;
  std::string description;
  std::vector<std::string> header_comments;  ///< the `#` lines before `case`, kept by fmt
  /// key/value metadata: fuzz seed, replay command, origin ("docs/vyre-0.7.2.md#a1").
  std::vector<std::pair<std::string, std::string>> meta;
  Program program;
  /// Workgroup counts of the dispatch grid; nullopt = inferred from the program (docs/semantics.md §3.1 step 4-6).
  std::optional<std::array<std::uint32_t, 3>> grid;
  std::uint32_t fixpoint = 1;
  /// `oob ...` / `uninit ...` lines: how R treats out-of-bounds accesses and uninitialised
  /// workgroup-memory reads in this case.
  MemoryCheck oob = MemoryCheck::Error;
  MemoryCheck uninit = MemoryCheck::Error;
  std::vector<InputData> inputs;
  std::vector<Expectation> expectations;
  std::vector<ExpectedOutput> outputs;
  std::vector<ExpectedLaunches> launches;
  std::string file;  ///< the file it was parsed from, for diagnostics
};

std::string_view name_of(Oracle oracle);
std::string_view name_of(Verdict verdict);
std::optional<Oracle> oracle_from_name(std::string_view name);
std::optional<Verdict> verdict_from_name(std::string_view name);
std::string_view name_of(MemoryCheck check);  ///< "error", "warning", "defined"
std::optional<MemoryCheck> memory_check_from_name(std::string_view name);

/// The splitmix64 stream that `random(seed)` inputs use: word i is the low 32 bits of the i-th
/// output of splitmix64 started at `seed`. Documented in docs/format.md; never change it.
std::vector<std::uint32_t> splitmix64_words(std::uint64_t seed, std::size_t count);

/// The caller's words for one input buffer. `declared_count` is the buffer's count (0 when runtime
/// sized, in which case an explicit length or list is required; the parser enforces that).
std::vector<std::uint32_t> materialize(const InputData& input, ScalarType element, std::uint32_t declared_count);

}  // namespace gridcheck::ir
