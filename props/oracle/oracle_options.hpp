#pragma once
// What evaluate_case runs and how: the profiles, the oracle plug-ins and their switches, budgets.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "ir/resource_limits.hpp"
#include "planner/executor.hpp"
#include "planner/profile.hpp"
#include "planner/split_dispatch.hpp"

namespace gridcheck::props {

class Oracle;

/// A GPU split runner: runs the case's program through the split under `profile` on a device and
/// returns the SplitRun (outputs by name). Supplied by gpu/ through the CLI; absent in pure-CPU use.
using GpuSplitRunner = std::function<planner::SplitRun(const planner::Profile& profile, const ir::Program& program,
                                                       std::span<const planner::Bytes> inputs,
                                                       const planner::RunConfig& config)>;

struct OracleOptions {
  std::vector<const planner::Profile*> profiles;  ///< empty: the default profile (sound)
  /// The oracle plug-ins run after R, in this order; empty: builtin_oracles() (oracle_plugin.hpp).
  std::vector<const Oracle*> oracles;
  bool cpu = true;                                 ///< report H-cpu (it also runs for H-gpu: blame, segment races)
  GpuSplitRunner gpu;                              ///< run H-gpu (host mode) when set
  /// H-gpu's resident mode: when set, it must give exactly the bytes (and verdict) of host mode.
  GpuSplitRunner gpu_resident;
  std::string gpu_name = "H-gpu";
  bool detect_races = true;                        ///< R with the race detector
  bool check_schedules = true;                     ///< a second R run, reversed schedule
  /// Two unordered plain writes of the value the element already gets are a race
  /// (docs/semantics.md §3.6); false (the default) tolerates them, as Oclgrind does.
  bool same_value_writes_race = false;
  /// The resource model (ir/resource_limits.hpp, docs/semantics.md §3.9): memory, fuel and time per
  /// case. evaluate_case refuses a case whose buffers, held by R and every oracle, exceed the memory
  /// budget (R023), and sets `deadline` from limits.timeout_seconds when the case starts.
  ir::ResourceLimits limits;
  /// The running case's deadline (set by evaluate_case; nullopt: no time limit).
  ir::Deadline deadline;
  bool locate_first_divergence = true;             ///< on a mismatch, re-run with observers
  /// DAG cases (props/gen/dag_case.hpp): also run the wave-by-wave oracle R-waves (waves_oracle.hpp).
  bool waves = true;
};

}  // namespace gridcheck::props
