#pragma once
// The split's launches on the reference interpreter (H-cpu), for the export: the dispatch ABI of
// docs/semantics.md §5 as planner/executor.hpp states it (inputs by ir::is_dispatch_input, exact
// static input lengths, zero-filled backend-allocated outputs, outputs sliced to output_byte_range,
// the LaunchPlan grid without an override). The same contract as the oracle's H-cpu executor,
// which lives in props/ and so is out of this library's reach (tools/check_layering.py).

#include <span>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "planner/executor.hpp"

namespace gridcheck::repro {

class InterpLaunch final : public planner::Executor {
 public:
  std::string name() const override { return "interp"; }
  std::optional<planner::LaunchError> launch(const ir::Program& program, std::span<const planner::Bytes* const> inputs,
                                             const planner::LaunchConfig& config,
                                             std::vector<planner::Bytes>& outputs) override;
};

/// Runs `program` (workgroup size as launched) over `memory`, the bytes of every non-workgroup buffer in
/// declaration order, updated in place. Nullopt on success, else one sentence.
std::optional<std::string> execute_in_place(const ir::Program& program, std::vector<interp::Bytes>& memory,
                                            std::array<std::uint32_t, 3> grid, std::uint32_t repeat);

}  // namespace gridcheck::repro
