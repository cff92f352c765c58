#include "props/oracle/evaluate_case.hpp"

#include "props/oracle/oracle_plugin.hpp"
#include "props/oracle/reference_run.hpp"

namespace gridcheck::props {

CaseReport evaluate_case(const ir::Case& c, const OracleOptions& options) {
  CaseReport report;
  run_reference(c, options, report);
  const std::span<const Oracle* const> oracles =
      options.oracles.empty() ? builtin_oracles() : std::span<const Oracle* const>(options.oracles);
  for (const Oracle* oracle : oracles) oracle->evaluate(c, options, report);
  return report;
}

}  // namespace gridcheck::props
