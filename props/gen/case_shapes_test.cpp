// The issue-17 generator features: with each one forced, generated cases have the shape it stands
// for (props/gen/case_shapes.hpp), validate, are race-free under R, and the sound split equals R;
// without its divergence companions (fence_under_control_flow), the vyre-0.7.2 split does too.
#include <gtest/gtest.h>

#include <functional>

#include "ir/text/printer.hpp"
#include "ir/validate/validator.hpp"
#include "planner/profile.hpp"
#include "planner/segment_plan.hpp"
#include "planner/sound_profile.hpp"
#include "props/gen/case_generator.hpp"
#include "props/gen/case_shapes.hpp"
#include "props/oracle/evaluate_case.hpp"

namespace gridcheck::props {
namespace {

constexpr std::uint64_t kCases = 120;

struct Checked {
  std::uint64_t with_shape = 0;
  std::uint64_t cases = 0;
};

/// Generates kCases cases under `config`; each must validate, be race-free under R and match under
/// `profile` (H-cpu); counts those for which `shape` holds.
Checked check(const GeneratorConfig& config, const planner::Profile& profile,
              const std::function<bool(const GeneratedCase&, const CaseReport&)>& shape) {
  Checked out;
  for (std::uint64_t seed = 1; seed <= kCases; ++seed) {
    ChoiceSource choices = ChoiceSource::random(seed * 7919);
    const GeneratedCase g = generate_case(choices, config);
    EXPECT_EQ(g.features & config.forced, config.forced);
    const ir::Diagnostics diagnostics = ir::validate(g.test_case.program);
    EXPECT_FALSE(diagnostics.has_errors()) << "seed " << seed << "\n" << ir::render(diagnostics) << ir::print(g.test_case);
    if (diagnostics.has_errors()) continue;
    OracleOptions options;
    options.profiles = {&profile};
    const CaseReport report = evaluate_case(g.test_case, options);
    EXPECT_EQ(report.reference_verdict, ir::Verdict::Ok)
        << "seed " << seed << ": " << report.reference_detail << "\n" << ir::print(g.test_case);
    const OracleOutcome* cpu = report.find("H-cpu", profile.name);
    EXPECT_NE(cpu, nullptr);
    if (cpu != nullptr) {
      EXPECT_EQ(cpu->verdict, ir::Verdict::Match) << "seed " << seed << ": " << cpu->message << "\n" << ir::print(g.test_case);
    }
    ++out.cases;
    if (shape(g, report)) ++out.with_shape;
  }
  return out;
}

GeneratorConfig benign_with(FeatureMask forced) {
  GeneratorConfig config;
  config.allowed = kBenignFeatures;
  config.forced = forced;
  return config;
}

GeneratorConfig fenced_with(FeatureMask forced) {
  GeneratorConfig config;
  config.allowed = kBenignFeatures | bit(Feature::FenceUnderControlFlow);
  config.forced = forced | bit(Feature::FenceUnderControlFlow);
  return config;
}

TEST(Props_GeneratorShapes, MultiDimGridMakesThreeDimensionalWorkgroupsAndGridsTheVyreSplitMatches) {
  std::uint64_t wg_z = 0, grid_y = 0;
  const Checked c = check(benign_with(bit(Feature::MultiDimGrid)), planner::vyre_0_7_2(),
                          [&](const GeneratedCase& g, const CaseReport&) {
                            const CaseShapes s = shapes_of(g.test_case);
                            wg_z += s.workgroup_z ? 1 : 0;
                            grid_y += s.grid_y ? 1 : 0;
                            // Bounded as before: at most 64 lanes × max(4, 2) workgroups.
                            EXPECT_LE(g.test_case.program.invocations_per_workgroup(), 64u);
                            const auto grid = *g.test_case.grid;
                            EXPECT_LE(grid[0] * grid[1] * grid[2], 4u);
                            return s.workgroup_y || s.workgroup_z || s.grid_y || s.grid_z;
                          });
  EXPECT_GT(wg_z, 0u);
  EXPECT_GT(grid_y, 0u);
  EXPECT_GT(c.with_shape * 2, c.cases);
}

TEST(Props_GeneratorShapes, MultiDimGridCasesMatchTheSoundSplit) {
  const Checked c = check(benign_with(bit(Feature::MultiDimGrid) | bit(Feature::SeveralFences)), planner::sound(),
                          [](const GeneratedCase& g, const CaseReport&) { return shapes_of(g.test_case).workgroup_z; });
  EXPECT_GT(c.with_shape, 0u);
}

TEST(Props_GeneratorShapes, WorkgroupTailMakesCountsThatAreNotAMultipleOfTheWorkgroupSize) {
  std::uint64_t below = 0, above = 0;
  const Checked c = check(benign_with(bit(Feature::WorkgroupTail) | bit(Feature::WorkgroupMemory)), planner::vyre_0_7_2(),
                          [&](const GeneratedCase& g, const CaseReport&) {
                            const std::uint32_t lanes = g.test_case.program.invocations_per_workgroup();
                            for (const ir::BufferDecl& b : g.test_case.program.buffers())
                              if (b.access == ir::BufferAccess::Workgroup && b.count % lanes != 0)
                                (b.count < lanes ? below : above) += 1;
                            return shapes_of(g.test_case).workgroup_tail;
                          });
  EXPECT_GT(below, 0u);
  EXPECT_GT(above, 0u);
  EXPECT_GT(c.with_shape * 3, c.cases);
}

TEST(Props_GeneratorShapes, LoopStartMakesLoopsFromANonZeroStart) {
  const Checked c = check(benign_with(bit(Feature::LoopStart) | bit(Feature::UniformControlFlow)), planner::vyre_0_7_2(),
                          [](const GeneratedCase& g, const CaseReport&) { return shapes_of(g.test_case).loop_start; });
  EXPECT_GT(c.with_shape, 0u);
}

TEST(Props_GeneratorShapes, LoopStartWithFencesUnderControlFlowMakesFencedLoopsStartingAboveZero) {
  const Checked c = check(fenced_with(bit(Feature::LoopStart)), planner::sound(),
                          [](const GeneratedCase& g, const CaseReport&) {
                            return shapes_of(g.test_case).fenced_loop_start;
                          });
  EXPECT_GT(c.with_shape * 4, c.cases);  // the loop form is drawn half of the time
}

TEST(Props_GeneratorShapes, FencedElseMakesFencedIfsWithElseAndUnequalFenceCounts) {
  const Checked c = check(fenced_with(bit(Feature::FencedElse)), planner::sound(),
                          [](const GeneratedCase& g, const CaseReport&) {
                            const CaseShapes s = shapes_of(g.test_case);
                            return s.fenced_else && s.fenced_else_unequal;
                          });
  EXPECT_GT(c.with_shape * 4, c.cases);
}

TEST(Props_GeneratorShapes, FencedElseAloneGivesUniformIfsAnElseAndNoFenceUnderControlFlow) {
  const Checked c = check(benign_with(bit(Feature::FencedElse) | bit(Feature::UniformControlFlow)), planner::vyre_0_7_2(),
                          [](const GeneratedCase& g, const CaseReport&) {
                            const CaseShapes s = shapes_of(g.test_case);
                            EXPECT_FALSE(s.fenced_else || s.fenced_loop_start);
                            return true;
                          });
  EXPECT_EQ(c.with_shape, c.cases);
}

TEST(Props_GeneratorShapes, LongFixpointNeedsAtLeastFourSplitPasses) {
  std::uint64_t long_runs = 0;
  const Checked c = check(benign_with(bit(Feature::LongFixpoint) | bit(Feature::SeveralFences)), planner::sound(),
                          [&](const GeneratedCase& g, const CaseReport& report) {
                            EXPECT_GE(g.test_case.fixpoint, 4u);
                            EXPECT_LE(g.test_case.fixpoint, 8u);
                            const auto plan = planner::plan_split(planner::sound(), g.test_case.program);
                            const OracleOutcome* cpu = report.find("H-cpu", "sound");
                            if (!plan || cpu == nullptr || plan->segments.empty()) return false;
                            const std::size_t passes = cpu->launches / plan->segments.size();
                            if (passes > 4) ++long_runs;
                            return passes >= 4;
                          });
  EXPECT_EQ(c.with_shape, c.cases);  // every case: the counter saturates at K >= 3
  EXPECT_GT(long_runs, 0u);
}

TEST(Props_GeneratorShapes, ShapesOfAPlainCaseAreNone) {
  ChoiceSource empty = ChoiceSource::replay({});
  const GeneratedCase g = generate_case(empty, GeneratorConfig{});
  EXPECT_TRUE(shape_names(shapes_of(g.test_case)).empty());
}

}  // namespace
}  // namespace gridcheck::props
