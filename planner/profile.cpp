#include "planner/profile.hpp"

#include <array>
#include <deque>
#include <mutex>

#include <fmt/format.h>

#include "ir/abi.hpp"
#include "planner/sound_profile.hpp"
#include "planner/split_errors.hpp"

namespace gridcheck::planner {

std::vector<std::string> vyre_input_names(const ir::Program& program) {
  std::vector<std::string> names;
  for (const ir::BufferDecl& b : program.buffers())
    if (b.access != ir::BufferAccess::Workgroup && ir::is_dispatch_input(b)) names.emplace_back(program.name(b.name));
  return names;
}

std::vector<std::string> vyre_output_names(const ir::Program& program) {
  std::vector<std::string> names;
  for (const ir::BufferDecl& b : program.buffers())
    if (b.access != ir::BufferAccess::Workgroup && ir::is_dispatch_output(b)) names.emplace_back(program.name(b.name));
  return names;
}

std::optional<ir::Diagnostic> seed_backend_allocated_inputs(const ir::Program& source, const SplitPlan& plan,
                                                            LiveMap& live, const SeedLength& length) {
  for (const PlannedSegment& segment : plan.segments) {
    for (const std::string& name : segment.input_names) {
      if (live.contains(name)) continue;
      const ir::BufferDecl* decl = source.find_buffer(name);
      if (decl == nullptr) return split_error::seed_undeclared(name);
      if (!ir::is_backend_allocated_output(*decl)) continue;  // surfaces later as S007
      const std::optional<std::uint64_t> bytes = length(*decl);
      if (!bytes) return split_error::seed_without_size(name);
      live.emplace(name, LiveBuffer::owned(Bytes(static_cast<std::size_t>(*bytes), 0)));
    }
  }
  return std::nullopt;
}

std::optional<ir::Diagnostic> vyre_seed_inputs(const ir::Program& source, const SplitPlan& plan, LiveMap& live) {
  return seed_backend_allocated_inputs(source, plan, live, ir::backend_allocation_bytes);
}

ir::Result<LoweredSource> vyre_lower(const ir::Program&) { return LoweredSource{}; }

std::optional<ir::Diagnostic> vyre_prepare_launches(const ir::Program&, const SplitPlan&, RunConfig&, LiveMap&) {
  return std::nullopt;
}

LaunchConfig vyre_segment_launch(const RunConfig& config, const ir::Program&, const PlannedSegment&,
                                 std::uint32_t segment_fixpoint) {
  LaunchConfig launch;
  launch.grid_override = config.grid;
  launch.workgroup_override = config.workgroup_override;
  launch.fixpoint_iterations = segment_fixpoint;
  return launch;
}

LaunchConfig vyre_unsplit_launch(const RunConfig& config, const ir::Program&, std::uint32_t iterations) {
  LaunchConfig launch;
  launch.grid_override = config.grid;
  launch.workgroup_override = config.workgroup_override;
  launch.fixpoint_iterations = iterations;
  return launch;
}

std::optional<ir::Diagnostic> vyre_launch_guard(const SplitPlan& plan, std::size_t segment) {
  if (!contains_grid_sync(plan.segments[segment].program)) return std::nullopt;
  return split_error::segment_still_has_fence(segment, plan.segments.size());
}

namespace {

Profile make_vyre_0_7_2() {
  Profile p;
  p.name = "vyre-0.7.2";
  p.description =
      "the production planner of vyre-driver 0.7.2, bugs included (docs/vyre-0.7.2.md §6-§7; divergences §10; F1-F4 present)";

  p.split.lower = vyre_lower;
  p.split.contains_fence = contains_grid_sync;
  p.split.peel = peel_wrappers;
  p.split.hoist = hoist_grid_sync_barriers;
  p.split.cut = cut_at_fences;
  p.split.free_name_order = sort_names;  // deterministic stand-in for 0.7.2's HashSet order (F4)
  p.split.propagate_lets = propagate_lets;
  p.split.rewrap = rewrap_segment;

  p.table.scan = scan_segment_accesses;
  p.table.first_writer = first_writer_per_buffer;
  p.table.role = vyre_0_7_2_role;
  p.table.input_names = vyre_input_names;
  p.table.output_names = vyre_output_names;
  p.table.check = [](const ir::Program&, const SplitPlan&) { return ir::Diagnostics{}; };

  p.dispatch.seed_inputs = vyre_seed_inputs;
  p.dispatch.gather_inputs = gather_inputs_by_name;
  p.dispatch.refresh = refresh_named_outputs;
  p.dispatch.schedule = [](std::uint32_t iterations) { return PassSchedule{iterations, 1}; };
  p.dispatch.convergence = [] { return std::make_unique<FingerprintConvergence>(); };
  p.dispatch.prepare_launches = vyre_prepare_launches;
  p.dispatch.segment_launch = vyre_segment_launch;
  p.dispatch.unsplit_launch = vyre_unsplit_launch;
  p.dispatch.launch_guard = vyre_launch_guard;
  p.dispatch.collect_final = [](const ir::Program&, const SplitPlan& plan, LiveMap& live, std::vector<Bytes>& outputs) {
    return collect_final_named_outputs(plan.final_outputs, live, outputs);
  };

  p.megakernel = [](std::size_t waves, std::span<const WaveDependency> deps, BarrierScratch& scratch) {
    return plan_megakernel_barriers_with_scratch(waves, deps, scratch);
  };
  return p;
}

// The registry, in registration order: the built-ins (the default, sound, first), then profiles
// added by register_profile. A deque keeps every registered profile at a stable address.
struct Registry {
  std::mutex mutex;
  std::deque<Profile> profiles;
  Registry() {
    profiles.push_back(make_sound_profile(make_vyre_0_7_2()));
    profiles.push_back(make_vyre_0_7_2());
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

bool has_null_member(const Profile& p) {
  const SplitRules& s = p.split;
  const TableRules& t = p.table;
  const DispatchRules& d = p.dispatch;
  return !s.lower || !s.contains_fence || !s.peel || !s.hoist || !s.cut || !s.propagate_lets || !s.rewrap ||
         !t.scan || !t.first_writer || !t.role || !t.input_names || !t.output_names || !t.check ||
         !d.seed_inputs || !d.gather_inputs || !d.refresh || !d.schedule || !d.convergence ||
         !d.prepare_launches || !d.segment_launch || !d.launch_guard || !d.unsplit_launch || !d.collect_final ||
         !p.megakernel || !p.plan;
}

}  // namespace

const Profile& sound() { return registry().profiles[0]; }
const Profile& vyre_0_7_2() { return registry().profiles[1]; }
const Profile& default_profile() { return sound(); }

const Profile* find_profile(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const Profile& p : r.profiles)
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string_view> profile_names() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string_view> names;
  for (const Profile& p : r.profiles) names.push_back(p.name);
  return names;
}

ir::Result<const Profile*> register_profile(Profile profile) {
  auto refuse = [](std::string message) {
    ir::Diagnostics d;
    d.error("S200", "", {}, std::move(message));
    return d;
  };
  if (profile.name.empty()) return refuse("a planner profile needs a name");
  if (has_null_member(profile))
    return refuse(fmt::format("planner profile '{}' has an unset rule (start from a copy of vyre_0_7_2() or sound())",
                              profile.name));
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const Profile& p : r.profiles)
    if (p.name == profile.name) return refuse(fmt::format("a planner profile named '{}' is already registered", profile.name));
  r.profiles.push_back(std::move(profile));
  return &r.profiles.back();
}

}  // namespace gridcheck::planner
