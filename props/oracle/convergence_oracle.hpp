#pragma once
// The convergence oracle `convergence` (docs/vyre-0.7.2.md §6.8 step 8, #h3): does the split's
// fixpoint loop stop at the pass where R's state stops changing?
//
// Applies to a case with fixpoint N >= 2 whose program goes through the split loop (under
// vyre-0.7.2 a fence-free program is launched once, unsplit, and is skipped; sound runs it as one
// segment), for every profile whose H-cpu outcome is in the report and matched R without a
// failure (a split whose bytes already differ is H-cpu's finding: its states are not R's, so its
// pass count says nothing about convergence). R runs fixpoint as N launches; P is the first pass
// p >= 2 whose storage state at the end of the launch equals the state at the end of pass p - 1,
// or N when there is none (pass 1 is never compared with the initial state, as in the split). The
// split ran K = H-cpu launches / segments passes, with the segments counted in the plan
// (planner::plan_split; sound may drop empty segments). What is checked depends on the convergence
// the profile promises: the plan's own choice (an external planner's `convergence`), else the
// documented rule of a built-in profile by name, else that of the base of a planner mutant (whose
// description make_mutant writes as "mutant of BASE: ..."), else by its convergence object
// (FingerprintConvergence: fingerprint; ExactConvergence or any other: exact, since the loop is
// deterministic and the first repeat is the only right place to stop):
//
//   exact (sound, ExactConvergence)          K == P: it stops exactly where R's state repeats (its
//                                            scratch buffers, spilled locals and workgroup memory, are
//                                            pass-local and left out of the comparison)
//   fingerprint (vyre-0.7.2)                 2 <= K <= P: it stops at the first pass whose owned
//                                            fingerprint repeats, which is at or before R's repeat
//                                            (earlier only on an F3 collision), never later, and
//                                            never after pass 1
//   none (a plan's `convergence: none`)      K == N: every pass runs
//
// Outcome: oracle "convergence", the profile's name, verdict match or diverge (detail "planner"),
// message "the split ran K passes, R's state repeats after pass P".

#include <cstdint>
#include <optional>

#include "props/oracle/oracle_plugin.hpp"

namespace gridcheck::props {

class ConvergenceOracle final : public Oracle {
 public:
  std::string_view name() const override { return "convergence"; }
  void evaluate(const ir::Case& c, const OracleOptions& options, CaseReport& report) const override;
};

/// Where R's state repeats in `c`'s fixpoint launches (1-based passes, never pass 1): `end`, the
/// first pass whose end-of-launch storage equals pass p - 1's (the P above); `trace`, the first
/// whose storage at every fence and at the end equals pass p - 1's (P <= trace <= P + 1). Empty
/// when R's state changes in every pass, or R did not finish.
struct ReferenceRepeat {
  std::optional<std::uint32_t> end;
};
ReferenceRepeat reference_repeat(const ir::Case& c, const OracleOptions& options);

}  // namespace gridcheck::props
