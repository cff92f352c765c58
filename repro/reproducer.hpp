#pragma once
// A reproducer of one case's split under one profile (docs/export.md): what the split launches, in
// order, as plain data that runs without gridcheck.
//
// The model is the host round trip of the split's dispatch loop (docs/vyre-0.7.2.md §6.8, "host"
// mode of docs/gpu.md) written out as buffers of fixed size and three kinds of step:
//  - a pipeline per segment (one more per segment whose buffer sizes change between passes) with
//    its own slot buffer for every binding, its push-constant words and, when the shader can trap,
//    its trap record (8 bytes of 0xFF = no trap);
//  - `live` buffers, one per live name of the split (and per byte size the name takes): the caller's
//    inputs, the profile's seeds and scratch buffers, every segment output;
//  - steps: `copy` (gather a live buffer into a slot, fresh zeros into a slot, a slot into the live
//    buffer its output name refreshes, a byte range of a slot for an output_byte_range),
//    `dispatch` (one segment launch: `repeat` dispatches, fixpoint passes unrolled) and
//    `check_trap` (the launch's trap record must still say "no trap").
// The expectations are R's bytes of the final outputs, at the live buffer (and byte offset) that
// holds each final output at the end.
//
// build_repro runs R and the split (H-cpu, the interpreter) itself: the split decides how many
// passes run (early convergence) and what the final outputs are; the model is then replayed on the
// interpreter (replay_on_interpreter) and must give the split's own bytes, or the export is refused
// (E007) — the profile's hooks did something the model does not express.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpu/glsl_compiler.hpp"
#include "gpu/literal_policy.hpp"
#include "ir/case.hpp"
#include "ir/diagnostic.hpp"
#include "ir/program.hpp"
#include "planner/executor.hpp"
#include "planner/profile.hpp"

namespace gridcheck::repro {

using Bytes = planner::Bytes;

enum class BufferKind : std::uint8_t { Live, Slot, Zero, NoTrap, Trap, PushConstants };
std::string_view name_of(BufferKind kind);

/// One buffer of the reproducer: a fixed byte size and its initial bytes.
struct ReproBuffer {
  std::string name;       ///< an identifier ([A-Za-z_][A-Za-z0-9_]*), unique
  BufferKind kind = BufferKind::Live;
  std::string live_name;  ///< Live: the split's live name; Slot: the declaration it binds
  Bytes init;             ///< the initial bytes; the size never changes
};

struct ReproBinding {
  std::uint32_t binding = 0;  ///< descriptor set 0
  std::size_t buffer = 0;     ///< index into Repro::buffers
};

struct ReproPipeline {
  std::string name;
  std::size_t segment = 0;  ///< kUnsplit for the single launch of a program the profile does not split
  std::string label;        ///< "segment 1 of 2"
  std::string glsl;
  gpu::Spirv spirv;
  std::array<std::uint32_t, 3> workgroup_size{1, 1, 1};
  std::vector<ReproBinding> bindings;  ///< ascending binding; the trap record last, when there is one
  std::vector<std::uint32_t> push_words;  ///< word 0 is always 0; then runtime-sized buffers' element counts
  std::optional<std::size_t> push_buffer;  ///< the PushConstants buffer holding push_words
  std::optional<std::size_t> trap;         ///< the Trap buffer
  bool needs_float64 = false;
  bool needs_int64_atomics = false;
  /// The launched program (workgroup override applied) and, per buffer declaration, its slot buffer
  /// (nullopt for workgroup memory): for replay_on_interpreter.
  ir::Program program;
  std::vector<std::optional<std::size_t>> decl_slots;

  static constexpr std::size_t kUnsplit = static_cast<std::size_t>(-1);
};

enum class StepKind : std::uint8_t { Copy, Dispatch, CheckTrap };

struct ReproStep {
  StepKind kind = StepKind::Copy;
  // Copy: bytes [from_offset, from_offset + bytes) of `from` to the start of `to`. A whole-buffer
  // copy has from_offset 0 and bytes == both sizes.
  std::size_t from = 0;
  std::size_t to = 0;
  std::uint64_t from_offset = 0;
  std::uint64_t bytes = 0;
  std::string why;  ///< "gather buf", "zeros", "refresh buf", "range 4..12 of out"
  // Dispatch / CheckTrap
  std::size_t pipeline = 0;
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  std::uint32_t repeat = 1;  ///< dispatches in a row (the launch's fixpoint_iterations)
  std::uint32_t pass = 0;
  std::size_t launch = 0;  ///< 0-based launch number over the run (a copy: the launch it gathers for or refreshes from)
};

struct ReproExpect {
  std::string name;  ///< the final output's name
  ir::ScalarType element = ir::ScalarType::U32;
  std::size_t buffer = 0;  ///< the live buffer holding it at the end
  std::uint64_t offset = 0;
  Bytes reference;  ///< R's bytes (what the reproducer expects)
  Bytes split;      ///< the split's bytes under the profile (H-cpu)
};

struct Repro {
  std::string case_name;
  std::string case_file;
  std::string profile;
  bool split = true;  ///< false: the profile dispatches the program unsplit (no fence)
  std::size_t segment_count = 1;
  std::uint32_t passes = 1;        ///< passes the split ran (and the steps unroll)
  std::uint32_t pass_budget = 1;   ///< passes the schedule allowed
  bool converged_early = false;
  std::size_t launch_count = 0;
  std::array<std::uint32_t, 3> grid_of_last_launch{1, 1, 1};
  std::vector<ReproBuffer> buffers;
  std::vector<ReproPipeline> pipelines;
  std::vector<ReproStep> steps;
  std::vector<ReproExpect> expects;
  bool split_matches_reference = true;
  std::vector<std::string> caller_inputs;  ///< the split's caller-input names, in order
};

/// Builds the reproducer of `c` under `profile`. `case_loc` is where errors about the case as a
/// whole point (its `case` line). Errors (docs/export.md): E001 R has no bytes (trap, invalid, out
/// of fuel), E002 R depends on the schedule, E003 the profile refuses the case, E004 the split fails
/// while running, E005 a segment cannot be lowered or compiled, E007 the model does not reproduce
/// the split's bytes (a profile hook the export cannot express), E008 a launch needs a buffer the
/// model cannot allocate. `literals` is the shaders' gpu::LoweringOptions::literals (export
/// --gpu-literals): the campaign's policy, so that the reproducer shows the driver what the campaign did.
ir::Result<Repro> build_repro(const ir::Case& c, const planner::Profile& profile, ir::SourceLoc case_loc = {},
                              gpu::LiteralPolicy literals = gpu::LiteralPolicy::HiddenValues);

/// Runs the steps with the reference interpreter for each dispatch: the final bytes of every buffer
/// (index as Repro::buffers). Errors: the interpreter refused or trapped in a launch (E007).
ir::Result<std::vector<Bytes>> replay_on_interpreter(const Repro& repro);

/// The caller's bytes of buffer `name` of a case: its input data, else zeros of its static length.
Bytes case_bytes(const ir::Case& c, std::string_view name);

/// A diagnostic of the export (code E0xx) at `loc` of `file`.
ir::Diagnostic export_error(std::string code, std::string file, ir::SourceLoc loc, std::string message);

}  // namespace gridcheck::repro
