#pragma once
// The seam between the planner and whatever runs a launch (docs/DESIGN.md §1: planner never depends on
// interp/ or gpu/). The split's dispatch loop (docs/vyre-0.7.2.md §6.8) calls an Executor once per segment launch;
// the interpreter-backed executor (H-cpu) and the Vulkan executor (H-gpu) implement it.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/program.hpp"

namespace gridcheck::planner {

using Bytes = std::vector<std::uint8_t>;

struct LaunchConfig {
  /// Workgroup counts. nullopt: the executor infers the grid from the launched program the way a
  /// GPU backend's LaunchPlan does (docs/semantics.md §5.7), which the vyre-0.7.2 profile relies on (G1).
  std::optional<std::array<std::uint32_t, 3>> grid_override;
  /// Replaces the program's workgroup size when set.
  std::optional<std::array<std::uint32_t, 3>> workgroup_override;
  /// docs/semantics.md §5.6: the executor runs the whole program this many times as one launch call, every
  /// buffer persistent between the runs and nothing re-cleared. The split passes 1 to each segment
  /// (the vyre-0.7.2 whole-sequence loop); only an unsplit dispatch passes the caller's count.
  /// Always >= 1 (the planner rejects 0 before launching).
  std::uint32_t fixpoint_iterations = 1;
};

enum class LaunchErrorKind : std::uint8_t {
  InvalidProgram,  ///< the launched program does not validate (or contains what it cannot run)
  Trap,            ///< an invocation trapped (i32 division by zero, ...)
  OutOfFuel,       ///< the step budget ran out
  Race,            ///< the race detector found a data race in this launch
  Divergence,      ///< barrier divergence inside the launch
  Resource,        ///< beyond a resource limit (grid, buffer size, device memory)
  Backend,         ///< any other executor failure (device lost, compile failure, ...)
};

struct LaunchError {
  LaunchErrorKind kind = LaunchErrorKind::Backend;
  std::string message;      ///< one sentence for a person
  ir::SourceLoc loc;        ///< the statement or expression responsible, when known
  std::optional<std::array<std::uint32_t, 3>> invocation;  ///< global id of the invocation, when known
};

class Executor {
 public:
  virtual ~Executor() = default;
  /// A short name for reports ("interp", "vulkan:llvmpipe").
  virtual std::string name() const = 0;

  /// Runs `program` as one launch.
  /// `inputs` holds the bytes of each ir::is_dispatch_input buffer in declaration order; buffers that
  /// are dispatch outputs but not inputs start zero-filled at their allocation size.
  /// On success `outputs` holds exactly one byte vector per ir::is_dispatch_output buffer in
  /// declaration order (sliced to `output_byte_range` when the declaration has one, docs/semantics.md §5.4);
  /// implementations reuse the vectors already in `outputs` where they can.
  virtual std::optional<LaunchError> launch(const ir::Program& program, std::span<const Bytes* const> inputs,
                                            const LaunchConfig& config, std::vector<Bytes>& outputs) = 0;
};

}  // namespace gridcheck::planner
