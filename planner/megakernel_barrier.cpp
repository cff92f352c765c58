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
template <typename T, typename A>
std::optional<MegakernelError> reserve_vec(std::vector<T, A>& vec, std::size_t target, std::string_view field) {
  if (vec.capacity() >= target) return std::nullopt;
  try {
    if (target > vec.max_size()) throw std::length_error("capacity overflow");
    vec.reserve(target);
  } catch (const std::exception& error) {
    return MegakernelError::reserve_failed(field, target, error.what());
  }
  return std::nullopt;
}

bool checked_add(std::size_t a, std::size_t b, std::size_t& out) {
  if (a > std::numeric_limits<std::size_t>::max() - b) return false;
  out = a + b;
  return true;
}

// Graphs below these bounds use 32-bit CSR indices: every wave index, count and offset fits.
bool fits_narrow(std::size_t wave_count, std::size_t dependency_count) {
  constexpr std::size_t limit = std::numeric_limits<std::uint32_t>::max();
  return wave_count < limit && dependency_count < limit;
}

// Lookaheads: the edge passes fetch the edge list this many edges ahead (2 KiB; the hardware
// prefetcher does not cross 4 KiB pages); the layer walk fetches the offsets, then the target
// runs, of the waves this many places ahead in the order array.
constexpr std::size_t kEdgeLookahead = 128;
constexpr std::size_t kOffsetLookahead = 32;
constexpr std::size_t kTargetLookahead = 16;
// The layer walk gathers the target runs of consecutive waves into a small buffer before
// releasing them: runs of up to kShortRun targets are copied kShortRun at a time (a fixed-size
// copy, so no branch on the run length); a longer run is released straight from the CSR array.
// The buffer holds up to kGatherBatch targets plus one over-long copy.
constexpr std::size_t kShortRun = 8;
constexpr std::size_t kGatherBatch = 256;

template <typename Index>
std::optional<MegakernelError> reserve_buffers(detail::CsrBuffers<Index>& b, std::size_t wave_count,
                                               std::size_t dependency_count) {
  std::size_t offset_capacity = 0;
  if (!checked_add(wave_count, 2, offset_capacity)) return MegakernelError::overflow("barrier scratch wave offsets");
  if (auto e = reserve_vec(b.indegree, wave_count, "indegree")) return e;
  if (auto e = reserve_vec(b.offsets, offset_capacity, "outgoing offsets")) return e;
  std::size_t target_capacity = 0;
  if (!checked_add(dependency_count, kShortRun, target_capacity))
    return MegakernelError::overflow("barrier scratch outgoing targets");
  if (auto e = reserve_vec(b.targets, target_capacity, "outgoing targets")) return e;
  if (auto e = reserve_vec(b.order, offset_capacity - 1, "wave order")) return e;
  return std::nullopt;
}

template <typename Index>
std::size_t wave_capacity_of(const detail::CsrBuffers<Index>& b) {
  const std::size_t offset_wave_capacity = b.offsets.capacity() < 2 ? 0 : b.offsets.capacity() - 2;
  const std::size_t order_wave_capacity = b.order.capacity() < 1 ? 0 : b.order.capacity() - 1;
  return std::min({b.indegree.capacity(), offset_wave_capacity, order_wave_capacity});
}

// Fetches the cache line of edge `index` ahead of the edge passes (one call per line). The address
// is formed as an integer because `index` may lie past the end: a prefetch never faults.
constexpr std::size_t kEdgesPerLine = 64 / sizeof(WaveDependency);
static_assert(kEdgesPerLine > 0);
inline void prefetch_edges(const WaveDependency* edges, std::size_t index) {
  __builtin_prefetch(
      reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(edges) + index * sizeof(WaveDependency)));
}

// Kahn's release of one target: the slot at tail is always written (order has a spare entry at
// the end) and kept only when the target's last dependency was released. Branch-free.
template <typename Index>
inline void release(Index next, Index* indegree, Index* order, std::size_t& tail) {
  order[tail] = next;
  tail += static_cast<std::size_t>(--indegree[next] == 0);
}

