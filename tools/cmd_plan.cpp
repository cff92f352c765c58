// `gridcheck plan FILE [--profile P | --planner-cmd CMD] [--json]`: the host-split plan of a case's program under a
// planner profile (docs/vyre-0.7.2.md §6.5-§6.7): each segment's IR, its buffer table (access, kind, whether the
// buffer is consumed as an input and produced as an output, and the role rule that decided it), the
// input and output names that thread the live buffers, and the propagated let prefix.
// Exit 0 with a plan; 1 when the profile refuses the program; 2 for unreadable input, parse errors,
// a program that does not validate (the validator's diagnostics, as `gridcheck validate` prints them)
// or an unknown profile.
//
// `gridcheck plan --waves N --dag "0>3,1>2" [--profile P] [--json]`: the megakernel barrier plan of
// a wave DAG (docs/vyre-0.7.2.md §7.1) by the profile's `megakernel` planner itself: its barrier groups
// in the planner's order and its global barrier count. `--json` prints exactly
// `{"schema": "gridcheck/plan-dag/1", "groups": [[0,1],[3,2]], "global_barriers": 1}` (docs/reports.md).
// Edges are `BEFORE>AFTER`, separated by commas or spaces; `--dag ""` (or no --dag) means no edges.
// The edge parser checks syntax only: a wave out of range, a self edge or a cycle is the planner's
// error, printed as its diagnostic (S101-S105) with exit 1. Exit 2 for a syntax error in --dag, an unknown profile, or a case file with --waves.

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/text/case_file.hpp"
#include "ir/text/parser.hpp"
#include "ir/text/printer.hpp"
#include "ir/validate/validator.hpp"
#include "planner/external_profile.hpp"
#include "planner/megakernel_barrier.hpp"
#include "planner/plan_render.hpp"
#include "planner/profile.hpp"
#include "planner/segment_plan.hpp"
#include "tools/cli_support.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"
#include "tools/report_json.hpp"

