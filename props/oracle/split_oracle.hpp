#pragma once
// The split oracles H-cpu and H-gpu: for each profile, the case's program through the profile's
// split, its launches on the interpreter (H-cpu) and on a GPU runner (H-gpu, when
// OracleOptions::gpu is set; its resident mode must equal host mode), judged against R.
//
// Blame of a divergence: "planner" when H-cpu differs from R; "lowering/driver" when H-cpu matches
// and H-gpu differs. A race inside a segment launch is the planner's (H-gpu inherits it from
// H-cpu, which runs whenever H-gpu does and is reported when OracleOptions::cpu is set).

#include "props/oracle/oracle_plugin.hpp"

namespace gridcheck::props {

class SplitOracle final : public Oracle {
 public:
  std::string_view name() const override { return "H-cpu"; }
  void evaluate(const ir::Case& c, const OracleOptions& options, CaseReport& report) const override;
};

}  // namespace gridcheck::props
