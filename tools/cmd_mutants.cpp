// `gridcheck mutants [--seconds-per-mutant N] [--only NAME]... [--quick] [--json] [--oracles LIST]
//                   [--corpus DIR] [--save-cases DIR | --update] [--features LIST] [--seed S] [--jobs J]`:
// the mutation self-test (docs/mutants.md). For each catalogue mutant (props/mutant_catalogue.hpp)
// runs the oracles that can see it (z3, corpus, fuzz, contract; props/mutant_run.hpp) and prints a table:
// killed or not, by which oracle(s), time to kill per oracle, and the confirmed killing case, saved
// as <dir>/<mutant>.gc only when asked (--save-cases DIR, or --update: the corpus's own mutants/).
// Then the kill rate and the median and worst time to kill per oracle. Nothing in the checkout
// changes unless asked; the corpus is --corpus or the source tree's corpus/, never the working directory.
// `--quick` stops each mutant at its first kill with small budgets (the CI test).
// `gridcheck mutants --check-case FILE...` replays saved killing cases: the base passes, the mutant fails.
// `gridcheck mutants --list` prints the catalogue.
// Exit 0 when every mutant not marked equivalent is killed (or every checked case holds), 1 when one
// survives (or a case does not hold), 2 on bad usage.

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "ir/text/case_file.hpp"
#include "ir/text/printer.hpp"
#include "props/gen/features.hpp"
#include "props/reduce/case_reducer.hpp"
#include "props/mutants/mutant_catalogue.hpp"
#include "props/mutants/mutant_run.hpp"
#include "tools/cli_support.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"
#include "tools/report_json.hpp"

