// megakernel_plan EDGES [--repeat N] [--groups OUT]: reads a wave DAG ("waves edges" then one
// "before after" pair per line), plans it with plan_megakernel_barriers_with_scratch N times (reused
// scratch; the first run also sizes it) and prints one JSON line: waves, edges, groups, barriers,
// min/median planning time in ms (parsing excluded). --groups writes one line per group with its
// waves sorted ascending, for comparison with another implementation. Used by
// bench/megakernel_vs_networkx.py.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "planner/megakernel_barrier.hpp"

int main(int argc, char** argv) {
  using namespace gridcheck::planner;
  if (argc < 2) {
    std::cerr << "usage: megakernel_plan EDGES [--repeat N] [--groups OUT]\n";
    return 2;
  }
  int repeat = 5;
  std::string groups_path;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--repeat")
      repeat = std::max(1, std::atoi(argv[i + 1]));
    else if (flag == "--groups")
      groups_path = argv[i + 1];
  }
  std::FILE* in = std::fopen(argv[1], "r");
  if (in == nullptr) {
    std::cerr << "megakernel_plan: cannot open " << argv[1] << "\n";
    return 2;
  }
  std::size_t waves = 0;
  std::size_t edges = 0;
  if (std::fscanf(in, "%zu %zu", &waves, &edges) != 2) {
    std::cerr << "megakernel_plan: bad header\n";
    return 2;
  }
  std::vector<WaveDependency> deps(edges);
  for (WaveDependency& d : deps)
    if (std::fscanf(in, "%zu %zu", &d.before, &d.after) != 2) {
      std::cerr << "megakernel_plan: truncated edge list\n";
      return 2;
    }
  std::fclose(in);

  BarrierScratch scratch;
  std::vector<double> ms;
  std::size_t group_count = 0;
  std::size_t barriers = 0;
  std::vector<BarrierGroup> last;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    auto plan = plan_megakernel_barriers_with_scratch(waves, deps, scratch);
    const auto stop = std::chrono::steady_clock::now();
    if (!plan) {
      std::cerr << "megakernel_plan: " << to_string(plan.error()) << "\n";
      return 1;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    group_count = plan->groups.size();
    barriers = plan->global_barriers;
    if (r + 1 == repeat) last = std::move(plan).value().groups;
  }
  std::sort(ms.begin(), ms.end());
  std::printf("{\"waves\": %zu, \"edges\": %zu, \"groups\": %zu, \"barriers\": %zu, \"plan_ms_min\": %.3f, "
              "\"plan_ms_median\": %.3f, \"repeat\": %d}\n",
              waves, edges, group_count, barriers, ms.front(), ms[ms.size() / 2], repeat);
  if (!groups_path.empty()) {
    std::ofstream out(groups_path);
    for (BarrierGroup& g : last) {
      std::sort(g.waves.begin(), g.waves.end());
      for (std::size_t i = 0; i < g.waves.size(); ++i) out << (i ? " " : "") << g.waves[i];
      out << "\n";
    }
  }
  return 0;
}
