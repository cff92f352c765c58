#pragma once
// A planner profile whose plans come from an external planner process (docs/plan-protocol.md): a
// copy of vyre_0_7_2() whose `plan` sends each program with a fence to the process and checks the
// answer (plan_protocol.hpp). Its dispatch loop is vyre 0.7.2's with the plan's own choices:
// `dispatch.convergence` (SplitPlan::convergence, see plan_convergence) and `dispatch.grid`
// (prepare_launches: `whole-program` gives every launch the source's reference grid, as the sound
// profile does; `per-segment` is vyre 0.7.2's per-launch inference). Programs without a grid_sync
// are dispatched unsplit and never reach the planner (routing, docs/vyre-0.7.2.md §6.1).
//
// Failures of the process or of a plan are S300..S310 diagnostics (is_planner_process_error); a
// `refused` answer is a refusal (is_refusal).

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "planner/planner_process.hpp"
#include "planner/profile.hpp"

namespace gridcheck::planner {

inline constexpr std::chrono::milliseconds kDefaultPlannerTimeout{10000};

/// The profile name: "external", or "external:NAME" when `name` is not empty.
std::string external_profile_name(std::string_view name);

/// The profile (unregistered: pass it to register_profile) and the process it talks to; the
/// process is started on the first plan. `process` stays shared with the profile's `plan`.
struct ExternalPlanner {
  Profile profile;
  std::shared_ptr<PlannerProcess> process;
};
ExternalPlanner make_external_profile(std::string command, std::string_view name,
                                      std::chrono::milliseconds timeout = kDefaultPlannerTimeout,
                                      PlannerProcess::StderrSink sink = {});

/// Names the case whose programs this thread plans next (the request's `case` field and every
/// diagnostic's), for the life of the scope. Scopes nest; without one the case is "-".
class PlanCaseScope {
 public:
  explicit PlanCaseScope(std::string name);
  ~PlanCaseScope();
  PlanCaseScope(const PlanCaseScope&) = delete;
  PlanCaseScope& operator=(const PlanCaseScope&) = delete;

 private:
  std::string previous_;
};
/// The case named by the innermost PlanCaseScope of this thread ("" when none).
const std::string& current_plan_case();

}  // namespace gridcheck::planner
