#include "props/oracle/interp_executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "ir/abi.hpp"
#include "ir/equality.hpp"
#include "ir/grid_inference.hpp"
#include "ir/resource_limits.hpp"
#include "props/oracle/phase_clock.hpp"

namespace gridcheck::props {
namespace {

using planner::LaunchError;
using planner::LaunchErrorKind;

LaunchError error(LaunchErrorKind kind, std::string message, ir::SourceLoc loc = {}) {
  LaunchError e;
  e.kind = kind;
  e.message = std::move(message);
  e.loc = loc;
  return e;
}

std::string first_message(const ir::Diagnostics& ds, std::string_view fallback) {
  for (const ir::Diagnostic& d : ds)
    if (d.severity == ir::Severity::Error) return fmt::format("{} [{}]", d.message, d.code);
  return std::string(fallback);
}

LaunchError from_run(const interp::RunResult& r) {
  switch (r.status) {
    case interp::RunStatus::Trap: {
      LaunchError e = error(LaunchErrorKind::Trap, r.trap ? r.trap->message : "trap", r.trap ? r.trap->site.loc : ir::SourceLoc{});
      if (r.trap) e.invocation = r.trap->invocation.global;
      return e;
    }
    case interp::RunStatus::OutOfFuel: {  // the step budget (R021) or the case's deadline (R022)
      const ir::Diagnostic* d = r.diagnostics.empty() ? nullptr : &*r.diagnostics.begin();
      return error(LaunchErrorKind::OutOfFuel,
                   d != nullptr ? fmt::format("{} [{}]", d->message, d->code)
                                : fmt::format("out of fuel after {} steps", r.steps),
                   d != nullptr ? d->loc : ir::SourceLoc{});
    }
    case interp::RunStatus::Divergence:
      return error(LaunchErrorKind::Divergence, r.divergence ? r.divergence->message : "barrier divergence",
                   r.divergence ? r.divergence->first_site.loc : ir::SourceLoc{});
    case interp::RunStatus::Race:
      return error(LaunchErrorKind::Race, r.races.empty() ? "data race" : r.races.front().message,
                   r.races.empty() ? ir::SourceLoc{} : r.races.front().first.site.loc);
    case interp::RunStatus::OutOfBounds:    // the executor runs with MemoryCheck::Defined
    case interp::RunStatus::Uninitialized:
    case interp::RunStatus::Nondeterministic:  // one schedule per launch
    case interp::RunStatus::Invalid: {
      const bool resource = std::any_of(r.diagnostics.begin(), r.diagnostics.end(),
                                        [](const ir::Diagnostic& d) { return ir::is_limit_code(d.code); });
      return error(resource ? LaunchErrorKind::Resource : LaunchErrorKind::InvalidProgram,
                   first_message(r.diagnostics, "the launched program was refused"));
    }
    case interp::RunStatus::Ok: break;
  }
  GC_ICE("from_run called with an ok result");
}

}  // namespace

InterpExecutor::InterpExecutor(interp::RunOptions options, ProgramIdentity identity)
    : options_(std::move(options)), identity_(identity) {
  // A segment's accesses are the program's: R's verdict on them is R's, the split only runs them.
  options_.oob = ir::MemoryCheck::Defined;
  options_.uninit = ir::MemoryCheck::Defined;
}

const interp::PreparedProgram* InterpExecutor::prepared(const ir::Program& program, bool borrowed,
                                                        ir::Diagnostics& diagnostics) {
  const PhaseScope timed(Phase::Compile);
  const bool by_address = identity_ == ProgramIdentity::Address && borrowed;
  if (by_address) {
    if (auto it = by_address_.find(&program); it != by_address_.end()) return it->second.get();
  }
  const std::uint64_t key = by_address ? 0 : ir::content_hash(program);
  if (!by_address) {
    if (auto it = cache_.find(key); it != cache_.end()) return it->second.get();
  }
  const auto checked = by_address ? checked_.find(&program) : checked_.end();
  auto result = checked != checked_.end() ? interp::prepare(program, options_, *checked->second)
                                          : interp::prepare(program, options_);
  if (!result.ok()) {
    diagnostics = result.diagnostics();
    return nullptr;
  }
  auto stored = std::make_unique<interp::PreparedProgram>(std::move(result).value());
  if (by_address) return by_address_.emplace(&program, std::move(stored)).first->second.get();
  return cache_.emplace(key, std::move(stored)).first->second.get();
}

void InterpExecutor::adopt_checked(const ir::Program& program, const ir::TypeTable& types) {
  if (identity_ == ProgramIdentity::Address && !options_.validate) checked_.insert_or_assign(&program, &types);
}

std::optional<LaunchError> InterpExecutor::launch(const ir::Program& original,
                                                  std::span<const planner::Bytes* const> inputs,
                                                  const planner::LaunchConfig& config,
                                                  std::vector<planner::Bytes>& outputs) {
  ++launches_;
  const PhaseScope timed(Phase::Launch);
  const ir::Program* program = &original;
  ir::Program resized;
  if (config.workgroup_override) {
    resized = original;
    resized.set_workgroup_size(*config.workgroup_override);
    program = &resized;
  }

  // Initial bytes of every non-workgroup buffer, in declaration order.
  std::vector<interp::Bytes> memory;
  memory.reserve(program->buffers().size());
  std::size_t next_input = 0;
  for (const ir::BufferDecl& b : program->buffers()) {
    if (b.access == ir::BufferAccess::Workgroup) continue;
    const std::string_view name = program->name(b.name);
    if (ir::is_dispatch_input(b)) {
      if (next_input >= inputs.size())
        return error(LaunchErrorKind::InvalidProgram,
                     fmt::format("launch got {} input buffers, the program needs more", inputs.size()));
      const planner::Bytes& bytes = *inputs[next_input++];
      if (b.count > 0 && bytes.size() != b.static_byte_len())
        return error(LaunchErrorKind::InvalidProgram,
                     fmt::format("input '{}' has {} bytes but its static length is {} bytes", name, bytes.size(),
                                 b.static_byte_len()),
                     b.loc);
      if (bytes.size() % ir::BufferDecl::kElementBytes != 0)
        return error(LaunchErrorKind::InvalidProgram,
                     fmt::format("input '{}' has {} bytes, not a whole number of 4-byte elements", name, bytes.size()),
                     b.loc);
      memory.push_back(bytes);
    } else {
      const auto len = ir::backend_allocation_bytes(b);
      if (!len)
        return error(LaunchErrorKind::InvalidProgram,
                     fmt::format("backend-allocated buffer '{}' needs a static byte length (count 0 and no "
                                 "output_byte_range)",
                                 name),
                     b.loc);
      memory.emplace_back(*len, std::uint8_t{0});
    }
  }
  if (next_input != inputs.size())
    return error(LaunchErrorKind::InvalidProgram,
                 fmt::format("launch got {} input buffers, the program takes {}", inputs.size(), next_input));

  ir::Grid grid;
  if (config.grid_override) {
    grid = *config.grid_override;
  } else {
    auto plan = ir::launch_plan(*program);
    if (!plan.ok()) return error(LaunchErrorKind::InvalidProgram, first_message(plan.diagnostics(), "no launch plan"));
    grid = plan->grid;
  }

  ir::Diagnostics refused;
  const interp::PreparedProgram* ready = prepared(*program, program == &original, refused);
  if (ready == nullptr)
    return error(LaunchErrorKind::InvalidProgram, first_message(refused, "the launched program was refused"));

  const interp::RunResult r = interp::execute(*ready, memory, grid, config.fixpoint_iterations, options_);
  steps_ += r.steps;
  if (!r.ok()) return from_run(r);

  // Outputs: every dispatch output in declaration order, sliced to its byte range.
  std::size_t slot = 0;
  std::size_t buffer = 0;
  for (const ir::BufferDecl& b : program->buffers()) {
    if (b.access == ir::BufferAccess::Workgroup) continue;
    interp::Bytes& bytes = memory[buffer++];
    if (!ir::is_dispatch_output(b)) continue;
    if (outputs.size() <= slot) outputs.resize(slot + 1);
    planner::Bytes& out = outputs[slot++];
    std::size_t begin = 0, end = bytes.size();
    if (b.output_byte_range) {
      begin = static_cast<std::size_t>(std::min<std::uint64_t>(b.output_byte_range->begin, bytes.size()));
      end = static_cast<std::size_t>(std::min<std::uint64_t>(std::max(b.output_byte_range->end, b.output_byte_range->begin),
                                                             bytes.size()));
    }
    if (begin == 0 && end == bytes.size())
      out = std::move(bytes);  // the whole buffer: `memory` is not read again
    else
      out.assign(bytes.begin() + static_cast<std::ptrdiff_t>(begin), bytes.begin() + static_cast<std::ptrdiff_t>(end));
  }
  outputs.resize(slot);
  return std::nullopt;
}

}  // namespace gridcheck::props
