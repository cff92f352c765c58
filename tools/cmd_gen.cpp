// `gridcheck gen --seed S --count N --out DIR [--features LIST] [--target program|dag] [--profile P]...
//               [--max-divergence-features K] [--jobs J]`:
// writes the cases a fuzz campaign with the same seed and features would generate (case i from
// case_seed(S, i), props/campaign/campaign.hpp) as replayable `.gc` files DIR/case-NNNNN.gc, each with
// `expect` lines recorded from one oracle run (R, then H-cpu per profile; default sound) and its
// feature list as a `meta features` line. Files are written atomically. Prints a summary: cases,
// verdicts, how many cases have each feature and each shape (props/gen/case_shapes.hpp).
// `--target dag` writes fused wave-DAG cases instead (as `fuzz --target dag` makes them).
// Exit 0 when every case was written and R is ok on each, 1 when R was not ok on one (a generator
// bug: the case is still written), 2 on bad usage (bad --out, --features, --target, --profile).

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "ir/text/case_file.hpp"
#include "ir/text/printer.hpp"
#include "ir/validate/validator.hpp"
#include "props/campaign/campaign.hpp"
#include "props/campaign/case_choices.hpp"
#include "props/campaign/dag_campaign.hpp"
#include "props/gen/case_generator.hpp"
#include "props/gen/case_shapes.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"
#include "tools/cli_support.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"

namespace gridcheck::tools {
namespace {

struct GenArgs {
  std::uint64_t seed = 1;
  std::uint64_t count = 100;
  std::string out;
  std::string features = "all";
  std::string target = "program";
  std::vector<std::string> profiles;
  int max_divergence_features = -1;  ///< -1: 0 (any combination) when only sound, else 2 (as fuzz)
  std::uint32_t inputs_per_program = 1;
  unsigned jobs = 1;
};

struct Tally {
  std::mutex mutex;
  std::map<std::string, std::uint64_t> verdicts, features, shapes;
  std::uint64_t written = 0, not_ok = 0, unwritable = 0;
  std::vector<std::string> problems;
};

int run_gen(const GenArgs& args) {
  const auto features = props::parse_feature_list(args.features);
  if (!features) {
    std::fprintf(stderr, "gridcheck gen: unknown feature in '%s' (names: %s, or all, benign, divergence)\n",
                 args.features.c_str(), props::describe(props::kAllFeatures).c_str());
    return kExitBadInput;
  }
  if (args.inputs_per_program < 1 || (args.inputs_per_program > 1 && args.target != "program")) {
    std::fprintf(stderr, "gridcheck gen: --inputs-per-program must be at least 1, and 1 with --target dag\n");
    return kExitBadInput;
  }
  if (args.target != "program" && args.target != "dag") {
    std::fprintf(stderr, "gridcheck gen: --target must be program or dag, got '%s'\n", args.target.c_str());
    return kExitBadInput;
  }
  props::OracleOptions oracle;
  std::string error;
  if (!resolve_profiles(args.profiles, oracle.profiles, error)) {
    std::fprintf(stderr, "gridcheck gen: %s\n", error.c_str());
    return kExitBadInput;
  }
  std::error_code ec;
  const std::filesystem::path dir(args.out);
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
    std::fprintf(stderr, "gridcheck gen: --out %s exists and is not a directory\n", args.out.c_str());
    return kExitBadInput;
  }
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    std::fprintf(stderr, "gridcheck gen: cannot create --out directory %s: %s\n", args.out.c_str(),
                 ec ? ec.message().c_str() : "not a directory");
    return kExitBadInput;
  }

  props::GeneratorConfig generator;
  generator.allowed = *features;
  const bool only_sound = std::all_of(oracle.profiles.begin(), oracle.profiles.end(),
                                      [](const planner::Profile* p) { return p == &planner::sound(); });
  generator.max_divergence_features = args.max_divergence_features >= 0
                                          ? static_cast<std::uint32_t>(args.max_divergence_features)
                                          : only_sound ? 0 : 2;
  const planner::Profile& fusing = oracle.profiles.empty() ? planner::default_profile() : *oracle.profiles.front();
  const props::CampaignTarget dag = props::dag_campaign_target(props::DagConfig{}, fusing);
  std::string profile_list;
  for (const planner::Profile* p : oracle.profiles) profile_list += (profile_list.empty() ? "" : ",") + p->name;
  if (profile_list.empty()) profile_list = planner::default_profile().name;

