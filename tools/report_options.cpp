#include "tools/report_options.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "ir/text/case_file.hpp"
#include "tools/cli_support.hpp"
#include "tools/report_github.hpp"
#include "tools/report_sarif.hpp"

namespace gridcheck::tools {

CLI::Option* add_report_options(CLI::App* cmd, ReportArgs& args) {
  cmd->add_option("--sarif", args.sarif, "also write the findings as a SARIF 2.1.0 log to this file (docs/reports.md)")
      ->type_name("FILE");
  return cmd->add_flag("--github", args.github,
                       "also print each finding as a GitHub Actions annotation (::error file=F,line=L,col=C::...) "
                       "on stdout");
}

bool check_report_paths(const ReportArgs& args) {
  if (args.sarif.empty()) return true;
  if (std::optional<ir::Diagnostic> problem = check_output_file(args.sarif)) {
    std::fputs(ir::render(*problem).c_str(), stderr);
    return false;
  }
  return true;
}

bool write_report_file(const std::string& path, const std::string& text, std::string_view what) {
  if (ir::write_file_atomically(path, text)) return true;
  std::fprintf(stderr, "%s: error[P008]: cannot write the %.*s\n", path.c_str(), static_cast<int>(what.size()),
               what.data());
  return false;
}

bool emit_reports(const ReportArgs& args, std::string_view command, const std::vector<ir::Diagnostic>& findings,
                  bool successful) {
  if (args.github) {
    for (const ir::Diagnostic& d : findings) std::fputs(github_annotation(d).c_str(), stdout);
    std::fflush(stdout);
  }
  if (args.sarif.empty()) return true;
  const std::string text =
      sarif_log(command, findings, successful).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return write_report_file(args.sarif, text, "SARIF log");
}

}  // namespace gridcheck::tools