// Steps 4-8 of the contract (docs/vyre-0.7.2.md §7.1) on a reserved scratch, wave_count > 0 and at
// least one dependency. Counts cannot overflow Index: they are bounded by the dependency count,
// which the caller checked against Index's range.
template <typename Index>
Expected<BarrierPlan, MegakernelError> plan_layers(std::size_t wave_count, std::span<const WaveDependency> deps,
                                                   detail::CsrBuffers<Index>& b,
                                                   std::vector<std::size_t>& layer_ends) {
  b.indegree.assign(wave_count, 0);
  b.offsets.assign(wave_count + 2, 0);
  Index* const indegree = b.indegree.data();
  Index* const offsets = b.offsets.data();
  const WaveDependency* const edges = deps.data();
  const std::size_t edge_count = deps.size();
  // One pass: checks in input order (range before self), out-counts at [before + 2], in-degrees.
  // Both edge passes step one cache line (kEdgesPerLine edges) at a time: the loop test and the
  // prefetch run once per line.
  const auto count_edge = [&](const WaveDependency& d) -> std::optional<MegakernelError> {
    if (d.before >= wave_count || d.after >= wave_count)
      return MegakernelError::invalid_wave(wave_count, d.before, d.after);
    if (d.before == d.after) return MegakernelError::self_dependency(d.before);
    ++offsets[d.before + 2];
    ++indegree[d.after];
    return std::nullopt;
  };
  std::size_t edge = 0;
  for (; edge + kEdgesPerLine <= edge_count; edge += kEdgesPerLine) {
    prefetch_edges(edges, edge + kEdgeLookahead);
    for (std::size_t k = 0; k < kEdgesPerLine; ++k)
      if (auto e = count_edge(edges[edge + k])) return *e;
  }
  for (; edge < edge_count; ++edge)
    if (auto e = count_edge(edges[edge])) return *e;
  // Inclusive prefix sum: offsets[w + 1] becomes the start of wave w's targets ...
  for (std::size_t i = 2; i < wave_count + 2; ++i) offsets[i] += offsets[i - 1];
  // ... and, advanced as its write cursor, the end: then wave w's targets are
  // [offsets[w], offsets[w + 1]), in input order. kShortRun spare entries at the end (zeroed: a
  // valid wave index) let the layer walk copy a fixed kShortRun targets from any run.
  b.targets.resize(edge_count + kShortRun);
  Index* const targets = b.targets.data();
  std::fill(targets + edge_count, targets + edge_count + kShortRun, Index{0});
  const auto place_edge = [&](const WaveDependency& d) {
    targets[offsets[d.before + 1]++] = static_cast<Index>(d.after);
  };
  for (edge = 0; edge + kEdgesPerLine <= edge_count; edge += kEdgesPerLine) {
    prefetch_edges(edges, edge + kEdgeLookahead);
    for (std::size_t k = 0; k < kEdgesPerLine; ++k) place_edge(edges[edge + k]);
  }
  for (; edge < edge_count; ++edge) place_edge(edges[edge]);

  // Kahn layers in one order array: layer 0 ascending, each later layer in discovery order.
  b.order.resize(wave_count + 1);
  Index* const order = b.order.data();
  std::size_t tail = 0;
  for (std::size_t wave = 0; wave < wave_count; ++wave)
    if (indegree[wave] == 0) order[tail++] = static_cast<Index>(wave);
  layer_ends.clear();
  Index gathered[kGatherBatch + kShortRun];
  for (std::size_t head = 0; head < tail;) {
    const std::size_t end = tail;
    layer_ends.push_back(end);
    // The layer's waves in order, each one's targets in CSR (= input) order: gathered a batch at a
    // time, then released in that same order. Releasing only appends beyond `end`, so gathering
    // ahead of releasing reads nothing that releasing changes.
    while (head < end) {
      std::size_t count = 0;
      Index long_wave = 0;
      bool long_run = false;
      for (; head < end && count < kGatherBatch; ++head) {
        // The waves of a layer are scattered over the CSR arrays: fetch ahead the offsets, then the
        // target runs, of the waves a few places further on (already discovered when below tail).
        if (head + kOffsetLookahead < tail) __builtin_prefetch(&offsets[order[head + kOffsetLookahead]]);
        if (head + kTargetLookahead < tail) __builtin_prefetch(&targets[offsets[order[head + kTargetLookahead]]]);
        const Index wave = order[head];
        const Index first = offsets[wave];
        const Index length = static_cast<Index>(offsets[wave + 1] - first);
        if (length > kShortRun) {
          long_wave = wave;
          long_run = true;
          ++head;
          break;
        }
        std::copy_n(targets + first, kShortRun, gathered + count);
        count += length;
      }
      for (std::size_t i = 0; i < count; ++i) release(gathered[i], indegree, order, tail);
      if (long_run)
        for (Index t = offsets[long_wave], last = offsets[long_wave + 1]; t < last; ++t)
          release(targets[t], indegree, order, tail);
    }
  }
  if (tail != wave_count) return MegakernelError::cycle(wave_count - tail);

  BarrierPlan plan;
  if (auto e = reserve_vec(plan.groups, layer_ends.size(), "barrier groups")) return *e;
  std::size_t begin = 0;
  for (const std::size_t end : layer_ends) {
    plan.groups.push_back(BarrierGroup{std::vector<std::size_t>(order + begin, order + end)});
    begin = end;
  }
  plan.global_barriers = plan.groups.size() - 1;
  return plan;
}

