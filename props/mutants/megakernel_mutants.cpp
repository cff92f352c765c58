#include "props/mutants/megakernel_mutants.hpp"

#include <algorithm>
#include <set>

namespace gridcheck::props {
namespace {

using planner::BarrierPlan;
using planner::BarrierScratch;
using planner::MegakernelError;
using planner::MegakernelPlanner;
using planner::WaveDependency;
using Deps = std::span<const WaveDependency>;
using PlanResult = planner::Expected<BarrierPlan, MegakernelError>;

void recount(BarrierPlan& p) { p.global_barriers = p.groups.empty() ? 0 : p.groups.size() - 1; }

/// A mutant that edits the base rule's successful plan.
MegakernelPlanner edit_plan(MegakernelPlanner base, std::function<void(BarrierPlan&, std::size_t, Deps)> edit) {
  return [base = std::move(base), edit = std::move(edit)](std::size_t n, Deps deps, BarrierScratch& scratch) -> PlanResult {
    PlanResult plan = base(n, deps, scratch);
    if (!plan.ok()) return plan;
    BarrierPlan p = *plan;
    edit(p, n, deps);
    return p;
  };
}

std::size_t group_of(const BarrierPlan& p, std::size_t wave) {
  for (std::size_t g = 0; g < p.groups.size(); ++g)
    if (std::find(p.groups[g].waves.begin(), p.groups[g].waves.end(), wave) != p.groups[g].waves.end()) return g;
  return p.groups.size();
}

void merge_first_dependency(BarrierPlan& p, std::size_t, Deps deps) {
  if (deps.empty()) return;
  const std::size_t gb = group_of(p, deps[0].before), ga = group_of(p, deps[0].after);
  if (gb == ga || gb >= p.groups.size() || ga >= p.groups.size()) return;
  auto& from = p.groups[ga].waves;
  from.erase(std::find(from.begin(), from.end(), deps[0].after));
  p.groups[gb].waves.push_back(deps[0].after);
  std::erase_if(p.groups, [](const planner::BarrierGroup& g) { return g.waves.empty(); });
  recount(p);
}

/// Layer = one past the layer of the wave's FIRST predecessor (input order), not its latest.
void first_predecessor_layers(BarrierPlan& p, std::size_t n, Deps deps) {
  std::vector<std::size_t> order;
  for (const planner::BarrierGroup& g : p.groups) order.insert(order.end(), g.waves.begin(), g.waves.end());
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> first(n, kNone), layer(n, 0);
  for (const WaveDependency& d : deps)
    if (first[d.after] == kNone) first[d.after] = d.before;
  std::size_t layers = 0;
  for (std::size_t w : order) {
    layer[w] = first[w] == kNone ? 0 : layer[first[w]] + 1;
    layers = std::max(layers, layer[w] + 1);
  }
  p.groups.assign(layers, {});
  for (std::size_t w : order) p.groups[layer[w]].waves.push_back(w);
  recount(p);
}

/// Kahn with one ready queue: a released wave joins the layer being walked.
MegakernelPlanner single_ready_queue(MegakernelPlanner base) {
  return [base = std::move(base)](std::size_t n, Deps deps, BarrierScratch& scratch) -> PlanResult {
    PlanResult plan = base(n, deps, scratch);  // the base rule's edge checks and errors
    if (!plan.ok() || n == 0) return plan;
    std::vector<std::size_t> indegree(n, 0);
    std::vector<std::vector<std::size_t>> out(n);
    for (const WaveDependency& d : deps) {
      out[d.before].push_back(d.after);
      ++indegree[d.after];
    }
    std::vector<std::size_t> layer;
    for (std::size_t w = 0; w < n; ++w)
      if (indegree[w] == 0) layer.push_back(w);
    for (std::size_t i = 0; i < layer.size(); ++i)
      for (std::size_t t : out[layer[i]])
        if (--indegree[t] == 0) layer.push_back(t);
    BarrierPlan p;
    p.groups.push_back({layer});
    recount(p);
    return p;
  };
}

std::vector<MegakernelMutant> make_catalogue() {
  std::vector<MegakernelMutant> m;
  m.push_back({"mk-merge-dependent", "the first dependency's consumer joins its producer's group (dependent waves share a phase)",
               false, [](MegakernelPlanner base) { return edit_plan(std::move(base), merge_first_dependency); }});
  m.push_back({"mk-drop-last-group", "the last group is left out of the plan (its waves never run)", false,
               [](MegakernelPlanner base) {
                 return edit_plan(std::move(base), [](BarrierPlan& p, std::size_t, Deps) {
                   if (!p.groups.empty()) p.groups.pop_back();
                   recount(p);
                 });
               }});
  m.push_back({"mk-reverse-groups", "the groups are returned in reverse order", false, [](MegakernelPlanner base) {
                 return edit_plan(std::move(base), [](BarrierPlan& p, std::size_t, Deps) {
                   std::reverse(p.groups.begin(), p.groups.end());
                 });
               }});
  m.push_back({"mk-barriers-minus-one", "global_barriers is one short (the last two groups share a phase)", false,
               [](MegakernelPlanner base) {
                 return edit_plan(std::move(base), [](BarrierPlan& p, std::size_t, Deps) {
                   if (p.global_barriers > 0) --p.global_barriers;
                 });
               }});
  m.push_back({"mk-drop-last-edge", "the last dependency is not planned (an off-by-one loop over the edges)", false,
               [](MegakernelPlanner base) {
                 return [base = std::move(base)](std::size_t n, Deps deps, BarrierScratch& scratch) {
                   return base(n, deps.empty() ? deps : deps.first(deps.size() - 1), scratch);
                 };
               }});
  m.push_back({"mk-wave-count-minus-one", "plans wave_count - 1 waves (an off-by-one wave count)", false,
               [](MegakernelPlanner base) {
                 return [base = std::move(base)](std::size_t n, Deps deps, BarrierScratch& scratch) {
                   return base(n == 0 ? 0 : n - 1, deps, scratch);
                 };
               }});
  m.push_back({"mk-first-predecessor-layer",
               "a wave's layer is one past its first listed predecessor's, not past its latest", false,
               [](MegakernelPlanner base) { return edit_plan(std::move(base), first_predecessor_layers); }});
  m.push_back({"mk-single-ready-queue", "Kahn with one ready queue: released waves join the layer being walked",
               false, [](MegakernelPlanner base) { return single_ready_queue(std::move(base)); }});
  m.push_back({"mk-scratch-edge-capacity",
               "a reused scratch bounds the edge loop by the edge capacity it retained from earlier plans, not by "
               "the edge count: after a graph with fewer edges the last dependencies are not planned",
               false, [](MegakernelPlanner base) {
                 return [base = std::move(base)](std::size_t n, Deps deps, BarrierScratch& scratch) {
                   const std::size_t retained = scratch.dependency_capacity();
                   return base(n, retained == 0 ? deps : deps.first(std::min(deps.size(), retained)), scratch);
                 };
               }});

  m.push_back({"mk-sorted-layers", "every layer sorted ascending (order inside a phase is free): equivalent", true,
               [](MegakernelPlanner base) {
                 return edit_plan(std::move(base), [](BarrierPlan& p, std::size_t, Deps) {
                   for (planner::BarrierGroup& g : p.groups) std::sort(g.waves.begin(), g.waves.end());
                 });
               }});
  m.push_back({"mk-trailing-barrier", "one barrier too many (a fence after the last group): equivalent", true,
               [](MegakernelPlanner base) {
                 return edit_plan(std::move(base), [](BarrierPlan& p, std::size_t, Deps) {
                   if (!p.groups.empty()) p.global_barriers = p.groups.size();
                 });
               }});
  m.push_back({"mk-one-wave-per-group", "every wave in its own group, in the base order (maximal barriers): equivalent",
               true, [](MegakernelPlanner base) {
                 return edit_plan(std::move(base), [](BarrierPlan& p, std::size_t, Deps) {
                   BarrierPlan split;
                   for (const planner::BarrierGroup& g : p.groups)
                     for (std::size_t w : g.waves) split.groups.push_back({{w}});
                   recount(split);
                   p = split;
                 });
               }});
  m.push_back({"mk-dedupe-edges", "duplicate dependencies removed before planning: equivalent", true,
               [](MegakernelPlanner base) {
                 return [base = std::move(base)](std::size_t n, Deps deps, BarrierScratch& scratch) {
                   std::vector<WaveDependency> unique;
                   std::set<std::pair<std::size_t, std::size_t>> seen;
                   for (const WaveDependency& d : deps)
                     if (seen.insert({d.before, d.after}).second) unique.push_back(d);
                   return base(n, unique, scratch);
                 };
               }});
  return m;
}

}  // namespace

const std::vector<MegakernelMutant>& megakernel_mutants() {
  static const std::vector<MegakernelMutant> catalogue = make_catalogue();
  return catalogue;
}

const MegakernelMutant* find_megakernel_mutant(std::string_view name) {
  for (const MegakernelMutant& m : megakernel_mutants())
    if (m.name == name) return &m;
  return nullptr;
}

planner::Profile with_mutant(const planner::Profile& base, const MegakernelMutant& mutant) {
  planner::Profile p = base;
  p.name = std::string(mutant.name);
  p.description = std::string(mutant.description) + " (megakernel mutant of " + base.name + ")";
  p.megakernel = mutant.wrap(base.megakernel);
  return p;
}

}  // namespace gridcheck::props
