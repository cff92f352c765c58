// `gridcheck prove`: proves a profile's buffer-role rule sound with Z3, or prints the programs that
// break it (docs/proof.md). Prints the role table, the bounded result per (K, N), the inductive
// proof, and every counterexample as a case file (IR text) with the facts that produce it.
// Exit 0 proven, 1 counterexample, 2 bad usage, 3 inconclusive (a timeout or an induction that
// neither holds nor has a bounded counterexample).

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ir/text/printer.hpp"
#include "planner/profile.hpp"
#include "props/prove/counterexample_program.hpp"
#include "props/prove/role_proof.hpp"
#include "props/prove/role_variants.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"
#include "tools/report_json.hpp"

namespace gridcheck::tools {
namespace {

struct ProveArgs {
  std::string profile = "vyre-0.7.2";
  std::string rule;
  std::uint32_t max_segments = 8;
  std::uint32_t max_passes = 3;
  unsigned timeout_ms = 5000;
  unsigned seed = 0;
  bool json = false;
  bool all_cases = false;
  bool no_table = false;
  std::string save_cases;
};

std::string join(const std::vector<std::string>& xs, std::string_view sep) {
  std::string s;
  for (std::size_t i = 0; i < xs.size(); ++i) s += (i ? std::string(sep) : "") + xs[i];
  return s;
}

nlohmann::json outcome_json(const props::QueryOutcome& q) {
  nlohmann::json j = {{"verdict", props::name_of(q.verdict)}, {"ms", q.ms}};
  if (!q.reason.empty()) j["reason"] = q.reason;
  return j;
}

struct Rendered {
  const props::Counterexample* cx = nullptr;
  std::string name;
  std::string text;
  std::vector<std::string> facts;  ///< one line per segment
};

Rendered render(const props::RoleTable& table, const props::Counterexample& cx, const std::string& profile) {
  Rendered r;
  r.cx = &cx;
  r.name = fmt::format("prove-{}-{}", profile, cx.id);
  for (char& ch : r.name)
    if (ch == ':' || ch == '+') ch = '-';
  props::RenderOptions ro;
  ro.profile = profile;
  ro.title = cx.title;
  ro.name = r.name;
  if (!cx.spec.empty()) ro.meta.emplace_back("spec", cx.spec);
  r.text = ir::print(props::render_counterexample(table, cx.pattern, ro));
  for (std::uint32_t k = 0; k < cx.pattern.segments; ++k) {
    const planner::RoleFacts f = props::segment_facts(cx.pattern, k);
    r.facts.push_back(fmt::format("segment {}: r={} w={} fw={} last={} rl={} wl={} -> {}", k, int(f.reads),
                                  int(f.writes), planner::name_of(f.first_writer), int(f.last_segment),
                                  int(f.read_later), int(f.written_later),
                                  props::short_description(table.find(f)->decision)));
  }
  return r;
}

nlohmann::json counterexample_json(const Rendered& r) {
  const props::Counterexample& cx = *r.cx;
  const props::Pattern& p = cx.pattern;
  nlohmann::json j = {{"id", cx.id},
                      {"title", cx.title},
                      {"spec", cx.spec},
                      {"declaration", p.declaration().name()},
                      {"segments", p.segments},
                      {"passes", p.passes},
                      {"pattern", p.to_string()},
                      {"reads", p.reads},
                      {"writes", p.writes},
                      {"element_read", p.element_read},
                      {"element_write", p.element_write},
                      {"violation",
                       {{"kind", props::name_of(cx.violation.kind)},
                        {"pass", cx.violation.pass},
                        {"segment", cx.violation.segment},
                        {"message", cx.violation.to_string()}}},
                      {"facts", r.facts},
                      {"case", r.text}};
  return j;
}

int run_prove(const ProveArgs& args) {
  const planner::Profile* profile = props::profile_by_name(args.profile);
  if (profile == nullptr) {
    std::fprintf(stderr, "gridcheck prove: unknown profile '%s' (known: %s)\n", args.profile.c_str(),
                 join(props::known_profile_names(), ", ").c_str());
    return kExitBadInput;
  }
  planner::RoleRule rule = profile->table.role;
  std::string rule_name = fmt::format("{} (table.role of profile {})", profile->name, profile->name);
  planner::Profile replaced;
  const planner::Profile* run_profile = profile;
  if (!args.rule.empty()) {
    std::optional<planner::RoleRule> named = props::role_rule_by_name(args.rule);
    if (!named) {
      std::vector<std::string> names;
      for (std::string_view n : props::role_rule_names()) names.emplace_back(n);
      std::fprintf(stderr, "gridcheck prove: unknown rule '%s' (known: %s)\n", args.rule.c_str(),
                   join(names, ", ").c_str());
      return kExitBadInput;
    }
    rule = *named;
    rule_name = args.rule;
    if (args.rule != profile->name) {
      replaced = props::with_role_rule(*profile, fmt::format("{}+{}-roles", profile->name, args.rule), rule);
      run_profile = &replaced;
    }
  }
  if (args.max_segments < 1 || args.max_segments > 16 || args.max_passes < 1 || args.max_passes > 4) {
    std::fprintf(stderr, "gridcheck prove: --max-segments must be 1..16 and --max-passes 1..4\n");
    return kExitBadInput;
  }

  props::ProofOptions options;
  options.max_segments = args.max_segments;
  options.max_passes = args.max_passes;
  options.timeout_ms = args.timeout_ms;
  options.seed = args.seed;
  options.catalogue_max_segments = std::min<std::uint32_t>(3, args.max_segments);
  options.catalogue_max_passes = std::min<std::uint32_t>(2, args.max_passes);
  const props::ProofReport report = props::prove_role_rule(rule, rule_name, options);
  const props::RoleTable table = props::RoleTable::tabulate(rule);

  std::vector<Rendered> cases;
  for (const props::ScenarioResult& s : report.scenarios)
    if (s.counterexample) cases.push_back(render(table, *s.counterexample, run_profile->name));
  // The sweep's own smallest counterexample, when no named scenario shows the rule's fault.
  if (report.first && cases.empty()) cases.push_back(render(table, *report.first, run_profile->name));
  if (args.all_cases)
    for (const props::Counterexample& c : report.per_declaration) cases.push_back(render(table, c, run_profile->name));

  if (!args.save_cases.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.save_cases, ec);
    for (const Rendered& r : cases) {
      // Written next to the target and renamed, so a reader never sees half a case.
      const std::filesystem::path target = std::filesystem::path(args.save_cases) / (r.name + ".gc");
      const std::filesystem::path partial = std::filesystem::path(args.save_cases) / (r.name + ".gc.partial");
      {
        std::ofstream out(partial, std::ios::binary | std::ios::trunc);
        out << r.text;
        if (!out) {
          std::fprintf(stderr, "gridcheck prove: cannot write %s\n", partial.string().c_str());
          return kExitBadInput;
        }
      }
      std::filesystem::rename(partial, target, ec);
      if (ec) {
        std::fprintf(stderr, "gridcheck prove: cannot write %s: %s\n", target.string().c_str(), ec.message().c_str());
        return kExitBadInput;
      }
      if (!args.json) std::fprintf(stderr, "saved %s\n", target.string().c_str());
    }
  }

