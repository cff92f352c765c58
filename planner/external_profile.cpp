#include "planner/external_profile.hpp"

#include <atomic>
#include <list>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "ir/text/printer.hpp"

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

/// The last plans the planner gave, by the program's printed text: an oracle plans one program
/// several times (the split run, then the first-divergence re-run), and shrinking revisits
/// programs. Only checked `ok` plans are kept; refusals and failures name their case and are asked again.
class PlanCache {
 public:
  std::optional<SplitPlan> find(const std::string& program) {
    std::lock_guard lock(mutex_);
    const auto it = index_.find(program);
    if (it == index_.end()) return std::nullopt;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }
  void add(const std::string& program, const SplitPlan& plan) {
    std::lock_guard lock(mutex_);
    if (index_.contains(program)) return;
    order_.emplace_front(program, plan);
    index_.emplace(program, order_.begin());
    if (order_.size() > kCapacity) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

 private:
  static constexpr std::size_t kCapacity = 256;
  std::mutex mutex_;
  std::list<std::pair<std::string, SplitPlan>> order_;
  std::unordered_map<std::string, std::list<std::pair<std::string, SplitPlan>>::iterator> index_;
};

ir::Result<SplitPlan> plan_externally(PlannerProcess& process, PlanCache& cache, const Profile& self,
                                      const ir::Program& source) {
  // Routing: a program without a fence is never sent (its one-segment plan is vyre 0.7.2's).
  if (!contains_grid_sync(source)) return compose_split_plan(self, source);
  const std::string program = ir::print(source);
  if (std::optional<SplitPlan> cached = cache.find(program)) return std::move(*cached);
  const std::string& case_name = current_plan_case();
  const std::uint64_t id = next_request_id();
  ir::Result<std::string> answer = process.exchange(plan_protocol::plan_request(id, case_name, source), case_name);
  if (!answer) return answer.diagnostics();
  bool stream_broken = false;
  ir::Result<SplitPlan> plan = plan_protocol::decode_plan_response(
      *answer, id, source, plan_protocol::Subject{self.name, case_name}, stream_broken);
  if (stream_broken) process.restart();
  if (plan.ok()) cache.add(program, plan.value());
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
  auto cache = std::make_shared<PlanCache>();
  out.profile.plan = [process, cache](const Profile& self, const ir::Program& source) {
    return plan_externally(*process, *cache, self, source);
  };
  out.profile.dispatch.prepare_launches = prepare_plan_grid;
  return out;
}

PlanCaseScope::PlanCaseScope(std::string name) : previous_(std::exchange(t_case, std::move(name))) {}
PlanCaseScope::~PlanCaseScope() { t_case = std::move(previous_); }
const std::string& current_plan_case() { return t_case; }

}  // namespace gridcheck::planner
