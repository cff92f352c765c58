#pragma once
// A case's `expect` and `output` lines (docs/format.md) against a report: recording what a report
// says into a case, and checking a case's recorded expectations against a new report.

#include <string>
#include <vector>

#include "ir/case.hpp"
#include "props/oracle/case_report.hpp"

namespace gridcheck::props {

/// Replaces a case's expectations with what `report` says: R's verdict and outputs (words up to 64
/// elements, else an FNV-1a-64 hash), each outcome's verdict and detail, H-cpu's launch count per
/// profile (when it launched anything), and a diverging outcome's outputs.
void record_expectations(ir::Case& c, const CaseReport& report);

/// A mismatch between a case's `expect` lines and a report.
struct ExpectationFailure {
  ir::SourceLoc loc;
  std::string message;
};
/// Every expectation of `c` that `report` contradicts ("expected 4 launches, got 6" for a launch
/// count); expectations of oracles that did not run
/// (no GPU, profile not selected) are skipped.
std::vector<ExpectationFailure> check_expectations(const ir::Case& c, const CaseReport& report);

}  // namespace gridcheck::props
