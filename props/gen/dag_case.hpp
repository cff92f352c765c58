#pragma once
// Wave DAGs as corpus cases: the fused megakernel program of a barrier plan, and the way back from
// a case to its waves (docs/dag.md).
//
// A DAG case is an ordinary `.gc` case whose kernel is the fused program: inside the root region,
// each barrier group is one phase holding its waves as `region "wave.K"` blocks (in plan order),
// and phases are separated by `grid_sync`. The plan's `global_barriers` is taken literally: the
// i-th fence follows group i, so a plan with too few barriers merges its last groups and one with
// more ends with extra fences. Waves the plan leaves out are kept in a never-taken `if false`
// block at the end, so the case still holds every wave. Meta lines carry the rest:
//
//   meta dag_waves "0 1 2 3"            wave ids (each region "wave.K" names one)
//   meta dag_edges "0>2 1>2 2>3"         the planner's input, in input order (duplicates allowed)
//   meta dag_ordering_edges "1>2"        the edges along which no data flows (informational)
//   meta dag_shape diamond               the generator's shape (informational)
//   meta dag_planner vyre-0.7.2          whose megakernel rule made the kernel (informational)
//   meta dag_plan "[[0 1] [2] [3]] barriers 2"   what that rule returned (informational)
//
// Only dag_waves, dag_edges and the regions are read back; the kernel itself is the schedule.

#include <string>
#include <string_view>
#include <vector>

#include "ir/case.hpp"
#include "ir/diagnostic.hpp"
#include "planner/profile.hpp"
#include "props/gen/dag_generator.hpp"

namespace gridcheck::props {

using MegakernelPlan = planner::Expected<planner::BarrierPlan, planner::MegakernelError>;

/// The meta key of WaveDag::scratch_history (format_history's text).
inline constexpr std::string_view kScratchHistoryKey = "dag_scratch_history";

/// True when the case carries DAG meta (a `dag_waves` line).
bool is_dag_case(const ir::Case& c);

/// "[[0 1] [2]] barriers 1", or the error's diagnostic "S103: ...".
std::string describe_plan(const MegakernelPlan& plan);

/// The fused case of `dag` under `plan` (a plan error schedules nothing). Group entries that name
/// no wave of the DAG are skipped. The name, description and meta lines are set; expectations
/// are left empty. With `named` false the name (a content hash of the fused program, a canonical
/// walk that costs as much as a copy of it) is left empty: for callers that only run the program.
ir::Case fuse_dag(const WaveDag& dag, const MegakernelPlan& plan, std::string_view planner_name, bool named = true);

/// Plans `dag` with `profile.megakernel` (fresh scratch) and fuses it.
ir::Case fuse_dag(const WaveDag& dag, const planner::Profile& profile);
/// The same in the caller's `scratch`, reused as it is: whatever earlier plans left in it is
/// what the rule finds there.
ir::Case fuse_dag(const WaveDag& dag, const planner::Profile& profile, planner::BarrierScratch& scratch);

/// True when fuse_dag(dag, plan, ...).program is structurally equal (ir::structurally_equal) to
/// dag.base.program, decided without building it: the base's kernel is the root region holding the
/// plan's schedule, statement by statement, with wave K's slots holding dag.waves[K] itself (a
/// planner::ProgramCopier copy is structurally equal to its original) and the fences and the
/// `if false` block as fuse_dag writes them. False when it is not, and also (conservatively) when
/// the kernel holds a wave through another `region "wave.K"` than dag.waves[K] or a fence or
/// condition with operands: then only building and comparing can tell.
bool kernel_is_fusion(const WaveDag& dag, const MegakernelPlan& plan);

/// The waves and edges of a DAG case, read from its meta lines and `region "wave.K"` statements
/// (the first region of each wave). Errors (G200-G205, docs/dag.md): missing or malformed meta, a
/// wave without a region, a region of no wave, cyclic edges. The DAG's base borrows `c` (no copy):
/// `c` must outlive the DAG and its copies. The rvalue overload moves `c` into the DAG instead.
ir::Result<WaveDag> read_dag(const ir::Case& c);
ir::Result<WaveDag> read_dag(ir::Case&& c);

/// The schedule a fused kernel encodes.
struct FusedSchedule {
  std::vector<std::vector<std::size_t>> phases;  ///< waves per fence-separated phase (fences + 1 phases)
  std::vector<std::size_t> unscheduled;          ///< waves kept outside the phases (the `if false` block)
  std::size_t fences = 0;
};
FusedSchedule fused_schedule(const ir::Case& c);

/// Where a schedule breaks the DAG, found statically. `kind` is one of "same-phase" (an edge
/// whose waves share a phase), "reversed" (the consumer's phase comes first), "missing" (a wave in
/// no phase), "duplicated" (a wave in several places).
struct PlanProblem {
  std::string kind;
  std::string text;  ///< "0>2", or a wave id
};
std::vector<PlanProblem> plan_problems(const FusedSchedule& schedule, std::size_t wave_count,
                                       const std::vector<planner::WaveDependency>& edges);
/// The distinct kinds, in the order listed above.
std::vector<std::string> problem_kinds(const std::vector<PlanProblem>& problems);
/// "same-phase 0>2 1>2; missing 3", or "none".
std::string describe(const std::vector<PlanProblem>& problems);

}  // namespace gridcheck::props