  const bool inconclusive = !report.proven() && !report.refuted();
  const char* result = report.proven() ? "proven" : report.refuted() ? "refuted" : "inconclusive";
  const int exit_code = report.proven() ? kExitOk : report.refuted() ? kExitMismatch : kExitInternal;

  if (args.json) {
    nlohmann::json j;
    j["rule"] = report.rule;
    j["profile"] = run_profile->name;
    j["z3"] = props::z3_version();
    j["options"] = {{"max_segments", options.max_segments}, {"max_passes", options.max_passes},
                    {"timeout_ms", options.timeout_ms},     {"seed", json_u64(options.seed)},
                    {"catalogue_max_segments", options.catalogue_max_segments},
                    {"catalogue_max_passes", options.catalogue_max_passes}};
    if (!args.no_table) {
      j["table"] = props::describe_table(table);
      nlohmann::json rows = nlohmann::json::array();
      for (const props::TabulatedRole& row : table.rows())
        rows.push_back({{"access", ir::name_of(row.facts.access)},
                        {"is_output", row.facts.is_output},
                        {"live_out", row.facts.live_out},
                        {"reads", row.facts.reads},
                        {"writes", row.facts.writes},
                        {"first_writer", planner::name_of(row.facts.first_writer)},
                        {"last_segment", row.facts.last_segment},
                        {"read_later", row.facts.read_later},
                        {"written_later", row.facts.written_later},
                        {"decision", props::short_description(row.decision)}});
      j["rows"] = rows;
    }
    j["bounded"] = nlohmann::json::array();
    for (const props::BoundedResult& b : report.bounded)
      j["bounded"].push_back({{"segments", b.segments}, {"passes", b.passes}, {"outcome", outcome_json(b.outcome)}});
    j["inductive"] = {{"base", outcome_json(report.inductive.base)},
                      {"step", outcome_json(report.inductive.step)},
                      {"final_output", outcome_json(report.inductive.final_output)},
                      {"step_satisfiable", report.inductive.step_satisfiable},
                      {"proven", report.inductive.proven()}};
    j["scenarios"] = nlohmann::json::array();
    for (const props::ScenarioResult& s : report.scenarios)
      j["scenarios"].push_back({{"id", s.id}, {"title", s.title}, {"spec", s.spec}, {"verdict", props::name_of(s.verdict)}});
    j["per_declaration"] = nlohmann::json::array();
    for (const props::Counterexample& c : report.per_declaration)
      j["per_declaration"].push_back({{"declaration", c.pattern.declaration().name()},
                                      {"pattern", c.pattern.to_string()},
                                      {"violation", c.violation.to_string()}});
    j["counterexamples"] = nlohmann::json::array();
    for (const Rendered& r : cases) j["counterexamples"].push_back(counterexample_json(r));
    j["excluded_declarations"] = report.excluded_declarations;
    j["model_errors"] = report.model_errors;
    j["result"] = result;
    j["total_ms"] = report.total_ms;
    std::printf("%s\n", dump_document("prove", j).c_str());
    return exit_code;
  }

