// Cross-validation of the role model against execution: for randomly mutated role tables (decisions
// of the tabulated sound and vyre 0.7.2 rules flipped), Z3's bounded answer — is there a
// counterexample with K = 2..3 segments and N = 1..2 passes? — agrees with an exhaustive
// differential run of every small program over the same bounds: every in-scope declaration class ×
// every buffer-level scan fact × every per-(pass, segment) element pattern, rendered by
// counterexample_program.hpp and run through R (interp::run_case, true grid sync) and H-cpu
// (planner::run_split over props::InterpExecutor) under a profile whose role rule is the mutated
// table. A disagreement is a bug in the model.
//
// Bounds: (K, N) ∈ {(2,1), (3,1), (2,2)} — 11,846 programs. K = 1 is not a split (no top-level
// fence). R runs once per program; H runs once per program for the unmutated table and, for a
// mutant, again for every program in which some buffer's facts hit a mutated row (the plan is a
// function of the facts, so the others run exactly as under the unmutated table; the first mutants
// re-run every program to check that).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "interp/interpreter.hpp"
#include "ir/text/printer.hpp"
#include "planner/sound_role_rule.hpp"
#include "planner/split_dispatch.hpp"
#include "props/oracle/case_bytes.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"
#include "props/oracle/interp_executor.hpp"
#include "props/prove/counterexample_program.hpp"
#include "props/prove/role_proof.hpp"
#include "props/prove/role_variants.hpp"

