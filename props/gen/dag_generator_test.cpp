#include "props/gen/dag_generator.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

#include "ir/text/printer.hpp"
#include "ir/validate/validator.hpp"
#include "ir/walk.hpp"
#include "props/gen/choice_rapidcheck.hpp"
#include "props/gen/dag_case.hpp"
#include "props/oracle/waves_oracle.hpp"

namespace gridcheck::props {
namespace {

/// DAGs per test: 200 in CI; GRIDCHECK_PROPERTY_CASES raises it for deep local runs.
std::uint64_t dag_budget() {
  const char* env = std::getenv("GRIDCHECK_PROPERTY_CASES");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : 200;
}

/// The wave-buffer ids (`wQ`, Q != k) that wave k loads.
std::set<std::size_t> producers_read(const WaveDag& dag, std::size_t k) {
  const ir::Program& p = dag.base->program;
  std::set<std::size_t> out;
  ir::for_each_expr_in(p, p.stmt(dag.waves[k]).body, [&](ir::ExprId id) {
    const ir::Expr& e = p.expr(id);
    if (e.kind != ir::ExprKind::Load) return;
    const std::string name(p.name(e.buffer()));
    if (name.size() < 2 || name[0] != 'w') return;
    const std::size_t q = std::stoul(name.substr(1));
    if (q != k) out.insert(q);
  });
  return out;
}

/// Acyclic, every wave alone valid and race-free (R with the race detector), and the fused
/// program of vyre's plan validates.
void expect_well_formed(const WaveDag& dag, const std::string& label) {
  ASSERT_TRUE(topological_order(dag.wave_count(), dag.edges).has_value()) << label << ": " << format_edges(dag.edges);
  interp::RunOptions races;
  races.detect_races = true;
  races.oob = dag.base->oob;  // generated DAGs say `oob defined`: a wave may index in0 out of bounds
  races.uninit = dag.base->uninit;
  const WavesRun run = run_waves(dag, races);
  ASSERT_TRUE(run.ok()) << label << ": " << run.message << "\n" << ir::print(*dag.base);
  const ir::Diagnostics fused = ir::validate(fuse_dag(dag, planner::vyre_0_7_2()).program);
  ASSERT_FALSE(fused.has_errors()) << label << "\n" << ir::render(fused) << ir::print(*dag.base);
}

TEST(Props_DagGenerator, EveryDagIsAcyclicAndEachWaveAloneIsValidAndRaceFree) {
  for (std::uint64_t seed = 1; seed <= dag_budget(); ++seed) {
    ChoiceSource choices = ChoiceSource::random(seed);
    const WaveDag dag = generate_dag(choices);
    ASSERT_GE(dag.wave_count(), 1u);
    expect_well_formed(dag, "seed " + std::to_string(seed));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(Props_DagGenerator, EdgesAreTheWavesDataReadsPlusOrderingOnlyEdges) {
  for (std::uint64_t seed = 1; seed <= dag_budget(); ++seed) {
    ChoiceSource choices = ChoiceSource::random(seed);
    const WaveDag dag = generate_dag(choices);
    std::set<std::pair<std::size_t, std::size_t>> ordering;
    for (const planner::WaveDependency& e : dag.ordering_edges) ordering.insert({e.before, e.after});
    for (std::size_t k = 0; k < dag.wave_count(); ++k) {
      std::set<std::size_t> data;
      for (const planner::WaveDependency& e : dag.edges)
        if (e.after == k && !ordering.contains({e.before, e.after})) data.insert(e.before);
      EXPECT_EQ(producers_read(dag, k), data) << "seed " << seed << ", wave " << k << ", edges "
                                              << format_edges(dag.edges) << "\n" << ir::print(*dag.base);
    }
  }
}

TEST(Props_DagGenerator, ShapesPermutationsOrderingAndDuplicateEdgesAllOccur) {
  std::map<std::string, int> shapes;
  int backwards = 0, ordering = 0, duplicates = 0, deep = 0, wide = 0;
  for (std::uint64_t seed = 1; seed <= dag_budget(); ++seed) {
    ChoiceSource choices = ChoiceSource::random(seed);
    const WaveDag dag = generate_dag(choices);
    ++shapes[dag.shape];
    std::set<std::pair<std::size_t, std::size_t>> seen;
    bool duplicate = false, backward = false;
    for (const planner::WaveDependency& e : dag.edges) {
      duplicate = duplicate || !seen.insert({e.before, e.after}).second;
      backward = backward || e.before > e.after;
    }
    duplicates += duplicate ? 1 : 0;
    backwards += backward ? 1 : 0;
    ordering += dag.ordering_edges.empty() ? 0 : 1;
    planner::BarrierScratch scratch;
    const auto plan = planner::vyre_0_7_2().megakernel(dag.wave_count(), dag.edges, scratch);
    ASSERT_TRUE(plan.ok());
    deep += plan->groups.size() >= 4 ? 1 : 0;
    for (const planner::BarrierGroup& g : plan->groups) wide += g.waves.size() >= 4 ? 1 : 0;
  }
  for (const char* shape : {"random", "deep", "wide", "diamond"}) EXPECT_GT(shapes[shape], 0) << shape;
  EXPECT_GT(backwards, 0);
  EXPECT_GT(ordering, 0);
  EXPECT_GT(duplicates, 0);
  EXPECT_GT(deep, 0);
  EXPECT_GT(wide, 0);
}

TEST(Props_DagGenerator, ReplayingTheRecordedChoicesGivesTheSameDag) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    ChoiceSource choices = ChoiceSource::random(seed);
    const WaveDag a = generate_dag(choices);
    ChoiceSource replay = ChoiceSource::replay(choices.recorded());
    const WaveDag b = generate_dag(replay);
    EXPECT_EQ(ir::print(*a.base), ir::print(*b.base)) << "seed " << seed;
    EXPECT_EQ(a.edges, b.edges);
    EXPECT_EQ(a.ordering_edges, b.ordering_edges);
  }
}

TEST(Props_DagGenerator, AnUnnamedDagIsTheSameDagWithoutAName) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    ChoiceSource choices = ChoiceSource::random(seed);
    WaveDag named = generate_dag(choices);
    ChoiceSource replay = ChoiceSource::replay(choices.recorded());
    const WaveDag unnamed = generate_dag(replay, {}, /*named=*/false);
    EXPECT_FALSE(named.base->name.empty());
    EXPECT_TRUE(unnamed.base->name.empty());
    named.base->name.clear();
    EXPECT_EQ(ir::print(*named.base), ir::print(*unnamed.base)) << "seed " << seed;
    EXPECT_EQ(named.waves, unnamed.waves);
    EXPECT_EQ(named.edges, unnamed.edges);
    EXPECT_EQ(named.ordering_edges, unnamed.ordering_edges);
  }
}

