// Property tests of the megakernel barrier planner against a brute-force oracle (docs/DESIGN.md §6):
// random DAGs (layered and arbitrary), and graphs with cycles, self-edges and out-of-range
// endpoints. The oracle shares no code or algorithm with the planner: it checks the error
// precedence by a direct scan, finds unschedulable waves by transitive closure (a wave is
// unschedulable iff it lies on, or below, a cycle) and computes each wave's ASAP layer as the
// longest path ending at it by Bellman-Ford-style relaxation.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <vector>

#include "planner/megakernel_barrier.hpp"

namespace gridcheck::planner {
namespace {

using Deps = std::vector<WaveDependency>;

struct Oracle {
  std::optional<MegakernelError> error;
  std::vector<std::size_t> layer;  // valid when !error
  std::size_t layers = 0;
};

Oracle brute_force(std::size_t n, const Deps& deps) {
  Oracle o;
  for (const WaveDependency& d : deps) {
    if (d.before >= n || d.after >= n) {
      o.error = MegakernelError::invalid_wave(n, d.before, d.after);
      return o;
    }
    if (d.before == d.after) {
      o.error = MegakernelError::self_dependency(d.before);
      return o;
    }
  }
  // reach[u][v]: a path of length >= 1 from u to v.
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (const WaveDependency& d : deps) reach[d.before][d.after] = true;
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i)
      if (reach[i][k])
        for (std::size_t j = 0; j < n; ++j)
          if (reach[k][j]) reach[i][j] = true;
  std::size_t unschedulable = 0;
  for (std::size_t v = 0; v < n; ++v) {
    bool blocked = reach[v][v];
    for (std::size_t u = 0; u < n && !blocked; ++u) blocked = reach[u][u] && reach[u][v];
    unschedulable += blocked ? 1 : 0;
  }
  if (unschedulable > 0) {
    o.error = MegakernelError::cycle(unschedulable);
    return o;
  }
  o.layer.assign(n, 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (const WaveDependency& d : deps)
      if (o.layer[d.after] < o.layer[d.before] + 1) {
        o.layer[d.after] = o.layer[d.before] + 1;
        changed = true;
      }
  }
  o.layers = n == 0 ? 0 : *std::max_element(o.layer.begin(), o.layer.end()) + 1;
  return o;
}

void check_against_oracle(std::size_t n, const Deps& deps) {
  const Oracle expected = brute_force(n, deps);
  auto plan = plan_megakernel_barriers(n, deps);
  if (expected.error) {
    RC_ASSERT(!plan.ok());
    RC_ASSERT(plan.error() == *expected.error);
    return;
  }
  RC_ASSERT(plan.ok());
  // Group count = longest path in nodes; barriers = groups - 1.
  RC_ASSERT(plan->groups.size() == expected.layers);
  RC_ASSERT(plan->global_barriers == (expected.layers == 0 ? 0 : expected.layers - 1));
  // Every wave exactly once, in its ASAP layer (which makes every edge respected).
  std::vector<std::size_t> seen(n, 0);
  std::vector<std::size_t> group_of(n, 0);
  for (std::size_t g = 0; g < plan->groups.size(); ++g) {
    RC_ASSERT(!plan->groups[g].waves.empty());
    for (std::size_t w : plan->groups[g].waves) {
      RC_ASSERT(w < n);
      ++seen[w];
      group_of[w] = g;
      RC_ASSERT(g == expected.layer[w]);
    }
  }
  for (std::size_t w = 0; w < n; ++w) RC_ASSERT(seen[w] == 1u);
  for (const WaveDependency& d : deps) RC_ASSERT(group_of[d.before] < group_of[d.after]);
  // Layer 0 ascending.
  if (!plan->groups.empty()) RC_ASSERT(std::is_sorted(plan->groups[0].waves.begin(), plan->groups[0].waves.end()));
  // A reusable scratch gives the same plan as fresh scratch.
  BarrierScratch scratch;
  auto again = plan_megakernel_barriers_with_scratch(n, deps, scratch);
  RC_ASSERT(again.ok() && *again == *plan);
}

// The order inside each layer, read literally from docs/vyre-0.7.2.md §7.1 step 6 with a
// per-wave adjacency list (the planner uses CSR arrays and one order array): layer 0 ascending,
// each later layer by walking the current one in order and each wave's targets in input order.
std::vector<std::vector<std::size_t>> contract_layers(std::size_t n, const Deps& deps) {
  std::vector<std::vector<std::size_t>> targets(n);
  std::vector<std::size_t> indegree(n, 0);
  for (const WaveDependency& d : deps) {
    targets[d.before].push_back(d.after);
    ++indegree[d.after];
  }
  std::vector<std::vector<std::size_t>> layers;
  std::vector<std::size_t> current;
  for (std::size_t w = 0; w < n; ++w)
    if (indegree[w] == 0) current.push_back(w);
  while (!current.empty()) {
    std::vector<std::size_t> next;
    for (std::size_t w : current)
      for (std::size_t t : targets[w])
        if (--indegree[t] == 0) next.push_back(t);
    layers.push_back(std::move(current));
    current = std::move(next);
  }
  return layers;
}

// Every result of the planner (plans and errors) is the same with 64-bit indices, the path taken
// only by graphs of 2^32 - 1 or more waves or dependencies, and in-layer order is the contract's.
void check_order_and_width(std::size_t n, const Deps& deps) {
  BarrierScratch narrow_scratch;
  BarrierScratch wide_scratch;
  auto narrow = plan_megakernel_barriers_with_scratch(n, deps, narrow_scratch);
  auto wide = plan_megakernel_barriers_wide(n, deps, wide_scratch);
  RC_ASSERT(narrow.ok() == wide.ok());
  if (!narrow.ok()) {
    RC_ASSERT(narrow.error() == wide.error());
    return;
  }
  RC_ASSERT(*narrow == *wide);
  const auto layers = contract_layers(n, deps);
  RC_ASSERT(narrow->groups.size() == layers.size());
  for (std::size_t g = 0; g < layers.size(); ++g) RC_ASSERT(narrow->groups[g].waves == layers[g]);
  // Reusing both scratches for the same graph changes nothing.
  auto narrow_again = plan_megakernel_barriers_with_scratch(n, deps, narrow_scratch);
  auto wide_again = plan_megakernel_barriers_wide(n, deps, wide_scratch);
  RC_ASSERT(narrow_again.ok() && wide_again.ok() && *narrow_again == *narrow && *wide_again == *narrow);
}

// A random permutation of `deps` (input order matters to the planner's tie-breaking).
Deps shuffle(const Deps& deps) {
  const auto keys = *rc::gen::container<std::vector<std::uint32_t>>(deps.size(), rc::gen::arbitrary<std::uint32_t>());
  std::vector<std::size_t> order(deps.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  Deps out;
  for (std::size_t i : order) out.push_back(deps[i]);
  return out;
}

// Random DAG: every edge goes from a lower to a higher position of a random permutation.
rc::Gen<std::pair<std::size_t, Deps>> random_dag() {
  return rc::gen::mapcat(rc::gen::inRange<std::size_t>(0, 40), [](std::size_t n) {
    return rc::gen::map(
        rc::gen::pair(rc::gen::container<std::vector<std::size_t>>(n, rc::gen::inRange<std::size_t>(0, 1'000'000)),
                      rc::gen::container<std::vector<std::pair<std::size_t, std::size_t>>>(
                          rc::gen::pair(rc::gen::inRange<std::size_t>(0, std::max<std::size_t>(n, 1)),
                                        rc::gen::inRange<std::size_t>(0, std::max<std::size_t>(n, 1))))),
        [n](const auto& keys_and_pairs) {
          const auto& [keys, pairs] = keys_and_pairs;
          // rank[w]: position of wave w in a random order (ties broken by index).
          std::vector<std::size_t> order(n);
          for (std::size_t i = 0; i < n; ++i) order[i] = i;
          std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return keys[a] != keys[b] ? keys[a] < keys[b] : a < b;
          });
          std::vector<std::size_t> rank(n);
          for (std::size_t i = 0; i < n; ++i) rank[order[i]] = i;
          Deps deps;
          if (n > 0)
            for (auto [a, b] : pairs) {
              if (a == b) continue;
              deps.push_back(rank[a] < rank[b] ? WaveDependency{a, b} : WaveDependency{b, a});
            }
          return std::make_pair(n, deps);
        });
  });
}

