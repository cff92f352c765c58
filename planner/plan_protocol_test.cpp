// The external planner protocol (docs/plan-protocol.md): the decoder's checks on hand-written
// answers, and the process against planner/testing/fake_planner.py in each of its modes.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include "planner/external_profile.hpp"
#include "planner/plan_protocol.hpp"
#include "planner/segment_plan.hpp"
#include "planner/split_dispatch.hpp"
#include "planner/split_errors.hpp"
#include "planner/testing/fake_executors.hpp"
#include "planner/testing/ir_text.hpp"

namespace gridcheck::planner {
namespace {

using namespace std::chrono_literals;

constexpr const char* kProgram = R"(workgroup_size 1 1 1

buffer src: u32[4] read binding 0
buffer out: u32[4] read_write binding 1 output

kernel {
  out[0] = src[0] + 1
  grid_sync
  out[1] = out[0] * 2
}
)";

constexpr const char* kProgramWithAThirdStore = R"(workgroup_size 1 1 1

buffer src: u32[4] read binding 0
buffer out: u32[4] read_write binding 1 output

kernel {
  out[0] = src[0] + 1
  grid_sync
  out[1] = out[0] * 2
  out[2] = 3
}
)";

std::string fake(std::string_view mode) {
  return std::string("python3 ") + GRIDCHECK_SOURCE_DIR + "/planner/testing/fake_planner.py " + std::string(mode);
}

struct Captured {
  std::mutex mutex;
  std::vector<std::string> lines;
  PlannerProcess::StderrSink sink() {
    return [this](std::string_view line) {
      std::lock_guard lock(mutex);
      lines.emplace_back(line);
    };
  }
};

ExternalPlanner external(std::string_view mode, std::chrono::milliseconds timeout = 5000ms, Captured* stderr_lines = nullptr) {
  static Captured discard;
  return make_external_profile(fake(mode), "fake", timeout, (stderr_lines != nullptr ? *stderr_lines : discard).sink());
}

ir::Diagnostic plan_failure(const ExternalPlanner& e, const ir::Program& program) {
  PlanCaseScope scope("case_one");
  ir::Result<SplitPlan> plan = plan_split(e.profile, program);
  if (plan) {
    ADD_FAILURE() << "expected the plan to fail";
    return {};
  }
  return plan.diagnostics().all().front();
}

// ------------------------------------------------------------------------------ the decoder

class PlanProtocol_Decoding : public ::testing::Test {
 protected:
  ir::Program source = testing::parse(kProgram);
  std::string segment(std::string_view decls, std::string_view body) {
    return fmt::format("workgroup_size 1 1 1\\n\\n{}\\n\\nkernel {{\\n{}\\n}}\\n", decls, body);
  }
  std::string response(std::string_view segments, std::string_view callers = R"(["src"])",
                       std::string_view finals = R"(["out"])",
                       std::string_view dispatch = R"({"convergence": "exact", "grid": "per-segment"})") {
    return fmt::format(R"({{"type": "plan", "id": 5, "status": "ok", "plan": {{"segments": [{}],
      "caller_inputs": {}, "final_outputs": {}, "dispatch": {}}}}})",
                       segments, callers, finals, dispatch);
  }
  std::string one_segment(std::string_view inputs = R"(["src", "out"])", std::string_view outputs = R"(["out"])") {
    return fmt::format(R"({{"program": "{}", "inputs": {}, "outputs": {}}})",
                       segment("buffer src: u32[4] read binding 0\\nbuffer out: u32[4] read_write binding 1",
                               "  out[0] = src[0]"),
                       inputs, outputs);
  }
  ir::Result<SplitPlan> decode(const std::string& line, bool* broken = nullptr) {
    bool b = false;
    ir::Result<SplitPlan> r = plan_protocol::decode_plan_response(line, 5, source, {"external:t", "c1"}, b);
    if (broken != nullptr) *broken = b;
    return r;
  }
  std::string code(const std::string& line, bool* broken = nullptr) {
    ir::Result<SplitPlan> r = decode(line, broken);
    return r ? std::string("ok") : r.diagnostics().all().front().code;
  }
};

