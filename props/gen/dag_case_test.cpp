#include "props/gen/dag_case.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "ir/equality.hpp"
#include "ir/text/parser.hpp"
#include "ir/text/printer.hpp"
#include "ir/validate/validator.hpp"
#include "ir/walk.hpp"
#include "props/gen/dag_test_support.hpp"

namespace gridcheck::props {
namespace {

using testing::plan_of;
using testing::two_wave_dag;
using Phases = std::vector<std::vector<std::size_t>>;

std::string meta_of(const ir::Case& c, std::string_view key) {
  for (const auto& [k, v] : c.meta)
    if (k == key) return v;
  return "<none>";
}

TEST(Props_DagFusion, EachGroupIsOnePhaseAndTheBarriersAreTakenLiterally) {
  const WaveDag dag = two_wave_dag();
  const ir::Case c = fuse_dag(dag, plan_of({{0}, {1}}, 1), "test");
  const FusedSchedule s = fused_schedule(c);
  EXPECT_EQ(s.phases, (Phases{{0}, {1}}));
  EXPECT_EQ(s.fences, 1u);
  EXPECT_TRUE(s.unscheduled.empty());
  EXPECT_TRUE(plan_problems(s, 2, dag.edges).empty());
  EXPECT_FALSE(ir::validate(c.program).has_errors()) << ir::print(c);
  EXPECT_EQ(meta_of(c, "dag_waves"), "0 1");
  EXPECT_EQ(meta_of(c, "dag_edges"), "0>1");
  EXPECT_EQ(meta_of(c, "dag_planner"), "test");
  EXPECT_EQ(meta_of(c, "dag_plan"), "[[0] [1]] barriers 1");
  EXPECT_EQ(c.grid, dag.base->grid);
  EXPECT_EQ(c.inputs.size(), 1u);

  // Too few barriers merge the last groups; too many add trailing fences.
  EXPECT_EQ(fused_schedule(fuse_dag(dag, plan_of({{0}, {1}}, 0), "test")).phases, (Phases{{0, 1}}));
  const FusedSchedule extra = fused_schedule(fuse_dag(dag, plan_of({{0}, {1}}, 3), "test"));
  EXPECT_EQ(extra.phases, (Phases{{0}, {1}, {}, {}}));
  EXPECT_EQ(extra.fences, 3u);
}

TEST(Props_DagFusion, AnUnnamedFusionIsTheSameProgramWithoutAName) {
  const WaveDag dag = two_wave_dag();
  const ir::Case named = fuse_dag(dag, plan_of({{0}, {1}}, 1), "test");
  const ir::Case unnamed = fuse_dag(dag, plan_of({{0}, {1}}, 1), "test", /*named=*/false);
  EXPECT_FALSE(named.name.empty());
  EXPECT_TRUE(unnamed.name.empty());
  EXPECT_TRUE(ir::structurally_equal(named.program, unnamed.program));
  EXPECT_EQ(named.meta, unnamed.meta);
}

TEST(Props_DagFusion, WavesThePlanLeavesOutAreKeptUnscheduled) {
  const WaveDag dag = two_wave_dag();
  const FusedSchedule s = fused_schedule(fuse_dag(dag, plan_of({{0}}, 0), "test"));
  EXPECT_EQ(s.phases, (Phases{{0}}));
  EXPECT_EQ(s.unscheduled, (std::vector<std::size_t>{1}));
  // Group entries naming no wave are skipped; a refused plan schedules nothing.
  EXPECT_EQ(fused_schedule(fuse_dag(dag, plan_of({{0, 7}, {1}}, 1), "test")).phases, (Phases{{0}, {1}}));
  const ir::Case refused = fuse_dag(dag, MegakernelPlan(planner::MegakernelError::cycle(2)), "test");
  EXPECT_EQ(fused_schedule(refused).unscheduled, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(meta_of(refused, "dag_plan").substr(0, 5), "S103:");
  EXPECT_FALSE(ir::validate(refused.program).has_errors()) << ir::print(refused);
}

TEST(Props_DagFusion, AWavePlacedTwiceGetsAPrivateCopy) {
  // The kernel reuses each wave's region in place; a second slot of the same wave holds a deep copy,
  // structurally equal, so no node is shared between two places of the tree.
  const WaveDag dag = two_wave_dag();
  const ir::Case c = fuse_dag(dag, plan_of({{0}, {1}, {0}}, 2), "test");
  const ir::Program& p = c.program;
  ASSERT_EQ(p.entry_stmts().size(), 1u);
  std::vector<ir::StmtId> slots;
  for (ir::StmtId id : p.list(p.stmt(p.entry_stmts()[0]).body))
    if (p.stmt(id).kind == ir::StmtKind::Region) slots.push_back(id);
  ASSERT_EQ(slots.size(), 3u);
  EXPECT_EQ(slots[0], dag.waves[0]);
  EXPECT_EQ(slots[1], dag.waves[1]);
  EXPECT_NE(slots[2], slots[0]);
  ir::Program first = p, second = p;
  first.set_entry(std::span<const ir::StmtId>(&slots[0], 1));
  second.set_entry(std::span<const ir::StmtId>(&slots[2], 1));
  EXPECT_TRUE(ir::structurally_equal(first, second));
  const auto stmts = [&](ir::StmtId root) {
    std::vector<ir::StmtId> ids{root};
    ir::for_each_stmt(p, p.stmt(root).body, [&](ir::StmtId id) { ids.push_back(id); });
    std::sort(ids.begin(), ids.end());
    return ids;
  };
  std::vector<ir::StmtId> shared;
  const std::vector<ir::StmtId> a = stmts(slots[0]), b = stmts(slots[2]);
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(shared));
  EXPECT_TRUE(shared.empty());
  EXPECT_FALSE(ir::validate(p).has_errors()) << ir::print(c);
  EXPECT_EQ(fused_schedule(c).phases, (Phases{{0}, {1}, {0}}));
}

TEST(Props_DagFusion, PlanProblemsNameEveryKind) {
  const std::vector<planner::WaveDependency> edges = {{0, 1}, {1, 2}, {0, 3}};
  FusedSchedule s;
  s.phases = {{0, 1, 2}, {2}};
  EXPECT_EQ(describe(plan_problems(s, 4, edges)), "same-phase 0>1 1>2; missing 3; duplicated 2");
  s.phases = {{3, 1}, {0}, {2}};
  EXPECT_EQ(describe(plan_problems(s, 4, edges)), "reversed 0>1 0>3");
  EXPECT_EQ(problem_kinds(plan_problems(s, 4, edges)), (std::vector<std::string>{"reversed"}));
  s.phases = {{0}, {1, 3}, {2}};
  EXPECT_EQ(describe(plan_problems(s, 4, edges)), "none");
}

TEST(Props_DagCase, APrintedDagCaseReadsBackToTheSameWavesAndEdges) {
  ChoiceSource choices = ChoiceSource::random(7);
  const WaveDag dag = generate_dag(choices);
  ir::Case c = fuse_dag(dag, planner::vyre_0_7_2());
  c.expectations.push_back({ir::Oracle::Waves, "", ir::Verdict::Diverge, "megakernel race", {}});
  c.expectations.push_back({ir::Oracle::Waves, "vyre-0.7.2", ir::Verdict::Match, "", {}});
  const std::string text = ir::print(c);
  auto parsed = ir::parse_case(text, "dag.gc");
  ASSERT_TRUE(parsed.ok()) << ir::render(parsed.diagnostics(), text) << text;
  EXPECT_EQ(ir::print(*parsed), text);
  ASSERT_EQ(parsed->expectations.size(), 2u);
  EXPECT_EQ(parsed->expectations[0].oracle, ir::Oracle::Waves);
  EXPECT_EQ(parsed->expectations[0].detail, "megakernel race");
  EXPECT_EQ(parsed->expectations[1].profile, "vyre-0.7.2");
  auto back = read_dag(*parsed);
  ASSERT_TRUE(back.ok()) << ir::render(back.diagnostics());
  EXPECT_EQ(back->edges, dag.edges);
  EXPECT_EQ(back->ordering_edges, dag.ordering_edges);
  EXPECT_EQ(back->shape, dag.shape);
  ASSERT_EQ(back->wave_count(), dag.wave_count());
  // Fusing the read-back DAG with the same plan gives the same kernel.
  EXPECT_EQ(ir::print(fuse_dag(*back, planner::vyre_0_7_2())), ir::print(fuse_dag(dag, planner::vyre_0_7_2())));
}

TEST(Props_DagCase, ReadDagBorrowsTheCaseItReadsAndCopiesItOnlyToChangeIt) {
  ChoiceSource choices = ChoiceSource::random(7);
  const ir::Case c = fuse_dag(generate_dag(choices), planner::vyre_0_7_2());
  const std::string text = ir::print(c);
  const auto borrowed = read_dag(c);
  ASSERT_TRUE(borrowed.ok()) << ir::render(borrowed.diagnostics());
  EXPECT_TRUE(borrowed->base.borrowed());
  EXPECT_EQ(&*borrowed->base, &c) << "an lvalue case is read in place, not copied";
  auto owned = read_dag(ir::Case(c));  // the twin: an rvalue is moved into the DAG
  ASSERT_TRUE(owned.ok());
  EXPECT_FALSE(owned->base.borrowed());
  EXPECT_EQ(ir::print(*std::as_const(*owned).base), text);
  EXPECT_EQ(owned->waves, borrowed->waves);
  // Changing a borrowing DAG's case copies it first: the caller's case stays as it was.
  WaveDag edited = *borrowed;
  edited.base->description = "edited";
  EXPECT_FALSE(edited.base.borrowed());
  EXPECT_EQ(std::as_const(edited).base->description, "edited");
  EXPECT_EQ(ir::print(c), text);
  EXPECT_EQ(ir::print(std::as_const(edited).base->program), ir::print(c.program));
}

/// The plans kernel_is_fusion is asked about: `plan` itself and the ways a planner gets it wrong.
std::vector<planner::BarrierPlan> plan_variants(const planner::BarrierPlan& plan, std::size_t waves) {
  std::vector<planner::BarrierPlan> out = {plan};
  auto edit = [&](auto change) {
    planner::BarrierPlan p = plan;
    change(p);
    out.push_back(std::move(p));
  };
  edit([](planner::BarrierPlan& p) { std::reverse(p.groups.begin(), p.groups.end()); });
  edit([](planner::BarrierPlan& p) { p.global_barriers += 1; });
  edit([](planner::BarrierPlan& p) { p.global_barriers += 12; });
  edit([](planner::BarrierPlan& p) { p.global_barriers = p.global_barriers == 0 ? 0 : p.global_barriers - 1; });
  edit([](planner::BarrierPlan& p) { if (!p.groups.empty()) p.groups.pop_back(); });
  edit([](planner::BarrierPlan& p) {
    if (p.groups.size() >= 2) {
      auto& last = p.groups[p.groups.size() - 2].waves;
      last.insert(last.end(), p.groups.back().waves.begin(), p.groups.back().waves.end());
      p.groups.pop_back();
    }
  });
  edit([&](planner::BarrierPlan& p) { if (!p.groups.empty()) p.groups.back().waves.push_back(waves + 3); });
  edit([](planner::BarrierPlan& p) { if (!p.groups.empty() && p.groups[0].waves.size() >= 2) std::swap(p.groups[0].waves[0], p.groups[0].waves[1]); });
  edit([](planner::BarrierPlan& p) { p.groups.push_back({}); });
  edit([](planner::BarrierPlan& p) { p.groups.clear(); });
  return out;
}

TEST(Props_DagCase, KernelIsFusionAgreesWithBuildingAndComparing) {
  // Each generated DAG fused by one plan, read back, then asked about every variant of the plan:
  // kernel_is_fusion must say exactly what fuse_dag + ir::structurally_equal says.
  std::size_t same = 0, different = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    ChoiceSource choices = ChoiceSource::random(seed);
    const WaveDag dag = generate_dag(choices, {}, /*named=*/false);
    planner::BarrierScratch scratch;
    const MegakernelPlan made = planner::default_profile().megakernel(dag.wave_count(), dag.edges, scratch);
    ASSERT_TRUE(made.ok());
    for (const planner::BarrierPlan& kernel_plan : plan_variants(*made, dag.wave_count())) {
      const ir::Case c = fuse_dag(dag, kernel_plan, "test", /*named=*/false);
      auto back = read_dag(c);
      ASSERT_TRUE(back.ok()) << ir::render(back.diagnostics());
      for (const planner::BarrierPlan& asked : plan_variants(*made, dag.wave_count())) {
        const bool equal = ir::structurally_equal(fuse_dag(*back, asked, "test", false).program, c.program);
        EXPECT_EQ(kernel_is_fusion(*back, asked), equal) << "seed " << seed << "\n" << describe_plan(asked) << "\n"
                                                         << describe_plan(kernel_plan) << "\n" << ir::print(c);
        (equal ? same : different) += 1;
      }
    }
  }
  EXPECT_GT(same, 40u);
  EXPECT_GT(different, 40u);
}

TEST(Props_DagCase, KernelIsFusionChecksEveryStatementAroundTheWaves) {
  const WaveDag dag = two_wave_dag();
  const ir::Case c = fuse_dag(dag, plan_of({{0}, {1}}, 1), "test");
  auto back = read_dag(c);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(kernel_is_fusion(*back, plan_of({{0}, {1}}, 1)));
  EXPECT_TRUE(kernel_is_fusion(*back, plan_of({{0, 9}, {1}}, 1)));  // an entry naming no wave is skipped
  EXPECT_FALSE(kernel_is_fusion(*back, plan_of({{1}, {0}}, 1)));
  EXPECT_FALSE(kernel_is_fusion(*back, plan_of({{0}, {1}}, 0)));
  EXPECT_FALSE(kernel_is_fusion(*back, plan_of({{0}, {1}}, 2)));
  EXPECT_FALSE(kernel_is_fusion(*back, plan_of({{0}}, 1)));
  EXPECT_FALSE(kernel_is_fusion(*back, MegakernelPlan(planner::MegakernelError::cycle(2))));

  // The fence must be a grid_sync: a workgroup barrier in its place is another kernel.
  WaveDag edited = *back;
  ir::Program& p = edited.base->program;
  ir::Stmt root = p.stmt(p.entry_stmts()[0]);
  std::vector<ir::StmtId> items(p.list(root.body).begin(), p.list(root.body).end());
  ir::Stmt barrier = p.stmt(items[1]);
  barrier.op = static_cast<std::uint8_t>(ir::MemoryOrdering::SeqCst);
  items[1] = p.add_stmt(barrier);
  root.body = p.add_list(items);
  const ir::StmtId new_root = p.add_stmt(root);
  p.set_entry(std::span<const ir::StmtId>(&new_root, 1));
  EXPECT_FALSE(kernel_is_fusion(edited, plan_of({{0}, {1}}, 1)));
  EXPECT_FALSE(ir::structurally_equal(fuse_dag(edited, plan_of({{0}, {1}}, 1), "test").program, p));

  // The `if false` block of the waves a plan leaves out: its condition and contents count.
  const ir::Case kept = fuse_dag(dag, plan_of({{0}}, 0), "test");
  auto kept_back = read_dag(kept);
  ASSERT_TRUE(kept_back.ok());
  EXPECT_TRUE(kernel_is_fusion(*kept_back, plan_of({{0}}, 0)));
  EXPECT_FALSE(kernel_is_fusion(*kept_back, plan_of({{0}}, 1)));
  EXPECT_FALSE(kernel_is_fusion(*kept_back, plan_of({{1}}, 0)));
  const ir::Case refused = fuse_dag(dag, MegakernelPlan(planner::MegakernelError::cycle(2)), "test");
  auto refused_back = read_dag(refused);
  ASSERT_TRUE(refused_back.ok());
  EXPECT_TRUE(kernel_is_fusion(*refused_back, MegakernelPlan(planner::MegakernelError::cycle(2))));
  EXPECT_TRUE(kernel_is_fusion(*refused_back, plan_of({}, 0)));
  EXPECT_FALSE(kernel_is_fusion(*refused_back, plan_of({{0, 1}}, 0)));

  // A wave scheduled twice is held by a second region the ids cannot match: undecided (false),
  // although the programs are equal; the oracle then builds and compares.
  const ir::Case twice = fuse_dag(dag, plan_of({{0}, {0, 1}}, 1), "test");
  auto twice_back = read_dag(twice);
  ASSERT_TRUE(twice_back.ok());
  EXPECT_FALSE(kernel_is_fusion(*twice_back, plan_of({{0}, {0, 1}}, 1)));
  EXPECT_TRUE(ir::structurally_equal(fuse_dag(*twice_back, plan_of({{0}, {0, 1}}, 1), "test").program, twice.program));
}

TEST(Props_DagCase, MalformedDagCasesAreDiagnosed) {
  const ir::Case good = fuse_dag(two_wave_dag(), plan_of({{0}, {1}}, 1), "test");
  ASSERT_TRUE(read_dag(good).ok());
  auto code = [&](auto edit) {
    ir::Case c = good;
    edit(c);
    auto r = read_dag(c);
    return r.ok() ? std::string("ok") : r.diagnostics().all().front().code;
  };
  auto set = [](ir::Case& c, std::string key, std::string value) {
    for (auto& [k, v] : c.meta)
      if (k == key) v = value;
  };
  EXPECT_EQ(code([](ir::Case& c) { c.meta.clear(); }), "G200");
  EXPECT_EQ(code([&](ir::Case& c) { set(c, "dag_waves", "0 x"); }), "G200");
  EXPECT_EQ(code([&](ir::Case& c) { set(c, "dag_waves", "0 0"); }), "G200");
  EXPECT_EQ(code([&](ir::Case& c) { set(c, "dag_edges", "0->1"); }), "G201");
  EXPECT_EQ(code([&](ir::Case& c) { set(c, "dag_edges", "0>2"); }), "G201");
  EXPECT_EQ(code([&](ir::Case& c) { set(c, "dag_waves", "0 1 2"); }), "G202");
  EXPECT_EQ(code([&](ir::Case& c) { set(c, "dag_waves", "0"); set(c, "dag_edges", ""); }), "G203");
  EXPECT_EQ(code([&](ir::Case& c) { set(c, "dag_edges", "0>1 1>0"); }), "G204");
  EXPECT_EQ(code([&](ir::Case& c) { set(c, "dag_edges", "1>1"); }), "G204");
  EXPECT_FALSE(is_dag_case(ir::Case{}));
  EXPECT_TRUE(is_dag_case(good));
}

}  // namespace
}  // namespace gridcheck::props
