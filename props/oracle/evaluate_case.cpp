#include "props/oracle/evaluate_case.hpp"

#include "props/oracle/oracle_plugin.hpp"
#include "props/oracle/reference_run.hpp"

namespace gridcheck::props {
namespace {

/// The copies of the case's buffers R and the oracles hold at most at once (ir::MemoryCopies).
double memory_copies(const OracleOptions& options, std::span<const Oracle* const> oracles) {
  double copies = options.detect_races ? ir::MemoryCopies::kReferenceWithRaces : ir::MemoryCopies::kReference;
  // H-cpu under each profile, one profile after the other; H-gpu's host copies on top.
  if (!oracles.empty() && (options.cpu || options.gpu)) copies += ir::MemoryCopies::kSplit;
  if (options.gpu) copies += ir::MemoryCopies::kSplit;
  return copies;
}

CaseReport evaluate(const ir::Case& c, const OracleOptions& options) {
  CaseReport report;
  const std::span<const Oracle* const> oracles =
      options.oracles.empty() ? builtin_oracles() : std::span<const Oracle* const>(options.oracles);
  // Before anything is allocated: the case's buffers against the memory budget (R023, `invalid
  // limit`); the split oracles then see an invalid R and run nothing.
  if (auto too_large = ir::check_case_memory(c, memory_copies(options, oracles), options.limits,
                                             "R and the split", c.file)) {
    report.reference.status = interp::RunStatus::Invalid;
    report.reference.diagnostics.add(std::move(*too_large));
    report.reference_verdict = report.reference.verdict();
    report.reference_detail = report.reference.detail();
  } else {
    run_reference(c, options, report);
  }
  for (const Oracle* oracle : oracles) oracle->evaluate(c, options, report);
  return report;
}

}  // namespace

CaseReport evaluate_case(const ir::Case& c, const OracleOptions& options) {
  if (options.limits.timeout_seconds > 0 && !options.deadline) {  // the case's clock starts now
    OracleOptions timed = options;
    timed.deadline = ir::deadline_after(options.limits);
    return evaluate(c, timed);
  }
  return evaluate(c, options);
}

}  // namespace gridcheck::props
