#include "props/oracle/reference_run.hpp"

namespace gridcheck::props {

interp::RunOptions reference_run_options(const ir::Case& c, const OracleOptions& options) {
  interp::RunOptions o;
  o.fuel = options.fuel;
  o.file = c.file;
  return o;
}

void run_reference(const ir::Case& c, const OracleOptions& options, CaseReport& report) {
  interp::RunOptions o = reference_run_options(c, options);
  o.detect_races = options.detect_races;
  report.reference = interp::run_case(c, o);
  report.reference_verdict = report.reference.verdict();
  report.reference_detail = report.reference.detail();
  if (!report.reference.ok() || !options.check_schedules) return;
  interp::RunOptions reversed = reference_run_options(c, options);
  reversed.schedule = interp::Schedule::reversed();
  const interp::RunResult other = interp::run_case(c, reversed);
  bool same = other.ok() && other.outputs.size() == report.reference.outputs.size();
  for (std::size_t i = 0; same && i < other.outputs.size(); ++i)
    same = other.outputs[i].bytes == report.reference.outputs[i].bytes;
  if (!same) {
    report.schedule_dependent = true;
    report.reference_verdict = ir::Verdict::Invalid;
    report.reference_detail = "race";
  }
}

}  // namespace gridcheck::props
