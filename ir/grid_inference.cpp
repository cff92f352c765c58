#include "ir/grid_inference.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ir/abi.hpp"
#include "ir/walk.hpp"

namespace gridcheck::ir {
namespace {

constexpr const char* kGridTooLarge = "G120";
constexpr const char* kNeedsGridOverride = "G121";

/// The driver's BindingRole (docs/semantics.md §2.2), reduced to what §5.7 asks.
enum class Role : std::uint8_t { Shared, Persistent, Output, Input, InputOutput, Uniform };

Role binding_role(const BufferDecl& b) {
  if (b.kind == MemoryKind::Shared || b.access == BufferAccess::Workgroup) return Role::Shared;
  if (b.kind == MemoryKind::Persistent) return Role::Persistent;
  if (b.is_output || b.pipeline_live_out) return Role::Output;
  switch (b.access) {
    case BufferAccess::ReadOnly: return Role::Input;
    case BufferAccess::ReadWrite: return Role::InputOutput;
    case BufferAccess::WriteOnly: return Role::Output;
    case BufferAccess::Uniform: return Role::Uniform;
    case BufferAccess::Workgroup: return Role::Shared;
  }
  return Role::Input;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

/// The smallest k >= 1 with k^n >= value (n in 1..3).
std::uint64_t ceil_root(std::uint64_t value, int n) {
  if (n == 1 || value <= 1) return std::max<std::uint64_t>(value, 1);
  auto power_at_least = [&](std::uint64_t k) {
    unsigned __int128 p = 1;
    for (int i = 0; i < n; ++i) p *= k;
    return p >= value;
  };
  std::uint64_t lo = 1, hi = 1;
  while (!power_at_least(hi)) hi *= 2;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (power_at_least(mid)) hi = mid; else lo = mid + 1;
  }
  return lo;
}

Diagnostic too_large(std::uint64_t workgroups) {
  return Diagnostic{Severity::Error, kGridTooLarge, {}, {},
                    fmt::format("the inferred grid needs {} workgroups along one axis, more than a u32 holds",
                                workgroups),
                    {}};
}

}  // namespace

bool has_atomics(const Program& p) {
  bool found = false;
  for_each_expr_in(p, p.entry(), [&](ExprId id) { found = found || p.expr(id).kind == ExprKind::Atomic; });
  return found;
}

bool has_workgroup_buffers(const Program& p) {
  return std::any_of(p.buffers().begin(), p.buffers().end(),
                     [](const BufferDecl& b) { return b.access == BufferAccess::Workgroup; });
}

Result<Grid> reference_grid(const Program& p, std::span<const std::uint64_t> element_counts,
                            std::uint64_t caller_floor) {
  const auto buffers = p.buffers();
  GC_ASSERT(element_counts.size() == buffers.size());
  std::uint64_t max_output = 0;
  std::uint64_t max_input = 1;
  bool any_output = false;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const BufferDecl& b = buffers[i];
    if (b.access == BufferAccess::Workgroup) continue;
    if (is_reference_output(b)) {
      any_output = true;
      max_output = std::max(max_output, element_counts[i]);
    } else {
      max_input = std::max(max_input, element_counts[i]);
    }
  }
  std::uint64_t pg_nodes = 0;
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].access != BufferAccess::Workgroup && buffers[i].binding == 0 && p.name(buffers[i].name) == "pg_nodes")
      pg_nodes = element_counts[i];
  const bool force_full_span = has_workgroup_buffers(p) || has_atomics(p);
  const std::uint64_t dispatch = std::max({max_output, pg_nodes, std::uint64_t{1},
                                           (!any_output || force_full_span) ? max_input : std::uint64_t{1},
                                           caller_floor});
  const auto wg = p.workgroup_size();
  const std::uint64_t per_group = std::uint64_t{wg[0]} * wg[1] * wg[2];
  GC_ASSERT(per_group > 0);
  const std::uint64_t total = std::max<std::uint64_t>(ceil_div(dispatch, per_group), 1);
  const int active = static_cast<int>((wg[0] > 1) + (wg[1] > 1) + (wg[2] > 1));
  if (active == 0) {
    if (total > 0xFFFFFFFFu) return too_large(total);
    return Grid{static_cast<std::uint32_t>(total), 1, 1};
  }
  const std::uint64_t side = ceil_root(total, active);
  if (side > 0xFFFFFFFFu) return too_large(side);
  Grid grid = {1, 1, 1};
  for (int axis = 0; axis < 3; ++axis)
    if (wg[axis] > 1) grid[axis] = static_cast<std::uint32_t>(side);
  return grid;
}

Result<LaunchPlan> launch_plan(const Program& p, std::optional<Grid> grid_override) {
  const auto wg = p.workgroup_size();
  if (grid_override) return LaunchPlan{*grid_override, std::uint64_t{(*grid_override)[0]} * wg[0]};
  if (wg[1] != 1 || wg[2] != 1)
    return Diagnostic{Severity::Error, kNeedsGridOverride, {}, {},
                      fmt::format("a backend launch plan needs an explicit grid for the {}x{}x{} workgroup", wg[0],
                                  wg[1], wg[2]),
                      {}};
  bool any_shared = false;
  std::uint64_t max_non_shared = 0;
  std::uint64_t max_produced = 0;
  for (const BufferDecl& b : p.buffers()) {
    const Role role = binding_role(b);
    if (role == Role::Shared) {
      any_shared = true;
      continue;
    }
    max_non_shared = std::max<std::uint64_t>(max_non_shared, b.count);
    if (role == Role::Output || role == Role::InputOutput) max_produced = std::max<std::uint64_t>(max_produced, b.count);
  }
  std::uint64_t elements;
  if (any_shared || has_atomics(p)) elements = max_non_shared;
  else if (max_produced > 0) elements = max_produced;
  else elements = max_non_shared;
  elements = std::max<std::uint64_t>(elements, 1);
  const std::uint64_t groups = ceil_div(elements, wg[0]);
  if (groups > 0xFFFFFFFFu) return too_large(groups);
  return LaunchPlan{Grid{static_cast<std::uint32_t>(groups), 1, 1}, elements};
}

}  // namespace gridcheck::ir
