// The convergence oracle: the split's fixpoint loop must stop where R's state repeats (sound), at or
// before it (vyre-0.7.2); the convergence mutants M5, M7 and M8 (docs/mutants.md) are caught.
#include "props/oracle/convergence_oracle.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ir/text/parser.hpp"
#include "planner/segment_plan.hpp"
#include "props/mutants/mutant_catalogue.hpp"
#include "props/oracle/evaluate_case.hpp"

namespace gridcheck::props {
namespace {

ir::Case parse(std::string_view text) {
  ir::Result<ir::Case> c = ir::parse_case(text, "convergence.gc");
  EXPECT_TRUE(c.ok()) << ir::render(c.diagnostics(), text);
  return std::move(c).value();
}

// acc climbs 1, 2, 3 and stays: R's state repeats after pass 4 of 6.
constexpr std::string_view kClimbsToThree = R"gc(case climbs
grid 1 1 1
fixpoint 6
buffer acc: u32[1] read_write binding 0 output live_out
buffer out: u32[1] read_write binding 1 output live_out
kernel {
  acc[0] = min(acc[0] + 1, 3)
  grid_sync
  out[0] = acc[0] * 2
}
)gc";

// The first pass already computes the final state: R's state repeats after pass 2 of 5.
constexpr std::string_view kStableAfterOnePass = R"gc(case stable
grid 1 1 1
fixpoint 5
buffer in: u32[1] read binding 0
buffer mid: u32[1] read_write binding 1 output live_out
buffer out: u32[1] read_write binding 2 output live_out
input in = [7]
kernel {
  mid[0] = in[0] * 2
  grid_sync
  out[0] = mid[0] + 1
}
)gc";

// The first pass leaves the zero-seeded output zero (corpus/s6_8_fixpoint_stable_first_pass.gc).
constexpr std::string_view kFirstPassLeavesZeros = R"gc(case zeros
grid 1 1 1
fixpoint 3
buffer vals: u32[4] read binding 0
buffer best: u32[1] read_write binding 1 output
input vals = [0, 0, 0, 0]
kernel {
  best[0] = max(best[0], vals[0] | vals[1] | vals[2] | vals[3])
  grid_sync
}
)gc";

const OracleOutcome& convergence(const CaseReport& report, std::string_view profile) {
  const OracleOutcome* s = report.find("convergence", profile);
  if (s == nullptr) {
    ADD_FAILURE() << "no convergence outcome for " << profile;
    static const OracleOutcome none;
    return none;
  }
  return *s;
}

CaseReport evaluate_under(const ir::Case& c, const planner::Profile& profile) {
  OracleOptions o;
  o.profiles = {&profile};
  return evaluate_case(c, o);
}

TEST(Props_ConvergenceOracle, RsOwnRunRecordsTheRepeatAndTheSplitOraclesPlanIsKept) {
  // evaluate_case takes P from R's run and the plan from the split oracle instead of running and
  // planning again; both must be what the convergence oracle would compute on its own.
  for (std::string_view text : {kClimbsToThree, kStableAfterOnePass, kFirstPassLeavesZeros}) {
    const ir::Case c = parse(text);
    const CaseReport report = evaluate_under(c, planner::sound());
    EXPECT_TRUE(report.repeat_recorded) << c.name;
    EXPECT_EQ(report.repeat_end, reference_repeat(c, OracleOptions{}).end) << c.name;
    const planner::SplitPlan* kept = report.plan("sound");
    ASSERT_NE(kept, nullptr) << c.name;
    const ir::Result<planner::SplitPlan> again = planner::plan_split(planner::sound(), c.program);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(kept->segments.size(), again->segments.size()) << c.name;
    EXPECT_EQ(report.plan("vyre-0.7.2"), nullptr) << "only the profiles evaluated";
  }
  // A single-launch case records nothing.
  ir::Case once = parse(kClimbsToThree);
  once.fixpoint = 1;
  EXPECT_FALSE(evaluate_under(once, planner::sound()).repeat_recorded);
}

TEST(Props_ConvergenceOracle, FindsThePassWhereRsStateRepeats) {
  const auto end_repeat = [](const ir::Case& c) { return reference_repeat(c, OracleOptions{}).end; };
  EXPECT_EQ(end_repeat(parse(kClimbsToThree)), std::optional<std::uint32_t>{4});
  EXPECT_EQ(end_repeat(parse(kStableAfterOnePass)), std::optional<std::uint32_t>{2});
  // Pass 1 is never compared with the initial state.
  EXPECT_EQ(end_repeat(parse(kFirstPassLeavesZeros)), std::optional<std::uint32_t>{2});
  ir::Case never = parse(kClimbsToThree);
  never.fixpoint = 3;
  EXPECT_EQ(end_repeat(never), std::nullopt);
}

// Found by `gridcheck fuzz --seed 5 --shard 1/2` (case 145): the copy of `sh` kept across the
// fence holds pass 1's value 0 and pass 2's value 1, while R's storage repeats after pass 2. The
// copy is pass-local (each pass stores sh before restoring it), so sound's early exit leaves it out
// and stops after pass 2, exactly where R's state repeats.
TEST(Props_ConvergenceOracle, SoundStopsWhereRsStateRepeatsWhateverItsPassLocalScratchHolds) {
  const ir::Case c = parse(R"gc(case scratch
workgroup_size 1 1 1
grid auto
fixpoint 5
buffer out1: u32[4] read_write binding 2 output live_out
buffer sh: u32[8] workgroup
kernel {
  sh[0] = out1[gid.x]
  out1[gid.x] = 1
  grid_sync
  let x7 = 0
  x7 = sh[0]
}
)gc");
  EXPECT_EQ(reference_repeat(c, OracleOptions{}).end, std::optional<std::uint32_t>{2});
  const CaseReport report = evaluate_under(c, planner::sound());
  const OracleOutcome* cpu = report.find("H-cpu", "sound");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->verdict, ir::Verdict::Match);
  EXPECT_EQ(cpu->launches, 4u) << "2 passes of 2 segments";
  const OracleOutcome* s = report.find("convergence", "sound");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->verdict, ir::Verdict::Match) << s->message;
}

