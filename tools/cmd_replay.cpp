// `gridcheck replay PATH... [--profile P]... [--junit FILE] [--json] [--update]`: runs every case
// (files, or directories searched for *.gc) against its recorded expectations (`expect` lines:
// verdicts, outputs, launch counts; each PASS line says how many of each it checked) and
// prints `N passed, M failed`. A case without any expectation fails: a regression case must say
// what it expects. `--update` records the current verdicts and R outputs into each case file
// instead of checking them (review the diff before committing it).
// Exit 0 when every case passes, 1 when one fails, 2 on bad usage or bad input: a path that does not
// exist or is neither a regular file nor a directory, a directory without case files (nothing to
// replay), a file that cannot be read or parsed (its diagnostics are printed, the other files still
// replay), or a --junit or --sarif report that cannot be written.
//
// Reports for CI (docs/reports.md): `--json` (gridcheck/replay/1), `--junit FILE` (a failed case is
// a <failure>, an unreadable or unparseable file an <error>, a case that needs H-gpu where no
// Vulkan device opens <skipped>), `--sarif FILE` and `--github` (one finding per failure).

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "ir/text/case_file.hpp"
#include "ir/text/parse_codes.hpp"
#include "ir/text/parser.hpp"
#include "ir/text/printer.hpp"
#include "planner/profile.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"
#include "tools/cli_support.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"
#include "tools/report_json.hpp"
#include "tools/report_junit.hpp"
#include "tools/report_options.hpp"
#include "tools/report_sarif.hpp"