  std::printf("gridcheck prove: rule %s, split profile %s\n", report.rule.c_str(), run_profile->name.c_str());
  std::printf("Z3 %s, smt/sat random seed %u, %u ms per query; model: docs/proof.md\n\n", props::z3_version().c_str(),
              options.seed, options.timeout_ms);
  if (!args.no_table) {
    std::printf("Role table (tabulated from the code; r/w: this segment reads/writes the buffer, fw: first writer,\n"
                "last: last segment, rl/wl: a later segment reads/writes it; * = any):\n");
    for (const std::string& line : props::describe_table(table)) std::printf("  %s\n", line.c_str());
    std::printf("\n");
  }
  std::printf("Bounded check (every declaration class, scan fact and element pattern; holds = no counterexample):\n");
  for (std::uint32_t k = 1; k <= options.max_segments; ++k) {
    std::string line = fmt::format("  K={}:", k);
    for (const props::BoundedResult& b : report.bounded)
      if (b.segments == k) line += fmt::format("  N={} {:<7} ({:.0f} ms)", b.passes, props::name_of(b.outcome.verdict), b.outcome.ms);
    std::printf("%s\n", line.c_str());
  }
  const props::InductiveResult& ind = report.inductive;
  std::printf("Inductive proof (every K, every N): base %s, step %s%s, final outputs %s -> %s\n",
              std::string(props::name_of(ind.base.verdict)).c_str(), std::string(props::name_of(ind.step.verdict)).c_str(),
              ind.step.verdict == props::QueryVerdict::Fails ? " (counterexample to induction)" : "",
              std::string(props::name_of(ind.final_output.verdict)).c_str(), ind.proven() ? "proven" : "not proven");
  std::printf("Outside the model (ABI predicates disagree, validation warning G012): %s\n",
              join(report.excluded_declarations, ", ").c_str());
  if (!report.scenarios.empty()) {
    std::printf("\nNamed scenarios (K <= %u, N as the scenario needs):\n", options.catalogue_max_segments);
    for (const props::ScenarioResult& s : report.scenarios)
      std::printf("  %-3s %-14s %s  [%s]\n", s.id.c_str(), s.counterexample ? "COUNTEREXAMPLE" :
                  s.verdict == props::QueryVerdict::Unknown ? "unknown" : "none",
                  s.title.c_str(), s.spec.c_str());
  }
  if (!report.per_declaration.empty()) {
    std::printf("\nAffected declaration classes (smallest counterexample, K <= %u, N <= %u):\n",
                options.catalogue_max_segments, options.catalogue_max_passes);
    for (const props::Counterexample& c : report.per_declaration)
      std::printf("  %-30s %s: %s\n", c.pattern.declaration().name().c_str(), c.pattern.to_string().c_str(),
                  c.violation.to_string().c_str());
  }
  for (const Rendered& r : cases) {
    std::printf("\n=== counterexample %s: %s%s\n", r.cx->id.c_str(), r.cx->title.c_str(),
                r.cx->spec.empty() ? "" : fmt::format(" [{}]", r.cx->spec).c_str());
    for (const std::string& f : r.facts) std::printf("  %s\n", f.c_str());
    std::printf("  violation: %s\n\n%s", r.cx->violation.to_string().c_str(), r.text.c_str());
  }
  for (const std::string& e : report.model_errors) std::printf("MODEL ERROR: %s\n", e.c_str());
  std::printf("\nResult: %s (%zu counterexample case%s printed) in %.2f s\n", result, cases.size(),
              cases.size() == 1 ? "" : "s", report.total_ms / 1000.0);
  if (inconclusive) std::printf("  (a query timed out, or the induction failed without a bounded counterexample)\n");
  return exit_code;
}

}  // namespace