RC_GTEST_PROP(MegakernelBarrierProps, RandomDagsMatchTheBruteForceLayering, ()) {
  const auto [n, deps] = *random_dag();
  check_against_oracle(n, deps);
}

RC_GTEST_PROP(MegakernelBarrierProps, InLayerOrderIsTheContractsAndBothIndexWidthsAgree, ()) {
  const auto [n, deps] = *random_dag();
  check_order_and_width(n, deps);
  const auto arbitrary = *rc::gen::container<Deps>(rc::gen::construct<WaveDependency>(
      rc::gen::inRange<std::size_t>(0, n + 2), rc::gen::inRange<std::size_t>(0, n + 2)));
  check_order_and_width(n, arbitrary);
}

RC_GTEST_PROP(MegakernelBarrierProps, RandomLayeredDagsHaveExactlyTheirDepth, ()) {
  const auto width = *rc::gen::inRange<std::size_t>(1, 12);
  const auto depth = *rc::gen::inRange<std::size_t>(1, 12);
  // Each wave of layer l > 0 depends on at least one wave of layer l - 1 (plus random extra edges
  // from any earlier layer), so the depth is exactly `depth`.
  Deps deps;
  for (std::size_t l = 1; l < depth; ++l)
    for (std::size_t s = 0; s < width; ++s) {
      const auto parent = *rc::gen::inRange<std::size_t>(0, width);
      deps.push_back({(l - 1) * width + parent, l * width + s});
      const auto extra = *rc::gen::inRange<std::size_t>(0, 3);
      for (std::size_t e = 0; e < extra; ++e) {
        const auto from_layer = *rc::gen::inRange<std::size_t>(0, l);
        deps.push_back({from_layer * width + *rc::gen::inRange<std::size_t>(0, width), l * width + s});
      }
    }
  const auto shuffled = shuffle(deps);
  check_against_oracle(width * depth, shuffled);
  auto plan = plan_megakernel_barriers(width * depth, shuffled);
  RC_ASSERT(plan.ok() && plan->groups.size() == depth);
}

