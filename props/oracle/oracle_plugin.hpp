#pragma once
// Oracles as plug-ins. evaluate_case runs R (reference_run.hpp), then every oracle of
// OracleOptions::oracles (default: builtin_oracles()) in order; each judges the case against R's
// result in the report and appends its outcomes. evaluate_case knows no oracle by name: a new
// oracle is a class implementing this interface, added to the list.

#include <span>
#include <string_view>

#include "ir/case.hpp"
#include "props/oracle/case_report.hpp"
#include "props/oracle/oracle_options.hpp"

namespace gridcheck::props {

class Oracle {
 public:
  virtual ~Oracle() = default;
  /// The name its outcomes carry in reports and `expect` lines ("H-cpu", "R-waves", ...); an
  /// oracle that reports under several names (the split oracle: H-cpu and H-gpu) gives the first.
  virtual std::string_view name() const = 0;
  /// Appends this oracle's outcomes for `c` to `report`, which already holds R's result. Appends
  /// nothing when the oracle does not apply to the case or `options` switch it off. Never throws.
  virtual void evaluate(const ir::Case& c, const OracleOptions& options, CaseReport& report) const = 0;
};

/// The built-in oracles in the order they run: the split oracle (H-cpu, H-gpu), the convergence
/// oracle (which reads H-cpu's outcomes), then R-waves.
std::span<const Oracle* const> builtin_oracles();

}  // namespace gridcheck::props
