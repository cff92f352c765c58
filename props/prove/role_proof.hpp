#pragma once
// Z3 proof (or refutation) that a buffer-role rule makes the host split equal true grid sync, slot
// for slot (docs/proof.md). The rule is tabulated from the production code (role_model.hpp); the
// model's semantics is encoded
//   - bounded: K = 1..max_segments segments × N = 1..max_passes whole-sequence passes, every buffer
//     declaration class, every buffer-level read/write scan fact and every per-(pass, segment)
//     element pattern, in one query per (K, N);
//   - inductively: one (pass, segment) step over a state (true value, live value, presence,
//     "statically written earlier in this pass", pass bookkeeping, prophecies for the later
//     segments' scan facts) with an invariant proved initial, preserved and sufficient for the final
//     outputs — which covers every K and every N.
// Every query has a timeout and runs with fixed random seeds (docs/engineering.md#l7). Z3 never throws out of
// this library: a Z3 failure is an `unknown` outcome with its message.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "planner/role_rule.hpp"
#include "props/prove/role_model.hpp"

namespace gridcheck::props {

struct ProofOptions {
  std::uint32_t max_segments = 8;  ///< bounded check for K = 1..max_segments
  std::uint32_t max_passes = 3;    ///< and N = 1..max_passes
  unsigned timeout_ms = 5000;      ///< per query
  unsigned seed = 0;               ///< smt.random_seed / sat.random_seed
  bool scenarios = true;           ///< search the named counterexample scenarios (docs/vyre-0.7.2.md §9, §10)
  bool per_declaration = true;     ///< the smallest counterexample of every declaration class
  /// Bounds of the scenario and per-declaration searches (small cases render into small programs).
  std::uint32_t catalogue_max_segments = 3;
  std::uint32_t catalogue_max_passes = 2;
};

enum class QueryVerdict : std::uint8_t {
  Holds,    ///< unsat: no counterexample (the property holds for this query)
  Fails,    ///< sat: a counterexample (for the inductive step: a counterexample to induction)
  Unknown,  ///< timeout or solver failure
};
std::string_view name_of(QueryVerdict verdict);

struct QueryOutcome {
  QueryVerdict verdict = QueryVerdict::Unknown;
  double ms = 0;
  std::string reason;  ///< Z3's reason for unknown, or an error message
};

struct BoundedResult {
  std::uint32_t segments = 0;
  std::uint32_t passes = 0;
  QueryOutcome outcome;
};

struct InductiveResult {
  QueryOutcome base, step, final_output;
  /// Non-vacuity: the invariant and one step of the transition relation are satisfiable together
  /// (otherwise `step` would hold trivially).
  bool step_satisfiable = false;
  bool proven() const;
};

/// A counterexample of the bounded model, minimised (no element or scan fact can be switched off
/// while keeping a violation and the search's constraints), with the simulator's first violation.
struct Counterexample {
  std::string id;     ///< scenario id ("A1", "F1", ...) or "decl:<class>" or "first"
  std::string title;  ///< one line
  std::string spec;   ///< spec reference, may be empty
  Pattern pattern;
  Violation violation;
};

struct ScenarioResult {
  std::string id, title, spec;
  std::optional<Counterexample> counterexample;  ///< none: no counterexample within the bounds
  QueryVerdict verdict = QueryVerdict::Holds;     ///< Fails when found, Unknown on a timeout
};

struct ProofReport {
  std::string rule;
  ProofOptions options;
  std::vector<BoundedResult> bounded;
  InductiveResult inductive;
  /// The smallest counterexample of the bounded sweep with a top-level fence (K >= 2; smallest N,
  /// then K). K = 1 is a one-segment split, reachable only through docs/vyre-0.7.2.md#g5.
  std::optional<Counterexample> first;
  std::vector<ScenarioResult> scenarios;
  std::vector<Counterexample> per_declaration;
  /// Declaration classes outside the model (ABI predicates disagree, docs/semantics.md §2.2 / G012).
  std::vector<std::string> excluded_declarations;
  /// Disagreements between a Z3 model and the simulator (role_model.hpp). Always empty unless the
  /// encoding has a bug; tests assert it.
  std::vector<std::string> model_errors;
  double total_ms = 0;

  bool bounded_holds() const;   ///< every bounded query unsat
  bool proven() const;          ///< bounded_holds and the inductive proof
  bool refuted() const;         ///< some bounded query found a counterexample
};

/// A pattern of `segments` segments and `passes` passes (optionally of one declaration class) on
/// which exactly one of the two tables breaks the claim of docs/proof.md §1: one bounded query over
/// both encodings with the pattern shared, minimised like a counterexample. nullopt when the two
/// tables are indistinguishable at that size (`unknown` is set on a timeout). Used by the mutation
/// self-test (props/mutant_run.hpp) to tell a mutant's rule from its base's.
std::optional<Pattern> find_distinguishing_pattern(const RoleTable& a, const RoleTable& b, std::uint32_t segments,
                                                   std::uint32_t passes, const ProofOptions& options = {},
                                                   std::optional<std::uint32_t> decl = std::nullopt,
                                                   bool* unknown = nullptr);

/// "4.8.12.0"
std::string z3_version();

/// Proves or refutes `rule` (named `rule_name` in the report).
ProofReport prove_role_rule(const planner::RoleRule& rule, std::string rule_name, const ProofOptions& options = {});

/// One Z3 context with a tabulated rule encoded once, for many queries (the cross-validation test).
class RoleProver {
 public:
  RoleProver(const RoleTable& table, const ProofOptions& options = {});
  ~RoleProver();
  RoleProver(const RoleProver&) = delete;
  RoleProver& operator=(const RoleProver&) = delete;

  /// The bounded question for one (K, N), optionally for one declaration class: a minimised
  /// counterexample pattern, or nullopt when none exists (`unknown` is set on a timeout).
  std::optional<Pattern> find_counterexample(std::uint32_t segments, std::uint32_t passes,
                                             std::optional<std::uint32_t> decl = std::nullopt,
                                             bool* unknown = nullptr);
  /// The inductive proof (base, step, final).
  InductiveResult prove_inductive();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Convenience: a RoleProver for one query.
std::optional<Pattern> find_bounded_counterexample(const RoleTable& table, std::uint32_t segments,
                                                   std::uint32_t passes, const ProofOptions& options,
                                                   std::optional<std::uint32_t> decl = std::nullopt,
                                                   bool* unknown = nullptr);

}  // namespace gridcheck::props
