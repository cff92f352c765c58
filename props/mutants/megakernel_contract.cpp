#include "props/mutants/megakernel_contract.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "ir/ice.hpp"
#include "ir/text/parser.hpp"
#include "props/mutants/case_meta.hpp"

namespace gridcheck::props {

namespace {

std::string describe(const planner::Expected<planner::BarrierPlan, planner::MegakernelError>& r) {
  if (!r.ok()) return planner::to_string(r.error());
  std::string s = "[";
  for (const planner::BarrierGroup& g : r->groups) {
    s += s.size() > 1 ? " [" : "[";
    for (std::size_t i = 0; i < g.waves.size(); ++i) s += fmt::format("{}{}", i ? "," : "", g.waves[i]);
    s += "]";
  }
  return s + fmt::format("] with {} barrier(s)", r->global_barriers);
}

}  // namespace

std::optional<std::string> dag_violation(const planner::Profile& profile, const DagCase& dag) {
  const std::size_t n = dag.waves;
  planner::BarrierScratch scratch;
  const auto got = profile.megakernel(n, dag.edges, scratch);

  // The expected error, if any: the first bad edge in input order (range before self), then cycles.
  std::optional<planner::MegakernelError> error;
  for (const planner::WaveDependency& e : dag.edges) {
    if (e.before >= n || e.after >= n) {
      error = planner::MegakernelError::invalid_wave(n, e.before, e.after);
      break;
    }
    if (e.before == e.after) {
      error = planner::MegakernelError::self_dependency(e.before);
      break;
    }
  }
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  if (!error) {
    for (const planner::WaveDependency& e : dag.edges) reach[e.before][e.after] = true;
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t i = 0; i < n; ++i)
        if (reach[i][k])
          for (std::size_t j = 0; j < n; ++j)
            if (reach[k][j]) reach[i][j] = true;
    std::size_t unscheduled = 0;  // on a cycle, or downstream of one
    for (std::size_t v = 0; v < n; ++v) {
      bool blocked = false;
      for (std::size_t u = 0; u < n && !blocked; ++u) blocked = reach[u][u] && (u == v || reach[u][v]);
      unscheduled += blocked ? 1 : 0;
    }
    if (unscheduled > 0) error = planner::MegakernelError::cycle(unscheduled);
  }
  if (error) {
    if (got.ok() || !(got.error() == *error))
      return fmt::format("expected the error \"{}\", got {}", planner::to_string(*error), describe(got));
    return std::nullopt;
  }
  if (!got.ok()) return fmt::format("a valid acyclic graph was refused: {}", describe(got));

  // Earliest layers: longest path (in edges) from a source.
  std::vector<std::size_t> layer(n, 0);
  for (std::size_t round = 0; round < n; ++round)
    for (const planner::WaveDependency& e : dag.edges) layer[e.after] = std::max(layer[e.after], layer[e.before] + 1);
  const std::size_t groups = n == 0 ? 0 : *std::max_element(layer.begin(), layer.end()) + 1;
  const planner::BarrierPlan& plan = *got;
  if (plan.groups.size() != groups)
    return fmt::format("{} groups where the longest path needs {}: {}", plan.groups.size(), groups, describe(got));
  std::vector<int> seen(n, 0);
  for (std::size_t g = 0; g < plan.groups.size(); ++g)
    for (std::size_t w : plan.groups[g].waves) {
      if (w >= n) return fmt::format("group {} holds wave {} of {}: {}", g, w, n, describe(got));
      if (++seen[w] > 1) return fmt::format("wave {} is planned twice: {}", w, describe(got));
      if (layer[w] != g)
        return fmt::format("wave {} is in group {}, its earliest layer is {}: {}", w, g, layer[w], describe(got));
    }
  for (std::size_t w = 0; w < n; ++w)
    if (seen[w] == 0) return fmt::format("wave {} is never planned: {}", w, describe(got));
  if (!plan.groups.empty() && !std::is_sorted(plan.groups[0].waves.begin(), plan.groups[0].waves.end()))
    return fmt::format("layer 0 is not ascending: {}", describe(got));
  const std::size_t barriers = groups == 0 ? 0 : groups - 1;
  if (plan.global_barriers != barriers)
    return fmt::format("{} global barriers for {} groups: {}", plan.global_barriers, groups, describe(got));
  return std::nullopt;
}

