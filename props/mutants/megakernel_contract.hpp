#pragma once
// The megakernel contract oracle of the mutation self-test (props/mutants/mutant_run.hpp, oracle
// `contract`): wave graphs, a brute-force check of a profile's megakernel plan against the exact
// output contract, the seeded graphs the oracle tries, the shrinking of a violating graph, and the
// case that records one (its graph in meta contract_waves / contract_edges).

#include <cstddef>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ir/case.hpp"
#include "planner/megakernel_barrier.hpp"
#include "planner/profile.hpp"
#include "props/gen/dag_generator.hpp"
#include "props/mutants/mutant_catalogue.hpp"

namespace gridcheck::props {

struct DagCase {
  std::size_t waves = 0;
  std::vector<planner::WaveDependency> edges;
};
// Edge lists are written and read as "0>1 1>2" (input order, duplicates kept) by format_edges and
// parse_edges of props/gen/dag_generator.hpp.
/// The first way `profile`'s megakernel plan of `dag` breaks docs/vyre-0.7.2.md §7.1 (brute-force oracle:
/// validation order, partition into layers, earliest layers, layer 0 ascending, barrier count, cycle
/// count); nullopt when it keeps every guarantee.
std::optional<std::string> dag_violation(const planner::Profile& profile, const DagCase& dag);

/// A random wave graph: mostly DAGs over a shuffled topological order (with duplicate edges), some
/// with a back edge (a cycle, maybe with waves downstream), some with a bad edge (self or range).
/// The same `rng` state gives the same graph.
DagCase random_dag(std::mt19937_64& rng);

/// Greedy shrinking of a graph on which `mutant` has a violation and `base` none: drop edges, then
/// waves no edge names; the result still has a mutant violation and no base one.
DagCase shrink_dag(const planner::Profile& base, const planner::Profile& mutant, DagCase d);

/// The saved form of a contract kill: a placeholder program that R runs (named after `mutant`),
/// the graph in meta contract_waves / contract_edges, `violation` as its description.
ir::Case contract_case(const Mutant& mutant, const DagCase& d, const std::string& violation);

}  // namespace gridcheck::props