Expected<BarrierPlan, MegakernelError> plan_without_dependencies(std::size_t wave_count) {
  if (wave_count == 0) return BarrierPlan{};
  std::vector<std::size_t> waves;
  if (auto e = reserve_vec(waves, wave_count, "independent wave group")) return *e;
  for (std::size_t wave = 0; wave < wave_count; ++wave) waves.push_back(wave);
  BarrierPlan plan;
  if (auto e = reserve_vec(plan.groups, 1, "barrier groups")) return *e;
  plan.groups.push_back(BarrierGroup{std::move(waves)});
  return plan;
}

}  // namespace

Expected<BarrierScratch, MegakernelError> BarrierScratch::try_with_capacity(std::size_t wave_count,
                                                                            std::size_t dependency_count) {
  BarrierScratch scratch;
  if (auto error = scratch.try_reserve_shape(wave_count, dependency_count, !fits_narrow(wave_count, dependency_count)))
    return *error;
  return scratch;
}

std::optional<MegakernelError> BarrierScratch::try_reserve_shape(std::size_t wave_count,
                                                                 std::size_t dependency_count, bool wide) {
  return wide ? reserve_buffers(wide_, wave_count, dependency_count)
              : reserve_buffers(narrow_, wave_count, dependency_count);
}

std::size_t BarrierScratch::wave_capacity() const {
  return std::max(wave_capacity_of(narrow_), wave_capacity_of(wide_));
}

std::size_t BarrierScratch::dependency_capacity() const {
  const std::size_t capacity = std::max(narrow_.targets.capacity(), wide_.targets.capacity());
  return capacity < kShortRun ? 0 : capacity - kShortRun;
}

Expected<BarrierPlan, MegakernelError> plan_megakernel_barriers(std::size_t wave_count,
                                                                std::span<const WaveDependency> dependencies) {
  auto scratch = BarrierScratch::try_with_capacity(wave_count, dependencies.size());
  if (!scratch) return scratch.error();
  return plan_megakernel_barriers_with_scratch(wave_count, dependencies, scratch.value());
}

namespace {

Expected<BarrierPlan, MegakernelError> plan_with_width(std::size_t wave_count,
                                                       std::span<const WaveDependency> dependencies,
                                                       detail::CsrBuffers<std::uint32_t>* narrow,
                                                       detail::CsrBuffers<std::size_t>* wide,
                                                       std::vector<std::size_t>& layer_ends) try {
  if (wave_count == 0 && !dependencies.empty())
    return MegakernelError::invalid_wave(wave_count, dependencies[0].before, dependencies[0].after);
  if (dependencies.empty()) return plan_without_dependencies(wave_count);
  return narrow != nullptr ? plan_layers(wave_count, dependencies, *narrow, layer_ends)
                           : plan_layers(wave_count, dependencies, *wide, layer_ends);
} catch (const std::bad_alloc& error) {
  // An infallible push (the layer ends, a Rust `push`) ran out of memory.
  return MegakernelError::reserve_failed("barrier planning storage", 0, error.what());
}

}  // namespace

Expected<BarrierPlan, MegakernelError> plan_megakernel_barriers_with_scratch(
    std::size_t wave_count, std::span<const WaveDependency> dependencies, BarrierScratch& s) {
  const bool wide = !fits_narrow(wave_count, dependencies.size());
  if (auto e = s.try_reserve_shape(wave_count, dependencies.size(), wide)) return *e;
  return plan_with_width(wave_count, dependencies, wide ? nullptr : &s.narrow_, wide ? &s.wide_ : nullptr,
                         s.layer_ends_);
}

Expected<BarrierPlan, MegakernelError> plan_megakernel_barriers_wide(std::size_t wave_count,
                                                                     std::span<const WaveDependency> dependencies,
                                                                     BarrierScratch& s) {
  if (auto e = s.try_reserve_shape(wave_count, dependencies.size(), true)) return *e;
  return plan_with_width(wave_count, dependencies, nullptr, &s.wide_, s.layer_ends_);
}

}  // namespace gridcheck::planner
