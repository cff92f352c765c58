// The catalogue's last family: faults of the megakernel barrier planner, ours first, then those of
// props/mutants/megakernel_mutants.hpp as catalogue entries (contributed_megakernel_mutants).
#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "props/mutants/catalogue_builders.hpp"
#include "props/mutants/megakernel_mutants.hpp"

namespace gridcheck::props {

using planner::Profile;

namespace catalogue_builders {
namespace {

using MegakernelResult = planner::Expected<planner::BarrierPlan, planner::MegakernelError>;

}  // namespace

void add_megakernel_mutants(std::vector<Mutant>& all) {
  const MutantAppender add(all);
  using K = MutantKind;
  using B = MutantBase;

  // ------------------------------------------------------------------------ megakernel planner
  add("mk-cycle-undercount",
      "a cyclic wave graph reports only the waves that are on a cycle as unscheduled, not those downstream of it",
      "ours (docs/vyre-0.7.2.md §7.1 step 7)", K::Megakernel, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.megakernel = [inner = base.megakernel](std::size_t waves, std::span<const planner::WaveDependency> deps,
                                                 planner::BarrierScratch& scratch) -> MegakernelResult {
          MegakernelResult r = inner(waves, deps, scratch);
          if (r.ok() || r.error().kind != planner::MegakernelErrorKind::Cycle) return r;
          // Waves on a cycle: those that reach themselves.
          std::vector<std::vector<std::size_t>> next(waves);
          for (const planner::WaveDependency& d : deps) next[d.before].push_back(d.after);
          std::size_t on_cycle = 0;
          for (std::size_t w = 0; w < waves; ++w) {
            std::vector<bool> seen(waves, false);
            std::vector<std::size_t> stack(next[w].begin(), next[w].end());
            bool back = false;
            while (!stack.empty() && !back) {
              const std::size_t v = stack.back();
              stack.pop_back();
              if (v == w) back = true;
              if (seen[v]) continue;
              seen[v] = true;
              stack.insert(stack.end(), next[v].begin(), next[v].end());
            }
            on_cycle += back ? 1 : 0;
          }
          return planner::MegakernelError::cycle(on_cycle);
        };
        return p;
      });

  for (Mutant& m : contributed_megakernel_mutants()) all.push_back(std::move(m));
}

}  // namespace catalogue_builders

std::vector<Mutant> contributed_megakernel_mutants() {
  std::vector<Mutant> out;
  for (const MegakernelMutant& m : megakernel_mutants()) {
    Mutant mutant;
    mutant.name = std::string(m.name);
    mutant.description = std::string(m.description);
    mutant.origin = "props/megakernel_mutants (DAG property)";
    mutant.kind = MutantKind::Megakernel;
    mutant.base = MutantBase::SoundOrVyre;
    if (m.equivalent)
      mutant.equivalent =
          "every plan it returns still runs the waves correctly (the DAG property, R-waves, accepts it; "
          "props/megakernel_mutants.hpp)";
    mutant.apply = [&m](const Profile& base) { return with_mutant(base, m); };
    out.push_back(std::move(mutant));
  }
  return out;
}

}  // namespace gridcheck::props
