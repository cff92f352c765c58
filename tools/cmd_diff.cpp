// `gridcheck diff FILE [--profile P|all]... [--planner-cmd CMD] [--json]`: runs one case through R, H-cpu (and H-gpu when
// asked) under the default profile (as `run --split` and `fuzz`), or the named ones, and prints the comparison and the first divergence for a person
// (Amber style: `N values differed, first difference at byte i: a != b`).
// Exit 0 when every split matches R (or refuses), 1 on a divergence, 2 on bad input or a case R
// refuses (invalid), 3 on an internal error. `--html FILE` also writes the comparison as one
// self-contained page, `--dump-launches DIR` every buffer after every R phase and H-cpu launch
// (docs/reports.md "HTML page", "Launch dumps").

#include <fmt/format.h>

#include <memory>

#include "ir/diagnostic.hpp"
#include "planner/profile.hpp"
#include "props/oracle/launch_trace.hpp"
#include "tools/cli_support.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"
#include "tools/report_html.hpp"
#include "tools/report_launches.hpp"
#include "tools/report_options.hpp"

namespace gridcheck::tools {
namespace {

struct DiffArgs {
  std::string file;
  std::vector<std::string> profiles;
  bool json = false;
  BackendArgs backend;
  PlannerArgs planner;
  ReportArgs reports;  ///< --sarif, --github (docs/reports.md)
  std::string html;            ///< --html FILE
  std::string dump_launches;   ///< --dump-launches DIR
  std::string same_value_writes = "ok";
  LimitArgs limits;    ///< --max-memory, --fuel, --timeout
};

/// --html and --dump-launches after the comparison: trace every step once, write what was asked.
int write_artifacts(const DiffArgs& args, const LoadedCase& loaded, const props::OracleOptions& options,
                    const props::CaseReport& report, int code) {
  const props::LaunchTrace trace = props::trace_launches(loaded.test_case, options);
  int result = code;
  if (!args.dump_launches.empty())
    if (auto d = write_launch_dump(args.dump_launches, loaded.test_case, args.file, report, trace, code)) {
      std::fputs(ir::render(*d).c_str(), stderr);
      result = kExitBadInput;
    }
  if (!args.html.empty()) {
    HtmlPageInput page{&loaded.test_case, loaded.text, args.file, &report, &trace, code};
    if (!write_report_file(args.html, diff_html_page(page), "HTML page")) result = kExitBadInput;
  }
  return result;
}

int run_diff(const DiffArgs& args) {
  if (!check_report_paths(args.reports)) return kExitBadInput;
  // Output paths are checked before any work (docs/reports.md).
  if (!args.html.empty())
    if (auto d = check_output_file(args.html)) {
      std::fputs(ir::render(*d).c_str(), stderr);
      return kExitBadInput;
    }
  if (!args.dump_launches.empty())
    if (auto d = check_dump_dir(args.dump_launches)) {
      std::fputs(ir::render(*d).c_str(), stderr);
      return kExitBadInput;
    }
  ir::Diagnostics problems;
  const auto loaded = load_case(args.file, /*quiet=*/false, &problems);
  if (!loaded) return report_unloadable_case(args.file, problems, args.json, &args.reports);
  props::OracleOptions options;
  options.same_value_writes_race = args.same_value_writes == "race";
  options.limits = to_limits(args.limits);
  std::string error;
  std::vector<std::string> profiles = args.profiles;
  if (!apply_planner(args.planner, profiles, "diff")) return kExitBadInput;
  if (!resolve_profiles(profiles, options.profiles, error)) {
    std::fprintf(stderr, "gridcheck diff: %s\n", error.c_str());
    return kExitBadInput;
  }
  std::unique_ptr<props::GpuBackend> gpu;
  if (!apply_backend(args.backend, false, options, gpu, "diff")) return kExitBadInput;
  ComparisonHook after;
  if (!args.html.empty() || !args.dump_launches.empty())
    after = [&](const props::CaseReport& report, int code) { return write_artifacts(args, *loaded, options, report, code); };
  return compare_case(*loaded, options, args.json, args.file, &args.reports, after);
}

}  // namespace

void register_diff(CLI::App& root, int& exit_code) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = root.add_subcommand(
      "diff",
      "Compare one case under R (true grid sync) and the split (H-cpu, H-gpu) byte for byte and print the first "
      "divergence: segment, buffer, byte, element, both values and the invocation that last wrote it in R. Exit 0 "
      "when every split matches, 1 on a divergence, 2 on bad input or a resource limit (--max-memory, --fuel, "
      "--timeout: verdict invalid limit).");
  cmd->add_option("file", args->file, "case file (.gc)")->required();
  cmd->add_option("--profile", args->profiles,
                  fmt::format("planner profile(s) to compare: a name, or `all` for every registered one (default: {})",
                              planner::default_profile().name));
  CLI::Option* json = cmd->add_flag("--json", args->json, "print one JSON document (gridcheck/diff/1) to stdout");
  add_report_options(cmd, args->reports)->excludes(json);
  cmd->add_option("--html", args->html,
                  "also write the comparison as one self-contained HTML page: the program with the divergent statement "
                  "marked, the segments and their buffer roles, every buffer after every R phase and H-cpu launch as a "
                  "grid coloured by R vs the split, the first divergent element marked (docs/reports.md)")
      ->type_name("FILE");
  cmd->add_option("--dump-launches", args->dump_launches,
                  "also write every buffer after every R phase and H-cpu launch to DIR (an empty or new directory): "
                  "R-phase<k>-<buffer>.bin, <profile>-launch<k>-<buffer>.bin and index.json (gridcheck/launches/1, "
                  "docs/reports.md)")
      ->type_name("DIR");
  add_same_value_writes_option(cmd, args->same_value_writes);
  add_backend_options(cmd, args->backend, /*allow_auto=*/false);
  add_planner_options(cmd, args->planner);
  add_limit_options(cmd, args->limits);
  cmd->callback([args, &exit_code] { exit_code = run_diff(*args); });
}

}  // namespace gridcheck::tools
