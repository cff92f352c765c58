#pragma once
// Running the mutation self-test (`gridcheck mutants`, docs/mutants.md): for each catalogue mutant,
// the oracles that can tell it apart from its base, each timed until its first kill:
//   z3      role-rule mutants: the Z3 role model (props/role_proof) searches, per declaration class,
//           K <= 3 segments and N <= 2 passes, for a counterexample of the mutant's or the base's
//           table on which the two tables make the split behave differently (the simulator decides);
//           the pattern is rendered into a program (props/counterexample_program) and the kill counts
//           only when executing it confirms the difference;
//   corpus  the regression corpus replayed under the mutant against the *base's* expectations: the
//           verdicts and outputs recorded for the base (or, where a case records none for it, the
//           base's live results), the base's launch count (docs/vyre-0.7.2.md §6.11 pins launch counts), and plan
//           determinism (the same program must plan to the same segments: docs/vyre-0.7.2.md#f4);
//   fuzz    a differential campaign (props/campaign) with the mutant profile: benign features when the
//           base is vyre-0.7.2 (where it equals R), all features when the base is `sound`; a failure
//           counts when the base matches R on the same case. For a megakernel mutant: wave DAGs fused
//           by the mutant's rule (props/dag_campaign, the DAG property R-waves), counted when the
//           base's re-planned fusion matches;
//   contract megakernel mutants: seeded random wave graphs (and error graphs) checked against a
//           brute-force oracle of the exact output contract of docs/vyre-0.7.2.md §7.1 (validation order, earliest
//           layers, layer 0 ascending, barrier count, cycle count). Stricter than R-waves: a plan
//           that still runs correctly but is not the spec'd one (an extra barrier) is told apart.
// A kill's case is confirmed on execution (base passes its expectations, the mutant fails them),
// reduced, and can be saved as corpus/mutants/<mutant>.gc; `check_killing_case` replays one.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/case.hpp"
#include "planner/profile.hpp"
#include "props/gen/features.hpp"
#include "props/mutants/mutant_catalogue.hpp"
// The pieces of the self-test, declared in their own headers and part of this one's API:
#include "props/mutants/case_meta.hpp"            // meta_value, set_meta
#include "props/mutants/killing_case.hpp"         // check_killing_case
#include "props/mutants/megakernel_contract.hpp"  // DagCase, dag_violation (oracle `contract`)
#include "props/mutants/mutant_pair.hpp"          // evaluate_pair, tell_apart (what a kill is)

namespace gridcheck::props {

inline constexpr const char* kOracleZ3 = "z3";
inline constexpr const char* kOracleCorpus = "corpus";
inline constexpr const char* kOracleFuzz = "fuzz";
inline constexpr const char* kOracleContract = "contract";

struct MutantRunOptions {
  bool z3 = true, corpus = true, fuzz = true, contract = true;
  /// Stop a mutant at its first kill (quick runs); otherwise every oracle runs to its own first kill.
  bool stop_at_first_kill = false;
  /// Run no oracle for mutants marked equivalent (quick runs: they cannot be killed by definition).
  bool skip_equivalent = false;
  /// Corpus directory (searched recursively for *.gc; a `mutants` sub-directory is skipped, so the
  /// saved killing cases never kill their own mutants). Empty: no corpus oracle.
  std::string corpus_dir;
  double fuzz_seconds = 20;        ///< per mutant
  /// The fuzz oracle's generator features; nullopt: every feature for a sound base, the benign
  /// ones for vyre-0.7.2 (intersected with the benign ones for vyre-0.7.2 when given).
  std::optional<FeatureMask> fuzz_features;
  std::uint64_t fuzz_seed = 1;
  unsigned fuzz_jobs = 1;
  std::uint32_t shrink_attempts = 1000;  ///< the campaign's shrinking budget per failure
  std::uint32_t reduce_attempts = 300;   ///< reducing a confirmed killing case (corpus, z3)
  std::uint32_t z3_max_segments = 3;
  std::uint32_t z3_max_passes = 2;
  unsigned z3_timeout_ms = 5000;
  std::uint32_t contract_cases = 3000;
  std::uint64_t contract_seed = 1;
  const std::atomic<bool>* stop = nullptr;
  /// Every case's memory, fuel and time budget (docs/semantics.md §3.9); the fuzz oracle's campaign
  /// takes them too, with kCampaignFuel unless `fuel_given`.
  ir::ResourceLimits limits = mutant_limits();
  bool fuel_given = false;
};

/// One oracle's result for one mutant.
struct OracleRun {
  std::string oracle;
  bool applicable = false;  ///< false: the oracle cannot see this kind of mutant (n/a)
  bool killed = false;
  double seconds = 0;       ///< time to the first kill when killed, else the time spent
  std::uint64_t work = 0;   ///< cases / queries / graphs tried
  std::string detail;       ///< what told them apart (or why not)
  std::optional<ir::Case> killing_case;  ///< confirmed (and reduced) program case, or a DAG case
};

struct MutantResult {
  const Mutant* mutant = nullptr;
  std::string base;
  std::vector<OracleRun> oracles;
  std::string saved_path;  ///< where the killing case was written, if it was

  bool killed() const;
  std::optional<double> time_to_kill() const;  ///< the earliest kill over all oracles
  std::string killed_by() const;               ///< "z3,corpus" ("" when not killed)
  const OracleRun* find(std::string_view oracle) const;
  /// The case to save: the smallest confirmed killing case (fuzz, z3, corpus, contract on ties).
  const ir::Case* best_case() const;
};

// ------------------------------------------------------------------------------------- running

/// Runs the oracles over mutants. Keeps per-base caches (corpus expectations, base Z3 answers), so
/// one runner should serve a whole catalogue run.
class MutantRunner {
 public:
  explicit MutantRunner(MutantRunOptions options);
  ~MutantRunner();
  MutantRunner(const MutantRunner&) = delete;
  MutantRunner& operator=(const MutantRunner&) = delete;

  MutantResult run(const Mutant& mutant);
  /// Corpus files read (after skipping mutants/), and those skipped because the base fails its own
  /// recorded expectations there ("file: why").
  std::size_t corpus_size() const;
  /// Seconds spent running the bases over the corpus once (cached; not part of any time to kill).
  double corpus_seconds() const;
  const std::vector<std::string>& corpus_warnings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gridcheck::props
