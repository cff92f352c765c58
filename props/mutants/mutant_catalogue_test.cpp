// The mutation self-test's catalogue and oracles (props/mutant_catalogue.hpp, props/mutant_run.hpp).
// The whole catalogue against every oracle runs as the CTest `mutants.quick` (corpus/mutants).

#include <gtest/gtest.h>

#include <set>

#include "ir/text/parser.hpp"
#include "planner/role_rule.hpp"
#include "props/mutants/mutant_catalogue.hpp"
#include "props/mutants/mutant_run.hpp"

namespace gridcheck::props {
namespace {

ir::Case parse(std::string_view text) {
  ir::Result<ir::Case> c = ir::parse_case(text, "test.gc");
  EXPECT_TRUE(c.ok());
  return std::move(c).value();
}

const Mutant& mutant(std::string_view name) {
  const Mutant* m = find_mutant(name);
  EXPECT_NE(m, nullptr) << name;
  return *m;
}

// Segment 1 reads `out` before writing it: a zero seed is needed (docs/vyre-0.7.2.md §6.11 example 2 shape).
constexpr std::string_view kSeededOutput = R"(case seeded "an output read before its first write"
workgroup_size 1 1 1
grid 1 1 1
fixpoint 1
buffer out: u32[1] read_write binding 0 output
kernel {
  grid_sync
  out[0] = out[0] + 5
}
)";

constexpr std::string_view kTwoLets = R"(case two_lets "two independent lets used after a fence"
workgroup_size 4 1 1
grid 1 1 1
fixpoint 1
buffer out: u32[4] read_write binding 0 output
kernel {
  let a = gid.x * 2
  let b = gid.x + 100
  out[gid.x] = a
  grid_sync
  out[gid.x] = out[gid.x] + a + b
}
)";

TEST(MutantCatalogue, HoldsAtLeastTwentyUniquelyNamedDescribedMutants) {
  const auto& all = mutant_catalogue();
  EXPECT_GE(all.size(), 20u);
  std::set<std::string> names;
  for (const Mutant& m : all) {
    EXPECT_TRUE(names.insert(m.name).second) << "duplicate " << m.name;
    EXPECT_FALSE(m.description.empty()) << m.name;
    EXPECT_EQ(m.description.find('\n'), std::string::npos) << m.name;
    EXPECT_TRUE(static_cast<bool>(m.apply)) << m.name;
  }
  for (const char* historic : {"M0-final-from-last-segment", "M1-drop-accumulator", "M2-first-writer-inclusive",
                               "M3-keep-is-output-last", "M4-per-segment-fixpoint", "M5-compare-initial-state",
                               "M6-fingerprint-includes-borrowed", "M7-stop-after-first-pass", "M8-never-stop",
                               "M9-no-zero-seed", "M10-seed-slice-length", "F1-applied", "F2-applied", "F3-applied",
                               "F4-reverted"})
    EXPECT_NE(find_mutant(historic), nullptr) << historic;
}

TEST(MutantCatalogue, MutantProfilesAreNamedAfterTheMutantAndNeverRegistered) {
  for (const Mutant& m : mutant_catalogue()) {
    const planner::Profile p = make_mutant(m, mutant_base(m));
    EXPECT_EQ(p.name, m.name);
    EXPECT_EQ(planner::find_profile(m.name), nullptr) << m.name;
  }
}

TEST(MutantCatalogue, EveryRoleMutantChangesSomeRoleDecisionOfItsBase) {
  for (const Mutant& m : mutant_catalogue()) {
    if (m.kind != MutantKind::RoleRule) continue;
    const planner::Profile& base = mutant_base(m);
    const planner::Profile p = make_mutant(m, base);
    bool differs = false;
    planner::for_each_role_facts([&](const planner::RoleFacts& f) {
      differs = differs || !base.table.role(f).same_meaning(p.table.role(f));
    });
    EXPECT_TRUE(differs) << m.name << " is the identity on " << base.name;
  }
}

TEST(MutantCatalogue, M1OnVyreChangesOnlyTheAccumulatorRow) {
  const planner::Profile p = make_mutant(mutant("M1-drop-accumulator"), planner::vyre_0_7_2());
  planner::for_each_role_facts([&](const planner::RoleFacts& f) {
    const planner::RoleDecision base = planner::vyre_0_7_2_role(f);
    const planner::RoleDecision got = p.table.role(f);
    const bool accumulator = (f.is_output || f.live_out) && f.writes && !f.reads &&
                             f.first_writer == planner::FirstWriter::Earlier && f.access != ir::BufferAccess::Workgroup;
    if (accumulator) {
      EXPECT_EQ(got.access, ir::BufferAccess::WriteOnly) << planner::to_string(f);
    } else {
      EXPECT_TRUE(got.same_meaning(base)) << planner::to_string(f);
    }
  });
}

TEST(MutantTellApart, TheBaseUnderItsOwnNameIsNeverToldApart) {
  const ir::Case c = parse(kSeededOutput);
  const planner::Profile& base = planner::vyre_0_7_2();
  const planner::Profile twin = renamed(base, "twin");
  const PairReport pair = evaluate_pair(c, base, twin);
  const ir::Case expected = with_base_expectations(c, pair.base, base);
  EXPECT_FALSE(tell_apart(expected, pair, split_launches(pair.base, base.name), twin).has_value());
}

