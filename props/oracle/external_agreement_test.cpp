// The external planner protocol end to end (docs/plan-protocol.md): adapters/vyre_seed/plan.py, a
// separate Python port of vyre 0.7.2's split, planned through the protocol and run by the same
// dispatch loop on the interpreter, must behave exactly as the built-in vyre-0.7.2 profile on
// generated cases (every feature): the same success or failure code, the same output bytes, the same
// launches and passes. GRIDCHECK_AGREEMENT_CASES sets the number of cases (seeds 0..N-1; default
// 10000). The first disagreement is printed as a replayable case.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "ir/text/printer.hpp"
#include "planner/external_profile.hpp"
#include "planner/split_dispatch.hpp"
#include "props/gen/case_generator.hpp"
#include "props/gen/choice_source.hpp"
#include "props/oracle/case_bytes.hpp"
#include "props/oracle/interp_executor.hpp"
#include "props/oracle/reference_run.hpp"

namespace gridcheck::props {
namespace {

std::uint64_t agreement_cases() {
  const char* env = std::getenv("GRIDCHECK_AGREEMENT_CASES");
  if (env == nullptr || *env == '\0') return 10000;
  return std::strtoull(env, nullptr, 10);
}

std::string outcome_of(const planner::SplitRun& run) {
  std::string s = fmt::format("split={} segments={} passes={} launches={} early={}", run.split, run.segment_count,
                              run.passes, run.launch_count(), run.converged_early);
  if (!run.ok()) {
    s += fmt::format(" failure={}", run.failure->diagnostic.code);
    if (run.failure->launch_error) s += fmt::format(" launch_error={}", run.failure->launch_error->message);
    return s;
  }
  for (std::size_t i = 0; i < run.output_names.size(); ++i) {
    s += " " + run.output_names[i] + "=";
    for (std::uint8_t b : run.outputs[i]) s += fmt::format("{:02x}", b);
  }
  return s;
}

TEST(ExternalPlanner_Agreement, VyreSeedAdapterEqualsTheBuiltInVyreProfileOnGeneratedCases) {
  const std::filesystem::path adapter = std::filesystem::path(GRIDCHECK_SOURCE_DIR) / "adapters/vyre_seed/plan.py";
  ASSERT_TRUE(std::filesystem::exists(adapter)) << "missing " << adapter.string() << " (the external planner under test)";
  planner::ExternalPlanner external =
      planner::make_external_profile("python3 " + adapter.string(), "vyre-seed", std::chrono::seconds(30));
  const planner::Profile& builtin = planner::vyre_0_7_2();
  const std::uint64_t n = agreement_cases();
  std::uint64_t split_cases = 0;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    ChoiceSource choices = ChoiceSource::random(seed);
    GeneratorConfig config;
    config.allowed = kAllFeatures;
    ir::Case c = generate_case(choices, config).test_case;
    c.name = fmt::format("agreement-{}", seed);
    std::vector<planner::Bytes> inputs;
    for (const std::string& name : planner::split_input_names(builtin, c.program)) inputs.push_back(case_bytes(c, name));
    const planner::RunConfig run_config{c.grid, std::nullopt, c.fixpoint};
    const interp::RunOptions options = reference_run_options(c, OracleOptions{});
    InterpExecutor ours(options), theirs(options);
    const planner::SplitRun expected = planner::run_split(builtin, c.program, inputs, run_config, ours);
    planner::SplitRun actual;
    {
      const planner::PlanCaseScope scope(c.name);
      actual = planner::run_split(external.profile, c.program, inputs, run_config, theirs);
    }
    split_cases += expected.split ? 1 : 0;
    const std::string want = outcome_of(expected), got = outcome_of(actual);
    if (want != got) {
      ADD_FAILURE() << "case seed " << seed << " disagrees\n  vyre-0.7.2: " << want << "\n  external:   " << got
                    << (actual.ok() ? "" : "\n  external diagnostic: " + actual.failure->diagnostic.message)
                    << "\nreplay: save the case below and run `gridcheck diff --profile vyre-0.7.2 --planner-cmd "
                       "\"python3 adapters/vyre_seed/plan.py\" CASE.gc`\n"
                    << ir::print(c);
      return;
    }
  }
  EXPECT_GT(split_cases, n / 2) << "most generated cases should have a fence";
}

}  // namespace
}  // namespace gridcheck::props
