#include "planner/external_profile.hpp"

#include <atomic>
#include <utility>

#include "planner/plan_protocol.hpp"
#include "planner/sound_profile.hpp"

namespace gridcheck::planner {
namespace {

thread_local std::string t_case;

// Request ids are positive and never reused in one gridcheck process.
std::uint64_t next_request_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1);
}

ir::Result<SplitPlan> plan_externally(PlannerProcess& process, const Profile& self, const ir::Program& source) {
  // Routing: a program without a fence is never sent (its one-segment plan is vyre 0.7.2's).
  if (!contains_grid_sync(source)) return compose_split_plan(self, source);
  const std::string& case_name = current_plan_case();
  const std::uint64_t id = next_request_id();
  ir::Result<std::string> answer = process.exchange(plan_protocol::plan_request(id, case_name, source), case_name);
  if (!answer) return answer.diagnostics();
  bool stream_broken = false;
  ir::Result<SplitPlan> plan = plan_protocol::decode_plan_response(
      *answer, id, source, plan_protocol::Subject{self.name, case_name}, stream_broken);
  if (stream_broken) process.restart();
  return plan;
}

// dispatch.prepare_launches: the plan's `dispatch.grid`.
std::optional<ir::Diagnostic> prepare_plan_grid(const ir::Program& source, const SplitPlan& plan, RunConfig& config,
                                                LiveMap& live) {
  if (plan.grid != PlanGrid::WholeProgram) return vyre_prepare_launches(source, plan, config, live);
  return sound_prepare_launches(source, plan, config, live);  // no scratch in an external plan: the grid only
}

}  // namespace

std::string external_profile_name(std::string_view name) {
  return name.empty() ? std::string("external") : "external:" + std::string(name);
}

ExternalPlanner make_external_profile(std::string command, std::string_view name, std::chrono::milliseconds timeout,
                                      PlannerProcess::StderrSink sink) {
  ExternalPlanner out;
  out.profile = vyre_0_7_2();
  out.profile.name = external_profile_name(name);
  out.profile.description = "an external planner process: `" + command + "` (docs/plan-protocol.md)";
  out.process = std::make_shared<PlannerProcess>(std::move(command), out.profile.name, timeout, std::move(sink));
  std::shared_ptr<PlannerProcess> process = out.process;
  out.profile.plan = [process](const Profile& self, const ir::Program& source) {
    return plan_externally(*process, self, source);
  };
  out.profile.dispatch.prepare_launches = prepare_plan_grid;
  return out;
}

PlanCaseScope::PlanCaseScope(std::string name) : previous_(std::exchange(t_case, std::move(name))) {}
PlanCaseScope::~PlanCaseScope() { t_case = std::move(previous_); }
const std::string& current_plan_case() { return t_case; }

}  // namespace gridcheck::planner