TEST(Props_ConvergenceOracle, SoundStoppingWhereRsStateRepeatsIsSilent) {
  for (std::string_view text : {kClimbsToThree, kStableAfterOnePass, kFirstPassLeavesZeros}) {
    const ir::Case c = parse(text);
    const CaseReport report = evaluate_under(c, planner::sound());
    const OracleOutcome& s = convergence(report, "sound");
    EXPECT_EQ(s.verdict, ir::Verdict::Match) << c.name << ": " << s.message;
    EXPECT_TRUE(s.detail.empty());
    EXPECT_TRUE(report.agrees()) << c.name;
  }
  const CaseReport climbs = evaluate_under(parse(kClimbsToThree), planner::sound());
  EXPECT_NE(convergence(climbs, "sound").message.find("the split ran 4 passes, R's state repeats after pass 4"),
            std::string::npos)
      << convergence(climbs, "sound").message;
}

TEST(Props_ConvergenceOracle, VyreStoppingAtOrBeforeRsRepeatIsSilent) {
  for (std::string_view text : {kClimbsToThree, kStableAfterOnePass, kFirstPassLeavesZeros}) {
    const ir::Case c = parse(text);
    const CaseReport report = evaluate_under(c, planner::vyre_0_7_2());
    EXPECT_EQ(convergence(report, "vyre-0.7.2").verdict, ir::Verdict::Match)
        << c.name << ": " << convergence(report, "vyre-0.7.2").message;
  }
}

TEST(Props_ConvergenceOracle, NoOutcomeForOnePassOrAnUnsplitDispatch) {
  ir::Case one = parse(kClimbsToThree);
  one.fixpoint = 1;
  EXPECT_EQ(evaluate_under(one, planner::sound()).find("convergence", "sound"), nullptr);
  const ir::Case unsplit = parse(R"gc(case unsplit
grid 1 1 1
fixpoint 4
buffer acc: u32[1] read_write binding 0 output
kernel {
  acc[0] = min(acc[0] + 1, 2)
}
)gc");
  // vyre-0.7.2 launches a fence-free program once, unsplit, with fixpoint N: nothing to judge.
  EXPECT_EQ(evaluate_under(unsplit, planner::vyre_0_7_2()).find("convergence", "vyre-0.7.2"), nullptr);
  // sound runs it as one segment through its loop, which must stop where R's state repeats.
  const CaseReport sound = evaluate_under(unsplit, planner::sound());
  EXPECT_EQ(convergence(sound, "sound").verdict, ir::Verdict::Match) << convergence(sound, "sound").message;
  EXPECT_NE(convergence(sound, "sound").message.find("the split ran 3 passes, R's state repeats after pass 3"),
            std::string::npos);
}

TEST(Props_ConvergenceOracle, AMutantThatRunsPassesTooManyIsCaught) {
  const Mutant* m8 = find_mutant("M8-never-stop");
  ASSERT_NE(m8, nullptr);
  const planner::Profile never_stops = make_mutant(*m8, planner::sound());
  for (std::string_view text : {kClimbsToThree, kStableAfterOnePass}) {
    const ir::Case c = parse(text);
    const CaseReport report = evaluate_under(c, never_stops);
    const OracleOutcome* cpu = report.find("H-cpu", never_stops.name);
    ASSERT_NE(cpu, nullptr);
    ASSERT_EQ(cpu->verdict, ir::Verdict::Match) << "same bytes, more launches";
    const OracleOutcome& s = convergence(report, never_stops.name);
    EXPECT_EQ(s.verdict, ir::Verdict::Diverge) << c.name << ": " << s.message;
    EXPECT_EQ(s.detail, "planner");
    EXPECT_NE(s.message.find(fmt::format("the split ran {} passes", c.fixpoint)), std::string::npos) << s.message;
  }
}

TEST(Props_ConvergenceOracle, AMutantThatStopsAPassEarlyIsCaught) {
  const Mutant* m7 = find_mutant("M7-stop-after-first-pass");
  const Mutant* m5 = find_mutant("M5-compare-initial-state");
  ASSERT_NE(m7, nullptr);
  ASSERT_NE(m5, nullptr);
  const struct {
    const Mutant* mutant;
    std::string_view text;
  } kills[] = {{m7, kStableAfterOnePass}, {m5, kFirstPassLeavesZeros}};
  for (const auto& [mutant, text] : kills) {
    const planner::Profile early = make_mutant(*mutant, planner::sound());
    const ir::Case c = parse(text);
    const CaseReport report = evaluate_under(c, early);
    const OracleOutcome* cpu = report.find("H-cpu", early.name);
    ASSERT_NE(cpu, nullptr);
    ASSERT_EQ(cpu->verdict, ir::Verdict::Match) << mutant->name << ": same bytes";
    const OracleOutcome& s = convergence(report, early.name);
    EXPECT_EQ(s.verdict, ir::Verdict::Diverge) << mutant->name << ": " << s.message;
    EXPECT_NE(s.message.find("the split ran 1 pass, R's state repeats after pass 2"), std::string::npos) << s.message;
    EXPECT_FALSE(report.agrees());
  }
}

}  // namespace
}  // namespace gridcheck::props