DagCase random_dag(std::mt19937_64& rng) {
  auto below = [&](std::uint64_t bound) { return bound == 0 ? 0 : static_cast<std::size_t>(rng() % bound); };
  DagCase d;
  d.waves = below(11);
  std::vector<std::size_t> order(d.waves);
  for (std::size_t i = 0; i < d.waves; ++i) order[i] = i;
  for (std::size_t i = d.waves; i > 1; --i) std::swap(order[i - 1], order[below(i)]);
  const std::size_t density = 1 + below(4);  // edge chance density/8
  for (std::size_t i = 0; i < d.waves; ++i)
    for (std::size_t j = i + 1; j < d.waves; ++j)
      if (below(8) < density) {
        d.edges.push_back({order[i], order[j]});
        if (below(20) == 0) d.edges.push_back({order[i], order[j]});
      }
  for (std::size_t i = d.edges.size(); i > 1; --i) std::swap(d.edges[i - 1], d.edges[below(i)]);
  const std::size_t mode = below(10);
  if (mode == 0 && d.waves >= 2) {
    const std::size_t j = 1 + below(d.waves - 1), i = below(j);
    d.edges.insert(d.edges.begin() + static_cast<std::ptrdiff_t>(below(d.edges.size() + 1)), {order[j], order[i]});
  } else if (mode == 1) {
    planner::WaveDependency bad;
    if (below(2) == 0 && d.waves > 0) {
      bad.before = bad.after = below(d.waves);  // a self edge
    } else {
      bad = {below(d.waves + 1), d.waves + below(2)};  // an endpoint out of range
      if (below(2) == 0) std::swap(bad.before, bad.after);
    }
    d.edges.insert(d.edges.begin() + static_cast<std::ptrdiff_t>(below(d.edges.size() + 1)), bad);
  }
  return d;
}

DagCase shrink_dag(const planner::Profile& base, const planner::Profile& mutant, DagCase d) {
  auto keeps = [&](const DagCase& c) { return !dag_violation(base, c) && dag_violation(mutant, c); };
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t i = 0; i < d.edges.size(); ++i) {
      DagCase c = d;
      c.edges.erase(c.edges.begin() + static_cast<std::ptrdiff_t>(i));
      if (keeps(c)) {
        d = std::move(c);
        progress = true;
        --i;
      }
    }
    // Drop a wave no edge names, renumbering the waves above it.
    for (std::size_t w = d.waves; w-- > 0;) {
      const bool named = std::any_of(d.edges.begin(), d.edges.end(),
                                     [&](const planner::WaveDependency& e) { return e.before == w || e.after == w; });
      if (named) continue;
      DagCase c = d;
      --c.waves;
      for (planner::WaveDependency& e : c.edges) {
        if (e.before > w) --e.before;
        if (e.after > w) --e.after;
      }
      if (!keeps(c)) continue;
      d = std::move(c);
      progress = true;
    }
  }
  return d;
}

ir::Case contract_case(const Mutant& mutant, const DagCase& d, const std::string& violation) {
  // The program is a placeholder that R runs; the graph is in meta (contract_waves, contract_edges).
  const std::string text = fmt::format(
      "case mutant-{} \"{}\"\n"
      "meta contract_waves \"{}\"\n"
      "meta contract_edges \"{}\"\n\n"
      "workgroup_size 1 1 1\ngrid 1 1 1\nfixpoint 1\n\n"
      "buffer out: u32[1] read_write binding 0\n\n"
      "kernel {{\n  out[0] = 1\n}}\n\n"
      "expect R: ok\nexpect R out = [1]\n",
      mutant.name, "megakernel plan of the graph in meta", d.waves, format_edges(d.edges));
  ir::Result<ir::Case> parsed = ir::parse_case(text, "dag");
  GC_ASSERT(parsed.ok());
  ir::Case c = std::move(parsed).value();
  c.description = violation;
  return c;
}

}  // namespace gridcheck::props
