#pragma once
// What evaluate_case returns (docs/DESIGN.md §5): R's result and verdict, then one outcome per
// oracle plug-in and profile, each judged against R byte for byte.
//
// Verdicts of an outcome:
//   R invalid / divergence / race, or two R schedules disagree  -> invalid {detail}
//   a profile refuses the program before running                 -> refused {diagnostic}
//   equal to R byte for byte over R's outputs                    -> match
//   differs, fails where R succeeded, or succeeds where R trapped -> diverge {blame, first divergence}

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "interp/interpreter.hpp"
#include "ir/case.hpp"
#include "planner/split_dispatch.hpp"
#include "props/oracle/byte_compare.hpp"

namespace gridcheck::props {

struct FirstDivergence {
  ByteDiff final_diff;                  ///< the first differing final output
  std::optional<std::uint32_t> pass;    ///< the first divergent segment, when located
  std::optional<std::size_t> segment;
  std::optional<ByteDiff> segment_diff; ///< what differed at the end of that segment
  std::optional<interp::InvocationIds> last_writer;  ///< the invocation that last wrote it in R
  std::optional<interp::Site> last_writer_site;
  std::string describe() const;
};

/// One oracle's result for one profile (or for the case itself: profile "").
struct OracleOutcome {
  std::string oracle;   ///< "H-cpu", "H-gpu", "R-waves"
  std::string profile;
  ir::Verdict verdict = ir::Verdict::Match;
  std::string detail;   ///< blame for diverge ("planner", "lowering/driver", "megakernel MODE"), a code otherwise
  std::string message;  ///< one line for a person
  std::string comparison_rule = "exact";  ///< "exact", or "f32 within N ulp (uses div, sqrt)"
  std::optional<FirstDivergence> divergence;
  std::optional<planner::SplitFailure> failure;
  std::vector<std::string> output_names;
  std::vector<planner::Bytes> outputs;
  std::size_t launches = 0;
};

struct CaseReport {
  interp::RunResult reference;
  ir::Verdict reference_verdict = ir::Verdict::Ok;
  std::string reference_detail;
  bool schedule_dependent = false;
  std::vector<OracleOutcome> outcomes;  ///< in the order the oracles ran
  /// Where R's storage first repeats between two fixpoint launches (the convergence oracle's P:
  /// the first 1-based pass p >= 2 whose end-of-launch storage equals pass p - 1's), recorded by
  /// run_reference during R's run of a case with fixpoint >= 2 that ends ok (`repeat_recorded`).
  bool repeat_recorded = false;
  std::optional<std::uint32_t> repeat_end;
  /// The split plans the split oracle made, by profile name, for the oracles that run after it
  /// (no entry for a profile that dispatched the program unsplit or refused to plan it).
  std::vector<std::pair<std::string, std::shared_ptr<const planner::SplitPlan>>> plans;

  const OracleOutcome* find(std::string_view oracle, std::string_view profile) const;
  const planner::SplitPlan* plan(std::string_view profile) const;
  /// True when R is usable and every outcome matched (or was refused).
  bool agrees() const;
};

}  // namespace gridcheck::props