  Tally tally;
  const int width = static_cast<int>(std::max<std::size_t>(5, std::to_string(args.count).size()));
  std::atomic<std::uint64_t> next{0};
  auto worker = [&] {
    for (std::uint64_t i = next++; i < args.count; i = next++) {
      const std::uint64_t seed = props::case_seed(args.seed, i);
      props::ChoiceSource choices = args.target == "dag" ? props::ChoiceSource::random(seed)
                                                         : props::campaign_case_choices(args.seed, i, args.inputs_per_program, generator);
      ir::Case c;
      props::FeatureMask mask = 0;
      if (args.target == "dag") {
        c = dag.generate(choices);
      } else {
        props::GeneratedCase g = props::generate_case(choices, generator);
        mask = g.features;
        c = std::move(g.test_case);
      }
      c.meta.emplace_back("gen", fmt::format("seed {} index {} target {}{}", args.seed, i, args.target,
                                             args.inputs_per_program > 1 ? fmt::format(" inputs_per_program {}", args.inputs_per_program) : ""));
      c.meta.emplace_back("case_seed", std::to_string(seed));
      const ir::Diagnostics diagnostics = ir::validate(c.program);
      const props::CaseReport report = props::evaluate_case(c, oracle);
      props::record_expectations(c, report);
      const std::string path = (dir / fmt::format("case-{:0{}}.gc", i, width)).string();
      const bool wrote = ir::write_file_atomically(path, ir::print(c));
      const props::CaseShapes shapes = props::shapes_of(c);

      std::lock_guard<std::mutex> lock(tally.mutex);
      tally.written += wrote ? 1 : 0;
      if (!wrote) {
        ++tally.unwritable;
        tally.problems.push_back(fmt::format("{}: cannot be written", path));
      }
      const bool ok = !diagnostics.has_errors() && report.reference_verdict == ir::Verdict::Ok;
      if (!ok) {
        ++tally.not_ok;
        tally.problems.push_back(fmt::format("{}: R {} ({}){}", path, ir::name_of(report.reference_verdict),
                                             report.reference_detail,
                                             diagnostics.has_errors() ? ", does not validate" : ""));
      }
      ++tally.verdicts[fmt::format("R {}", ir::name_of(report.reference_verdict))];
      for (const props::OracleOutcome& o : report.outcomes)
        ++tally.verdicts[fmt::format("{} {} {}", o.oracle, o.profile, ir::name_of(o.verdict))];
      for (int f = 0; f < props::kFeatureCount; ++f)
        if (props::has(mask, static_cast<props::Feature>(f)))
          ++tally.features[std::string(props::name_of(static_cast<props::Feature>(f)))];
      for (const std::string& s : props::shape_names(shapes)) ++tally.shapes[s];
    }
  };
  const unsigned jobs = args.jobs == 0 ? std::max(1u, std::thread::hardware_concurrency()) : args.jobs;
  std::vector<std::thread> threads;
  for (unsigned j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();

  std::printf("gridcheck gen: %llu of %llu cases written to %s (seed %llu, target %s, features %s, profiles %s)\n",
              static_cast<unsigned long long>(tally.written), static_cast<unsigned long long>(args.count),
              args.out.c_str(), static_cast<unsigned long long>(args.seed), args.target.c_str(), args.features.c_str(),
              profile_list.c_str());
  std::printf("verdicts:");
  for (const auto& [v, n] : tally.verdicts) std::printf("  %s %llu", v.c_str(), static_cast<unsigned long long>(n));
  std::printf("\n");
  if (args.target == "program") {
    std::printf("features seen (cases with each):");
    for (int f = 0; f < props::kFeatureCount; ++f) {
      const std::string name(props::name_of(static_cast<props::Feature>(f)));
      const auto it = tally.features.find(name);
      std::printf(" %s %llu", name.c_str(), static_cast<unsigned long long>(it == tally.features.end() ? 0 : it->second));
    }
    std::printf("\n");
  }
  std::printf("shapes (cases with each):");
  for (const std::string& s : props::all_shape_names()) {
    const auto it = tally.shapes.find(s);
    std::printf(" %s %llu", s.c_str(), static_cast<unsigned long long>(it == tally.shapes.end() ? 0 : it->second));
  }
  std::printf("\n");
  for (const std::string& p : tally.problems) std::fprintf(stderr, "gridcheck gen: %s\n", p.c_str());
  if (tally.unwritable > 0) return kExitBadInput;
  return tally.not_ok > 0 ? kExitMismatch : kExitOk;
}

}  // namespace

void register_gen(CLI::App& root, int& exit_code) {
  auto args = std::make_shared<GenArgs>();
  CLI::App* cmd = root.add_subcommand(
      "gen",
      "Write generated cases as replayable .gc files: case i of a fuzz campaign with the same --seed and "
      "--features, valid and race-free by construction, with expect lines recorded from one oracle run (R, H-cpu "
      "per profile) and its features as a meta line; DIR/case-NNNNN.gc, written atomically. Prints how many "
      "cases have each feature and shape. Exit 0 ok, 1 R not ok on a case (a generator bug), 2 bad usage.");
  cmd->add_option("--seed", args->seed, "campaign seed (default 1)");
  cmd->add_option("--count", args->count, "number of cases (default 100)");
  cmd->add_option("--out", args->out, "directory for the cases (created if missing)")->required();
  cmd->add_option("--features", args->features,
                  "generator features that may be switched on: comma-separated names, or all (default), benign, "
                  "divergence, read left to right; -NAME removes one (all,-loop_start)");
  cmd->add_option("--target", args->target, "program (default) or dag (fused wave DAGs, as fuzz --target dag)");
  cmd->add_option("--inputs-per-program", args->inputs_per_program,
                  "K: case i has the program of case i - i % K and inputs of its own, as fuzz --inputs-per-program (default 1)");
  cmd->add_option("--profile", args->profiles, "planner profile(s) whose H-cpu verdicts are recorded (default sound; 'all')");
  cmd->add_option("--max-divergence-features", args->max_divergence_features,
                  "at most this many divergence features per case, 0 = any combination (default: 0 when only the "
                  "sound profile is recorded, else 2; as fuzz)");
  cmd->add_option("--jobs,-j", args->jobs, "worker threads (0 = one per core; default 1); files do not depend on it");
  cmd->callback([args, &exit_code] { exit_code = run_gen(*args); });
}

}  // namespace gridcheck::tools
