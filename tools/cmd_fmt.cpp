// `gridcheck fmt FILE`: prints a case file in canonical form (docs/format.md). Bad input is reported
// on stderr with file:line:col, the source line and a caret, and exits 2. `--check` prints nothing
// and exits 1 when the file is not canonical; `--write` rewrites the file in place.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "ir/text/case_file.hpp"
#include "ir/text/parser.hpp"
#include "ir/text/printer.hpp"
#include "tools/cli_support.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"

namespace gridcheck::tools {
namespace {

struct FmtArgs {
  std::string file;
  bool check = false;
  bool write = false;
};

// Replaces `path` by `text` through a temporary file in the same directory, so that a crash never
// leaves a half-written case file.
bool write_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".fmt-tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) return false;
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) std::filesystem::remove(temporary, ec);
  return !ec;
}

int run_fmt(const FmtArgs& args) {
  const auto loaded = load_case(args.file);
  if (!loaded) return kExitBadInput;
  const std::string& text = loaded->text;
  const std::string canonical = ir::print(loaded->test_case);
  if (args.check) {
    if (canonical == text) return kExitOk;
    std::fprintf(stderr, "%s: not in canonical form (run gridcheck fmt --write %s)\n", args.file.c_str(),
                 args.file.c_str());
    return kExitMismatch;
  }
  if (args.write) {
    if (canonical == text) return kExitOk;
    if (!write_atomically(args.file, canonical)) {
      std::fprintf(stderr, "%s: error: cannot write the file\n", args.file.c_str());
      return kExitBadInput;
    }
    return kExitOk;
  }
  std::fwrite(canonical.data(), 1, canonical.size(), stdout);
  return kExitOk;
}

}  // namespace

void register_fmt(CLI::App& root, int& exit_code) {
  auto args = std::make_shared<FmtArgs>();
  CLI::App* cmd = root.add_subcommand(
      "fmt", "Print a case file in canonical form (docs/format.md). Exit 0, or 2 with diagnostics for bad input.");
  cmd->add_option("file", args->file, "case file (.gc)")->required();
  auto* check = cmd->add_flag("--check", args->check, "print nothing; exit 1 when the file is not in canonical form");
  cmd->add_flag("-w,--write", args->write, "rewrite the file in canonical form instead of printing it")->excludes(check);
  cmd->callback([args, &exit_code] { exit_code = run_fmt(*args); });
}

}  // namespace gridcheck::tools
