#pragma once
// vyre's barrier-settled exit proof (exit_uniformity.rs), the part of V055 that decides whether the
// returns after a loop body's last straight-line barrier are collective. Not a public header.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "ir/program.hpp"

namespace gridcheck::ir::validation {

class ExitAnalysis {
 public:
  /// vyre's workgroup uniformity of a local bound outside the analysed steps; nullopt when unbound.
  using OuterScope = std::function<std::optional<bool>(NameId)>;

  /// `p` must be structurally sound (phase 1) and outlive the analysis.
  explicit ExitAnalysis(const Program& p);
  ~ExitAnalysis();
  ExitAnalysis(const ExitAnalysis&) = delete;
  ExitAnalysis& operator=(const ExitAnalysis&) = delete;

  /// True when `steps` hold a straight-line barrier and every return after the last one is
  /// collective. Takes time proportional to the statements and expressions under `steps` (times the
  /// passes their loops need), whatever the size of the outer scope; one analysis may run many times.
  bool exits_are_uniform(std::span<const StmtId> steps, const OuterScope& outer);

 private:
  class Walk;
  const Program& p_;
  std::unique_ptr<Walk> walk_;  ///< created on first use: its tables are as large as the name table
};

}  // namespace gridcheck::ir::validation
