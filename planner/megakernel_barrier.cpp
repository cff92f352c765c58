#include "planner/megakernel_barrier.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <new>
#include <stdexcept>

namespace gridcheck::planner {

MegakernelError MegakernelError::invalid_wave(std::size_t wave_count, std::size_t before, std::size_t after) {
  MegakernelError e;
  e.kind = MegakernelErrorKind::InvalidWave;
  e.wave_count = wave_count;
  e.before = before;
  e.after = after;
  return e;
}

MegakernelError MegakernelError::self_dependency(std::size_t wave) {
  MegakernelError e;
  e.kind = MegakernelErrorKind::SelfDependency;
  e.wave = wave;
  return e;
}

MegakernelError MegakernelError::cycle(std::size_t unscheduled_waves) {
  MegakernelError e;
  e.kind = MegakernelErrorKind::Cycle;
  e.unscheduled_waves = unscheduled_waves;
  return e;
}

MegakernelError MegakernelError::overflow(std::string_view field) {
  MegakernelError e;
  e.kind = MegakernelErrorKind::ByteCountOverflow;
  e.field = field;
  return e;
}

MegakernelError MegakernelError::reserve_failed(std::string_view field, std::size_t requested, std::string message) {
  MegakernelError e;
  e.kind = MegakernelErrorKind::StorageReserveFailed;
  e.field = field;
  e.requested = requested;
  e.message = std::move(message);
  return e;
}

std::string to_string(const MegakernelError& e) {
  switch (e.kind) {
    case MegakernelErrorKind::InvalidWave:
      return fmt::format(
          "megakernel dependency references invalid wave before={} after={} for wave_count={}. Fix: emit "
          "dependencies only over normalized wave indices.",
          e.before, e.after, e.wave_count);
    case MegakernelErrorKind::SelfDependency:
      return fmt::format(
          "megakernel wave {} depends on itself. Fix: remove the self-edge or split the wave into distinct "
          "producer/consumer phases.",
          e.wave);
    case MegakernelErrorKind::Cycle:
      return fmt::format(
          "megakernel wave dependency graph contains a cycle with {} unscheduled waves. Fix: break the cyclic "
          "dataflow edge or insert an explicit iterative fixed-point kernel.",
          e.unscheduled_waves);
    case MegakernelErrorKind::ByteCountOverflow:
      return fmt::format(
          "megakernel barrier planner overflowed while computing {}. Fix: shard the dependency graph before "
          "barrier planning.",
          e.field);
    case MegakernelErrorKind::StorageReserveFailed:
      return fmt::format(
          "megakernel barrier planner could not reserve {} {} entries: {}. Fix: shard the dependency graph "
          "before barrier planning.",
          e.requested, e.field, e.message);
  }
  GC_ICE("unknown MegakernelErrorKind");
}

ir::Diagnostic to_diagnostic(const MegakernelError& e) {
  ir::Diagnostic d;
  std::string fix;
  switch (e.kind) {
    case MegakernelErrorKind::InvalidWave:
      d.code = "S101";
      d.message = fmt::format("dependency {} -> {} references a wave outside 0..{}", e.before, e.after, e.wave_count);
      fix = "fix: emit dependencies only over normalized wave indices";
      break;
    case MegakernelErrorKind::SelfDependency:
      d.code = "S102";
      d.message = fmt::format("wave {} depends on itself", e.wave);
      fix = "fix: remove the self-edge or split the wave into distinct producer/consumer phases";
      break;
    case MegakernelErrorKind::Cycle:
      d.code = "S103";
      d.message = fmt::format("the wave dependency graph contains a cycle; {} waves cannot be scheduled",
                              e.unscheduled_waves);
      fix = "fix: break the cyclic dataflow edge or insert an explicit iterative fixed-point kernel";
      break;
    case MegakernelErrorKind::ByteCountOverflow:
      d.code = "S104";
      d.message = fmt::format("the megakernel barrier planner overflowed while computing {}", e.field);
      fix = "fix: shard the dependency graph before barrier planning";
      break;
    case MegakernelErrorKind::StorageReserveFailed:
      d.code = "S105";
      d.message = fmt::format("the megakernel barrier planner could not reserve {} {} entries: {}", e.requested,
                              e.field, e.message);
      fix = "fix: shard the dependency graph before barrier planning";
      break;
  }
  d.notes.push_back(ir::Diagnostic{ir::Severity::Note, "", "", {}, std::move(fix), {}});
  return d;
}

namespace {

// reserve_typed_vec_to_capacity: grows the capacity to at least `target`, fallibly.
template <typename T>
std::optional<MegakernelError> reserve_vec(std::vector<T>& vec, std::size_t target, std::string_view field) {
  if (vec.capacity() >= target) return std::nullopt;
  try {
    if (target > vec.max_size()) throw std::length_error("capacity overflow");
    vec.reserve(target);
  } catch (const std::exception& error) {
    return MegakernelError::reserve_failed(field, target, error.what());
  }
  return std::nullopt;
}

std::optional<MegakernelError> fill_zeroed(std::vector<std::size_t>& vec, std::size_t len, std::string_view field) {
  vec.clear();
  if (auto error = reserve_vec(vec, len, field)) return error;
  vec.assign(len, 0);
  return std::nullopt;
}

bool checked_add(std::size_t a, std::size_t b, std::size_t& out) {
  if (a > std::numeric_limits<std::size_t>::max() - b) return false;
  out = a + b;
  return true;
}

Expected<std::size_t, MegakernelError> group_capacity_hint(std::size_t wave_count, std::size_t dependency_count) {
  if (wave_count == 0) return std::size_t{0};
  std::size_t cap = 0;
  if (!checked_add(dependency_count, 1, cap)) return MegakernelError::overflow("barrier group capacity hint");
  return std::min(wave_count, cap);
}

}  // namespace

Expected<BarrierScratch, MegakernelError> BarrierScratch::try_with_capacity(std::size_t wave_count,
                                                                            std::size_t dependency_count) {
  BarrierScratch scratch;
  if (auto error = scratch.try_reserve_shape(wave_count, dependency_count)) return *error;
  return scratch;
}

std::optional<MegakernelError> BarrierScratch::try_reserve_shape(std::size_t wave_count,
                                                                 std::size_t dependency_count) {
  std::size_t offset_capacity = 0;
  if (!checked_add(wave_count, 1, offset_capacity)) return MegakernelError::overflow("barrier scratch wave offsets");
  if (auto e = reserve_vec(outgoing_counts_, wave_count, "outgoing counts")) return e;
  if (auto e = reserve_vec(indegree_, wave_count, "indegree")) return e;
  if (auto e = reserve_vec(outgoing_offsets_, offset_capacity, "outgoing offsets")) return e;
  if (auto e = reserve_vec(outgoing_targets_, dependency_count, "outgoing targets")) return e;
  if (auto e = reserve_vec(ready_, wave_count, "ready wave layer")) return e;
  if (auto e = reserve_vec(next_ready_, wave_count, "next ready wave layer")) return e;
  return std::nullopt;
}

std::size_t BarrierScratch::wave_capacity() const {
  const std::size_t offset_wave_capacity = outgoing_offsets_.capacity() == 0 ? 0 : outgoing_offsets_.capacity() - 1;
  return std::min({outgoing_counts_.capacity(), indegree_.capacity(), offset_wave_capacity});
}

std::size_t BarrierScratch::dependency_capacity() const { return outgoing_targets_.capacity(); }

Expected<BarrierPlan, MegakernelError> plan_megakernel_barriers(std::size_t wave_count,
                                                                std::span<const WaveDependency> dependencies) {
  auto scratch = BarrierScratch::try_with_capacity(wave_count, dependencies.size());
  if (!scratch) return scratch.error();
  return plan_megakernel_barriers_with_scratch(wave_count, dependencies, scratch.value());
}

Expected<BarrierPlan, MegakernelError> plan_megakernel_barriers_with_scratch(
    std::size_t wave_count, std::span<const WaveDependency> dependencies, BarrierScratch& s) try {
  if (auto e = s.try_reserve_shape(wave_count, dependencies.size())) return *e;
  if (wave_count == 0) {
    if (!dependencies.empty())
      return MegakernelError::invalid_wave(wave_count, dependencies[0].before, dependencies[0].after);
    return BarrierPlan{};
  }
  if (dependencies.empty()) {
    std::vector<std::size_t> waves;
    if (auto e = reserve_vec(waves, wave_count, "independent wave group")) return *e;
    for (std::size_t wave = 0; wave < wave_count; ++wave) waves.push_back(wave);
    BarrierPlan plan;
    if (auto e = reserve_vec(plan.groups, 1, "barrier groups")) return *e;
    plan.groups.push_back(BarrierGroup{std::move(waves)});
    return plan;
  }

  if (auto e = fill_zeroed(s.outgoing_counts_, wave_count, "outgoing counts")) return *e;
  if (auto e = fill_zeroed(s.indegree_, wave_count, "indegree")) return *e;
  for (const WaveDependency& dependency : dependencies) {
    if (dependency.before >= wave_count || dependency.after >= wave_count)
      return MegakernelError::invalid_wave(wave_count, dependency.before, dependency.after);
    if (dependency.before == dependency.after) return MegakernelError::self_dependency(dependency.before);
    if (!checked_add(s.outgoing_counts_[dependency.before], 1, s.outgoing_counts_[dependency.before]))
      return MegakernelError::overflow("outgoing dependency count");
    if (!checked_add(s.indegree_[dependency.after], 1, s.indegree_[dependency.after]))
      return MegakernelError::overflow("incoming dependency count");
  }

  // CSR offsets: a prefix sum of the outgoing counts.
  s.outgoing_offsets_.clear();
  s.outgoing_offsets_.push_back(0);
  for (std::size_t count : s.outgoing_counts_) {
    std::size_t next = 0;
    if (!checked_add(s.outgoing_offsets_.back(), count, next))
      return MegakernelError::overflow("outgoing dependency offsets");
    s.outgoing_offsets_.push_back(next);
  }
  if (auto e = fill_zeroed(s.outgoing_targets_, dependencies.size(), "outgoing targets")) return *e;
  // The counts buffer becomes the write cursor of each wave's target run; targets keep input order.
  std::copy(s.outgoing_offsets_.begin(), s.outgoing_offsets_.begin() + static_cast<std::ptrdiff_t>(wave_count),
            s.outgoing_counts_.begin());
  for (const WaveDependency& dependency : dependencies) {
    const std::size_t offset = s.outgoing_counts_[dependency.before];
    s.outgoing_targets_[offset] = dependency.after;
    if (!checked_add(offset, 1, s.outgoing_counts_[dependency.before]))
      return MegakernelError::overflow("outgoing target cursor");
  }

  s.ready_.clear();
  for (std::size_t wave = 0; wave < wave_count; ++wave)
    if (s.indegree_[wave] == 0) s.ready_.push_back(wave);

  std::size_t scheduled = 0;
  BarrierPlan plan;
  auto hint = group_capacity_hint(wave_count, dependencies.size());
  if (!hint) return hint.error();
  if (auto e = reserve_vec(plan.groups, hint.value(), "barrier groups")) return *e;
  s.next_ready_.clear();
  while (!s.ready_.empty()) {
    s.next_ready_.clear();
    for (std::size_t wave : s.ready_) {
      for (std::size_t t = s.outgoing_offsets_[wave]; t < s.outgoing_offsets_[wave + 1]; ++t) {
        const std::size_t next = s.outgoing_targets_[t];
        s.indegree_[next] -= 1;
        if (s.indegree_[next] == 0) s.next_ready_.push_back(next);
      }
    }
    scheduled += s.ready_.size();
    // The group takes the ready layer's allocation (Rust's mem::take); the next layer becomes ready.
    plan.groups.push_back(BarrierGroup{std::move(s.ready_)});
    s.ready_ = {};
    std::swap(s.ready_, s.next_ready_);
  }

  if (scheduled != wave_count) return MegakernelError::cycle(wave_count - scheduled);
  plan.global_barriers = plan.groups.empty() ? 0 : plan.groups.size() - 1;
  return plan;
} catch (const std::bad_alloc& error) {
  // An infallible push (the ready layers, a Rust `push`) ran out of memory.
  return MegakernelError::reserve_failed("barrier planning storage", 0, error.what());
}

}  // namespace gridcheck::planner
