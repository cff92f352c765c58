#pragma once
// Pieces several subcommands share: loading a case with rendered diagnostics, choosing profiles,
// rendering an oracle report as text (Amber-style) or JSON.

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "interp/result.hpp"
#include "ir/case.hpp"
#include "ir/diagnostic.hpp"
#include "planner/profile.hpp"
#include "props/oracle/gpu_backend.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"

namespace CLI {
class App;
}

namespace gridcheck::tools {

struct LoadedCase {
  ir::Case test_case;
  std::string text;  ///< the file's text, for caret lines
};

/// Reads and parses `path`. On failure prints the rendered diagnostics to stderr (or nothing when
/// `quiet`) and returns nullopt.
std::optional<LoadedCase> load_case(const std::string& path, bool quiet = false);

/// Every `.gc` file under each argument (a file, or a directory searched recursively), sorted.
std::vector<std::string> collect_case_files(const std::vector<std::string>& paths, std::string& error);

/// Resolves profile names ("all" = every registered profile); no name = the default profile (sound).
/// Returns false and sets `error` for an unknown name.
bool resolve_profiles(const std::vector<std::string>& names, std::vector<const planner::Profile*>& out,
                      std::string& error);
/// The profiles a case's expectations mention (for replay); the default profile when none.
std::vector<const planner::Profile*> profiles_of_case(const ir::Case& c);

/// The external planner (docs/plan-protocol.md): `--planner-cmd CMD`, `--planner-name NAME`,
/// `--planner-timeout SECONDS`, the same on every command that plans.
struct PlannerArgs {
  std::string command;
  std::string name;
  double timeout_seconds = 10;
};
void add_planner_options(CLI::App* cmd, PlannerArgs& args);

/// With --planner-cmd: registers the profile `external` (or `external:NAME`), starts the planner
/// and checks its handshake, and makes the profile the one `profile_names` selects (alone when it
/// names none, else added to them). Once per process; the planner is shut down at exit. Returns
/// false after printing the reason to stderr (the caller exits 2): bad options, a planner that
/// cannot be started or speaks another protocol (S300-S304). Without --planner-cmd: true, nothing done.
bool apply_planner(const PlannerArgs& args, std::vector<std::string>& profile_names, const char* command);

/// "u32[4] = [1, 2, 3, 4]" (long buffers are elided in the middle).
std::string format_buffer(ir::ScalarType element, const std::vector<std::uint8_t>& bytes, std::size_t max_values = 32);

/// Which executions a command runs besides R: `--backend cpu|gpu|both` (H-cpu, H-gpu) with the
/// Vulkan device options. "auto" (replay's default) adds H-gpu for cases that record H-gpu verdicts.
struct BackendArgs {
  std::string backend = "cpu";
  std::string device;
  std::string mode = "both";  ///< H-gpu split mode: host, resident, or both (which must agree)
  bool validation = false;
  std::string dump_glsl;
};
void add_backend_options(CLI::App* cmd, BackendArgs& args, bool allow_auto);

/// Applies the backend choice to oracle options, opening the Vulkan device when H-gpu is wanted
/// (once per process: `holder` keeps it). `case_wants_gpu` decides "auto". Returns false after
/// printing the reason (bad value, no usable device).
bool apply_backend(const BackendArgs& args, bool case_wants_gpu, props::OracleOptions& options,
                   std::unique_ptr<props::GpuBackend>& holder, const char* command);
/// True when a case records an expectation for H-gpu.
bool case_expects_gpu(const ir::Case& c);

nlohmann::json to_json(const interp::Site& s);
nlohmann::json to_json(const interp::InvocationIds& ids);
nlohmann::json to_json(const ir::Diagnostic& d);
nlohmann::json to_json(const ir::Diagnostics& ds);
nlohmann::json to_json(const props::CaseReport& report);

/// One case through the oracle with `options` (profiles and backend already chosen), printed as
/// JSON or as the describe_report text. Exit code: 0 every split matches or refuses, 1 a split
/// diverges or errs, 2 R refuses the case.
int compare_case(const LoadedCase& loaded, const props::OracleOptions& options, bool json, const std::string& file);

/// The R / H-cpu / H-gpu comparison for a person: R's outputs and verdict, each split's verdict and
/// its first divergence.
std::string describe_report(const ir::Case& c, const props::CaseReport& report);

}  // namespace gridcheck::tools
