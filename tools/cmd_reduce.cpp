// `gridcheck reduce FILE [-o OUT] [--profile P]... [--max-attempts N]`: shrinks a case that was not
// produced by the generator (delta debugging over the IR: drop statements, inline bodies, simplify
// expressions, shrink grid, workgroup, buffers and inputs) while every oracle keeps its verdict
// (R's verdict, and each split's verdict and blame). Every candidate must validate and be race-free
// under two schedules, so the result stays a valid program. Prints the reduced case (or writes OUT).
// Exit 0 on success, 2 on bad input or a case R refuses, 3 on an internal error.

#include <fmt/format.h>

#include <fstream>
#include <memory>

#include "ir/text/printer.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"
#include "props/reduce/case_reducer.hpp"
#include "tools/cli_support.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"

namespace gridcheck::tools {
namespace {

struct ReduceArgs {
  std::string file;
  std::string out;
  std::vector<std::string> profiles;
  PlannerArgs planner;
  std::uint32_t max_attempts = 20000;
  bool quiet = false;
  LimitArgs limits;  ///< --max-memory, --fuel (default ir::kCandidateFuel), --timeout per candidate
};

/// What must not change while reducing: R's verdict and each split's verdict and detail.
std::string verdict_key(const props::CaseReport& r) {
  std::string key = fmt::format("R:{}", ir::name_of(r.reference_verdict));
  for (const props::OracleOutcome& s : r.outcomes)
    key += fmt::format("|{}/{}:{}:{}", s.oracle, s.profile, ir::name_of(s.verdict), s.detail);
  return key;
}

int run_reduce(const ReduceArgs& args) {
  if (!args.out.empty()) {
    if (std::optional<ir::Diagnostic> problem = check_output_file(args.out)) {
      std::fputs(ir::render(*problem).c_str(), stderr);
      return kExitBadInput;
    }
  }
  const auto loaded = load_case(args.file);
  if (!loaded) return kExitBadInput;
  props::OracleOptions options;
  options.locate_first_divergence = false;
  options.limits = to_limits(args.limits, ir::kCandidateFuel);
  std::string error;
  std::vector<std::string> profiles = args.profiles;
  if (!apply_planner(args.planner, profiles, "reduce")) return kExitBadInput;
  if (profiles.empty()) {
    options.profiles = profiles_of_case(loaded->test_case);
  } else if (!resolve_profiles(profiles, options.profiles, error)) {
    std::fprintf(stderr, "gridcheck reduce: %s\n", error.c_str());
    return kExitBadInput;
  }
  const props::CaseReport start = props::evaluate_case(loaded->test_case, options);
  if (start.reference_verdict == ir::Verdict::Invalid) {
    std::fputs(ir::render(start.reference.diagnostics, loaded->text).c_str(), stderr);
    std::fprintf(stderr, "gridcheck reduce: R refuses the case (%s); only valid, race-free cases can be reduced\n",
                 start.reference_detail.c_str());
    return kExitBadInput;
  }
  const std::string key = verdict_key(start);
  if (!args.quiet) std::fprintf(stderr, "gridcheck reduce: keeping %s\n", key.c_str());
  props::ReduceOptions reduce;
  reduce.max_attempts = args.max_attempts;
  std::size_t steps = 0;
  if (!args.quiet)
    reduce.on_step = [&](const std::string& what) {
      ++steps;
      std::fprintf(stderr, "  step %zu: %s\n", steps, what.c_str());
    };
  props::ReduceStats stats;
  ir::Case reduced = props::reduce_case(
      loaded->test_case,
      [&](const ir::Case& candidate) { return verdict_key(props::evaluate_case(candidate, options)) == key; }, reduce,
      &stats);
  props::record_expectations(reduced, props::evaluate_case(reduced, options));
  reduced.header_comments.push_back(fmt::format("reduced by gridcheck reduce from {} ({} to {} statements)",
                                                args.file, props::statement_count(loaded->test_case.program),
                                                props::statement_count(reduced.program)));
  const std::string text = ir::print(reduced);
  if (args.out.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    std::ofstream out(args.out, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) {
      std::fprintf(stderr, "gridcheck reduce: cannot write %s\n", args.out.c_str());
      return kExitBadInput;
    }
  }
  if (!args.quiet)
    std::fprintf(stderr, "gridcheck reduce: %zu -> %zu statements in %u attempts%s\n",
                 props::statement_count(loaded->test_case.program), props::statement_count(reduced.program),
                 stats.attempts, stats.budget_exhausted ? " (attempt budget exhausted)" : "");
  return kExitOk;
}

}  // namespace

void register_reduce(CLI::App& root, int& exit_code) {
  auto args = std::make_shared<ReduceArgs>();
  CLI::App* cmd = root.add_subcommand(
      "reduce",
      "Shrink a case by delta debugging over its IR while R's verdict and every split's verdict and blame stay the "
      "same; candidates must validate and be race-free. Prints the reduced case (or writes -o). Exit 0 done, 2 bad "
      "input.");
  cmd->add_option("file", args->file, "case file (.gc)")->required();
  cmd->add_option("-o,--output", args->out, "write the reduced case here instead of stdout");
  cmd->add_option("--profile", args->profiles, "planner profile(s) whose verdicts must be kept (default: the case's)");
  add_planner_options(cmd, args->planner);
  cmd->add_option("--max-attempts", args->max_attempts, "oracle runs before giving up (default 20000)");
  cmd->add_flag("-q,--quiet", args->quiet, "no progress output");
  add_limit_options(cmd, args->limits, ir::kCandidateFuel);
  cmd->callback([args, &exit_code] { exit_code = run_reduce(*args); });
}

}  // namespace gridcheck::tools
