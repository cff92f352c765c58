#pragma once
// A differential fuzzing campaign (issue: differential fuzzing): generate cases from a seed space,
// run them through the oracle, shrink every failure (choice sequence first, then the IR), give it a
// signature (blame + divergence class + role pattern), deduplicate, and save it atomically as a
// corpus case with its seed and a one-line replay command. A campaign can be interrupted and
// resumed, and split into shards over one seed space.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/case.hpp"
#include "props/gen/case_generator.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"
#include "props/oracle/phase_clock.hpp"

namespace gridcheck::props {

/// What a campaign generates and how it judges a case. Every member may be left empty: the
/// default target generates programs (generate_case with CampaignOptions::generator) and judges
/// them with case_failure; props/dag_campaign.hpp makes the wave-DAG target.
struct CampaignTarget {
  std::string name = "program";  ///< kept in the resume state
  /// A case from a choice stream; any stream must decode to a valid case (shrinking replays them).
  std::function<ir::Case(ChoiceSource&)> generate;
  /// The failure's blame, or nullopt; fills the report (see case_failure).
  std::function<std::optional<std::string>(const ir::Case&, const OracleOptions&, CaseReport&)> failure;
  /// The classes of a case, for its signature and as the shrinking guard (default divergence_classes).
  std::function<std::vector<std::string>(const ir::Case&)> classes;
  /// The last part of a signature (default: role_pattern of the first differing buffer, or "-").
  std::function<std::string(const ir::Case&, const CaseReport&)> pattern;
  /// Finish shrinking with IR reduction (reduce_case) after the choice sequence.
  bool reduce_ir = true;
  /// Keep the generated case's meta lines in saved failures (before the campaign's own).
  bool keep_meta = false;
};

struct CampaignOptions {
  double seconds = 10;             ///< wall-clock budget (0 = until max_cases)
  std::uint64_t max_cases = 0;     ///< 0 = unlimited
  std::uint64_t seed = 1;
  GeneratorConfig generator;
  CampaignTarget target;           ///< default: generated programs
  /// K consecutive cases share a program and differ in their inputs (props/campaign/case_choices.hpp);
  /// the default target only (1 = every case a new program).
  std::uint32_t inputs_per_program = 1;
  /// Profiles, H-cpu / H-gpu. Generated cases need few steps, and shrinking can create huge loops
  /// (a loop bound replaced by one of its operands), so campaigns use a small instruction budget.
  OracleOptions oracle = [] {
    OracleOptions o;
    o.limits.fuel = ir::kCampaignFuel;
    return o;
  }();
  unsigned jobs = 1;               ///< worker threads (H-gpu too: each run takes a lane of the GpuBackend)
  std::uint32_t shard_index = 0;   ///< this shard takes case indices i with i % shard_count == shard_index
  std::uint32_t shard_count = 1;
  std::string out_dir;             ///< where failures and the resume state go; empty = nowhere
  bool shrink = true;
  std::uint32_t shrink_attempts = 4000;  ///< oracle runs per failure while shrinking
  /// The command line to print in saved cases ("gridcheck fuzz --seed 7 ...").
  std::string command;
  const std::atomic<bool>* stop = nullptr;  ///< set (e.g. by SIGINT) to stop after the current cases
  /// Called about once a second from the coordinating thread.
  std::function<void(const struct CampaignProgress&)> on_progress;
  /// Called when a new unique failure is saved.
  std::function<void(const struct CampaignFailure&)> on_failure;
};

struct CampaignFailure {
  std::string signature;       ///< "planner/A/rw0:read_write->write_only,-"
  std::string blame;
  std::string divergence_class;
  std::string role_pattern;
  std::uint64_t case_index = 0;
  std::uint64_t case_seed = 0;
  double found_after_seconds = 0;
  std::size_t statements_before = 0, statements_after = 0;
  std::string message;         ///< the oracle's first-divergence text for the shrunk case
  ir::Case shrunk;
  std::string file;            ///< where it was saved ("" when out_dir is empty)
};

struct CampaignProgress {
  double elapsed_seconds = 0;
  std::uint64_t cases = 0;
  std::map<std::string, std::uint64_t> verdicts;  ///< "match", "diverge", "refused", "invalid", "error"
  std::size_t unique_failures = 0;
  std::uint64_t next_index = 0;
};

struct CampaignResult {
  CampaignProgress progress;
  std::vector<CampaignFailure> failures;  ///< unique, in discovery order (resumed ones included)
  /// Wall time of this run's worker threads by phase (phase_clock.hpp), summed over the workers;
  /// a resumed campaign's earlier runs are not in it.
  PhaseTimes phases;
  bool interrupted = false;
  bool resumed = false;
  std::string state_error;                ///< non-empty when the resume state could not be read or written
  /// Non-empty when the campaign did not start: its output directory cannot be created or written,
  /// another campaign holds it (same shard), or its state is of another configuration
  /// (campaign_state.hpp). Nothing ran.
  std::string setup_error;
};

/// The seed of case `index` of a campaign started with `campaign_seed`.
std::uint64_t case_seed(std::uint64_t campaign_seed, std::uint64_t index);

CampaignResult run_campaign(const CampaignOptions& options);

/// Evaluates one generated case and tells whether it fails: a split diverges or errs, or the
/// generator produced an invalid (racy, refused) case. Returns the failure's blame (or
/// "generator") and fills `report`.
std::optional<std::string> case_failure(const ir::Case& c, const OracleOptions& options, CaseReport& report);

/// The role pattern of buffer `name` under vyre-0.7.2: "read_write:write_only,-,read".
std::string role_pattern(const ir::Case& c, const std::string& name);

}  // namespace gridcheck::props
