#include "props/oracle/reference_run.hpp"

#include <algorithm>

#include "interp/schedule_check.hpp"
#include "props/oracle/phase_clock.hpp"

namespace gridcheck::props {

interp::RunOptions reference_run_options(const ir::Case& c, const OracleOptions& options) {
  interp::RunOptions o;
  o.same_value_writes_race = options.same_value_writes_race;
  o.limits = options.limits;
  o.deadline = options.deadline;
  o.file = c.file;
  return o;
}

void RepeatRecorder::on_launch_end(std::uint32_t launch, const interp::MemoryView& m) {
  current_.resize(m.buffers.size());
  for (std::size_t i = 0; i < m.buffers.size(); ++i) current_[i].assign(m.buffers[i].begin(), m.buffers[i].end());
  if (launch >= 1 && !end_repeat && current_ == previous_) end_repeat = launch + 1;
  std::swap(previous_, current_);
}

void run_reference(const ir::Case& c, const OracleOptions& options, CaseReport& report) {
  const PhaseScope timed(Phase::Reference);
  interp::RunOptions o = reference_run_options(c, options);
  o.detect_races = options.detect_races;
  // The convergence oracle's repeat, from this run's launches: a run that ends ok has the storage
  // states of a run without the race detector.
  RepeatRecorder recorder;
  if (c.fixpoint >= 2) o.observers.push_back(&recorder);
  report.reference = interp::run_case(c, o);  // interp::run_case_on_two_schedules, its halves timed apart
  if (options.check_schedules && interp::needs_second_schedule(c, o, report.reference)) {
    const PhaseScope again(Phase::Schedule);
    report.reference = interp::compare_with_counterpart(c, o, std::move(report.reference));
  }
  report.repeat_recorded = c.fixpoint >= 2 && report.reference.ok();
  report.repeat_end = report.repeat_recorded ? recorder.end_repeat : std::nullopt;
  report.reference_verdict = report.reference.verdict();
  report.reference_detail = report.reference.detail();
  report.schedule_dependent = std::any_of(report.reference.diagnostics.begin(), report.reference.diagnostics.end(),
                                          [](const ir::Diagnostic& d) { return d.code == "R044"; });
}

}  // namespace gridcheck::props