// Shrinking edits the recorded choices; every edited sequence must still decode to a well-formed
// DAG (acyclic, valid, race-free waves).
TEST(Props_DagGenerator, EditedChoiceSequencesStillDecodeToWellFormedDags) {
  ChoiceSource edits = ChoiceSource::random(99);
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    ChoiceSource choices = ChoiceSource::random(seed);
    (void)generate_dag(choices);
    std::vector<std::uint32_t> v = choices.recorded();
    switch (seed % 4) {
      case 0: v.resize(edits.below(static_cast<std::uint32_t>(v.size()) + 1)); break;
      case 1:
        for (std::uint32_t& x : v)
          if (edits.chance(1, 3)) x = 0;
        break;
      case 2:
        for (std::uint32_t& x : v) x /= 2;
        break;
      default: {
        const std::uint32_t at = edits.below(static_cast<std::uint32_t>(v.size()));
        v.erase(v.begin() + at, v.begin() + std::min<std::size_t>(v.size(), at + 1 + edits.below(8)));
      }
    }
    ChoiceSource replay = ChoiceSource::replay(v);
    expect_well_formed(generate_dag(replay), "edited seed " + std::to_string(seed));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(Props_DagGenerator, AnEmptyChoiceSequenceIsOneWave) {
  ChoiceSource none = ChoiceSource::replay({});
  const WaveDag dag = generate_dag(none);
  EXPECT_EQ(dag.wave_count(), 1u);
  EXPECT_TRUE(dag.edges.empty());
  expect_well_formed(dag, "empty");
}

TEST(Props_DagEdges, TextRoundTripsAndRejectsMalformedLists) {
  const std::vector<planner::WaveDependency> edges = {{0, 2}, {11, 3}, {0, 2}};
  EXPECT_EQ(format_edges(edges), "0>2 11>3 0>2");
  EXPECT_EQ(parse_edges("0>2 11>3 0>2"), edges);
  EXPECT_EQ(parse_edges(""), std::vector<planner::WaveDependency>{});
  EXPECT_EQ(parse_edges("  1>0  "), (std::vector<planner::WaveDependency>{{1, 0}}));
  for (const char* bad : {"0>", ">1", "0-1", "0>1,2>3", "a>b", "0>1x"}) EXPECT_FALSE(parse_edges(bad)) << bad;
}

TEST(Props_DagOrder, TopologicalOrderIsSmallestReadyFirstAndRejectsCycles) {
  EXPECT_EQ(topological_order(4, {{3, 0}, {1, 0}}), (std::vector<std::size_t>{1, 2, 3, 0}));
  EXPECT_FALSE(topological_order(2, {{0, 1}, {1, 0}}));
  EXPECT_FALSE(topological_order(2, {{1, 1}}));
  EXPECT_FALSE(topological_order(2, {{0, 2}}));
}

// The scratch history of a reused-scratch DAG campaign: none from an exhausted source; every mode
// occurs (the same counts, fewer, more, refused); acyclic inputs stay inside their waves.
TEST(Props_DagScratchHistory, HistoriesHaveEqualSmallerLargerAndRefusedInputs) {
  ChoiceSource empty = ChoiceSource::replay({});
  EXPECT_TRUE(generate_scratch_history(empty, DagConfig{}, 5, 7).empty());
  std::set<std::string> seen;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    ChoiceSource choices = ChoiceSource::random(seed);
    const std::size_t n = 1 + seed % 8, m = seed % 11;
    for (const PlannerInput& in : generate_scratch_history(choices, DagConfig{}, n, m)) {
      ASSERT_GE(in.wave_count, 1u);
      ASSERT_LE(in.wave_count, 16u);
      if (!topological_order(in.wave_count, in.edges)) {
        seen.insert("refused");
        planner::BarrierScratch scratch;
        EXPECT_FALSE(planner::vyre_0_7_2().megakernel(in.wave_count, in.edges, scratch).ok())
            << in.wave_count << ":" << format_edges(in.edges);
        continue;
      }
      if (in.wave_count == n && in.edges.size() == m) seen.insert("same");
      if (in.wave_count <= n && in.edges.size() < m) seen.insert("smaller");
      if (in.wave_count >= n && in.edges.size() > m) seen.insert("larger");
    }
  }
  EXPECT_EQ(seen, (std::set<std::string>{"larger", "refused", "same", "smaller"}));
}

