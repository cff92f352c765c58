#include "planner/sound_profile.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ir/abi.hpp"
#include "ir/grid_inference.hpp"
#include "ir/validate/validator.hpp"
#include "planner/exact_convergence.hpp"
#include "planner/sound_lowering.hpp"
#include "planner/sound_refusals.hpp"
#include "planner/sound_role_rule.hpp"
#include "planner/split_errors.hpp"
#include "planner/split_errors.hpp"

namespace gridcheck::planner {

bool always_split(const ir::Program&) { return true; }

std::optional<ir::Diagnostic> sound_prepare_launches(const ir::Program& source, const SplitPlan& plan, RunConfig& config,
                                                     LiveMap& live) {
  if (!config.grid) {
    std::vector<std::uint64_t> counts;
    counts.reserve(source.buffers().size());
    for (const ir::BufferDecl& d : source.buffers()) {
      const auto it = live.find(source.name(d.name));
      if (d.access != ir::BufferAccess::Workgroup && it != live.end()) {
        counts.push_back(it->second.bytes().size() / ir::BufferDecl::kElementBytes);
      } else if (const auto bytes = ir::is_backend_allocated_output(d) ? ir::backend_allocation_bytes(d) : std::nullopt) {
        counts.push_back(*bytes / ir::BufferDecl::kElementBytes);
      } else {
        counts.push_back(d.count);
      }
    }
    ir::Result<ir::Grid> grid = ir::reference_grid(source, counts);
    if (!grid) return split_error::grid_unresolved(grid.diagnostics().all().front());
    config.grid = *grid;
  }
  const ir::Grid grid = *config.grid;
  const auto size = config.workgroup_override.value_or(source.workgroup_size());
  const std::uint64_t workgroups = std::uint64_t{grid[0]} * grid[1] * grid[2];
  const std::uint64_t invocations = workgroups * size[0] * size[1] * size[2];
  for (const ScratchBuffer& s : plan.scratch) {
    const std::uint64_t words = s.words_per_invocation * invocations + s.words_per_workgroup * workgroups;
    if (words > std::uint64_t{0xFFFFFFFFu})
      return split_error::reservation_failed(fmt::format("scratch buffer `{}`", s.name),
                                             fmt::format("{} words exceed the 2^32 elements a u32 index reaches", words));
    live.insert_or_assign(s.name, LiveBuffer::owned(Bytes(static_cast<std::size_t>(words * ir::BufferDecl::kElementBytes), 0)));
  }
  return std::nullopt;
}

std::optional<ir::Diagnostic> collect_final_sliced(const ir::Program& source, const SplitPlan& plan, LiveMap& live,
                                                   std::vector<Bytes>& outputs) {
  // vyre's reassembly copies into the caller's output slots (docs/vyre-0.7.2.md §6.8 step 9); ours hands the live
  // bytes over (a 16 MiB output is then never copied on the host after its read-back).
  std::vector<Bytes> collected;
  collected.reserve(plan.final_outputs.size());
  for (const std::string& name : plan.final_outputs) {
    auto it = live.find(name);
    if (it == live.end()) return split_error::final_output_missing(name);
    Bytes bytes = it->second.is_owned() ? std::move(it->second.owned_bytes()) : it->second.bytes();
    live.erase(it);
    const ir::BufferDecl* decl = source.find_buffer(name);
    if (decl != nullptr && decl->output_byte_range) {
      const std::size_t begin = static_cast<std::size_t>(std::min<std::uint64_t>(decl->output_byte_range->begin, bytes.size()));
      const std::size_t end = static_cast<std::size_t>(
          std::min<std::uint64_t>(std::max(decl->output_byte_range->end, decl->output_byte_range->begin), bytes.size()));
      bytes = Bytes(bytes.begin() + static_cast<std::ptrdiff_t>(begin), bytes.begin() + static_cast<std::ptrdiff_t>(end));
    }
    collected.push_back(std::move(bytes));
  }
  outputs = std::move(collected);
  return std::nullopt;
}

ir::Diagnostics check_segments_validate(const ir::Program&, SplitPlan& plan) {
  ir::Diagnostics out;
  for (std::size_t k = 0; k < plan.segments.size(); ++k) {
    PlannedSegment& segment = plan.segments[k];
    const ir::Diagnostics found = ir::validate(segment.program, {}, {}, segment.types);
    for (const ir::Diagnostic& d : found)
      if (d.severity == ir::Severity::Error) {
        segment.types.reset();
        out.add(sound_refusal::invalid_segment(k, plan.segments.size(), d));
        return out;
      }
  }
  return out;
}

bool plans_validated_segments(const Profile& profile) {
  using Check = ir::Diagnostics (*)(const ir::Program&, SplitPlan&);
  using Planner = ir::Result<SplitPlan> (*)(const Profile&, const ir::Program&);
  const Check* check = profile.table.check.target<Check>();
  const Planner* planner = profile.plan.target<Planner>();
  return check != nullptr && *check == &check_segments_validate && planner != nullptr && *planner == &compose_split_plan;
}

Profile make_sound_profile(Profile base) {
  Profile p = std::move(base);
  p.name = "sound";
  p.description =
      "our planner: byte-identical to true grid sync on valid race-free programs, or refused before running "
      "(locals, workgroup memory and returned flags spilled across fences; uniform if/loop fences lowered; sound "
      "roles; whole-program grid; exact convergence; output ranges at the end)";
  p.split.lower = [](const ir::Program& source) { return sound_lower(source); };
  p.split.contains_fence = always_split;
  p.split.propagate_lets = [](const ir::Program&, std::span<const ir::StmtId>, std::vector<SegmentNodes>&,
                              const NameOrder&) {};
  p.table.scan = scan_segment_accesses_complete;
  p.table.role = sound_role;
  p.table.check = check_segments_validate;
  p.dispatch.prepare_launches = sound_prepare_launches;
  p.dispatch.convergence = [] { return std::make_unique<ExactConvergence>(); };
  p.dispatch.collect_final = collect_final_sliced;
  return p;
}

}  // namespace gridcheck::planner
