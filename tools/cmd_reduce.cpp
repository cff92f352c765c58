// `gridcheck reduce FILE [-o OUT] [--profile P]... [--backend cpu|gpu|both] [--interesting CMD]
// [--max-attempts N]`: shrinks a case that was not produced by the generator (delta debugging over
// the IR: drop statements, inline bodies, simplify expressions, shrink grid, workgroup, buffers and
// inputs) while it stays interesting (docs/reduce.md): by default while its failure signature stays
// the same (R's verdict, each split's verdict and blame; props/reduce/reduce_signature.hpp), with
// --interesting while R accepts it and CMD exits 0. Every candidate must validate and be race-free
// under two schedules, so the result stays a valid program. Prints the reduced case (or writes OUT).
// Exit 0 on success, 2 on bad input, a case R refuses, or nothing to reduce (--backend gpu without a
// GPU-only divergence; --interesting when the original is not interesting), 3 on an internal error.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>

#include "ir/text/printer.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"
#include "props/reduce/case_reducer.hpp"
#include "props/reduce/interesting_command.hpp"
#include "props/reduce/reduce_signature.hpp"
#include "tools/cli_support.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"

namespace gridcheck::tools {
namespace {

using Clock = std::chrono::steady_clock;

struct ReduceArgs {
  std::string file;
  std::string out;
  std::vector<std::string> profiles;
  PlannerArgs planner;
  BackendArgs backend;
  std::string interesting;
  double interesting_timeout = 60;
  bool interesting_output = false;
  std::uint32_t max_attempts = 20000;
  bool quiet = false;
  LimitArgs limits;  ///< --max-memory, --fuel (default ir::kCandidateFuel), --timeout per candidate
};

/// A candidate as the --interesting command sees it: the case without the original's expectations
/// (they describe the original, not the candidate).
std::string candidate_text(const ir::Case& c) {
  ir::Case copy = c;
  copy.expectations.clear();
  copy.outputs.clear();
  copy.launches.clear();
  return ir::print(copy);
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int run_reduce(const ReduceArgs& args) {
  if (!args.out.empty()) {
    if (std::optional<ir::Diagnostic> problem = check_output_file(args.out)) {
      std::fputs(ir::render(*problem).c_str(), stderr);
      return kExitBadInput;
    }
  }
  if (!args.interesting.empty() && args.interesting.find_first_not_of(" \t") == std::string::npos) {
    std::fprintf(stderr, "gridcheck reduce: --interesting needs a command\n");
    return kExitBadInput;
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
  const bool interesting_mode = !args.interesting.empty();
  std::unique_ptr<props::GpuBackend> gpu;
  if (!interesting_mode) {
    if (!apply_backend(args.backend, false, options, gpu, "reduce")) return kExitBadInput;
    options.cpu = true;  // gpu too: the signature holds H-cpu's verdict beside H-gpu's (docs/reduce.md)
  }
  // What the candidates are judged by: with --interesting only R (validity, race freedom, one result
  // under both schedules); the oracles then run once more on the result, for its expectations.
  props::OracleOptions judge = options;
  if (interesting_mode) {
    judge.cpu = false;
    judge.waves = false;
  }
  const auto started = Clock::now();
  const props::CaseReport start = props::evaluate_case(loaded->test_case, judge);
  if (start.reference_verdict == ir::Verdict::Invalid) {
    std::fputs(ir::render(start.reference.diagnostics, loaded->text).c_str(), stderr);
    std::fprintf(stderr, "gridcheck reduce: R refuses the case (%s); only valid, race-free cases can be reduced\n",
                 start.reference_detail.c_str());
    return kExitBadInput;
  }
  const std::string key = props::reduce_signature(start);
  std::unique_ptr<props::InterestingCommand> command;
  if (interesting_mode) {
    props::InterestingCommandOptions co;
    co.command = args.interesting;
    co.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(args.interesting_timeout * 1000)));
    co.show_output = args.interesting_output;
    command = std::make_unique<props::InterestingCommand>(co);
    const props::InterestingCall first = command->check(candidate_text(loaded->test_case));
    if (first.status != props::InterestingStatus::Interesting) {
      std::fprintf(stderr,
                   "gridcheck reduce: the original case is not interesting: `%s` %s on it; the command must exit 0 "
                   "on %s (it is run by /bin/sh -c with the candidate's path, docs/reduce.md#interesting)\n",
                   args.interesting.c_str(), first.detail.c_str(), args.file.c_str());
      return kExitBadInput;
    }
    if (!args.quiet) std::fprintf(stderr, "gridcheck reduce: keeping `%s` exits 0\n", args.interesting.c_str());
  } else {
    if (args.backend.backend == "gpu" && !props::has_gpu_only_divergence(start, options.gpu_name)) {
      std::fprintf(stderr,
                   "gridcheck reduce: nothing to reduce: --backend gpu shrinks a GPU-only divergence (H-gpu diverges "
                   "from R while H-cpu matches R), and %s has none (%s); --backend both keeps any signature\n",
                   args.file.c_str(), key.c_str());
      return kExitBadInput;
    }
    if (!args.quiet) std::fprintf(stderr, "gridcheck reduce: keeping %s\n", key.c_str());
  }
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
      [&](const ir::Case& candidate) {
        const props::CaseReport report = props::evaluate_case(candidate, judge);
        if (!command) return props::reduce_signature(report) == key;
        if (report.reference_verdict == ir::Verdict::Invalid) return false;
        return command->check(candidate_text(candidate)).status == props::InterestingStatus::Interesting;
      },
      reduce, &stats);
  const double seconds = seconds_since(started);
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
  if (!args.quiet) {
    std::fprintf(stderr, "gridcheck reduce: %zu -> %zu statements in %u attempts, %u accepted, %.2f s (%.1f ms an attempt)%s\n",
                 props::statement_count(loaded->test_case.program), props::statement_count(reduced.program),
                 stats.attempts, stats.accepted, seconds, stats.attempts == 0 ? 0.0 : 1000 * seconds / (stats.attempts + 1),
                 stats.budget_exhausted ? " (attempt budget exhausted)" : "");
    if (command)
      std::fprintf(stderr, "gridcheck reduce: %llu calls of the command, %.2f s in them\n",
                   static_cast<unsigned long long>(command->calls()),
                   std::chrono::duration<double>(command->total_time()).count());
    if (gpu) {
      const props::GpuBackend::CacheStats cache = gpu->cache_stats();
      std::fprintf(stderr,
                   "gridcheck reduce: H-gpu on %s: %llu shaders compiled, %llu compile-cache hits, %llu pipelines "
                   "created, %llu pipeline-cache hits\n",
                   gpu->device_name().c_str(), static_cast<unsigned long long>(cache.compiles),
                   static_cast<unsigned long long>(cache.compile_hits), static_cast<unsigned long long>(cache.pipelines),
                   static_cast<unsigned long long>(cache.pipeline_hits));
    }
  }
  return kExitOk;
}

}  // namespace