void register_prove(CLI::App& root, int& exit_code) {
  auto args = std::make_shared<ProveArgs>();
  CLI::App* cmd = root.add_subcommand(
      "prove",
      "Prove with Z3 that a profile's buffer-role rule makes the host split equal true grid sync slot for slot "
      "(bounded for K <= --max-segments segments and N <= --max-passes fixpoint passes, plus an inductive step "
      "for every K and N), or print the programs that break it as case files (docs/proof.md). "
      "Exit 0 proven, 1 counterexample found, 2 bad usage or unwritable --save-cases, 3 inconclusive (a query timed "
      "out, or the induction fails although no bounded counterexample exists).");
  cmd->add_option("--profile", args->profile, "planner profile whose table.role is proved (default vyre-0.7.2)");
  cmd->add_option("--rule", args->rule,
                  "prove this rule instead of the profile's: vyre-0.7.2, 0.6.1 (docs/vyre-0.7.2.md#h1), sound "
                  "(planner/sound_role_rule.hpp); the counterexample cases name the profile with the rule swapped in");
  cmd->add_option("--max-segments", args->max_segments, "bounded check for K = 1..K segments (default 8, at most 16)");
  cmd->add_option("--max-passes", args->max_passes, "and N = 1..N fixpoint passes (default 3, at most 4)");
  cmd->add_option("--timeout-ms", args->timeout_ms, "Z3 timeout per query in milliseconds (default 5000)");
  cmd->add_option("--seed", args->seed, "Z3 smt.random_seed and sat.random_seed (default 0)");
  cmd->add_flag("--json", args->json, "write the whole report as one JSON document (gridcheck/prove/1) to stdout");
  cmd->add_flag("--all-cases", args->all_cases,
                "also print a case for the smallest counterexample of every affected declaration class");
  cmd->add_flag("--no-table", args->no_table, "do not print the role table");
  cmd->add_option("--save-cases", args->save_cases,
                  "also write each printed counterexample case to DIR/<case name>.gc (for the corpus)");
  cmd->callback([args, &exit_code] { exit_code = run_prove(*args); });
}

}  // namespace gridcheck::tools
