// `gridcheck fuzz --seconds N [--seed S] [--profile P]... [--features LIST] [--jobs J] [--shard I/N]
//                [--out DIR] [--max-cases N] [--no-shrink] [--json]`:
// a differential campaign over generated cases (R vs H-cpu per profile). Prints the seed first, a
// progress line every second on stderr, and each new unique failure with its file and replay
// command. Ctrl-C stops after the current cases and saves the campaign state in DIR; running the
// same command again resumes it.
// Exit 0 when no failure was found, 1 when one was, 2 on bad usage, 130 when interrupted.
//
// `--target dag` generates random wave DAGs instead (props/dag_generator.hpp), fuses each with the
// first profile's megakernel rule and also checks the fused program against the waves run one by
// one (R-waves, props/dag_oracle.hpp); `--mutant M` fuses with a megakernel mutant of that profile
// (props/megakernel_mutants.hpp) to watch the property kill it.

#include <fmt/format.h>

#include <algorithm>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <limits>
#include <memory>
#include <string_view>
#include <thread>

#include "gpu/literal_policy.hpp"
#include "props/campaign/campaign.hpp"
#include "props/campaign/campaign_state.hpp"
#include "props/campaign/dag_campaign.hpp"
#include "props/mutants/megakernel_mutants.hpp"
#include "tools/cli_support.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"
#include "tools/report_json.hpp"