namespace gridcheck::props {
namespace {

constexpr std::pair<std::uint32_t, std::uint32_t> kBounds[] = {{2, 1}, {3, 1}, {2, 2}};

struct SmallProgram {
  Pattern pattern;
  ir::Case c;
  std::vector<planner::Bytes> split_inputs;
  std::vector<interp::OutputBuffer> reference;
  std::set<std::uint32_t> rows;  ///< facts keys of buf and obs in every segment
};

const std::vector<SmallProgram>& small_programs() {
  static const std::vector<SmallProgram> all = [] {
    std::vector<SmallProgram> out;
    const RoleTable any = RoleTable::tabulate(planner::sound_role);  // the program does not depend on it
    const std::uint32_t obs_decl = *model_decl_index(ir::BufferAccess::ReadWrite, false, false);
    for (std::uint32_t decl = 0; decl < kModelDeclCount; ++decl) {
      if (!model_decls()[decl].in_scope) continue;
      for (auto [k, n] : kBounds)
        for_each_pattern(decl, k, n, [&](const Pattern& p) {
          SmallProgram sp;
          sp.pattern = p;
          sp.c = render_counterexample(any, p);
          for (const std::string& name : planner::split_input_names(planner::vyre_0_7_2(), sp.c.program))
            sp.split_inputs.push_back(case_bytes(sp.c, name));
          const interp::RunResult r = interp::run_case(sp.c);
          EXPECT_TRUE(r.ok()) << ir::print(sp.c);
          sp.reference = r.outputs;
          Pattern obs = Pattern::empty(obs_decl, k, n);
          obs.reads.assign(k, true);
          obs.writes.assign(k, true);
          for (std::uint32_t seg = 0; seg < k; ++seg) {
            sp.rows.insert(facts_key(segment_facts(p, seg)));
            sp.rows.insert(facts_key(segment_facts(obs, seg)));
          }
          out.push_back(std::move(sp));
        });
    }
    return out;
  }();
  return all;
}

/// H-cpu under `profile` differs from R (or fails).
bool diverges(const SmallProgram& sp, const planner::Profile& profile, InterpExecutor& executor) {
  const planner::SplitRun run = planner::run_split(profile, sp.c.program, sp.split_inputs,
                                                   planner::RunConfig{sp.c.grid, std::nullopt, sp.c.fixpoint}, executor);
  if (!run.ok()) return true;
  if (run.output_names.size() != sp.reference.size()) return true;
  for (const interp::OutputBuffer& r : sp.reference) {
    const planner::Bytes* h = run.output(r.name);
    if (h == nullptr || *h != r.bytes) return true;
  }
  return false;
}

struct Mutant {
  std::string name;
  std::map<std::uint32_t, planner::RoleDecision> rows;
  planner::RoleRule base;
};

planner::RoleDecision decision(int choice) {
  planner::RoleDecision d;
  if (choice == 0) {
    d.disposition = planner::Disposition::Omit;
    d.reason = "mutated";
    return d;
  }
  static constexpr ir::BufferAccess kAccess[] = {ir::BufferAccess::ReadOnly, ir::BufferAccess::ReadWrite,
                                                 ir::BufferAccess::WriteOnly};
  d.disposition = planner::Disposition::Rewrite;
  d.access = kAccess[choice - 1];
  d.kind = planner::rederived_kind(d.access);
  d.reason = "mutated";
  return d;
}

std::vector<Mutant> mutants(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Mutant> out;
  auto make = [&](const char* base_name, planner::RoleRule base, int flips, int count) {
    const RoleTable table = RoleTable::tabulate(base);
    std::vector<const TabulatedRole*> rows;
    for (const TabulatedRole& r : table.rows())
      if (model_decls()[*model_decl_index(r.facts.access, r.facts.is_output, r.facts.live_out)].in_scope)
        rows.push_back(&r);
    for (int i = 0; i < count; ++i) {
      Mutant m;
      m.base = base;
      m.name = fmt::format("{}#{}", base_name, i);
      for (int f = 0; f < flips; ++f) {
        const TabulatedRole& row = *rows[std::uniform_int_distribution<std::size_t>(0, rows.size() - 1)(rng)];
        planner::RoleDecision d;
        do d = decision(std::uniform_int_distribution<int>(0, 3)(rng));
        while (d.same_meaning(row.decision));
        m.rows[facts_key(row.facts)] = d;
        m.name += fmt::format(" [{} -> {}]", to_string(row.facts), short_description(d));
      }
      out.push_back(std::move(m));
    }
  };
  make("sound", planner::sound_role, 1, 30);
  make("sound", planner::sound_role, 2, 10);
  make("vyre-0.7.2", planner::vyre_0_7_2_role, 1, 6);
  return out;
}

TEST(RoleCrossValidation, Z3AgreesWithExhaustiveExecutionOnMutatedTables) {
  const std::vector<SmallProgram>& programs = small_programs();
  ASSERT_EQ(programs.size(), 11846u);
  std::map<std::uint32_t, std::vector<std::size_t>> by_row;
  for (std::size_t i = 0; i < programs.size(); ++i)
    for (std::uint32_t key : programs[i].rows) by_row[key].push_back(i);

  // The unmutated tables, on every program.
  InterpExecutor executor;
  std::map<std::string, std::vector<bool>> base_diverges;
  for (const char* name : {"sound", "vyre-0.7.2"}) {
    const planner::Profile profile =
        with_role_rule(planner::vyre_0_7_2(), std::string(name) + "-base", *role_rule_by_name(name));
    std::vector<bool>& d = base_diverges[name];
    for (const SmallProgram& sp : programs) d.push_back(diverges(sp, profile, executor));
  }
  std::size_t sound_base_divergences = 0;
  for (bool b : base_diverges["sound"]) sound_base_divergences += b ? 1 : 0;
  EXPECT_EQ(sound_base_divergences, 0u);

  const std::uint32_t seed = 20240611;
  std::printf("cross-validation seed %u, %zu programs\n", seed, programs.size());
  int sound_mutants = 0, unsound_mutants = 0, checked_in_full = 0;
  for (const Mutant& m : mutants(seed)) {
    SCOPED_TRACE(m.name);
    const planner::RoleRule rule = rule_from_table(m.rows, m.base);
    const planner::Profile profile = with_role_rule(planner::vyre_0_7_2(), "mutant", rule);
    const std::vector<bool>& base = base_diverges[m.name.substr(0, m.name.find('#'))];

    // Execution.
    std::set<std::size_t> touched;
    for (const auto& [key, d] : m.rows)
      if (const auto it = by_row.find(key); it != by_row.end()) touched.insert(it->second.begin(), it->second.end());
    std::optional<std::size_t> witness;
    for (std::size_t i = 0; i < programs.size() && !witness; ++i)
      if (!touched.contains(i) && base[i]) witness = i;
    for (std::size_t i : touched) {
      if (witness) break;
      if (diverges(programs[i], profile, executor)) witness = i;
    }
    if (checked_in_full < 3) {  // the facts-only argument, checked
      ++checked_in_full;
      for (std::size_t i = 0; i < programs.size(); ++i)
        if (!touched.contains(i)) {
          ASSERT_EQ(diverges(programs[i], profile, executor), bool(base[i])) << ir::print(programs[i].c);
        }
    }

    // Z3 over the same bounds.
    RoleProver prover(RoleTable::tabulate(rule));
    std::optional<Pattern> z3;
    for (auto [k, n] : kBounds)
      if (!z3) z3 = prover.find_counterexample(k, n);

    EXPECT_EQ(z3.has_value(), witness.has_value())
        << "Z3: " << (z3 ? z3->to_string() : std::string("no counterexample")) << "\nexecution: "
        << (witness ? ir::print(programs[*witness].c) : std::string("no divergence"));
    // Z3's full answer: a mutant without a bounded counterexample is proved for every K and N by
    // the inductive invariant (docs/proof.md §4), so "sound" means proved, not just "not refuted".
    if (!z3) {
      const InductiveResult ind = prover.prove_inductive();
      EXPECT_TRUE(ind.proven()) << "step " << name_of(ind.step.verdict) << ", final " << name_of(ind.final_output.verdict);
    }
    (z3 ? unsound_mutants : sound_mutants) += 1;
  }
  std::printf("mutants: %d sound, %d unsound by Z3 (K = 2..3, N = 1..2)\n", sound_mutants, unsound_mutants);
  // The mutation set discriminates: both answers occur.
  EXPECT_GT(sound_mutants, 0);
  EXPECT_GT(unsound_mutants, 0);
}

}  // namespace
}  // namespace gridcheck::props
