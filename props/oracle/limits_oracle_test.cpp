// The resource model through the oracles (docs/semantics.md §3.9): a case past a limit is `invalid
// limit` for R and for every split, never a divergence or a planner blame; the same case within the
// budget runs and matches.

#include <gtest/gtest.h>

#include "ir/text/parser.hpp"
#include "planner/profile.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/interp_executor.hpp"

namespace gridcheck::props {
namespace {

ir::Case parse(std::string_view text) {
  ir::Result<ir::Case> c = ir::parse_case(text, "t.gc");
  EXPECT_TRUE(c.ok()) << ir::render(c.diagnostics());
  return std::move(c).value();
}

// 300 loop steps before the fence, a store after it.
constexpr std::string_view kLoopCase = R"(case loop
workgroup_size 1 1 1
grid 1 1 1
buffer out: u32[1024] read_write binding 0 output
kernel {
  let x = 0
  loop i in 0..100 {
    x = x + i
  }
  grid_sync
  out[0] = x
}
)";

OracleOptions both_profiles() {
  OracleOptions o;
  o.profiles = {&planner::sound(), &planner::vyre_0_7_2()};
  return o;
}

TEST(Props_Limits, OutOfFuelIsInvalidLimitForREveryProfileNeverABlame) {
  OracleOptions o = both_profiles();
  o.limits.fuel = 50;
  const CaseReport report = evaluate_case(parse(kLoopCase), o);
  EXPECT_EQ(report.reference_verdict, ir::Verdict::Invalid);
  EXPECT_EQ(report.reference_detail, "limit");
  ASSERT_EQ(report.outcomes.size(), 2u);
  for (const OracleOutcome& s : report.outcomes) {
    EXPECT_EQ(s.verdict, ir::Verdict::Invalid) << s.profile << ": " << s.message;
    EXPECT_EQ(s.detail, "limit") << s.profile;
  }
}

TEST(Props_Limits, WithEnoughFuelTheSameCaseRunsAndEachProfileGetsItsOwnVerdict) {  // the twin
  OracleOptions o = both_profiles();
  o.limits.fuel = 2000;
  const CaseReport report = evaluate_case(parse(kLoopCase), o);
  ASSERT_EQ(report.reference_verdict, ir::Verdict::Ok);
  const OracleOutcome* sound = report.find("H-cpu", "sound");
  const OracleOutcome* vyre = report.find("H-cpu", "vyre-0.7.2");
  ASSERT_NE(sound, nullptr);
  ASSERT_NE(vyre, nullptr);
  EXPECT_EQ(sound->verdict, ir::Verdict::Match) << sound->message;
  // vyre-0.7.2 loses the local across the fence (docs/vyre-0.7.2.md#d1): only now is that visible.
  EXPECT_EQ(vyre->verdict, ir::Verdict::Diverge) << vyre->message;
  EXPECT_EQ(vyre->detail, "planner");
}

TEST(Props_Limits, MemoryForRAndTheSplitIsCheckedBeforeAnythingRuns) {
  // 4 KiB of buffers: R holds 5 copies (race detector), H-cpu 4 more.
  const ir::Case c = parse(kLoopCase);
  OracleOptions o;  // the sound profile
  o.limits.max_memory = 9 * 4096 - 1;  // enough for R alone, not for R and the split
  const CaseReport refused = evaluate_case(c, o);
  EXPECT_EQ(refused.reference_verdict, ir::Verdict::Invalid);
  EXPECT_EQ(refused.reference_detail, "limit");
  ASSERT_FALSE(refused.reference.diagnostics.empty());
  const ir::Diagnostic& d = *refused.reference.diagnostics.begin();
  EXPECT_EQ(d.code, "R023");
  EXPECT_EQ(d.loc.line, 4u);
  EXPECT_NE(d.message.find("held 9 times by R and the split"), std::string::npos) << d.message;
  EXPECT_EQ(refused.reference.steps, 0u);  // nothing ran
  for (const OracleOutcome& s : refused.outcomes) EXPECT_EQ(s.verdict, ir::Verdict::Invalid) << s.profile;

  o.limits.max_memory = 9 * 4096;  // the twin: exactly enough
  const CaseReport fits = evaluate_case(c, o);
  ASSERT_EQ(fits.reference_verdict, ir::Verdict::Ok) << fits.reference_detail;
  for (const OracleOutcome& s : fits.outcomes) EXPECT_EQ(s.verdict, ir::Verdict::Match) << s.profile << ": " << s.message;
}

TEST(Props_Limits, ASplitLaunchOutOfFuelIsALimitErrorAtTheStatement) {
  const ir::Case c = parse(kLoopCase);
  interp::RunOptions options;
  options.limits.fuel = 50;
  InterpExecutor executor(options);
  std::vector<planner::Bytes> outputs;  // `out` is backend-allocated: the launch takes no input
  planner::LaunchConfig config;
  config.grid_override = std::array<std::uint32_t, 3>{1, 1, 1};
  const auto error = executor.launch(c.program, {}, config, outputs);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind, planner::LaunchErrorKind::OutOfFuel);
  EXPECT_NE(error->message.find("[R021]"), std::string::npos) << error->message;
  EXPECT_EQ(error->loc.line, 8u);  // x = x + i, where the budget ran out
}

}  // namespace
}  // namespace gridcheck::props
