#pragma once
// The DAG oracle R-waves (docs/dag.md): the waves of a DAG case one launch each, in a topological
// order, under R (the same buffers, persistent across launches), compared byte for byte with the
// fused program under R (true grid sync, race detector, two schedules).
//
// An oracle plug-in (oracle_plugin.hpp): for every case that carries DAG meta (and
// OracleOptions::waves) it appends outcomes of oracle "R-waves" to the report:
//   profile ""   the case's kernel as it is;
//   profile P    for each profile of OracleOptions (default: planner::default_profile()), the
//                case's waves re-planned with P's megakernel rule and fused again (the same kernel
//                when P made it; otherwise R runs the new fusion).
// Verdicts: match; diverge with detail "megakernel MODE" when the fusion races under R while every
// wave alone is race-free (MODE race), gives other bytes (bytes), ends differently (end), or P's
// planner refuses the acyclic DAG (refused);
// invalid when the waves themselves cannot be run (a malformed DAG case, G200-G205, or a wave that
// fails or races on its own: the generator's fault). A diverging outcome's outputs are the
// wave-by-wave bytes (what the fused program should have produced).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "props/gen/dag_case.hpp"
#include "props/oracle/oracle_plugin.hpp"

namespace gridcheck::props {

/// The oracle name of the wave-by-wave comparison in reports and case files.
inline constexpr std::string_view kWavesOracle = "R-waves";
/// The blame of a wrong fusion.
inline constexpr std::string_view kMegakernelBlame = "megakernel";

struct WavesRun {
  interp::RunStatus status = interp::RunStatus::Ok;  ///< of the first wave that did not finish ok
  std::string detail;                                ///< its RunResult::detail()
  std::string message;
  std::optional<std::size_t> failed_wave;
  std::vector<std::size_t> order;               ///< the launch order (one pass)
  std::vector<interp::OutputBuffer> outputs;    ///< R's outputs (reference outputs, sliced), declaration order
  std::size_t launches = 0;
  bool ok() const { return status == interp::RunStatus::Ok; }
};

/// Runs the waves one launch each in topological_order (fixpoint N: the whole order N times).
/// Buffers start as R starts them (case inputs, zero-filled outputs); the grid is the case's or
/// R's inferred one for the base program.
WavesRun run_waves(const WaveDag& dag, const interp::RunOptions& options);

/// The R-waves oracle. Appends nothing for a case without DAG meta.
class WavesOracle final : public Oracle {
 public:
  std::string_view name() const override { return kWavesOracle; }
  void evaluate(const ir::Case& c, const OracleOptions& options, CaseReport& report) const override;
};

/// The R-waves outcome of `report` (profile "" or a profile name); nullptr when absent.
const OracleOutcome* waves_outcome(const CaseReport& report, std::string_view profile = "");

}  // namespace gridcheck::props
