#pragma once
// A planner profile: the host split, the buffer-role table, the dispatch loop and the megakernel
// planner as a composition of replaceable rules (docs/DESIGN.md §4). Every member is a std::function that
// defaults to one named step of vyre-driver 0.7.2; a profile is a value, so another profile or a
// mutant is "copy vyre_0_7_2(), replace one member, rename":
//
//   Profile m1 = vyre_0_7_2();
//   m1.name = "M1";
//   m1.table.role = [](const RoleFacts& f) { ... };   // drop the accumulator row
//
// No member is ever null in a registered profile. Hooks must not throw.

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostic.hpp"
#include "planner/buffer_scan.hpp"
#include "planner/dispatch_types.hpp"
#include "planner/fence_split.hpp"
#include "planner/megakernel_barrier.hpp"
#include "planner/role_rule.hpp"
#include "planner/split_plan.hpp"

namespace gridcheck::planner {

/// What the split cuts (not a vyre 0.7.2 step): the source itself, or a lowered copy that the
/// sound profile builds (fences under uniform control flow lowered, every fence at the top level,
/// spill/restore code around each fence) with extra scratch buffers declared after the source's.
struct LoweredSource {
  std::optional<ir::Program> program;  ///< nullopt: cut the source as is
  std::vector<ScratchBuffer> scratch;  ///< buffers of `program` beyond the source's, in order
};

/// Spec docs/vyre-0.7.2.md §6.2–§6.6: how a program becomes segment programs.
struct SplitRules {
  /// Before docs/vyre-0.7.2.md §6.3: the program to cut, or refusals (sound: SR codes). vyre 0.7.2: the source as is.
  std::function<ir::Result<LoweredSource>(const ir::Program& source)> lower;
  /// docs/vyre-0.7.2.md §6.2 routing: does a dispatch go through the split at all (deep search in 0.7.2)?
  std::function<bool(const ir::Program&)> contains_fence;
  /// docs/vyre-0.7.2.md §6.3
  std::function<Peeled(const ir::Program&)> peel;
  /// docs/vyre-0.7.2.md §6.4: may add nodes to `work`.
  std::function<std::vector<ir::StmtId>(ir::Program& work, std::span<const ir::StmtId>)> hoist;
  /// docs/vyre-0.7.2.md §6.5 step 3
  std::function<std::vector<SegmentNodes>(const ir::Program& work, std::span<const ir::StmtId> hoisted)> cut;
  /// docs/vyre-0.7.2.md §6.6 (F4: the order free names are resolved in)
  NameOrder free_name_order;
  std::function<void(const ir::Program& work, std::span<const ir::StmtId> hoisted, std::vector<SegmentNodes>&,
                     const NameOrder&)>
      propagate_lets;
  /// docs/vyre-0.7.2.md §6.5 step 5
  std::function<ir::Program(const ir::Program& source, const HostSplit&, const SegmentNodes&)> rewrap;
};

/// Spec docs/vyre-0.7.2.md §6.7: the per-segment buffer table.
struct TableRules {
  std::function<BufferAccessSet(const ir::Program& segment)> scan;
  std::function<FirstWriterMap(std::span<const BufferAccessSet>)> first_writer;
  RoleRule role;
  /// Names the executor gets as inputs / returns as outputs, declaration order (consumes_input /
  /// produces_output, workgroup memory skipped). Also applied to the source: caller inputs and
  /// final outputs.
  std::function<std::vector<std::string>(const ir::Program&)> input_names;
  std::function<std::vector<std::string>(const ir::Program&)> output_names;
  /// Refusals before anything runs (the sound profile's place); vyre 0.7.2 refuses nothing. It may
  /// record what it learned about a segment it accepts (PlannedSegment::types), nothing else.
  std::function<ir::Diagnostics(const ir::Program& source, SplitPlan&)> check;
};

/// Spec docs/vyre-0.7.2.md §6.8: the dispatch loop over an Executor.
struct DispatchRules {
  /// Step 5: seeds segment inputs that have no bytes yet (zeros for backend-allocated buffers).
  std::function<std::optional<ir::Diagnostic>(const ir::Program& source, const SplitPlan&, LiveMap&)> seed_inputs;
  /// Step 8a: the inputs of segment k, in the executor's order.
  std::function<std::optional<ir::Diagnostic>(const SplitPlan&, std::size_t segment, const LiveMap&,
                                              std::vector<const Bytes*>& inputs)>
      gather_inputs;
  /// Step 8c: threads the executor's outputs back into the live map.
  std::function<std::optional<ir::Diagnostic>(const SplitPlan&, std::size_t segment, std::vector<Bytes>& outputs,
                                              LiveMap&)>
      refresh;
  /// Step 7/8: passes and per-segment fixpoint for the caller's iteration count.
  std::function<PassSchedule(std::uint32_t iterations)> schedule;
  /// Step 8: early exit (a fresh object per run).
  std::function<std::unique_ptr<Convergence>()> convergence;
  /// Between steps 4 and 5 (not in vyre 0.7.2): fixes the config every launch of this run uses and
  /// adds live entries the split itself needs (the sound profile: the whole program's grid, spec
  /// docs/vyre-0.7.2.md#g1, and zeroed SplitPlan::scratch buffers sized for it). `live` holds the caller's inputs.
  /// vyre 0.7.2: nothing.
  std::function<std::optional<ir::Diagnostic>(const ir::Program& source, const SplitPlan&, RunConfig& config,
                                              LiveMap& live)>
      prepare_launches;
  /// Step 7: the launch config of one segment (G1: the grid is the caller's explicit one or none).
  std::function<LaunchConfig(const RunConfig&, const ir::Program& source, const PlannedSegment&,
                             std::uint32_t segment_fixpoint)>
      segment_launch;
  /// Before launching segment k: an error stops the run (vyre 0.7.2: S012 when the segment still
  /// contains a fence, which its backend would route to the split again, docs/vyre-0.7.2.md#g5).
  std::function<std::optional<ir::Diagnostic>(const SplitPlan&, std::size_t segment)> launch_guard;
  /// Step 1: the launch config of a fence-free program dispatched unsplit.
  std::function<LaunchConfig(const RunConfig&, const ir::Program& source, std::uint32_t iterations)> unsplit_launch;
  /// Step 9: final reassembly into the caller's output slots, in plan.final_outputs order.
  std::function<std::optional<ir::Diagnostic>(const ir::Program& source, const SplitPlan&, LiveMap&,
                                              std::vector<Bytes>& outputs)>
      collect_final;
};

/// Spec docs/vyre-0.7.2.md §7.1.
using MegakernelPlanner = std::function<Expected<BarrierPlan, MegakernelError>(
    std::size_t wave_count, std::span<const WaveDependency>, BarrierScratch&)>;

struct Profile;
/// The whole plan of a source that routes through the split (docs/vyre-0.7.2.md §6.5–§6.7), or
/// the diagnostics that refuse it. `self` is the profile being planned with (so a copy that
/// replaces a rule plans with its own rules).
using WholePlanner = std::function<ir::Result<SplitPlan>(const Profile& self, const ir::Program& source)>;

/// The built-in planners' WholePlanner: lower, then split and table rules of `profile`, then its check.
ir::Result<SplitPlan> compose_split_plan(const Profile& profile, const ir::Program& source);

struct Profile {
  std::string name;
  std::string description;
  SplitRules split;
  TableRules table;
  DispatchRules dispatch;
  MegakernelPlanner megakernel;
  /// How a plan is made: compose_split_plan from the rules above, or a planner of its own that
  /// answers with a whole plan (an external planner process, planner/external_profile.hpp). The dispatch loop
  /// (`dispatch`) runs whatever plan this returns.
  WholePlanner plan = compose_split_plan;
};

/// The production planner of vyre-driver 0.7.2, bugs included (docs/vyre-0.7.2.md §6–§7, §10).
const Profile& vyre_0_7_2();
/// Our planner (docs/DESIGN.md §4, planner/sound_profile.hpp): byte-identical to true grid sync on valid
/// race-free programs, or a refusal (SR codes) before anything runs. The default profile.
const Profile& sound();
/// The profile used when a caller names none: sound.
const Profile& default_profile();

/// A registered profile by name ("sound", "vyre-0.7.2", or one added by register_profile);
/// nullptr when unknown.
const Profile* find_profile(std::string_view name);
/// Names of the registered profiles, in registration order (the built-ins first).
std::vector<std::string_view> profile_names();

/// Adds `profile` to the registry, after the built-ins, so that every command and oracle can name
/// it (`--profile NAME`). The returned pointer stays valid for the life of the process. Errors
/// (diagnostic S200): an empty name, a name already registered, or a null member. Thread-safe;
/// register before starting campaigns that look profiles up.
ir::Result<const Profile*> register_profile(Profile profile);

// ------------------------------------------------ vyre 0.7.2 steps not defined elsewhere

/// vyre 0.7.2 cuts the source itself: {nullopt, no scratch}.
ir::Result<LoweredSource> vyre_lower(const ir::Program& source);
/// vyre 0.7.2 launches every segment with the caller's config: nothing to prepare.
std::optional<ir::Diagnostic> vyre_prepare_launches(const ir::Program& source, const SplitPlan& plan,
                                                    RunConfig& config, LiveMap& live);

/// `segment_input_names`: declaration order, not workgroup, ir::is_dispatch_input.
std::vector<std::string> vyre_input_names(const ir::Program& program);
/// `segment_output_names`: declaration order, not workgroup, ir::is_dispatch_output.
std::vector<std::string> vyre_output_names(const ir::Program& program);
/// `seed_backend_allocated_segment_inputs` (H6): every segment input name, in segment order, that
/// has no live entry: undeclared in the source -> S005; not backend-allocated -> skipped (it fails
/// later with S007); else zeros of the static length, or else output_byte_range.end, or S006.
std::optional<ir::Diagnostic> vyre_seed_inputs(const ir::Program& source, const SplitPlan& plan, LiveMap& live);
/// The seeding walk of vyre_seed_inputs with a replaceable byte length (vyre:
/// ir::backend_allocation_bytes; nullopt -> S006). For mutants such as M10 (the slice length).
using SeedLength = std::function<std::optional<std::uint64_t>(const ir::BufferDecl&)>;
std::optional<ir::Diagnostic> seed_backend_allocated_inputs(const ir::Program& source, const SplitPlan& plan,
                                                            LiveMap& live, const SeedLength& length);
/// G1: grid_override = the caller's explicit grid (none without one), the caller's workgroup
/// override, the given fixpoint.
LaunchConfig vyre_segment_launch(const RunConfig& config, const ir::Program& source, const PlannedSegment& segment,
                                 std::uint32_t segment_fixpoint);
LaunchConfig vyre_unsplit_launch(const RunConfig& config, const ir::Program& source, std::uint32_t iterations);
/// S012 when the segment still contains a grid_sync (deep search, as routing does).
std::optional<ir::Diagnostic> vyre_launch_guard(const SplitPlan& plan, std::size_t segment);

}  // namespace gridcheck::planner
