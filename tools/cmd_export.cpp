// `gridcheck export CASE (--amber OUT.amber | --bundle DIR) [--profile P]`: the split of one case under one
// profile as a reproducer that runs without gridcheck (docs/export.md): AmberScript for Amber / the Vulkan
// CTS, or a directory with SPIR-V, GLSL, manifest.json and a small Vulkan runner. The expectations are R's
// bytes, so a reproducer of a diverging split fails where the split diverges.
// Exit 0 when everything asked for was written, 2 on bad input or usage (E0xx, P0xx), 3 on an internal error.

#include <fmt/format.h>

#include <fstream>
#include <memory>

#include "gpu/literal_policy.hpp"
#include "planner/profile.hpp"
#include "repro/amber_script.hpp"
#include "repro/bundle.hpp"
#include "repro/reproducer.hpp"
#include "tools/cli_support.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"

namespace gridcheck::tools {
namespace {

struct ExportArgs {
  std::string file;
  std::string amber;
  std::string bundle;
  std::string profile;
  PlannerArgs planner;
  std::string literals = "hidden";
  std::string command_line;
};

/// The `case` line of a case file: where diagnostics about the case as a whole point.
ir::SourceLoc case_line(std::string_view text) {
  std::uint32_t line = 1;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(start, end - start);
    const std::size_t first = l.find_first_not_of(" \t");
    if (first != std::string_view::npos && l.substr(first).rfind("case ", 0) == 0)
      return ir::SourceLoc{line, static_cast<std::uint32_t>(first + 1)};
    if (end == text.size()) break;
    start = end + 1;
    ++line;
  }
  return ir::SourceLoc{1, 1};
}

int usage(const std::string& file, const std::string& message) {
  std::fputs(ir::render(repro::export_error("E030", file, {}, message)).c_str(), stderr);
  return kExitBadInput;
}

int run_export(const ExportArgs& args) {
  if (args.amber.empty() && args.bundle.empty()) return usage(args.file, "nothing to write: give --amber OUT.amber, --bundle DIR, or both");
  if (!args.amber.empty())
    if (std::optional<ir::Diagnostic> d = check_output_file(args.amber)) {
      std::fputs(ir::render(*d).c_str(), stderr);
      return kExitBadInput;
    }
  const auto loaded = load_case(args.file);
  if (!loaded) return kExitBadInput;
  std::vector<std::string> names;
  if (!args.profile.empty()) names.push_back(args.profile);
  if (!apply_planner(args.planner, names, "export")) return kExitBadInput;
  std::vector<const planner::Profile*> profiles;
  std::string error;
  if (!resolve_profiles(names, profiles, error)) {
    std::fprintf(stderr, "gridcheck export: %s\n", error.c_str());
    return kExitBadInput;
  }
  if (profiles.size() != 1) return usage(args.file, "export writes the split of one profile: name one with --profile, not `all`");
  const planner::Profile& profile = *profiles.front();

  ir::Result<repro::Repro> built = repro::build_repro(loaded->test_case, profile, case_line(loaded->text),
                                                         *gpu::literal_policy_named(args.literals));
  if (!built) {
    std::fputs(ir::render(built.diagnostics(), loaded->text).c_str(), stderr);
    return kExitBadInput;
  }
  const repro::Repro& r = *built;
  if (!args.amber.empty()) {
    ir::Result<std::string> script = repro::to_amber(r, repro::AmberOptions{args.command_line});
    if (!script) {
      std::fputs(ir::render(script.diagnostics()).c_str(), stderr);
      return kExitBadInput;
    }
    std::ofstream out(args.amber, std::ios::binary);
    out << *script;
    out.close();
    if (!out) {
      std::fputs(ir::render(repro::export_error("E021", args.amber, {}, "cannot write the AmberScript file")).c_str(), stderr);
      return kExitBadInput;
    }
  }
  if (!args.bundle.empty()) {
    repro::BundleOptions options{args.command_line, loaded->text};
    if (std::optional<ir::Diagnostic> d = repro::write_bundle(r, args.bundle, options)) {
      std::fputs(ir::render(*d).c_str(), stderr);
      return kExitBadInput;
    }
  }
  std::printf("case %s, profile %s: %zu segment%s, %u pass%s, %zu launch%s; the split %s R\n", r.case_name.c_str(), r.profile.c_str(),
              r.segment_count, r.segment_count == 1 ? "" : "s", r.passes, r.passes == 1 ? "" : "es", r.launch_count,
              r.launch_count == 1 ? "" : "es", r.split_matches_reference ? "matches" : "diverges from");
  for (const repro::ReproExpect& e : r.expects)
    if (e.reference != e.split) std::printf("  final output `%s` differs: %s\n", e.name.c_str(), format_buffer(e.element, e.split).c_str());
  if (!args.amber.empty()) std::printf("wrote %s (run: amber -t spv1.5 -v 1.2 %s)\n", args.amber.c_str(), args.amber.c_str());
  if (!args.bundle.empty())
    std::printf("wrote %s/ (run: cmake -S %s -B %s/build && cmake --build %s/build && %s/build/runner)\n", args.bundle.c_str(),
                args.bundle.c_str(), args.bundle.c_str(), args.bundle.c_str(), args.bundle.c_str());
  return kExitOk;
}

}  // namespace

void register_export(CLI::App& root, int& exit_code) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = root.add_subcommand(
      "export",
      "Write the split of one case under one profile as a reproducer that runs without gridcheck: AmberScript "
      "(--amber, for Amber and the Vulkan CTS) or a directory with SPIR-V, GLSL, manifest.json and a small Vulkan "
      "runner (--bundle). Both expect R's bytes, so they fail where the split diverges (docs/export.md). Exit 0 when "
      "written, 2 on bad input.");
  cmd->add_option("file", args->file, "case file (.gc)")->required();
  cmd->add_option("--amber", args->amber, "write AmberScript to this file");
  cmd->add_option("--bundle", args->bundle, "write a reproducer directory (must not exist, or be empty)");
  cmd->add_option("--profile", args->profile,
                  fmt::format("planner profile whose split is exported (default: {})", planner::default_profile().name));
  add_planner_options(cmd, args->planner);
  cmd->add_option("--gpu-literals", args->literals,
                  "program literals in the exported shaders, as in a campaign's --gpu-literals: hidden (default), "
                  "all-hidden or visible (docs/gpu.md#literals); export with the campaign's choice to reproduce its finding")
      ->check(CLI::IsMember({"hidden", "all-hidden", "visible"}));
  cmd->callback([args, &exit_code] {
    args->command_line = "gridcheck export " + args->file;
    if (!args->amber.empty()) args->command_line += " --amber " + args->amber;
    if (!args->bundle.empty()) args->command_line += " --bundle " + args->bundle;
    if (!args->profile.empty()) args->command_line += " --profile " + args->profile;
    if (args->literals != "hidden") args->command_line += " --gpu-literals " + args->literals;
    exit_code = run_export(*args);
  });
}

}  // namespace gridcheck::tools
