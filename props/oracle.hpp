#pragma once
// The differential oracle (DESIGN §5): one case through R (true grid sync), H-cpu (the split over the
// interpreter) and optionally H-gpu (the split over a GPU executor), byte for byte.
//
// Verdicts:
//   R invalid / divergence / race, or two R schedules disagree  -> every oracle: invalid {detail}
//   a profile refuses the program before running                 -> refused {diagnostic}
//   H equals R byte for byte over R's outputs                    -> match
//   H differs, fails where R succeeded, or succeeds where R trapped -> diverge {blame, first divergence}
// Blame: "planner" when H-cpu differs from R; "lowering/driver" when H-cpu matches and H-gpu differs.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "ir/case.hpp"
#include "planner/executor.hpp"
#include "planner/profile.hpp"
#include "planner/split_dispatch.hpp"

namespace gridcheck::props {

/// A GPU split runner: runs the case's program through the split under `profile` on a device and
/// returns the SplitRun (outputs by name). Supplied by gpu/ through the CLI; absent in pure-CPU use.
using GpuSplitRunner = std::function<planner::SplitRun(const planner::Profile& profile, const ir::Program& program,
                                                       std::span<const planner::Bytes> inputs,
                                                       const planner::RunConfig& config)>;

struct OracleOptions {
  std::vector<const planner::Profile*> profiles;  ///< empty: the default profile (sound)
  bool cpu = true;                                 ///< report H-cpu (it also runs for H-gpu: blame, segment races)
  GpuSplitRunner gpu;                              ///< run H-gpu (host mode) when set
  /// H-gpu's resident mode: when set, it must give exactly the bytes (and verdict) of host mode.
  GpuSplitRunner gpu_resident;
  std::string gpu_name = "H-gpu";
  bool detect_races = true;                        ///< R with the race detector
  bool check_schedules = true;                     ///< a second R run, reversed schedule
  std::uint64_t fuel = std::uint64_t{1} << 28;
  bool locate_first_divergence = true;             ///< on a mismatch, re-run with observers
  /// DAG cases (props/dag_case.hpp): also run the wave-by-wave oracle R-waves (props/dag_oracle.hpp).
  bool waves = true;
};

/// Amber-style description of two byte buffers that differ.
struct ByteDiff {
  std::string buffer;
  ir::ScalarType element = ir::ScalarType::U32;
  std::uint64_t expected_bytes = 0, actual_bytes = 0;  ///< lengths
  std::uint64_t differing_elements = 0;
  std::uint64_t first_byte = 0;
  std::uint64_t element_index = 0;
  std::uint32_t expected_word = 0, actual_word = 0;  ///< the words at element_index (0 past the end)
  /// "3 values differed, first difference at byte 4: 2 != 0" (+ length note)
  std::string describe() const;
};

struct FirstDivergence {
  ByteDiff final_diff;                  ///< the first differing final output
  std::optional<std::uint32_t> pass;    ///< the first divergent segment, when located
  std::optional<std::size_t> segment;
  std::optional<ByteDiff> segment_diff; ///< what differed at the end of that segment
  std::optional<interp::InvocationIds> last_writer;  ///< the invocation that last wrote it in R
  std::optional<interp::Site> last_writer_site;
  std::string describe() const;
};

/// One split oracle's result for one profile.
struct SplitOutcome {
  std::string oracle;   ///< "H-cpu", "H-gpu"
  std::string profile;
  ir::Verdict verdict = ir::Verdict::Match;
  std::string detail;   ///< blame for diverge ("planner", "lowering/driver"), diagnostic code otherwise
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
  std::vector<SplitOutcome> splits;

  const SplitOutcome* find(std::string_view oracle, std::string_view profile) const;
  /// True when R is usable and every split matched (or was refused).
  bool agrees() const;
};

/// Exact comparison of one buffer's bytes; nullopt when equal.
std::optional<ByteDiff> diff_bytes(std::string_view buffer, ir::ScalarType element, const planner::Bytes& expected,
                                   const planner::Bytes& actual);

/// The caller's bytes for buffer `name` of a case: its input data, or zeros at the declared count.
planner::Bytes case_bytes(const ir::Case& c, std::string_view name);

/// R, then H-cpu / H-gpu per profile; for a DAG case also R-waves (appended to `splits`).
CaseReport evaluate_case(const ir::Case& c, const OracleOptions& options);

/// Replaces a case's expectations with what `report` says: R's verdict and outputs (words up to 64
/// elements, else an FNV-1a-64 hash), each split's verdict and detail, and a diverging split's outputs.
void record_expectations(ir::Case& c, const CaseReport& report);

/// A mismatch between a case's `expect` lines and a report.
struct ExpectationFailure {
  ir::SourceLoc loc;
  std::string message;
};
std::vector<ExpectationFailure> check_expectations(const ir::Case& c, const CaseReport& report);

}  // namespace gridcheck::props