TEST_F(PlanProtocol_Decoding, AValidAnswerBecomesAPlanWithRoleRowsAndDispatchChoices) {
  ir::Result<SplitPlan> plan = decode(response(one_segment()));
  ASSERT_TRUE(plan) << ir::render(plan.diagnostics());
  ASSERT_EQ(plan->segments.size(), 1u);
  EXPECT_EQ(plan->segments[0].input_names, (std::vector<std::string>{"src", "out"}));
  EXPECT_EQ(plan->caller_inputs, (std::vector<std::string>{"src"}));
  EXPECT_EQ(plan->convergence, PlanConvergence::Exact);
  EXPECT_EQ(plan->grid, PlanGrid::PerSegment);
  ASSERT_EQ(plan->segments[0].roles.size(), 2u);
  EXPECT_EQ(plan->segments[0].roles[0].decision.disposition, Disposition::KeepUnchanged);  // src as in the source
  EXPECT_EQ(plan->segments[0].roles[1].decision.disposition, Disposition::Rewrite);        // out lost `output`
  EXPECT_TRUE(plan->segments[0].roles[1].facts.writes);
}

TEST_F(PlanProtocol_Decoding, FramingErrorsBreakTheStream) {
  bool broken = false;
  EXPECT_EQ(code("not json at all", &broken), "S303");
  EXPECT_TRUE(broken);
  EXPECT_EQ(code("[1, 2]", &broken), "S303");
  EXPECT_EQ(code(R"({"type": "plan", "id": 6, "status": "error", "message": "x"})", &broken), "S304");
  EXPECT_TRUE(broken);
  EXPECT_EQ(code(R"({"type": "hello", "id": 5})", &broken), "S304");
  EXPECT_TRUE(broken);
  EXPECT_EQ(code(R"({"type": "plan", "id": 5, "status": "maybe"})", &broken), "S304");
  EXPECT_FALSE(broken);
}

TEST_F(PlanProtocol_Decoding, MissingOrMistypedFieldsAreS304) {
  EXPECT_EQ(code(R"({"type": "plan", "id": 5, "status": "ok"})"), "S304");
  EXPECT_EQ(code(response("")), "S304");  // no segments
  EXPECT_EQ(code(response(R"({"program": 3, "inputs": [], "outputs": []})")), "S304");
  EXPECT_EQ(code(response(one_segment(R"("src")"))), "S304");
  EXPECT_EQ(code(response(one_segment(R"(["src", 1])"))), "S304");
  EXPECT_EQ(code(R"({"type": "plan", "id": 5, "status": "refused", "message": "m"})"), "S304");
}

TEST_F(PlanProtocol_Decoding, NamesTheSegmentCannotReadOrWriteAreS308) {
  EXPECT_EQ(code(response(one_segment(R"(["src"])"))), "S308");              // out is consumed too
  EXPECT_EQ(code(response(one_segment(R"(["src", "src"])"))), "S308");       // duplicate
  EXPECT_EQ(code(response(one_segment(R"(["src", "nope"])"))), "S308");      // undeclared
  EXPECT_EQ(code(response(one_segment(R"(["src", "out"])", R"(["src"])"))), "S308");  // read-only output
  EXPECT_EQ(code(response(one_segment(), R"(["out"])")), "S308");            // out takes no caller bytes
  EXPECT_EQ(code(response(one_segment(), R"(["src"])", R"(["ghost"])")), "S308");
  ir::Result<SplitPlan> r = decode(response(one_segment(R"(["src"])")));
  ASSERT_FALSE(r);
  EXPECT_NE(r.diagnostics().all().front().message.find("segment 0 of 1"), std::string::npos);
  EXPECT_NE(r.diagnostics().all().front().message.find("external:t"), std::string::npos);
  EXPECT_NE(r.diagnostics().all().front().message.find("c1"), std::string::npos);
}

TEST_F(PlanProtocol_Decoding, UnknownDispatchValuesAreS309) {
  EXPECT_EQ(code(response(one_segment(), R"(["src"])", R"(["out"])", R"({"convergence": "x", "grid": "per-segment"})")),
            "S309");
  EXPECT_EQ(code(response(one_segment(), R"(["src"])", R"(["out"])", R"({"convergence": "none", "grid": "x"})")), "S309");
  EXPECT_EQ(code(response(one_segment(), R"(["src"])", R"(["out"])", R"({"convergence": "none"})")), "S304");
}