TEST(Props_DagScratchHistory, HistoryTextRoundTripsAndRejectsMalformedText) {
  const std::vector<PlannerInput> history = {{3, {{0, 1}, {1, 2}}}, {1, {}}, {2, {{0, 0}}}};
  EXPECT_EQ(format_history(history), "3:0>1 1>2; 1:; 2:0>0");
  EXPECT_EQ(parse_history("3:0>1 1>2; 1:; 2:0>0"), history);
  EXPECT_EQ(parse_history(""), std::vector<PlannerInput>{});
  for (std::string_view bad : {"3", ":0>1", "3:0-1", "3:0>1;1:", "x:"}) EXPECT_FALSE(parse_history(bad).has_value()) << bad;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    ChoiceSource choices = ChoiceSource::random(seed);
    const std::vector<PlannerInput> drawn = generate_scratch_history(choices, DagConfig{}, 6, 8);
    EXPECT_EQ(parse_history(format_history(drawn)), drawn) << format_history(drawn);
  }
}

/// A sequence of planner inputs of varying sizes: scratch histories around DAG sizes up to 40 waves.
std::vector<PlannerInput> planner_sequence(ChoiceSource& c) {
  std::vector<PlannerInput> out;
  const std::uint32_t rounds = c.between(1, 6);
  for (std::uint32_t r = 0; r < rounds; ++r) {
    DagConfig config;
    config.max_waves = c.between(1, 20);
    const std::size_t n = c.between(1, config.max_waves), m = c.below(3 * config.max_waves);
    for (PlannerInput& in : generate_scratch_history(c, config, n, m)) out.push_back(std::move(in));
  }
  return out;
}

// planner/megakernel_barrier_prop_test.cpp checks one reuse of a scratch; this is a whole
// sequence of plans of equal and different sizes, refused ones included, through one scratch.
RC_GTEST_PROP(Props_DagScratchHistory, PlanningASequenceInOneReusedScratchEqualsPlanningEachFresh, ()) {
  const std::vector<PlannerInput> sequence =
      *gen_from_choices([](ChoiceSource& c, const std::vector<std::uint32_t>&) { return planner_sequence(c); });
  RC_TAG(sequence.size() < 3 ? "short" : "long");
  for (const planner::Profile* profile : {&planner::vyre_0_7_2(), &planner::sound()}) {
    planner::BarrierScratch reused;
    for (const PlannerInput& in : sequence) {
      planner::BarrierScratch fresh_scratch;
      const MegakernelPlan fresh = profile->megakernel(in.wave_count, in.edges, fresh_scratch);
      const MegakernelPlan again = profile->megakernel(in.wave_count, in.edges, reused);
      RC_ASSERT(fresh.ok() == again.ok());
      if (fresh.ok()) {
        RC_ASSERT(*fresh == *again);
      } else {
        RC_ASSERT(fresh.error() == again.error());
      }
      RC_ASSERT(reused.wave_capacity() >= in.wave_count);
      RC_ASSERT(reused.dependency_capacity() >= in.edges.size());
    }
  }
}

}  // namespace
}  // namespace gridcheck::props