// Graphs the size of a real layer walk: each layer holds more targets than the walk gathers in one
// batch (256), and waves with more than 8 targets (released straight from the CSR array) sit among
// short ones. Wave ranks are a random permutation of the labels, each wave's targets lie within a
// window of later ranks (so layers are wide), 1 in 40 waves is a hub with 9 to 48 targets, some
// edges are duplicated, and the edge list is shuffled. Both index widths must give the contract's
// layers in the contract's order.
RC_GTEST_PROP(MegakernelBarrierProps, WideLayersWithLongAndShortTargetRunsKeepTheContractsOrder, ()) {
  const auto n = *rc::gen::inRange<std::size_t>(300, 3'000);
  const auto window = *rc::gen::inRange<std::size_t>(16, 1'024);
  std::mt19937_64 rng(*rc::gen::arbitrary<std::uint64_t>());
  std::vector<std::size_t> label(n);
  for (std::size_t i = 0; i < n; ++i) label[i] = i;
  std::shuffle(label.begin(), label.end(), rng);
  Deps deps;
  for (std::size_t rank = 0; rank + 1 < n; ++rank) {
    const std::size_t out = rng() % 40 == 0 ? 9 + rng() % 40 : rng() % 9;
    const std::size_t span = std::min(window, n - 1 - rank);
    for (std::size_t e = 0; e < out; ++e) {
      deps.push_back({label[rank], label[rank + 1 + rng() % span]});
      if (rng() % 16 == 0) deps.push_back(deps.back());
    }
  }
  std::shuffle(deps.begin(), deps.end(), rng);
  check_order_and_width(n, deps);
}

// Arbitrary edges over a small range: cycles, self-edges, duplicates and out-of-range endpoints.
RC_GTEST_PROP(MegakernelBarrierProps, ArbitraryGraphsGiveTheSameErrorsInTheSamePrecedence, ()) {
  const auto n = *rc::gen::inRange<std::size_t>(0, 12);
  const auto deps = *rc::gen::container<Deps>(rc::gen::construct<WaveDependency>(
      rc::gen::inRange<std::size_t>(0, n + 2), rc::gen::inRange<std::size_t>(0, n + 2)));
  check_against_oracle(n, deps);
}

RC_GTEST_PROP(MegakernelBarrierProps, CyclicGraphsReportEveryWaveOnOrBelowACycle, ()) {
  const auto n = *rc::gen::inRange<std::size_t>(2, 16);
  auto deps = *rc::gen::container<Deps>(rc::gen::construct<WaveDependency>(rc::gen::inRange<std::size_t>(0, n),
                                                                            rc::gen::inRange<std::size_t>(0, n)));
  deps.erase(std::remove_if(deps.begin(), deps.end(), [](const WaveDependency& d) { return d.before == d.after; }),
             deps.end());
  // Close a cycle through two distinct waves.
  const auto a = *rc::gen::inRange<std::size_t>(0, n);
  const auto b = *rc::gen::distinctFrom(rc::gen::inRange<std::size_t>(0, n), a);
  deps.push_back({a, b});
  deps.push_back({b, a});
  const auto shuffled = shuffle(deps);
  check_against_oracle(n, shuffled);
  RC_ASSERT(!plan_megakernel_barriers(n, shuffled).ok());
}

}  // namespace
}  // namespace gridcheck::planner
