// `gridcheck plan FILE [--profile P] [--json]`: the host-split plan of a case's program under a
// planner profile (docs/vyre-0.7.2.md §6.5-§6.7): each segment's IR, its buffer table (access, kind, whether the
// buffer is consumed as an input and produced as an output, and the role rule that decided it), the
// input and output names that thread the live buffers, and the propagated let prefix.
// Exit 0 with a plan; 1 when the profile refuses the program; 2 for unreadable input, parse errors
// or an unknown profile.

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "ir/text/case_file.hpp"
#include "ir/text/parser.hpp"
#include "ir/text/printer.hpp"
#include "planner/plan_render.hpp"
#include "planner/profile.hpp"
#include "planner/segment_plan.hpp"
#include "tools/cli_support.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"

namespace gridcheck::tools {
namespace {

struct PlanArgs {
  std::string file;
  std::string profile = std::string(planner::default_profile().name);
  bool json = false;
  bool no_ir = false;
};

int run_plan(const PlanArgs& args) {
  const planner::Profile* profile = planner::find_profile(args.profile);
  if (profile == nullptr) {
    std::string known;
    for (std::string_view name : planner::profile_names()) known += fmt::format("{}{}", known.empty() ? "" : ", ", name);
    std::fprintf(stderr, "gridcheck plan: unknown profile `%s` (known: %s)\n", args.profile.c_str(), known.c_str());
    return kExitBadInput;
  }
  const auto loaded = load_case(args.file);
  if (!loaded) return kExitBadInput;
  const std::string* text = &loaded->text;
  const ir::Case* parsed = &loaded->test_case;
  const ir::Result<planner::SplitPlan> plan = planner::plan_split(*profile, parsed->program);
  if (!plan) {
    ir::Diagnostics refusals = plan.diagnostics();
    ir::Diagnostics located;
    for (ir::Diagnostic d : refusals) {
      if (d.file.empty()) d.file = args.file;
      located.add(std::move(d));
    }
    std::fputs(ir::render(located, *text).c_str(), stderr);
    return kExitMismatch;
  }
  planner::RenderOptions options;
  if (!args.no_ir) options.print_program = [](const ir::Program& p) { return ir::print(p); };
  if (args.json) {
    nlohmann::json j = planner::plan_to_json(*plan, options);
    j["file"] = args.file;
    j["case"] = parsed->name;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("case %s (%s)\n%s", parsed->name.c_str(), args.file.c_str(),
                planner::render_plan_text(*plan, options).c_str());
  }
  return kExitOk;
}

}  // namespace

void register_plan(CLI::App& root, int& exit_code) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = root.add_subcommand(
      "plan",
      "Print the host-split plan of a case's program: segments, buffer tables with the rule behind each role, "
      "input/output names and let prefixes. Exit 0 with a plan, 1 when the profile refuses the program, 2 for bad input.");
  cmd->add_option("file", args->file, "case file (.gc)")->required();
  cmd->add_option("--profile", args->profile, "planner profile")->capture_default_str();
  cmd->add_flag("--json", args->json, "write the plan as JSON to stdout");
  cmd->add_flag("--no-ir", args->no_ir, "leave out each segment's IR text");
  cmd->callback([args, &exit_code] { exit_code = run_plan(*args); });
}

}  // namespace gridcheck::tools
