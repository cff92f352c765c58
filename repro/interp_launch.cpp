#include "repro/interp_launch.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ir/abi.hpp"
#include "ir/grid_inference.hpp"

namespace gridcheck::repro {
namespace {

planner::LaunchError launch_error(planner::LaunchErrorKind kind, std::string message) {
  planner::LaunchError e;
  e.kind = kind;
  e.message = std::move(message);
  return e;
}

std::string describe(const interp::RunResult& r) {
  switch (r.status) {
    case interp::RunStatus::Ok: return "ok";
    case interp::RunStatus::Trap: return r.trap ? r.trap->message : "trap";
    case interp::RunStatus::OutOfFuel: return fmt::format("out of fuel after {} steps", r.steps);
    case interp::RunStatus::Divergence: return r.divergence ? r.divergence->message : "barrier divergence";
    case interp::RunStatus::Race: return r.races.empty() ? "data race" : r.races.front().message;
    case interp::RunStatus::Invalid:
    case interp::RunStatus::OutOfBounds:
    case interp::RunStatus::Uninitialized:
    case interp::RunStatus::Nondeterministic:
      for (const ir::Diagnostic& d : r.diagnostics)
        if (d.severity == ir::Severity::Error) return fmt::format("{} [{}]", d.message, d.code);
      return "the launched program was refused";
  }
  return "unknown";
}

planner::LaunchErrorKind kind_of(const interp::RunResult& r) {
  switch (r.status) {
    case interp::RunStatus::Trap: return planner::LaunchErrorKind::Trap;
    case interp::RunStatus::OutOfFuel: return planner::LaunchErrorKind::OutOfFuel;
    case interp::RunStatus::Divergence: return planner::LaunchErrorKind::Divergence;
    case interp::RunStatus::Race: return planner::LaunchErrorKind::Race;
    default: return planner::LaunchErrorKind::InvalidProgram;
  }
}

/// A replayed launch runs the program's accesses as they are (docs/semantics.md §3.4 behaviour).
interp::RunOptions replay_options() {
  interp::RunOptions o;
  o.oob = ir::MemoryCheck::Defined;
  o.uninit = ir::MemoryCheck::Defined;
  return o;
}

}  // namespace

std::optional<std::string> execute_in_place(const ir::Program& program, std::vector<interp::Bytes>& memory,
                                            std::array<std::uint32_t, 3> grid, std::uint32_t repeat) {
  const interp::RunResult r = interp::execute(program, memory, grid, repeat, replay_options());
  if (r.ok()) return std::nullopt;
  return describe(r);
}

std::optional<planner::LaunchError> InterpLaunch::launch(const ir::Program& original, std::span<const planner::Bytes* const> inputs,
                                                         const planner::LaunchConfig& config, std::vector<planner::Bytes>& outputs) {
  const ir::Program* program = &original;
  ir::Program resized;
  if (config.workgroup_override) {
    resized = original;
    resized.set_workgroup_size(*config.workgroup_override);
    program = &resized;
  }
  std::vector<interp::Bytes> memory;
  std::size_t next_input = 0;
  for (const ir::BufferDecl& b : program->buffers()) {
    if (b.access == ir::BufferAccess::Workgroup) continue;
    const std::string_view name = program->name(b.name);
    if (ir::is_dispatch_input(b)) {
      if (next_input >= inputs.size())
        return launch_error(planner::LaunchErrorKind::InvalidProgram,
                            fmt::format("launch got {} input buffers, the program needs more", inputs.size()));
      const planner::Bytes& bytes = *inputs[next_input++];
      if (b.count > 0 && bytes.size() != b.static_byte_len())
        return launch_error(planner::LaunchErrorKind::InvalidProgram,
                            fmt::format("input '{}' has {} bytes but its static length is {} bytes", name, bytes.size(),
                                        b.static_byte_len()));
      if (bytes.size() % ir::BufferDecl::kElementBytes != 0)
        return launch_error(planner::LaunchErrorKind::InvalidProgram,
                            fmt::format("input '{}' has {} bytes, not a whole number of 4-byte elements", name, bytes.size()));
      memory.push_back(bytes);
    } else {
      const auto len = ir::backend_allocation_bytes(b);
      if (!len)
        return launch_error(planner::LaunchErrorKind::InvalidProgram,
                            fmt::format("backend-allocated buffer '{}' needs a static byte length", name));
      memory.emplace_back(*len, std::uint8_t{0});
    }
  }
  if (next_input != inputs.size())
    return launch_error(planner::LaunchErrorKind::InvalidProgram,
                        fmt::format("launch got {} input buffers, the program takes {}", inputs.size(), next_input));
  ir::Grid grid;
  if (config.grid_override) {
    grid = *config.grid_override;
  } else {
    auto plan = ir::launch_plan(*program);
    if (!plan.ok()) return launch_error(planner::LaunchErrorKind::InvalidProgram, plan.diagnostics().all().front().message);
    grid = plan->grid;
  }
  const interp::RunResult r = interp::execute(*program, memory, grid, config.fixpoint_iterations, replay_options());
  if (!r.ok()) return launch_error(kind_of(r), describe(r));
  std::size_t slot = 0;
  std::size_t index = 0;
  for (const ir::BufferDecl& b : program->buffers()) {
    if (b.access == ir::BufferAccess::Workgroup) continue;
    interp::Bytes& bytes = memory[index++];
    if (!ir::is_dispatch_output(b)) continue;
    if (outputs.size() <= slot) outputs.resize(slot + 1);
    std::size_t begin = 0, end = bytes.size();
    if (b.output_byte_range) {
      begin = static_cast<std::size_t>(std::min<std::uint64_t>(b.output_byte_range->begin, bytes.size()));
      end = static_cast<std::size_t>(
          std::min<std::uint64_t>(std::max(b.output_byte_range->end, b.output_byte_range->begin), bytes.size()));
    }
    outputs[slot++].assign(bytes.begin() + static_cast<std::ptrdiff_t>(begin), bytes.begin() + static_cast<std::ptrdiff_t>(end));
  }
  outputs.resize(slot);
  return std::nullopt;
}

}  // namespace gridcheck::repro
