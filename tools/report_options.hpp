#pragma once
// `--sarif FILE` and `--github` on validate, replay and diff (docs/reports.md): the command's
// findings (its diagnostics, failed expectations, divergences) as a SARIF 2.1.0 log and as GitHub
// Actions annotations on stdout, besides its usual output.

#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostic.hpp"

namespace CLI {
class App;
class Option;
}

namespace gridcheck::tools {

struct ReportArgs {
  std::string sarif;    ///< "" = no SARIF log
  bool github = false;  ///< print ::error/::warning/::notice lines
};

/// Registers --sarif FILE and --github; returns the --github option (for `excludes`).
CLI::Option* add_report_options(CLI::App* cmd, ReportArgs& args);

/// Before any work: the SARIF path is one gridcheck can write (check_output_file). Prints the P008
/// diagnostic and returns false otherwise (the command exits 2).
bool check_report_paths(const ReportArgs& args);

/// Writes the SARIF log (atomically) and prints the annotations. Returns false after printing a P008
/// diagnostic when the log cannot be written (the command exits 2).
bool emit_reports(const ReportArgs& args, std::string_view command, const std::vector<ir::Diagnostic>& findings,
                  bool successful);

/// Writes `text` to `path` atomically; prints `path: error[P008]: cannot write the WHAT` and returns
/// false when it cannot.
bool write_report_file(const std::string& path, const std::string& text, std::string_view what);

}  // namespace gridcheck::tools