namespace gridcheck::tools {
namespace {

struct ReplayArgs {
  std::vector<std::string> paths;
  std::vector<std::string> profiles;
  std::string junit;
  bool json = false;
  bool update = false;
  bool quiet = false;
  BackendArgs backend{"auto"};
  PlannerArgs planner;
  ReportArgs reports;
  std::string same_value_writes = "ok";
  LimitArgs limits;  ///< --max-memory, --fuel, --timeout
};

struct CaseOutcome {
  std::string file;
  std::string name;
  bool passed = false;
  bool bad_input = false;  ///< the file cannot be read or parsed (its diagnostics went to stderr)
  bool skipped = false;    ///< the case needs H-gpu and no Vulkan device could be opened
  bool limit = false;      ///< R or a split launch ran past a resource limit (also bad_input: exit 2)
  std::vector<std::string> failures;
  std::vector<ir::Diagnostic> findings;  ///< the failures as located findings, for --sarif and --github
  std::string checked;  ///< what was checked: "3 verdicts, 2 outputs, 1 launch count"
  double seconds = 0;
};

std::string count_of(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

/// The expectations of `c` that `report` has an outcome for (the others are skipped: no GPU, a
/// profile not selected), by kind.
std::string checked_summary(const ir::Case& c, const props::CaseReport& report) {
  const auto ran = [&](ir::Oracle oracle, const std::string& profile) {
    if (oracle == ir::Oracle::Reference) return true;
    const std::string p = profile.empty() && oracle != ir::Oracle::Waves ? std::string(planner::vyre_0_7_2().name) : profile;
    return report.find(ir::name_of(oracle), p) != nullptr;
  };
  std::size_t verdicts = 0, outputs = 0, launches = 0;
  for (const ir::Expectation& e : c.expectations) verdicts += ran(e.oracle, e.profile) ? 1 : 0;
  for (const ir::ExpectedOutput& o : c.outputs) outputs += ran(o.oracle, o.profile) ? 1 : 0;
  for (const ir::ExpectedLaunches& l : c.launches) launches += ran(l.oracle, l.profile) ? 1 : 0;
  return fmt::format("{}, {}, {}", count_of(verdicts, "verdict", "verdicts"), count_of(outputs, "output", "outputs"),
                     count_of(launches, "launch count", "launch counts"));
}

CaseOutcome replay_one(const std::string& file, const ReplayArgs& args, std::unique_ptr<props::GpuBackend>& gpu) {
  const auto start = std::chrono::steady_clock::now();
  CaseOutcome outcome;
  outcome.file = file;
  const auto fail = [&](std::string_view rule, ir::SourceLoc loc, std::string message) {
    outcome.findings.push_back(ir::Diagnostic{ir::Severity::Error, std::string(rule), file, loc, message, {}});
    outcome.failures.push_back(loc.known() ? fmt::format("{}:{}: {}", loc.line, loc.col, message) : std::move(message));
  };
  const ir::Result<std::string> text = read_input_file(file);
  ir::Result<ir::Case> parsed = text ? ir::parse_case(*text, file) : ir::Result<ir::Case>(text.diagnostics());
  if (!parsed) {
    std::fputs(ir::render(parsed.diagnostics(), text ? std::string_view(*text) : std::string_view()).c_str(), stderr);
    outcome.bad_input = true;
    for (const ir::Diagnostic& d : parsed.diagnostics()) {
      outcome.findings.push_back(d);
      if (d.severity != ir::Severity::Error) continue;
      const std::string at = d.loc.known() ? fmt::format("{}:{}: ", d.loc.line, d.loc.col) : std::string();
      outcome.failures.push_back(fmt::format("cannot be read or parsed: {}error[{}]: {}", at, d.code, d.message));
    }
    if (outcome.failures.empty()) outcome.failures.push_back("cannot be read or parsed");
    return outcome;
  }
  ir::Case c = std::move(parsed).value();
  outcome.name = c.name;
  props::OracleOptions options;
  options.same_value_writes_race = args.same_value_writes == "race";
  options.limits = to_limits(args.limits);
  if (args.profiles.empty()) {
    options.profiles = profiles_of_case(c);
  } else {
    std::string error;
    resolve_profiles(args.profiles, options.profiles, error);
  }
  if (!apply_backend(args.backend, case_expects_gpu(c), options, gpu, "replay")) {
    outcome.skipped = true;
    outcome.failures.push_back("H-gpu is required but no Vulkan device could be opened");
    outcome.findings.push_back(ir::Diagnostic{ir::Severity::Warning, std::string(finding_rule::kGpuUnavailable), file,
                                              ir::SourceLoc{}, outcome.failures.back() + "; the case was not checked", {}});
    return outcome;
  }
  const props::CaseReport report = props::evaluate_case(c, options);
  // Past a resource limit nothing is known about the case: bad input (exit 2), never a failed
  // expectation or an update (docs/semantics.md §3.9).
  const props::OracleOutcome* limited = nullptr;
  for (const props::OracleOutcome& s : report.outcomes)
    if (s.verdict == ir::Verdict::Invalid && s.detail == "limit" && limited == nullptr) limited = &s;
  if (report.reference_detail == "limit" || limited != nullptr) {
    outcome.bad_input = outcome.limit = true;
    if (report.reference_detail == "limit") {
      std::fputs(ir::render(report.reference.diagnostics, *text).c_str(), stderr);
      for (const ir::Diagnostic& d : report.reference.diagnostics)
        if (d.severity == ir::Severity::Error) fail(d.code, d.loc, fmt::format("R invalid limit: error[{}]: {}", d.code, d.message));
    } else {
      fail("limit", {}, fmt::format("{} {}: invalid limit: {}", limited->oracle, limited->profile, limited->message));
    }
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return outcome;
  }
  if (args.update) {
    props::record_expectations(c, report);
    outcome.checked = "recorded " + checked_summary(c, report);
    if (!ir::write_file_atomically(file, ir::print(c)))
      fail(ir::parse_code::kCannotReadFile, {}, "cannot write the updated case");
  } else if (c.expectations.empty() && c.outputs.empty()) {
    fail(finding_rule::kNoExpectations, {}, "no expectations recorded (record them with `gridcheck replay --update`)");
  } else {
    outcome.checked = checked_summary(c, report);
    for (const props::ExpectationFailure& f : props::check_expectations(c, report))
      fail(finding_rule::kExpectationFailed, f.loc, f.message);
    // An external planner (--planner-cmd) the case records nothing for is judged against R itself.
    for (const props::OracleOutcome& s : report.outcomes) {
      if (!s.profile.starts_with("external") || (s.verdict != ir::Verdict::Diverge && s.verdict != ir::Verdict::Error))
        continue;
      const bool recorded = std::any_of(c.expectations.begin(), c.expectations.end(),
                                        [&](const ir::Expectation& e) { return e.profile == s.profile; });
      if (!recorded)
        fail(s.verdict == ir::Verdict::Diverge ? finding_rule::kDivergence : finding_rule::kSplitError, {},
             fmt::format("{} {}: {} {}: {}", s.oracle, s.profile, ir::name_of(s.verdict), s.detail, s.message));
    }
  }
  outcome.passed = outcome.failures.empty();
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

/// The JUnit report of the outcomes: every message starts with the case's file name.
std::string junit_report(const std::vector<CaseOutcome>& outcomes) {
  std::vector<JunitCase> cases;
  for (const CaseOutcome& o : outcomes) {
    JunitCase& j = cases.emplace_back();
    j.name = o.name;
    j.file = o.file;
    j.seconds = o.seconds;
    if (o.passed) continue;
    j.result = o.bad_input ? JunitResult::Error : o.skipped ? JunitResult::Skipped : JunitResult::Failed;
    j.message = fmt::format("{}: {}", o.file, o.failures.front());
    for (const std::string& f : o.failures) j.details += fmt::format("{}: {}\n", o.file, f);
  }
  return junit_xml("gridcheck.replay", cases);
}

std::string_view result_of(const CaseOutcome& o) {
  return o.passed ? "passed" : o.bad_input ? "error" : o.skipped ? "skipped" : "failed";
}

int run_replay(const ReplayArgs& given) {
  ReplayArgs args = given;
  if (!apply_planner(given.planner, args.profiles, "replay")) return kExitBadInput;
  std::string error;
  if (!args.profiles.empty()) {
    std::vector<const planner::Profile*> check;
    if (!resolve_profiles(args.profiles, check, error)) {
      std::fprintf(stderr, "gridcheck replay: %s\n", error.c_str());
      return kExitBadInput;
    }
  }
  if (!args.junit.empty()) {
    if (std::optional<ir::Diagnostic> problem = check_output_file(args.junit)) {
      std::fputs(ir::render(*problem).c_str(), stderr);
      return kExitBadInput;
    }
  }
  if (!check_report_paths(args.reports)) return kExitBadInput;
  ir::Diagnostics path_problems;
  const std::vector<std::string> files = collect_case_files(args.paths, path_problems);
  if (!path_problems.empty()) {
    std::fputs(ir::render(path_problems).c_str(), stderr);
    return kExitBadInput;
  }
  std::vector<CaseOutcome> outcomes;
  std::size_t passed = 0, bad_input = 0, skipped = 0, limited = 0;
  std::unique_ptr<props::GpuBackend> gpu;
  for (const std::string& file : files) {
    outcomes.push_back(replay_one(file, args, gpu));
    const CaseOutcome& o = outcomes.back();
    passed += o.passed ? 1 : 0;
    bad_input += o.bad_input ? 1 : 0;
    limited += o.limit ? 1 : 0;
    skipped += o.skipped ? 1 : 0;
    if (args.json) continue;
    if (!o.passed || !args.quiet)
      std::printf("%s %s%s\n", o.passed ? (args.update ? "UPDATED" : "PASS") : o.skipped ? "SKIP" : "FAIL", file.c_str(),
                  o.passed ? (o.checked.empty() ? "" : fmt::format(" ({})", o.checked).c_str()) : ":");
    for (const std::string& f : o.failures) std::printf("    %s\n", f.c_str());
  }
  const std::size_t failed = outcomes.size() - passed - skipped;
  const int code = bad_input > 0 ? kExitBadInput : failed + skipped == 0 ? kExitOk : kExitMismatch;
  if (args.json) {
    nlohmann::json j = {{"passed", passed},       {"failed", failed},     {"unreadable", bad_input},
                        {"skipped", skipped},     {"exit_code", code},    {"cases", nlohmann::json::array()}};
    for (const CaseOutcome& o : outcomes)
      j["cases"].push_back({{"file", o.file}, {"name", o.name}, {"result", result_of(o)}, {"passed", o.passed},
                            {"bad_input", o.bad_input}, {"failures", o.failures}, {"checked", o.checked},
                            {"seconds", o.seconds}});
    std::printf("%s\n", dump_document("replay", j).c_str());
  } else {
    // `failed` counts the unreadable files too; skipped cases (no Vulkan device) are neither.
    std::printf("%zu passed, %zu failed%s%s\n", passed, failed,
                skipped == 0 ? "" : fmt::format(", {} skipped (no Vulkan device for H-gpu)", skipped).c_str(),
                bad_input == limited ? "" : fmt::format(" ({} cannot be read or parsed)", bad_input - limited).c_str());
    if (limited > 0)
      std::printf("%zu past a resource limit (--max-memory, --fuel, --timeout; docs/semantics.md §3.9)\n", limited);
  }
  std::fflush(stdout);
  std::vector<ir::Diagnostic> findings;
  for (const CaseOutcome& o : outcomes) findings.insert(findings.end(), o.findings.begin(), o.findings.end());
  const bool junit_written = args.junit.empty() || write_report_file(args.junit, junit_report(outcomes), "JUnit report");
  const bool reports_written = emit_reports(args.reports, "replay", findings, true);
  if (!junit_written || !reports_written) return kExitBadInput;
  return code;
}

}  // namespace

void register_replay(CLI::App& root, int& exit_code) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App* cmd = root.add_subcommand(
      "replay",
      "Replay corpus cases against their recorded expectations (R verdict and outputs, split verdicts and H-cpu "
      "launch counts per profile and backend) and print `N passed, M failed`. Exit 0 when all pass, 1 when one fails, 2 on bad usage "
      "or bad input (a missing path, a directory without *.gc files, a file that cannot be read or parsed, a case "
      "past a resource limit: --max-memory, --fuel, --timeout).");
  cmd->add_option("paths", args->paths, "case files or directories (searched recursively for *.gc)")->required();
  cmd->add_option("--profile", args->profiles,
                  "planner profile(s) to run (default: those the case's expectations name, else sound)");
  cmd->add_option("--junit", args->junit,
                  "also write a JUnit XML report to this file (failure, error for an unreadable file, skipped without "
                  "a Vulkan device)");
  CLI::Option* json =
      cmd->add_flag("--json", args->json, "print one JSON document (gridcheck/replay/1) to stdout instead of the text report");
  add_report_options(cmd, args->reports)->excludes(json);
  cmd->add_flag("--update", args->update,
                "record the current verdicts and R outputs into each case instead of checking them");
  cmd->add_flag("-q,--quiet", args->quiet, "print only failing cases and the summary");
  add_same_value_writes_option(cmd, args->same_value_writes);
  add_backend_options(cmd, args->backend, /*allow_auto=*/true);
  add_planner_options(cmd, args->planner);
  add_limit_options(cmd, args->limits);
  cmd->callback([args, &exit_code] { exit_code = run_replay(*args); });
}

}  // namespace gridcheck::tools