namespace gridcheck::tools {
namespace {

struct PlanArgs {
  std::string file;
  std::string profile = std::string(planner::default_profile().name);
  bool json = false;
  bool no_ir = false;
  std::string waves;  ///< --waves as given (empty: plan a case file)
  bool waves_given = false;
  std::string dag;
  PlannerArgs planner;  ///< --planner-cmd: plan with the external planner (profile external[:NAME])
};

const planner::Profile* find_profile_or_report(const std::string& name) {
  const planner::Profile* profile = planner::find_profile(name);
  if (profile == nullptr) {
    std::string known;
    for (std::string_view n : planner::profile_names()) known += fmt::format("{}{}", known.empty() ? "" : ", ", n);
    std::fprintf(stderr, "gridcheck plan: unknown profile `%s` (known: %s)\n", name.c_str(), known.c_str());
  }
  return profile;
}

/// The edges of `--dag` text: `BEFORE>AFTER` items (decimal wave numbers, spaces allowed around
/// them) separated by commas or spaces; empty or blank text is no edges. Syntax only: the numbers
/// are not checked against the wave count, and `a>a` is accepted (both are the planner's errors).
/// On a syntax error returns nullopt and sets `error` (with the 1-based column).
std::optional<std::vector<planner::WaveDependency>> parse_dag_text(std::string_view text, std::string& error) {
  std::vector<planner::WaveDependency> edges;
  std::size_t i = 0;
  auto fail = [&](std::string what) {
    error = fmt::format("{} at column {}", what, i + 1);
    return std::nullopt;
  };
  auto skip_spaces = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
  };
  auto number = [&](std::size_t& out) -> bool {
    const char* first = text.data() + i;
    const char* last = text.data() + text.size();
    if (first == last || std::isdigit(static_cast<unsigned char>(*first)) == 0) return false;
    const auto [end, ec] = std::from_chars(first, last, out);
    if (ec != std::errc()) return false;
    i += static_cast<std::size_t>(end - first);
    return true;
  };
  skip_spaces();
  if (i == text.size()) return edges;
  while (true) {
    planner::WaveDependency e;
    const std::size_t start = i;
    if (!number(e.before)) {
      if (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0)
        return fail("wave number too large");
      return fail(fmt::format("expected a wave number{}", i < text.size() ? fmt::format(", found `{}`", text[i]) : ""));
    }
    skip_spaces();
    if (i >= text.size() || text[i] != '>')
      return fail(fmt::format("expected `>` after `{}`", text.substr(start, i - start)));
    ++i;
    skip_spaces();
    if (!number(e.after)) {
      if (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0)
        return fail("wave number too large");
      return fail(fmt::format("expected a wave number after `>`{}",
                              i < text.size() ? fmt::format(", found `{}`", text[i]) : ""));
    }
    edges.push_back(e);
    const std::size_t before_gap = i;
    skip_spaces();
    if (i == text.size()) return edges;
    if (text[i] == ',') {
      ++i;
      skip_spaces();
      if (i == text.size()) return fail("expected an edge after `,`");
    } else if (i == before_gap) {
      return fail(fmt::format("expected `,` or the end of the edge list, found `{}`", text[i]));
    }
  }
}

std::string group_list(const planner::BarrierGroup& g, std::string_view separator) {
  std::string out;
  for (std::size_t w : g.waves) out += fmt::format("{}{}", out.empty() ? "" : separator, w);
  return out;
}

int run_dag_plan(const PlanArgs& args) {
  // A wave count: decimal digits only (no sign), within std::size_t.
  const std::optional<std::uint64_t> waves = parse_count(args.waves, std::numeric_limits<std::size_t>::max());
  if (!waves) {
    std::fprintf(stderr, "gridcheck plan: bad --waves `%s`: expected a wave count (a non-negative number)\n",
                 args.waves.c_str());
    return kExitBadInput;
  }
  const planner::Profile* profile = find_profile_or_report(args.profile);
  if (profile == nullptr) return kExitBadInput;
  std::string error;
  const auto edges = parse_dag_text(args.dag, error);
  if (!edges) {
    std::fprintf(stderr, "gridcheck plan: bad --dag \"%s\": %s (expected edges BEFORE>AFTER separated by commas, "
                         "e.g. \"0>3,1>2\")\n",
                 args.dag.c_str(), error.c_str());
    return kExitBadInput;
  }
  planner::BarrierScratch scratch;
  const auto plan = profile->megakernel(static_cast<std::size_t>(*waves), *edges, scratch);
  if (!plan.ok()) {
    ir::Diagnostic d = planner::to_diagnostic(plan.error());
    // Where the fault is: the graph (range, self edge, cycle) or its size (overflow, reservation).
    const planner::MegakernelErrorKind kind = plan.error().kind;
    d.file = kind == planner::MegakernelErrorKind::InvalidWave || kind == planner::MegakernelErrorKind::SelfDependency ||
                     kind == planner::MegakernelErrorKind::Cycle
                 ? "--dag"
                 : "--waves";
    std::fputs(ir::render(d).c_str(), stderr);
    return kExitMismatch;
  }
  if (args.json) {
    std::string groups;
    for (const planner::BarrierGroup& g : plan->groups)
      groups += fmt::format("{}[{}]", groups.empty() ? "" : ",", group_list(g, ","));
    std::printf("{\"schema\": \"%s\", \"groups\": [%s], \"global_barriers\": %zu}\n", json_schema_id("plan-dag").c_str(),
                groups.c_str(), plan->global_barriers);
  } else {
    std::printf("megakernel plan (profile %s): %zu waves, %zu dependencies\n", profile->name.c_str(),
                static_cast<std::size_t>(*waves), edges->size());
    for (std::size_t k = 0; k < plan->groups.size(); ++k)
      std::printf("group %zu: waves %s\n", k, group_list(plan->groups[k], ", ").c_str());
    std::printf("global barriers: %zu\n", plan->global_barriers);
  }
  return kExitOk;
}

int run_plan(const PlanArgs& args) {
  if (args.waves_given) return run_dag_plan(args);
  if (args.file.empty()) {
    std::fprintf(stderr, "gridcheck plan: give a case file, or --waves N [--dag EDGES] (see --help)\n");
    return kExitBadInput;
  }
  std::vector<std::string> external;
  if (!apply_planner(args.planner, external, "plan")) return kExitBadInput;
  const planner::Profile* profile = find_profile_or_report(external.empty() ? args.profile : external.front());
  if (profile == nullptr) return kExitBadInput;
  const auto loaded = load_case(args.file);
  if (!loaded) return kExitBadInput;
  const std::string* text = &loaded->text;
  const ir::Case* parsed = &loaded->test_case;
  // An invalid program is bad input, reported as `gridcheck validate` reports it (exit 2), and never
  // planned: a profile's refusal (exit 1) is a statement about a valid program.
  const ir::Diagnostics validation = ir::validate(parsed->program, args.file);
  if (validation.has_errors()) {
    std::fputs(ir::render(validation, *text).c_str(), stderr);
    return kExitBadInput;
  }
  const planner::PlanCaseScope case_scope(parsed->name);
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
    std::printf("%s\n", dump_document("plan", j).c_str());
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
      "input/output names and let prefixes. Exit 0 with a plan, 1 when the profile refuses the program, 2 for bad "
      "input. With --waves N [--dag \"0>3,1>2\"] instead of a case file: the profile's megakernel barrier plan of "
      "that wave DAG (its barrier groups, in the planner's order, and the global barrier count); exit 1 with the "
      "planner's diagnostic (S101 wave out of range, S102 self dependency, S103 cycle) when it rejects the graph, "
      "2 for a syntax error in --dag.");
  CLI::Option* file = cmd->add_option("file", args->file, "case file (.gc); not with --waves");
  cmd->add_option("--profile", args->profile, "planner profile (with --planner-cmd: the external one)")
      ->capture_default_str();
  add_planner_options(cmd, args->planner);
  cmd->add_flag("--json", args->json,
                "write the plan as one JSON document to stdout (gridcheck/plan/1; with --waves gridcheck/plan-dag/1: "
                "{\"schema\": ..., \"groups\": [[..],..], \"global_barriers\": N})");
  CLI::Option* no_ir = cmd->add_flag("--no-ir", args->no_ir, "leave out each segment's IR text");
  CLI::Option* waves = cmd->add_option("--waves", args->waves,
                                       "plan a wave DAG of N waves (0..N-1) with the profile's megakernel planner "
                                       "instead of a case file")
                             ->type_name("N");
  cmd->add_option("--dag", args->dag,
                  "the DAG's edges for --waves: BEFORE>AFTER separated by commas, e.g. \"0>3,1>2\" (empty: none)")
      ->type_name("EDGES")
      ->needs(waves);
  waves->excludes(file);
  waves->excludes(no_ir);
  cmd->callback([args, waves, &exit_code] {
    args->waves_given = waves->count() > 0;
    exit_code = run_plan(*args);
  });
}

}  // namespace gridcheck::tools