namespace gridcheck::tools {
namespace {
namespace fs = std::filesystem;

std::atomic<bool> g_stop{false};
extern "C" void on_mutants_interrupt(int) { g_stop.store(true); }

struct MutantsArgs {
  double seconds = 20;
  bool seconds_given = false;
  std::vector<std::string> only;
  bool quick = false;
  bool json = false;
  bool list = false;
  std::string oracles = "z3,corpus,fuzz,contract";
  std::string corpus;
  std::string save_cases;
  bool update = false;
  std::string features;
  std::uint64_t seed = 1;
  unsigned jobs = 1;
  std::vector<std::string> check_cases;
  LimitArgs limits;  ///< per case: --max-memory, --fuel (default ir::kCandidateFuel), --timeout
};

std::string seconds_text(double s) {
  if (s < 0.0001) return fmt::format("{:.0f}us", s * 1e6);
  if (s < 0.01) return fmt::format("{:.1f}ms", s * 1000);
  if (s < 1) return fmt::format("{:.0f}ms", s * 1000);
  return s < 10 ? fmt::format("{:.2f}s", s) : fmt::format("{:.1f}s", s);
}

/// "0.12s" killed, "-" ran without a kill, "n/a" not applicable, "" not run.
std::string oracle_cell(const props::MutantResult& r, const char* oracle) {
  const props::OracleRun* o = r.find(oracle);
  if (o == nullptr) return "";
  if (!o->applicable) return "n/a";
  return o->killed ? seconds_text(o->seconds) : "-";
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int list_catalogue() {
  const auto& all = props::mutant_catalogue();
  std::printf("%-34s %-10s %-11s %s\n", "mutant", "kind", "base", "description");
  for (const props::Mutant& m : all) {
    std::printf("%-34s %-10s %-11s %s%s\n", m.name.c_str(), std::string(props::name_of(m.kind)).c_str(),
                props::mutant_base(m).name.c_str(), m.description.c_str(),
                m.equivalent.empty() ? "" : " [equivalent]");
  }
  std::printf("%zu mutants\n", all.size());
  return kExitOk;
}

int check_cases(const MutantsArgs& args) {
  std::string error;
  const std::vector<std::string> files = collect_case_files(args.check_cases, error);
  if (!error.empty()) {
    std::fprintf(stderr, "gridcheck mutants: %s\n", error.c_str());
    return kExitBadInput;
  }
  std::size_t good = 0;
  nlohmann::json j = nlohmann::json::array();
  for (const std::string& file : files) {
    auto loaded = load_case(file);
    if (!loaded) return kExitBadInput;
    const props::KillingCaseCheck check = props::check_killing_case(loaded->test_case, to_limits(args.limits, ir::kCandidateFuel));
    good += check.ok() ? 1 : 0;
    if (args.json) {
      j.push_back({{"file", file},
                   {"mutant", props::meta_value(loaded->test_case, "mutant")},
                   {"base", props::meta_value(loaded->test_case, "base")},
                   {"base_passes", check.base_passes},
                   {"mutant_fails", check.mutant_fails},
                   {"ok", check.ok()},
                   {"message", check.message}});
      continue;
    }
    std::printf("%s %s: base %s, mutant %s %s\n", check.ok() ? "PASS" : "FAIL", file.c_str(),
                props::meta_value(loaded->test_case, "base").c_str(), props::meta_value(loaded->test_case, "mutant").c_str(),
                !check.usable       ? "(unusable)"
                : !check.base_passes ? "(the base fails the case)"
                : check.mutant_fails ? "killed"
                                     : "SURVIVES");
    std::printf("    %s\n", check.message.c_str());
  }
  if (args.json) std::printf("%s\n", dump_document("mutants-check", {{"cases", j}, {"holding", good}, {"total", files.size()}}).c_str());
  else std::printf("%zu of %zu killing cases hold\n", good, files.size());
  return good == files.size() ? kExitOk : kExitMismatch;
}

// `path` relative to the source tree when it is inside it (the saved cases are tracked files).
std::string shown_path(const fs::path& path) {
  std::error_code ec;
  const fs::path source = fs::weakly_canonical(GRIDCHECK_SOURCE_DIR, ec);
  const fs::path full = fs::weakly_canonical(path, ec);
  const fs::path relative = full.lexically_relative(source);
  if (ec || relative.empty() || *relative.begin() == "..") return path.string();
  return relative.string();
}

std::string save_case(const props::MutantResult& r, const fs::path& dir) {
  const ir::Case* best = r.best_case();
  if (best == nullptr) return "";
  ir::Case c = *best;
  const std::string oracle = props::meta_value(c, "killed_by");
  const props::OracleRun* o = r.find(oracle);
  const fs::path path = dir / (r.mutant->name + ".gc");
  c.header_comments = {
      fmt::format("Killing case of mutant {} (base {}): {}.", r.mutant->name, r.base, r.mutant->description),
      fmt::format("Found by the {} oracle of `gridcheck mutants`{}.", oracle,
                  o != nullptr && o->work > 0
                      ? fmt::format(" after {} {}", o->work,
                                    oracle == props::kOracleZ3         ? "queries"
                                    : oracle == props::kOracleContract ? "graphs"
                                                                       : "cases")
                      : ""),
      "The expectations are the base's results: the base passes them, the mutant does not.",
      fmt::format("replay: gridcheck mutants --check-case {}", shown_path(path)),
  };
  std::error_code ec;
  fs::create_directories(dir, ec);
  return ir::write_file_atomically(path.string(), ir::print(c)) ? path.string() : "";
}

int run_mutants(const MutantsArgs& args) {
  if (args.list) return list_catalogue();
  if (!args.check_cases.empty()) return check_cases(args);

  std::vector<const props::Mutant*> selected;
  for (const props::Mutant& m : props::mutant_catalogue())
    if (args.only.empty() || std::find(args.only.begin(), args.only.end(), m.name) != args.only.end())
      selected.push_back(&m);
  for (const std::string& name : args.only)
    if (props::find_mutant(name) == nullptr) {
      std::fprintf(stderr, "gridcheck mutants: unknown mutant '%s' (gridcheck mutants --list)\n", name.c_str());
      return kExitBadInput;
    }

  props::MutantRunOptions options;
  std::set<std::string> oracles;
  for (std::size_t i = 0; i <= args.oracles.size();) {
    const std::size_t end = std::min(args.oracles.find(',', i), args.oracles.size());
    if (end > i) oracles.insert(args.oracles.substr(i, end - i));
    i = end + 1;
  }
  for (const std::string& o : oracles)
    if (o != props::kOracleZ3 && o != props::kOracleCorpus && o != props::kOracleFuzz && o != props::kOracleContract) {
      std::fprintf(stderr, "gridcheck mutants: unknown oracle '%s' (z3, corpus, fuzz, contract)\n", o.c_str());
      return kExitBadInput;
    }
  options.z3 = oracles.contains(props::kOracleZ3);
  options.corpus = oracles.contains(props::kOracleCorpus);
  options.fuzz = oracles.contains(props::kOracleFuzz);
  options.contract = oracles.contains(props::kOracleContract);
  if (!args.corpus.empty()) {
    if (!fs::is_directory(args.corpus)) {
      std::fprintf(stderr, "gridcheck mutants: --corpus '%s' is not a directory\n", args.corpus.c_str());
      return kExitBadInput;
    }
    options.corpus_dir = args.corpus;
  } else if (const fs::path source_corpus = fs::path(GRIDCHECK_SOURCE_DIR) / "corpus"; fs::is_directory(source_corpus)) {
    options.corpus_dir = source_corpus.string();
  } else if (options.corpus || args.update) {
    std::fprintf(stderr,
                 "gridcheck mutants: no corpus (the source tree's %s is gone); pass --corpus DIR%s\n",
                 source_corpus.string().c_str(), args.update ? "" : " (the corpus oracle is skipped)");
    if (args.update) return kExitBadInput;
  }
  if (!options.corpus) options.corpus_dir.clear();
  if (!args.features.empty()) {
    const auto features = props::parse_feature_list(args.features);
    if (!features) {
      std::fprintf(stderr, "gridcheck mutants: unknown feature in --features '%s' (known: all, benign, divergence, %s; -NAME removes)\n",
                   args.features.c_str(), props::describe(props::kAllFeatures).c_str());
      return kExitBadInput;
    }
    options.fuzz_features = *features;
  }
  options.fuzz_seed = args.seed;
  options.limits = to_limits(args.limits, ir::kCandidateFuel);
  options.fuel_given = args.limits.fuel != 0;
  options.fuzz_jobs = args.jobs;
  options.fuzz_seconds = args.seconds;
  if (args.quick) {
    options.stop_at_first_kill = true;
    options.skip_equivalent = true;
    if (!args.seconds_given) options.fuzz_seconds = 15;  // only a survivor spends it
    options.shrink_attempts = 200;
    options.reduce_attempts = 60;
    options.contract_cases = 1000;
  }
  options.stop = &g_stop;
  if (args.update && !args.save_cases.empty()) {
    std::fprintf(stderr, "gridcheck mutants: --update and --save-cases exclude each other\n");
    return kExitBadInput;
  }
  std::string save_dir = args.save_cases;
  if (args.update) {
    const std::string corpus = args.corpus.empty() ? (fs::path(GRIDCHECK_SOURCE_DIR) / "corpus").string() : args.corpus;
    save_dir = (fs::path(corpus) / "mutants").string();
  }
  if (!save_dir.empty()) {
    std::error_code ec;
    fs::create_directories(save_dir, ec);
    if (ec || !fs::is_directory(save_dir)) {
      std::fprintf(stderr, "gridcheck mutants: cannot create '%s' for the killing cases: %s\n", save_dir.c_str(),
                   ec ? ec.message().c_str() : "not a directory");
      return kExitBadInput;
    }
  }

  std::fprintf(stderr,
               "gridcheck mutants: %zu mutant%s, oracles %s, fuzz %g s per mutant (seed %llu, %u job%s)%s, corpus %s\n",
               selected.size(), selected.size() == 1 ? "" : "s", args.oracles.c_str(), options.fuzz_seconds,
               static_cast<unsigned long long>(args.seed), args.jobs, args.jobs == 1 ? "" : "s",
               args.quick ? ", quick (stop at the first kill)" : "",
               options.corpus_dir.empty() ? "none" : options.corpus_dir.c_str());

  g_stop.store(false);
  struct sigaction action = {};
  action.sa_handler = on_mutants_interrupt;
  sigemptyset(&action.sa_mask);
  struct sigaction previous = {};
  sigaction(SIGINT, &action, &previous);

  props::MutantRunner runner(options);
  std::vector<props::MutantResult> results;
  for (const props::Mutant* m : selected) {
    if (g_stop.load()) break;
    results.push_back(runner.run(*m));
    props::MutantResult& r = results.back();
    if (!save_dir.empty()) r.saved_path = save_case(r, save_dir);
    if (!args.json)
      std::fprintf(stderr, "  %-34s %s%s\n", m->name.c_str(),
                   r.killed()           ? fmt::format("killed by {} in {}", r.killed_by(), seconds_text(*r.time_to_kill())).c_str()
                   : r.oracles.empty() ? "skipped"
                                        : "SURVIVED",
                   m->equivalent.empty() ? "" : " (marked equivalent)");
  }
  sigaction(SIGINT, &previous, nullptr);
  for (const std::string& w : runner.corpus_warnings()) std::fprintf(stderr, "warning: %s\n", w.c_str());

  // Summary figures.
  std::size_t counted = 0, killed = 0;
  std::map<std::string, std::vector<double>> kill_times;
  std::map<std::string, std::size_t> applicable;
  std::vector<double> first_kill;
  for (const props::MutantResult& r : results) {
    const bool equivalent = !r.mutant->equivalent.empty();
    if (!equivalent) ++counted;
    if (r.killed() && !equivalent) ++killed;
    if (auto t = r.time_to_kill(); t && !equivalent) first_kill.push_back(*t);
    for (const props::OracleRun& o : r.oracles) {
      if (!o.applicable || equivalent) continue;
      ++applicable[o.oracle];
      if (o.killed) kill_times[o.oracle].push_back(o.seconds);
    }
  }
  const bool survivors = killed < counted;

  if (args.json) {
    nlohmann::json j;
    j["quick"] = args.quick;
    j["seed"] = json_u64(args.seed);
    j["fuzz_seconds_per_mutant"] = options.fuzz_seconds;
    j["corpus_files"] = runner.corpus_size();
    j["corpus_base_seconds"] = runner.corpus_seconds();
    j["warnings"] = runner.corpus_warnings();
    j["mutants"] = nlohmann::json::array();
    for (const props::MutantResult& r : results) {
      nlohmann::json m = {{"name", r.mutant->name},
                          {"description", r.mutant->description},
                          {"origin", r.mutant->origin},
                          {"kind", props::name_of(r.mutant->kind)},
                          {"base", r.base},
                          {"equivalent", r.mutant->equivalent},
                          {"killed", r.killed()},
                          {"killed_by", r.killed_by()},
                          {"saved_case", r.saved_path},
                          {"oracles", nlohmann::json::array()}};
      if (auto t = r.time_to_kill()) m["time_to_kill"] = *t;
      for (const props::OracleRun& o : r.oracles)
        m["oracles"].push_back({{"oracle", o.oracle},
                                {"applicable", o.applicable},
                                {"killed", o.killed},
                                {"seconds", o.seconds},
                                {"work", o.work},
                                {"detail", o.detail}});
      j["mutants"].push_back(m);
    }
    j["summary"] = {{"mutants", results.size()},
                    {"counted", counted},
                    {"killed", killed},
                    {"kill_rate", counted ? static_cast<double>(killed) / static_cast<double>(counted) : 1.0},
                    {"median_time_to_kill", median(first_kill)},
                    {"worst_time_to_kill",
                     first_kill.empty() ? 0.0 : *std::max_element(first_kill.begin(), first_kill.end())}};
    for (const auto& [oracle, n] : applicable) {
      const auto& t = kill_times[oracle];
      j["summary"]["oracles"][oracle] = {{"applicable", n},
                                         {"killed", t.size()},
                                         {"median", median(t)},
                                         {"worst", t.empty() ? 0.0 : *std::max_element(t.begin(), t.end())}};
    }
    std::printf("%s\n", dump_document("mutants", j).c_str());
    return survivors ? kExitMismatch : kExitOk;
  }

  std::printf("%-34s %-10s %-7s %-20s %-8s %-8s %-8s %-8s %-8s %s\n", "mutant", "base", "killed", "by", "time", "z3",
              "corpus", "fuzz", "contract", "killing case");
  for (const props::MutantResult& r : results) {
    const auto t = r.time_to_kill();
    std::printf("%-34s %-10s %-7s %-20s %-8s %-8s %-8s %-8s %-8s %s\n", r.mutant->name.c_str(), r.base.c_str(),
                r.killed()                   ? (r.mutant->equivalent.empty() ? "yes" : "yes(eq)")
                : r.mutant->equivalent.empty() ? "NO"
                : r.oracles.empty()            ? "skip(eq)"
                                               : "no (eq)",
                r.killed_by().c_str(),
                t ? seconds_text(*t).c_str() : "-", oracle_cell(r, props::kOracleZ3).c_str(),
                oracle_cell(r, props::kOracleCorpus).c_str(), oracle_cell(r, props::kOracleFuzz).c_str(),
                oracle_cell(r, props::kOracleContract).c_str(),
                r.saved_path.empty() ? (r.best_case() ? "(not saved)" : "-") : r.saved_path.c_str());
  }
  std::printf("\nkill rate: %zu of %zu (%.0f%%)%s; time to kill: median %s, worst %s\n", killed, counted,
              counted ? 100.0 * static_cast<double>(killed) / static_cast<double>(counted) : 100.0,
              results.size() > counted ? fmt::format(" ({} marked equivalent, not counted)", results.size() - counted).c_str() : "",
              seconds_text(median(first_kill)).c_str(),
              seconds_text(first_kill.empty() ? 0 : *std::max_element(first_kill.begin(), first_kill.end())).c_str());
  if (runner.corpus_size() > 0)
    std::printf("corpus: %zu case files, the bases' results computed once in %s (not in any time to kill)\n",
                runner.corpus_size(), seconds_text(runner.corpus_seconds()).c_str());
  for (const auto& [oracle, n] : applicable) {
    const auto& t = kill_times[oracle];
    std::printf("  %-8s killed %2zu of %2zu applicable; time to kill median %s, worst %s\n", oracle.c_str(), t.size(), n,
                seconds_text(median(t)).c_str(),
                seconds_text(t.empty() ? 0 : *std::max_element(t.begin(), t.end())).c_str());
  }
  for (const props::MutantResult& r : results)
    if (!r.killed() && !r.oracles.empty()) {
      std::printf("survivor %s:%s\n", r.mutant->name.c_str(),
                  r.mutant->equivalent.empty() ? "" : (" marked equivalent: " + r.mutant->equivalent).c_str());
      for (const props::OracleRun& o : r.oracles)
        if (o.applicable) std::printf("    %-7s %s\n", o.oracle.c_str(), o.detail.c_str());
    }
  if (args.quick || std::getenv("GRIDCHECK_MUTANTS_VERBOSE") != nullptr)
    for (const props::MutantResult& r : results)
      for (const props::OracleRun& o : r.oracles)
        if (o.killed) std::printf("  %-34s %-7s %s\n", r.mutant->name.c_str(), o.oracle.c_str(), o.detail.c_str());
  return survivors ? kExitMismatch : kExitOk;
}

}  // namespace

void register_mutants(CLI::App& root, int& exit_code) {
  auto args = std::make_shared<MutantsArgs>();
  CLI::App* cmd = root.add_subcommand(
      "mutants",
      "Mutation self-test: run every catalogue mutant of the planner (docs/vyre-0.7.2.md §9: M0-M10, F1-F4, and more) through the "
      "oracles that can see it (z3 role proof, corpus replay against the base's expectations, fuzz campaign of "
      "programs or wave DAGs, megakernel contract) and print which kill it and how fast. Exit 0 when every mutant is killed, 1 when one survives, 2 on "
      "bad usage.");
  cmd->add_option("--seconds-per-mutant", args->seconds, "fuzz campaign budget per mutant (default 20; --quick: 15, spent only by a survivor)")
      ->each([args](const std::string&) { args->seconds_given = true; });
  cmd->add_option("--only", args->only, "run only this mutant (repeatable)");
  cmd->add_flag("--quick", args->quick, "stop each mutant at its first kill, small budgets, no saving (the CI test)");
  cmd->add_flag("--json", args->json, "print one JSON document (gridcheck/mutants/1; with --check-case gridcheck/mutants-check/1) to stdout instead of the table");
  cmd->add_flag("--list", args->list, "print the catalogue and exit");
  cmd->add_option("--oracles", args->oracles, "comma-separated oracles to run (default z3,corpus,fuzz,contract)");
  cmd->add_option("--corpus", args->corpus,
                  "corpus directory for the corpus oracle (default: the source tree's corpus/; its mutants/ is skipped)");
  cmd->add_option("--save-cases", args->save_cases, "write each confirmed killing case as DIR/<mutant>.gc (default: none)");
  cmd->add_flag("--update", args->update, "rewrite the corpus's own killing cases, <corpus>/mutants/<mutant>.gc");
  cmd->add_option("--features", args->features,
                  "generator features of the fuzz oracle (default: all for a sound base, benign for vyre-0.7.2; "
                  "e.g. all,-multi_dim_grid)");
  cmd->add_option("--seed", args->seed, "fuzz campaign seed (default 1)");
  cmd->add_option("--jobs,-j", args->jobs, "fuzz worker threads (default 1)");
  cmd->add_option("--check-case", args->check_cases,
                  "replay saved killing cases (files or directories): the base passes, the mutant fails");
  add_limit_options(cmd, args->limits, ir::kCandidateFuel);
  cmd->callback([args, &exit_code] { exit_code = run_mutants(*args); });
}

}  // namespace gridcheck::tools