TEST_F(PlanProtocol_Decoding, ASegmentThatFailsOnlySemanticValidationIsRunAsIs) {
  // An undeclared local is the split's bug (vyre 0.7.2 makes such segments, docs/vyre-0.7.2.md §10 d):
  // the launch fails (S011) as it does for the built-in profile, a divergence blamed on the planner.
  const std::string bad = fmt::format(R"({{"program": "{}", "inputs": ["src", "out"], "outputs": ["out"]}})",
                                      segment("buffer src: u32[4] read binding 0\\nbuffer out: u32[4] read_write binding 1",
                                              "  out[0] = undefined_local"));
  EXPECT_EQ(code(response(bad)), "ok");
}

// --------------------------------------------------------------------- the fake planner process

TEST(PlanProtocol_Process, AGoodPlanRunsAndEqualsVyreBytes) {
  const ir::Program program = testing::parse(kProgram);
  ExternalPlanner e = external("good");
  const std::vector<Bytes> inputs = {Bytes{5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
  const RunConfig config{std::array<std::uint32_t, 3>{1, 1, 1}, std::nullopt, std::nullopt};
  testing::MiniExecutor mine, theirs;
  PlanCaseScope scope("good_case");
  const SplitRun external_run = run_split(e.profile, program, inputs, config, mine);
  const SplitRun vyre_run = run_split(vyre_0_7_2(), program, inputs, config, theirs);
  ASSERT_TRUE(external_run.ok()) << external_run.failure->diagnostic.message;
  ASSERT_TRUE(vyre_run.ok());
  EXPECT_EQ(external_run.launch_count(), 2u);
  ASSERT_NE(external_run.output("out"), nullptr);
  EXPECT_EQ(*external_run.output("out"), *vyre_run.output("out"));
  EXPECT_EQ(*external_run.output("out"), (Bytes{6, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(e.process->starts(), 1u);
  EXPECT_EQ(e.process->identity(), "fake-good 1");
}

TEST(PlanProtocol_Process, EachFailureModeGivesItsCode) {
  const ir::Program program = testing::parse(kProgram);
  const std::vector<std::pair<std::string, std::string>> modes = {
      {"crash", "S301"},        {"exit-early", "S301"},   {"garbage", "S303"},    {"wrong-id", "S304"},
      {"unknown-buffer", "S306"}, {"contradict", "S307"}, {"unparsable", "S305"}, {"error", "S310"},
      {"bad-protocol", "S304"}, {"bad-dispatch", "S309"},
  };
  for (const auto& [mode, expected] : modes) {
    ExternalPlanner e = external(mode);
    const ir::Diagnostic d = plan_failure(e, program);
    EXPECT_EQ(d.code, expected) << mode << ": " << d.message;
    EXPECT_TRUE(is_planner_process_error(d)) << mode;
    EXPECT_FALSE(is_refusal(d)) << mode;
    EXPECT_NE(d.message.find("external:fake"), std::string::npos) << mode << ": " << d.message;
    EXPECT_NE(d.message.find("case_one"), std::string::npos) << mode << ": " << d.message;
  }
}

TEST(PlanProtocol_Process, CrashAndExitNameTheSignalAndStatus) {
  const ir::Program program = testing::parse(kProgram);
  EXPECT_NE(plan_failure(external("crash"), program).message.find("SIGSEGV"), std::string::npos);
  EXPECT_NE(plan_failure(external("exit-early"), program).message.find("exited with status 3"), std::string::npos);
}

TEST(PlanProtocol_Process, UnparsableSegmentPointsIntoTheSegmentText) {
  const ir::Diagnostic d = plan_failure(external("unparsable"), testing::parse(kProgram));
  ASSERT_EQ(d.code, "S305");
  EXPECT_EQ(d.loc.line, 5u);  // the `}` after `let x = (3 +` on line 4 of the segment text
  EXPECT_NE(d.file.find("segment 0"), std::string::npos) << d.file;
}

TEST(PlanProtocol_Process, AHangingPlannerTimesOutQuickly) {
  ExternalPlanner e = external("hang", 300ms);
  const auto start = std::chrono::steady_clock::now();
  const ir::Diagnostic d = plan_failure(e, testing::parse(kProgram));
  EXPECT_EQ(d.code, "S302");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

TEST(PlanProtocol_Process, ACommandThatCannotStartIsS300) {
  ExternalPlanner e = make_external_profile("/nonexistent/gridcheck-planner --stdio", "", 2000ms, [](std::string_view) {});
  EXPECT_EQ(e.profile.name, "external");
  EXPECT_EQ(plan_failure(e, testing::parse(kProgram)).code, "S300");
}

TEST(PlanProtocol_Process, ARefusalIsARefusalWithThePlannersCode) {
  const ir::Diagnostic d = plan_failure(external("refused"), testing::parse(kProgram));
  EXPECT_EQ(d.code, "X001");
  EXPECT_TRUE(is_refusal(d));
  EXPECT_FALSE(is_planner_process_error(d));
  EXPECT_FALSE(is_refusal(split_error::planner_process("S310", "x")));
}

TEST(PlanProtocol_Process, StderrLinesAreForwarded) {
  Captured lines;
  ExternalPlanner e = external("chatter", 5000ms, &lines);
  PlanCaseScope scope("chatty");
  ASSERT_TRUE(plan_split(e.profile, testing::parse(kProgram)));
  e.process->shutdown();  // drains what is left
  std::lock_guard lock(lines.mutex);
  EXPECT_NE(std::find(lines.lines.begin(), lines.lines.end(), "planning case chatty"), lines.lines.end());
  EXPECT_NE(std::find(lines.lines.begin(), lines.lines.end(), "planned case chatty"), lines.lines.end());
}

TEST(PlanProtocol_Process, ACrashedPlannerIsRestartedForTheNextCase) {
  const std::filesystem::path marker =
      std::filesystem::temp_directory_path() / fmt::format("gridcheck-fake-planner-{}", ::getpid());
  std::filesystem::remove(marker);
  ExternalPlanner e = external("crash-once " + marker.string());
  const ir::Program program = testing::parse(kProgram);
  EXPECT_EQ(plan_failure(e, program).code, "S301");
  EXPECT_TRUE(plan_split(e.profile, program));
  EXPECT_EQ(e.process->starts(), 2u);
  std::filesystem::remove(marker);
}

TEST(PlanProtocol_Process, ConcurrentPlansAreSerialised) {
  ExternalPlanner e = external("good");
  const ir::Program program = testing::parse(kProgram);
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) ok += plan_split(e.profile, program).ok() ? 1 : 0;
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 20);
  EXPECT_EQ(e.process->starts(), 1u);
}

TEST(PlanProtocol_Process, AnAcceptedPlanIsNotAskedForTwice) {
  // The planner answers once and exits on its second request: the same program again is planned
  // from the cache (an oracle plans a case twice to locate the first divergence; shrinking revisits),
  // another program reaches the dead planner.
  ExternalPlanner e = external("once");
  const ir::Program program = testing::parse(kProgram);
  ASSERT_TRUE(plan_split(e.profile, program));
  ASSERT_TRUE(plan_split(e.profile, testing::parse(kProgram)));
  const ir::Program other = testing::parse(kProgramWithAThirdStore);
  EXPECT_EQ(plan_failure(e, other).code, "S301");
}

TEST(PlanProtocol_Process, AProgramWithoutAFenceNeverReachesThePlanner) {
  ExternalPlanner e = external("hang", 5000ms);
  const ir::Program program = testing::parse("workgroup_size 1 1 1\n\nbuffer out: u32[4] read_write binding 0\n\n"
                                             "kernel {\n  out[0] = 1\n}\n");
  testing::MiniExecutor executor;
  const SplitRun run = run_split(e.profile, program, std::vector<Bytes>{Bytes(16, 0)}, RunConfig{}, executor);
  EXPECT_TRUE(run.ok());
  EXPECT_FALSE(run.split);
  EXPECT_EQ(e.process->starts(), 0u);
}

TEST(PlanProtocol_Process, ShutdownReapsEveryChild) {
  {
    ExternalPlanner e = external("good");
    ASSERT_TRUE(plan_split(e.profile, testing::parse(kProgram)));
    ExternalPlanner hung = external("hang", 200ms);
    plan_failure(hung, testing::parse(kProgram));
    e.process->shutdown();
  }
  int status = 0;
  EXPECT_EQ(::waitpid(-1, &status, WNOHANG), -1);  // no child left, not even a zombie
  EXPECT_EQ(errno, ECHILD);
}

}  // namespace
}  // namespace gridcheck::planner