namespace gridcheck::tools {
namespace {

constexpr const char* kDefaultOut = "fuzz-out";

std::atomic<bool> g_stop{false};

extern "C" void on_interrupt(int) { g_stop.store(true); }

struct FuzzArgs {
  double seconds = 60;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::vector<std::string> profiles;
  std::string features = "all";
  unsigned jobs = 1;
  std::string shard = "0/1";
  std::string out;
  std::uint64_t max_cases = 0;
  int max_divergence_features = -1;  ///< -1: 0 (any combination) when only sound is fuzzed, else 2
  std::string target = "program";
  std::uint32_t inputs_per_program = 1;
  std::string mutant;
  bool no_shrink = false;
  bool json = false;
  std::string command;
  BackendArgs backend;
  PlannerArgs planner;
  LimitArgs limits;  ///< per case: --max-memory, --fuel (default ir::kCampaignFuel), --timeout
};

/// `I/N`: two decimal counts (digits only, 32 bits), 0 <= I < N.
bool parse_shard(const std::string& text, std::uint32_t& index, std::uint32_t& count) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  const std::string_view view(text);
  const auto i = parse_count(view.substr(0, slash), std::numeric_limits<std::uint32_t>::max());
  const auto n = parse_count(view.substr(slash + 1), std::numeric_limits<std::uint32_t>::max());
  if (!i || !n || *n == 0 || *i >= *n) return false;
  index = static_cast<std::uint32_t>(*i);
  count = static_cast<std::uint32_t>(*n);
  return true;
}

std::string verdict_counts(const props::CampaignProgress& p) {
  std::string out;
  for (const auto& [verdict, count] : p.verdicts) out += fmt::format(" {} {}", verdict, count);
  return out;
}

int run_fuzz(const FuzzArgs& args) {
  props::CampaignOptions options;
  options.seconds = args.seconds;
  options.oracle.limits = to_limits(args.limits, ir::kCampaignFuel);
  options.max_cases = args.max_cases;
  options.jobs = args.jobs == 0 ? std::max(1u, std::thread::hardware_concurrency()) : args.jobs;
  options.out_dir = args.out.empty() ? std::string(kDefaultOut) : args.out;
  options.shrink = !args.no_shrink;
  if (!parse_shard(args.shard, options.shard_index, options.shard_count)) {
    std::fprintf(stderr, "gridcheck fuzz: --shard must be I/N with 0 <= I < N, got '%s'\n", args.shard.c_str());
    return kExitBadInput;
  }
  if (args.out.empty())
    std::fprintf(stderr, "gridcheck fuzz: no --out: findings and the resume state go to ./%s\n", kDefaultOut);
  // Without --seed, a state of this shard in the output directory is resumed with its seed; the
  // rest of its configuration must then match (the campaign refuses another one).
  const std::string state_path = props::campaign_state_path(options.out_dir, options.shard_index, options.shard_count);
  std::optional<props::CampaignState> saved;
  {
    std::string state_error;
    saved = props::read_campaign_state(state_path, state_error);
    if (!state_error.empty()) {
      std::fprintf(stderr, "gridcheck fuzz: %s\n", state_error.c_str());
      return kExitBadInput;
    }
  }
  if (args.seed_given)
    options.seed = args.seed;
  else if (saved)
    options.seed = saved->seed;
  else
    options.seed = static_cast<std::uint64_t>(::time(nullptr)) ^ (static_cast<std::uint64_t>(::getpid()) << 32);
  const auto features = props::parse_feature_list(args.features);
  if (!features) {
    std::fprintf(stderr, "gridcheck fuzz: unknown feature in '%s' (names: %s, or all, benign, divergence)\n",
                 args.features.c_str(), props::describe(props::kAllFeatures).c_str());
    return kExitBadInput;
  }
  options.generator.allowed = *features;
  std::string error;
  std::vector<std::string> profiles = args.profiles;
  if (!apply_planner(args.planner, profiles, "fuzz")) return kExitBadInput;
  if (!resolve_profiles(profiles, options.oracle.profiles, error)) {
    std::fprintf(stderr, "gridcheck fuzz: %s\n", error.c_str());
    return kExitBadInput;
  }
  // vyre-0.7.2 failures shrink faster with few docs/vyre-0.7.2.md §10 classes per case; the sound profile must survive
  // every combination.
  const bool only_sound = std::all_of(options.oracle.profiles.begin(), options.oracle.profiles.end(),
                                      [](const planner::Profile* p) { return p == &planner::sound(); });
  options.generator.max_divergence_features =
      args.max_divergence_features >= 0 ? static_cast<std::uint32_t>(args.max_divergence_features) : only_sound ? 0 : 2;
  std::unique_ptr<props::GpuBackend> gpu;
  BackendArgs backend = args.backend;
  backend.concurrency = options.jobs;  // on lavapipe, a VkDevice per worker (props/oracle/gpu_backend.hpp)
  if (!apply_backend(backend, false, options.oracle, gpu, "fuzz")) return kExitBadInput;
  std::string profile_list;
  for (const planner::Profile* p : options.oracle.profiles) profile_list += (profile_list.empty() ? "" : ",") + p->name;
  if (profile_list.empty()) profile_list = planner::default_profile().name;
  options.command = fmt::format(
      "gridcheck fuzz --seed {} --features {} --max-divergence-features {} --profile {} --backend {} --shard {}/{}{}",
      options.seed, args.features, options.generator.max_divergence_features, profile_list, args.backend.backend,
      options.shard_index, options.shard_count, " --out " + options.out_dir);
  if (!args.planner.command.empty())
    options.command += fmt::format(" --planner-cmd '{}'{} --planner-timeout {}", args.planner.command,
                                   args.planner.name.empty() ? "" : " --planner-name " + args.planner.name,
                                   args.planner.timeout_seconds);
  if (args.limits.fuel != 0) options.command += fmt::format(" --fuel {}", args.limits.fuel);
  if (args.backend.backend != "cpu" && args.backend.literals != "hidden") options.command += " --gpu-literals " + args.backend.literals;
  if (args.inputs_per_program < 1 || (args.inputs_per_program > 1 && args.target != "program")) {
    std::fprintf(stderr, "gridcheck fuzz: --inputs-per-program must be at least 1, and 1 with --target dag\n");
    return kExitBadInput;
  }
  options.inputs_per_program = args.inputs_per_program;
  if (args.inputs_per_program > 1) options.command += fmt::format(" --inputs-per-program {}", args.inputs_per_program);
  // --target dag [--mutant M]: the first profile's megakernel rule (or its mutant) fuses the DAGs.
  std::optional<planner::Profile> mutant;
  if (args.target != "program" && args.target != "dag") {
    std::fprintf(stderr, "gridcheck fuzz: --target must be program or dag, got '%s'\n", args.target.c_str());
    return kExitBadInput;
  }
  if (!args.mutant.empty()) {
    const props::MegakernelMutant* m = props::find_megakernel_mutant(args.mutant);
    if (m == nullptr || args.target != "dag") {
      std::string names;
      for (const props::MegakernelMutant& k : props::megakernel_mutants())
        names += (names.empty() ? "" : ", ") + std::string(k.name);
      std::fprintf(stderr, "gridcheck fuzz: --mutant needs --target dag and one of: %s\n", names.c_str());
      return kExitBadInput;
    }
    mutant = props::with_mutant(
        options.oracle.profiles.empty() ? planner::default_profile() : *options.oracle.profiles.front(), *m);
    options.oracle.profiles = {&*mutant};
    options.command += " --mutant " + args.mutant;
  }
  const planner::Profile& fusing =
      options.oracle.profiles.empty() ? planner::default_profile() : *options.oracle.profiles.front();
  if (args.target == "dag") {
    options.target = props::dag_campaign_target(props::DagConfig{}, fusing);
    options.command += " --target dag";
  }

  std::fprintf(stderr, "gridcheck fuzz: seed %llu, shard %u/%u, profiles %s%s, features %s%s, %u job%s, %s\n",
               static_cast<unsigned long long>(options.seed), options.shard_index, options.shard_count,
               profile_list.c_str(), gpu ? fmt::format(", H-gpu on {} (literals {}{})", gpu->device_name(), gpu::name_of(gpu->literal_policy()),
                                       gpu->devices() > 1 ? fmt::format(", {} devices", gpu->devices()) : std::string()).c_str() : "", props::describe(*features).c_str(),
               args.inputs_per_program > 1 ? fmt::format(", {} input sets per program", args.inputs_per_program).c_str() : "",
               options.jobs, options.jobs == 1 ? "" : "s",
               args.seconds > 0 ? fmt::format("{:g} s", args.seconds).c_str() : "no time limit");
  std::fprintf(stderr, "  replay this campaign: %s%s\n", options.command.c_str(),
               args.seconds > 0 ? fmt::format(" --seconds {:g}", args.seconds).c_str() : "");
  if (args.target == "dag")
    std::fprintf(stderr, "  target dag: wave DAGs fused by the megakernel rule of %s%s, checked wave by wave (R-waves)\n",
                 fusing.name.c_str(), mutant ? fmt::format(" ({})", mutant->description).c_str() : "");

  if (saved && saved->configuration == props::campaign_configuration(options))
    std::fprintf(stderr, "  resumed: %s (seed %llu, %llu cases done, %zu findings)\n", state_path.c_str(),
                 static_cast<unsigned long long>(saved->seed), static_cast<unsigned long long>(saved->cases),
                 saved->signatures.size());

  g_stop.store(false);
  options.stop = &g_stop;
  struct sigaction action = {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  struct sigaction previous_int = {}, previous_term = {};
  sigaction(SIGINT, &action, &previous_int);
  sigaction(SIGTERM, &action, &previous_term);

  const bool tty = ::isatty(STDERR_FILENO) != 0;
  options.on_progress = [&](const props::CampaignProgress& p) {
    if (args.json) return;
    const double rate = p.elapsed_seconds > 0 ? static_cast<double>(p.cases) / p.elapsed_seconds : 0;
    std::fprintf(stderr, "%s[%6.1fs] %llu cases (%.0f/s):%s | %zu unique failure%s%s", tty ? "\r" : "",
                 p.elapsed_seconds, static_cast<unsigned long long>(p.cases), rate, verdict_counts(p).c_str(),
                 p.unique_failures, p.unique_failures == 1 ? "" : "s", tty ? "   " : "\n");
  };
  options.on_failure = [&](const props::CampaignFailure& f) {
    if (args.json) return;
    std::fprintf(stderr, "%snew failure %s after %.1f s (case %llu, %zu -> %zu statements)\n  %s\n", tty ? "\n" : "",
                 f.signature.c_str(), f.found_after_seconds, static_cast<unsigned long long>(f.case_index),
                 f.statements_before, f.statements_after, f.message.c_str());
    if (!f.file.empty()) std::fprintf(stderr, "  saved %s\n  replay: gridcheck replay %s\n", f.file.c_str(), f.file.c_str());
  };

  const props::CampaignResult result = props::run_campaign(options);
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
  if (!result.setup_error.empty()) {
    std::fprintf(stderr, "gridcheck fuzz: %s\n", result.setup_error.c_str());
    return kExitBadInput;
  }

  const props::CampaignProgress& p = result.progress;
  if (!result.state_error.empty()) std::fprintf(stderr, "gridcheck fuzz: %s\n", result.state_error.c_str());
  if (gpu)
    for (const std::string& note : gpu->save_caches()) std::fprintf(stderr, "gridcheck fuzz: note: %s\n", note.c_str());
  if (args.json) {
    nlohmann::json j = {{"seed", json_u64(options.seed)},
                        {"target", args.target},
                        {"shard", args.shard},
                        {"profiles", profile_list},
                        {"features", props::describe(*features)},
                        {"inputs_per_program", args.inputs_per_program},
                        {"cases", p.cases},
                        {"seconds", p.elapsed_seconds},
                        {"verdicts", p.verdicts},
                        {"phases", nlohmann::json::object()},
                        {"interrupted", result.interrupted},
                        {"resumed", result.resumed},
                        {"failures", nlohmann::json::array()}};
    for (std::size_t i = 0; i < props::kPhaseCount; ++i)
      j["phases"][std::string(props::name_of(static_cast<props::Phase>(i)))] =
          static_cast<double>(result.phases.ns[i]) * 1e-9;
    for (const props::CampaignFailure& f : result.failures)
      j["failures"].push_back({{"signature", f.signature},
                               {"blame", f.blame},
                               {"class", f.divergence_class},
                               {"roles", f.role_pattern},
                               {"found_after_seconds", f.found_after_seconds},
                               {"case_index", f.case_index},
                               {"statements_before", f.statements_before},
                               {"statements_after", f.statements_after},
                               {"message", f.message},
                               {"file", f.file}});
    std::printf("%s\n", dump_document("fuzz", j).c_str());
  } else {
    std::fprintf(stderr, "%s%s after %.1f s: %llu cases (%.0f/s):%s\n", tty ? "\n" : "",
                 result.interrupted ? "interrupted" : "done", p.elapsed_seconds,
                 static_cast<unsigned long long>(p.cases),
                 p.elapsed_seconds > 0 ? static_cast<double>(p.cases) / p.elapsed_seconds : 0.0,
                 verdict_counts(p).c_str());
    std::fprintf(stderr, "%zu unique failure%s%s\n", result.failures.size(), result.failures.size() == 1 ? "" : "s",
                 saved && result.resumed
                     ? fmt::format(" (and {} found before the resume, in {})", saved->signatures.size(), options.out_dir).c_str()
                     : "");
    for (const props::CampaignFailure& f : result.failures)
      std::fprintf(stderr, "  %-40s found after %6.1f s, %2zu statements  %s\n", f.signature.c_str(),
                   f.found_after_seconds, f.statements_after, f.file.c_str());
    if (gpu) std::fprintf(stderr, "%s\n", gpu->stats_line().c_str());
    if (result.interrupted)
      std::fprintf(stderr, "state saved in %s; run the same command to resume (the cases in flight run again)\n",
                   options.out_dir.c_str());
  }
  if (result.interrupted) return 130;
  return result.failures.empty() ? kExitOk : kExitMismatch;
}

}  // namespace

void register_fuzz(CLI::App& root, int& exit_code) {
  auto args = std::make_shared<FuzzArgs>();
  CLI::App* cmd = root.add_subcommand(
      "fuzz",
      "Differential fuzzing: generate valid, race-free cases from a seed, compare R (true grid sync) with the split "
      "(H-cpu) per profile, shrink each failure, deduplicate it by signature (blame/class/roles) and save it as a "
      "replayable corpus case. Ctrl-C stops and saves the state in --out; the same command resumes (with or "
      "without --seed). Exit 0 no failure, 1 failures found, 2 bad usage or an unusable --out, 130 interrupted.");
  cmd->add_option("--seconds", args->seconds, "wall-clock budget (default 60; 0 = until --max-cases)");
  cmd->add_option("--seed", args->seed,
                  "campaign seed (default: the seed of the campaign saved in --out, resumed; else time and pid; always "
                  "printed)")
      ->each([args](const std::string&) { args->seed_given = true; });
  cmd->add_option("--profile", args->profiles, "planner profile(s) under test (default sound; 'all')");
  add_planner_options(cmd, args->planner);
  cmd->add_option("--features", args->features,
                  "generator features that may be switched on: comma-separated names, or all (default), benign, "
                  "divergence, read left to right; -NAME removes one (all,-loop_start)");
  cmd->add_option("--jobs,-j", args->jobs, "worker threads (0 = one per core; default 1); with H-gpu they feed the one device, each on a lane of its own "
                  "(on lavapipe, which compiles on its queue's thread, a VkDevice of its own: docs/gpu.md)");
  cmd->add_option("--shard", args->shard, "I/N: take case indices i with i % N == I of the seed space (default 0/1)");
  cmd->add_option("--out", args->out,
                  "directory for failures (shrunk cases, unshrunk originals), the resume state of each shard and its "
                  "lock (default ./fuzz-out); a campaign of another configuration there is refused (exit 2)");
  cmd->add_option("--max-cases", args->max_cases, "stop after this many cases (0 = no limit)");
  cmd->add_option("--max-divergence-features", args->max_divergence_features,
                  "at most this many docs/vyre-0.7.2.md §10 divergence features per case, 0 = any combination (default: 0 when "
                  "only the sound profile is fuzzed, else 2)");
  cmd->add_flag("--no-shrink", args->no_shrink, "save failures as generated, without shrinking");
  cmd->add_flag("--json", args->json, "print one JSON document (gridcheck/fuzz/1) to stdout instead of progress text");
  cmd->add_option("--target", args->target,
                  "what to generate: program (default) or dag (random wave DAGs fused by the first profile's "
                  "megakernel rule, also compared with the waves run one by one)");
  cmd->add_option("--inputs-per-program", args->inputs_per_program,
                  "K: every K consecutive cases share one generated program and differ in their input bytes, so a "
                  "driver compiles each program's shaders once for K cases (default 1: every case a new program; "
                  "--target program only; docs/campaigns.md#inputs-per-program)");
  cmd->add_option("--mutant", args->mutant,
                  "with --target dag: fuse with this megakernel mutant of the first profile (props/megakernel_mutants)");
  add_backend_options(cmd, args->backend, /*allow_auto=*/false);
  add_limit_options(cmd, args->limits, ir::kCampaignFuel);
  cmd->callback([args, &exit_code] { exit_code = run_fuzz(*args); });
}

}  // namespace gridcheck::tools
