#include "props/oracle/reference_run.hpp"

#include <algorithm>

#include "interp/schedule_check.hpp"

namespace gridcheck::props {

interp::RunOptions reference_run_options(const ir::Case& c, const OracleOptions& options) {
  interp::RunOptions o;
  o.same_value_writes_race = options.same_value_writes_race;
  o.limits = options.limits;
  o.deadline = options.deadline;
  o.file = c.file;
  return o;
}

void run_reference(const ir::Case& c, const OracleOptions& options, CaseReport& report) {
  interp::RunOptions o = reference_run_options(c, options);
  o.detect_races = options.detect_races;
  report.reference = options.check_schedules ? interp::run_case_on_two_schedules(c, o) : interp::run_case(c, o);
  report.reference_verdict = report.reference.verdict();
  report.reference_detail = report.reference.detail();
  report.schedule_dependent = std::any_of(report.reference.diagnostics.begin(), report.reference.diagnostics.end(),
                                          [](const ir::Diagnostic& d) { return d.code == "R044"; });
}

}  // namespace gridcheck::props