void register_reduce(CLI::App& root, int& exit_code) {
  auto args = std::make_shared<ReduceArgs>();
  CLI::App* cmd = root.add_subcommand(
      "reduce",
      "Shrink a case by delta debugging over its IR while it stays interesting: by default while R's verdict and "
      "every split's verdict and blame stay the same (--backend gpu: a GPU-only divergence, H-gpu diverging while "
      "H-cpu matches R), with --interesting while CMD exits 0 on it; candidates must validate and be race-free "
      "(docs/reduce.md). Prints the reduced case (or writes -o). Exit 0 done, 2 bad input or nothing to reduce.");
  cmd->add_option("file", args->file, "case file (.gc)")->required();
  cmd->add_option("-o,--output", args->out, "write the reduced case here instead of stdout");
  cmd->add_option("--profile", args->profiles, "planner profile(s) whose verdicts must be kept (default: the case's)");
  add_planner_options(cmd, args->planner);
  add_backend_options(cmd, args->backend, /*allow_auto=*/false);
  CLI::Option* backend = cmd->get_option("--backend");
  backend->description(
      "which splits' verdicts are kept: cpu (H-cpu, default); gpu (H-cpu and H-gpu, and the case must show a "
      "GPU-only divergence: H-gpu diverges from R while H-cpu matches R, else exit 2); both (H-cpu and H-gpu, any "
      "signature)");
  CLI::Option* interesting = cmd->add_option(
      "--interesting", args->interesting,
      "interestingness test instead of the signature: CMD (run by /bin/sh -c) gets each candidate's path as its "
      "last argument, or where it says {}; exit 0 = interesting (creduce convention); the original must be "
      "interesting, else exit 2");
  for (const char* gpu_option : {"--backend", "--device", "--mode", "--validation", "--dump-glsl", "--gpu-literals"})
    interesting->excludes(cmd->get_option(gpu_option));
  cmd->add_option("--interesting-timeout", args->interesting_timeout,
                  "with --interesting: seconds before a call is killed and counts as not interesting (default 60)")
      ->check(timeout_seconds_validator())
      ->needs(interesting);
  cmd->add_flag("--interesting-output", args->interesting_output,
                "with --interesting: let the command's stdout and stderr through to stderr (default: discarded)")
      ->needs(interesting);
  cmd->add_option("--max-attempts", args->max_attempts, "oracle runs before giving up (default 20000)");
  cmd->add_flag("-q,--quiet", args->quiet, "no progress output");
  add_limit_options(cmd, args->limits, ir::kCandidateFuel);
  cmd->callback([args, &exit_code] { exit_code = run_reduce(*args); });
}

}  // namespace gridcheck::tools