TEST(MutantTellApart, AMissingZeroSeedChangesTheVerdict) {
  const ir::Case c = parse(kSeededOutput);
  const planner::Profile& base = planner::vyre_0_7_2();
  const planner::Profile m9 = make_mutant(mutant("M9-no-zero-seed"), base);
  const PairReport pair = evaluate_pair(c, base, m9);
  const ir::Case expected = with_base_expectations(c, pair.base, base);
  const auto why = tell_apart(expected, pair, split_launches(pair.base, base.name), m9);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("diverge"), std::string::npos) << *why;
}

TEST(MutantTellApart, HashSetLetOrderMakesThePlanNondeterministic) {
  const ir::Case c = parse(kTwoLets);
  const planner::Profile f4 = make_mutant(mutant("F4-reverted"), planner::vyre_0_7_2());
  EXPECT_FALSE(plan_is_deterministic(f4, c.program, 32));
  EXPECT_TRUE(plan_is_deterministic(planner::vyre_0_7_2(), c.program, 32));
}

TEST(MutantContractOracle, TheBasePlannerKeepsEverySpecGuaranteeOnHandGraphs) {
  const planner::Profile& base = planner::vyre_0_7_2();
  const std::vector<DagCase> graphs = {
      {0, {}},         {3, {}},          {4, {{0, 3}, {1, 2}}},       {3, {{0, 1}, {0, 1}, {1, 2}}},
      {3, {{1, 1}}},   {2, {{0, 5}}},    {2, {{1, 1}, {0, 5}}},       {4, {{0, 1}, {1, 0}, {1, 2}, {2, 3}}},
      {0, {{0, 1}}},   {5, {{4, 0}, {3, 0}, {0, 2}, {2, 1}}},
  };
  for (const DagCase& d : graphs)
    EXPECT_FALSE(dag_violation(base, d).has_value()) << d.waves << " waves, " << format_edges(d.edges) << ": "
                                                     << dag_violation(base, d).value_or("");
}

TEST(MutantContractOracle, FlagsEachMegakernelFaultOnAGraphThatShowsIt) {
  const planner::Profile& base = planner::vyre_0_7_2();
  const DagCase chain{2, {{0, 1}}};
  const DagCase single{1, {}};
  const DagCase cycle_with_tail{4, {{0, 1}, {1, 0}, {1, 2}, {2, 3}}};
  EXPECT_TRUE(dag_violation(make_mutant(mutant("mk-merge-dependent"), base), chain));
  EXPECT_TRUE(dag_violation(make_mutant(mutant("mk-barriers-minus-one"), base), chain));
  EXPECT_TRUE(dag_violation(make_mutant(mutant("mk-trailing-barrier"), base), single));
  EXPECT_TRUE(dag_violation(make_mutant(mutant("mk-cycle-undercount"), base), cycle_with_tail));
  // Twin: a cycle with nothing downstream is counted the same by both.
  EXPECT_FALSE(dag_violation(make_mutant(mutant("mk-cycle-undercount"), base), DagCase{2, {{0, 1}, {1, 0}}}));
}

TEST(MutantContractOracle, EdgeTextRoundTrips) {
  const std::vector<planner::WaveDependency> edges = {{0, 2}, {1, 2}, {1, 2}};
  EXPECT_EQ(format_edges(edges), "0>2 1>2 1>2");
  EXPECT_EQ(parse_edges("0>2 1>2 1>2"), edges);
  EXPECT_FALSE(parse_edges("0-2").has_value());
}

TEST(MutantKillingCase, ASavedCaseHoldsForItsMutantAndNotForAHarmlessOne) {
  const planner::Profile& base = planner::vyre_0_7_2();
  ir::Case c = parse(kSeededOutput);
  c = with_base_expectations(c, evaluate_pair(c, base, base).base, base);
  c.meta.emplace_back("mutant", "M9-no-zero-seed");
  c.meta.emplace_back("base", base.name);
  const KillingCaseCheck killed = check_killing_case(c);
  EXPECT_TRUE(killed.ok()) << killed.message;
  // The same case under a mutant it cannot see (no fixpoint: the early exit never matters).
  for (auto& [k, v] : c.meta)
    if (k == "mutant") v = "M8-never-stop";
  const KillingCaseCheck survived = check_killing_case(c);
  EXPECT_TRUE(survived.usable);
  EXPECT_TRUE(survived.base_passes) << survived.message;
  EXPECT_FALSE(survived.mutant_fails) << survived.message;
}

TEST(MutantRunner, TheZ3OracleKillsM3WithAConfirmedCase) {
  MutantRunOptions o;
  o.corpus = false;
  o.fuzz = false;
  o.contract = false;
  MutantRunner runner(o);
  const MutantResult r = runner.run(mutant("M3-keep-is-output-last"));
  const OracleRun* z3 = r.find(kOracleZ3);
  ASSERT_NE(z3, nullptr);
  EXPECT_TRUE(z3->killed) << z3->detail;
  ASSERT_TRUE(z3->killing_case.has_value());
  EXPECT_TRUE(check_killing_case(*z3->killing_case).ok()) << check_killing_case(*z3->killing_case).message;
}

}  // namespace
}  // namespace gridcheck::props
