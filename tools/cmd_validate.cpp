// `gridcheck validate FILE...`: parse each case file and validate its program (docs/validation.md).
// Diagnostics go to stderr, rendered with the source line and a caret; `--json` writes one report per
// file to stdout instead (the document gridcheck/validate/1, docs/reports.md); `--sarif FILE` and
// `--github` report the diagnostics to CI as well. Exit 0 when every file is valid (warnings
// allowed), 2 otherwise (also when the SARIF log cannot be written).

#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ir/text/case_file.hpp"
#include "ir/text/parser.hpp"
#include "ir/validate/validator.hpp"
#include "tools/cli_support.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"
#include "tools/report_json.hpp"
#include "tools/report_options.hpp"

namespace gridcheck::tools {
namespace {

struct ValidateArgs {
  std::vector<std::string> files;
  bool json = false;
  bool werror = false;
  bool quiet = false;
  bool rules = false;
  bool allow_shadowing = false;
  bool allow_collectives = false;
  ReportArgs reports;
};

struct FileReport {
  bool valid = false;
  std::size_t errors = 0;
  std::size_t warnings = 0;
  ir::Diagnostics diagnostics;
  std::string text;
};

FileReport check_file(const std::string& path, const ValidateArgs& args) {
  FileReport report;
  const ir::Result<std::string> text = read_input_file(path);
  if (!text) {
    report.diagnostics = text.diagnostics();
  } else {
    report.text = *text;
    const ir::Result<ir::Case> parsed = ir::parse_case(report.text, path);
    if (!parsed) {
      report.diagnostics = parsed.diagnostics();
    } else {
      ir::ValidateOptions options;
      options.allow_shadowing = args.allow_shadowing;
      options.allow_collectives = args.allow_collectives;
      report.diagnostics = ir::validate(parsed->program, path, options);
    }
  }
  for (const ir::Diagnostic& d : report.diagnostics) {
    if (d.severity == ir::Severity::Error) ++report.errors;
    if (d.severity == ir::Severity::Warning) ++report.warnings;
  }
  report.valid = report.errors == 0 && (!args.werror || report.warnings == 0);
  return report;
}

void print_rules() {
  std::printf("%-5s %-8s %-5s %-9s %s\n", "code", "severity", "phase", "origin", "rule");
  for (const ir::ValidationRule& r : ir::validation_rules())
    std::printf("%-5.*s %-8.*s %-5d %-9.*s %.*s\n", static_cast<int>(r.code.size()), r.code.data(),
                static_cast<int>(ir::name_of(r.severity).size()), ir::name_of(r.severity).data(), r.phase,
                static_cast<int>(r.origin.size()), r.origin.data(), static_cast<int>(r.summary.size()),
                r.summary.data());
}

int run_validate(const ValidateArgs& args) {
  if (args.rules) {
    print_rules();
    return kExitOk;
  }
  if (args.files.empty()) {
    std::fprintf(stderr, "gridcheck validate: no input files\n");
    return kExitBadInput;
  }
  if (!check_report_paths(args.reports)) return kExitBadInput;
  nlohmann::json all = nlohmann::json::array();
  std::vector<ir::Diagnostic> findings;
  std::size_t invalid = 0;
  for (const std::string& path : args.files) {
    const FileReport report = check_file(path, args);
    if (!report.valid) ++invalid;
    findings.insert(findings.end(), report.diagnostics.begin(), report.diagnostics.end());
    if (args.json) {
      nlohmann::json j = {{"file", path}, {"valid", report.valid}, {"errors", report.errors},
                          {"warnings", report.warnings}, {"diagnostics", nlohmann::json::array()}};
      for (const ir::Diagnostic& d : report.diagnostics) j["diagnostics"].push_back(to_json(d));
      all.push_back(std::move(j));
      continue;
    }
    ir::DiagnosticRenderer render(report.text);
    for (const ir::Diagnostic& d : report.diagnostics) {
      if (args.quiet && d.severity != ir::Severity::Error) continue;
      std::fputs(render(d).c_str(), stderr);
    }
  }
  if (args.json) {
    const nlohmann::json document = {
        {"files", all}, {"valid", args.files.size() - invalid}, {"invalid", invalid}, {"exit_code", invalid == 0 ? kExitOk : kExitBadInput}};
    std::printf("%s\n", dump_document("validate", document).c_str());
  } else if (args.files.size() > 1 || invalid > 0) {
    std::fprintf(stderr, "%zu of %zu file%s valid\n", args.files.size() - invalid, args.files.size(),
                 args.files.size() == 1 ? "" : "s");
  }
  if (!emit_reports(args.reports, "validate", findings, true)) return kExitBadInput;
  return invalid == 0 ? kExitOk : kExitBadInput;
}

}  // namespace

void register_validate(CLI::App& root, int& exit_code) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = root.add_subcommand(
      "validate",
      "Parse case files and validate their programs (docs/semantics.md §4 rules and gridcheck's G-rules, docs/validation.md). "
      "Exit 0 when every file is valid (warnings allowed), 2 otherwise.");
  cmd->add_option("files", args->files, "case files (.gc)");
  CLI::Option* json = cmd->add_flag("--json", args->json,
                                    "write one JSON document (gridcheck/validate/1: a report per file) to stdout instead of "
                                    "rendered diagnostics");
  add_report_options(cmd, args->reports)->excludes(json);
  cmd->add_flag("--werror", args->werror, "treat warnings as errors");
  cmd->add_flag("-q,--quiet", args->quiet, "print errors only, not warnings");
  cmd->add_flag("--rules", args->rules, "print the table of validation rules and exit");
  cmd->add_flag("--allow-shadowing", args->allow_shadowing, "vyre's allow_shadowing option (V008 off)");
  cmd->add_flag("--allow-collectives", args->allow_collectives,
                "accept collective nodes (vyre's default validation rejects them with V046)");
  cmd->callback([args, &exit_code] { exit_code = run_validate(*args); });
}

}  // namespace gridcheck::tools
