#pragma once
// The result of planning a host split (docs/vyre-0.7.2.md §6.5–§6.7): the segment programs with their rewritten
// buffer tables, the input and output names that thread the live buffers between them, and for
// every source buffer the facts and the role decision that produced its segment declaration.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "ir/typecheck.hpp"
#include "planner/role_rule.hpp"

namespace gridcheck::planner {

/// One source buffer in one segment: what the scan found and what the role rule decided.
struct BufferRoleRow {
  std::string name;
  RoleFacts facts;
  RoleDecision decision;
};

struct PlannedSegment {
  ir::Program program;                    ///< the launched program (rewritten buffer table)
  std::vector<std::string> input_names;   ///< gathered from the live map, in this order
  std::vector<std::string> output_names;  ///< the executor's output slots, in this order
  std::vector<std::string> let_prefix;    ///< propagated Lets (names), in prepend order
  /// One row per source buffer (declaration order), then one per scratch buffer (SplitPlan::scratch).
  std::vector<BufferRoleRow> roles;
  /// ir::typecheck's table of `program`, set by a table.check that validated it (the sound profile's
  /// check_segments_validate), so that an executor need not type-check it again; nullopt otherwise.
  /// Whoever changes `program` after planning must reset it.
  std::optional<ir::TypeTable> types;
};

/// A storage buffer the planner adds to the segments (not declared in the source): per-invocation
/// spill slots for locals live across a fence, the returned flags, per-workgroup copies of workgroup
/// memory. Declared read_write and runtime-sized in the segment programs; the dispatch loop
/// allocates it (zeros) once per run for the launch grid:
/// words = words_per_invocation · invocations + words_per_workgroup · workgroups.
struct ScratchBuffer {
  std::string name;
  ir::ScalarType element = ir::ScalarType::U32;
  std::uint64_t words_per_invocation = 0;
  std::uint64_t words_per_workgroup = 0;
  std::string purpose;  ///< one phrase for plans ("u32 locals live across a fence, 2 slots")
};

/// How a plan's fixpoint loop stops early when the plan chooses (an external planner's
/// `dispatch.convergence`, docs/plan-protocol.md); Profile = the profile's dispatch.convergence.
enum class PlanConvergence : std::uint8_t { Profile, Fingerprint, Exact, None };
/// The grid of each launch without a caller grid when the plan chooses (`dispatch.grid`):
/// PerSegment = inferred from each segment (vyre 0.7.2, docs/vyre-0.7.2.md#g1), WholeProgram = the
/// reference grid of the source; Profile = the profile's own rule.
enum class PlanGrid : std::uint8_t { Profile, PerSegment, WholeProgram };

struct SplitPlan {
  std::string profile;
  bool contains_fence = false;     ///< docs/vyre-0.7.2.md §6.2: whether a dispatch routes through the split at all
  std::size_t fence_count = 0;     ///< top-level fences after hoisting (segments - 1, or 0)
  std::vector<PlannedSegment> segments;
  std::vector<std::string> caller_inputs;  ///< the caller's input buffers, in the order passed
  std::vector<std::string> final_outputs;  ///< the final outputs, in the order returned
  std::vector<ScratchBuffer> scratch;      ///< planner-added buffers (never under vyre-0.7.2)
  PlanConvergence convergence = PlanConvergence::Profile;  ///< built-in profiles: Profile
  PlanGrid grid = PlanGrid::Profile;                       ///< built-in profiles: Profile
};

}  // namespace gridcheck::planner
