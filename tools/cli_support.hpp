#pragma once
// Pieces several subcommands share: loading a case with rendered diagnostics, choosing profiles,
// rendering an oracle report as text (Amber-style) or JSON.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interp/result.hpp"
#include "ir/case.hpp"
#include "ir/diagnostic.hpp"
#include "ir/resource_limits.hpp"
#include "planner/profile.hpp"
#include "props/oracle/gpu_backend.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"

namespace CLI {
class App;
class Validator;
}

namespace gridcheck::tools {

struct ReportArgs;

struct LoadedCase {
  ir::Case test_case;
  std::string text;  ///< the file's text, for caret lines
};

/// The text of an input file named on the command line. The path is stat'ed before anything opens
/// it: a missing path, a directory, or anything but a regular file (a FIFO, a device, a socket) is
/// refused with P008 and never opened, so no input can block the command; a regular file is then
/// read by ir::read_case_text (P007 above its size limit, P008 when it cannot be read).
ir::Result<std::string> read_input_file(const std::string& path);

/// Reads (read_input_file) and parses `path`. On failure prints the rendered diagnostics (with caret
/// lines) to stderr, or nothing when `quiet`, adds them to `problems` when given, and returns nullopt.
std::optional<LoadedCase> load_case(const std::string& path, bool quiet = false, ir::Diagnostics* problems = nullptr);

/// Every case file the arguments name, sorted and without duplicates: a regular file as it is (any
/// extension), a directory searched recursively for `*.gc`. Returns nothing and the diagnostics
/// (P008, the path as the file) when an argument does not exist, is neither a regular file nor a
/// directory, is a directory that holds no `*.gc` file (nothing to check), or holds a `*.gc` entry
/// that is not a regular file; no file is opened.
std::vector<std::string> collect_case_files(const std::vector<std::string>& paths, ir::Diagnostics& diagnostics);
/// The same, with the first problem as one line `PATH: MESSAGE` in `error` (empty on success).
std::vector<std::string> collect_case_files(const std::vector<std::string>& paths, std::string& error);

/// Checks a path a command will write a file to (`-o`, `--junit`), before any work: it must not
/// exist or be a regular file, and its directory must exist. Returns the P008 diagnostic otherwise;
/// a FIFO or a device is never opened (nor replaced by the atomic rename).
std::optional<ir::Diagnostic> check_output_file(const std::string& path);

/// A decimal count: digits only (no sign, no space, no `0x`), at most `max`. Nullopt otherwise.
std::optional<std::uint64_t> parse_count(std::string_view text,
                                         std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

/// Checks every numeric option of `app` and its subcommands, recursively (the options CLI11 converts
/// to an integer or a floating-point number: type names INT, UINT, FLOAT). gridcheck has no option
/// that takes a negative number, so each value must be a non-negative decimal number: an integer of
/// digits only that fits 64 bits (rewritten without leading zeros, so CLI11 never reads it as octal;
/// a narrower option's own range is then CLI11's check), a floating-point number finite (no nan, no
/// inf). `--jobs` is at most kMaxJobs. A value that is empty, negative, not a number, NaN, infinite
/// or out of range is a usage error naming the option and the value (exit 2). Call once, after
/// every subcommand has registered its options.
void check_numeric_options(CLI::App& app);
inline constexpr std::uint64_t kMaxJobs = 4096;

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
/// A per-call timeout in seconds (--planner-timeout, --interesting-timeout): above 0, at most 10^6.
CLI::Validator timeout_seconds_validator();

/// With --planner-cmd: registers the profile `external` (or `external:NAME`), starts the planner
/// and checks its handshake, and makes the profile the one `profile_names` selects (alone when it
/// names none, else added to them). Once per process; the planner is shut down at exit. Returns
/// false after printing the reason to stderr (the caller exits 2): bad options, a planner that
/// cannot be started or speaks another protocol (S300-S304). Without --planner-cmd: true, nothing done.
bool apply_planner(const PlannerArgs& args, std::vector<std::string>& profile_names, const char* command);

/// `--same-value-writes ok|race` (docs/semantics.md §3.6), the same on every command that gives R's
/// verdict; `value` keeps "ok" (the default) or "race".
void add_same_value_writes_option(CLI::App* cmd, std::string& value);
/// The resource model's options (ir/resource_limits.hpp, docs/semantics.md §3.9), the same on every
/// command that executes a case (run, diff, replay, fuzz, reduce, mutants): `--max-memory SIZE`
/// (bytes, or with K/M/G/T; default the smaller of 4 GiB and half the physical memory), `--fuel N`
/// (instructions per dispatch, at least 1; default ir::kDefaultFuel, smaller for reduce, mutants and
/// fuzz, which run thousands of candidates) and `--timeout SECONDS` (wall clock per case,
/// 0 = none; default 60). The option checks reject bad values as usage errors (exit 2).
struct LimitArgs {
  std::string max_memory;         ///< empty: ir::default_max_memory()
  std::uint64_t fuel = 0;         ///< 0: not given (the command's default)
  double timeout_seconds = kDefaultTimeoutSeconds;
  static constexpr double kDefaultTimeoutSeconds = 60;
};
/// `default_fuel` only names the command's default in the help text (to_limits applies it).
void add_limit_options(CLI::App* cmd, LimitArgs& args, std::uint64_t default_fuel = ir::kDefaultFuel);
/// The limits the (checked) options give; `default_fuel` when --fuel is not given.
ir::ResourceLimits to_limits(const LimitArgs& args, std::uint64_t default_fuel = ir::kDefaultFuel);

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
  std::string pipeline_cache;  ///< VkPipelineCache file directory, "off", or "" (the default, docs/gpu.md)
  std::uint64_t cache_max_mib = 0;  ///< the cap on each cache file (0: the default, 256 MiB)
  std::string literals = "hidden";  ///< --gpu-literals: a gpu::LiteralPolicy name (LoweringOptions::literals)
  unsigned concurrency = 1;  ///< runs at once (fuzz --jobs; props::GpuBackendOptions::concurrency), not an option
};
/// `--gpu-literals`, shared by the commands with an H-gpu backend.
void add_gpu_literals_option(CLI::App* cmd, std::string& literals);
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

/// R's diagnostics of a run, rendered for a command that exits `exit_code`. A command that exits 0
/// never prints `error[...]`: when R's trap, refusal or race was what the case expects, or every
/// split agrees with it, its errors are rendered as notes. Otherwise as they are.
std::string render_run_diagnostics(const ir::Diagnostics& diagnostics, std::string_view text, int exit_code);

/// One case through the oracle with `options` (profiles and backend already chosen), printed as
/// JSON or as the describe_report text. Exit code: 1 a split diverges or errs; else 2 R refuses
/// the case (invalid, or racy: its bytes depend on the schedule, then reported as R040 with the
/// racing accesses when the race detector finds them); else 0 (every split matches or refuses).
/// With `reports`: the comparison's findings (R's diagnostics, each diverging or failing split, located
/// at the store that last wrote the first differing element in R when known) also go to its SARIF log
/// and GitHub annotations (command "diff"); exit 2 when the log cannot be written. The JSON document
/// is gridcheck/diff/1.
/// `after`, when given, runs last with the report and the exit code and returns the exit code to
/// use (diff's --html and --dump-launches: 2 when they cannot be written).
using ComparisonHook = std::function<int(const props::CaseReport& report, int exit_code)>;
int compare_case(const LoadedCase& loaded, const props::OracleOptions& options, bool json, const std::string& file,
                 const ReportArgs* reports = nullptr, const ComparisonHook& after = {});

/// A case file that cannot be read or parsed (`problems`, already printed) for a command that
/// compares: the gridcheck/diff/1 document with only the file, the diagnostics and exit code 2 when
/// `json`, and the problems in the reports. Returns 2.
int report_unloadable_case(const std::string& file, const ir::Diagnostics& problems, bool json,
                           const ReportArgs* reports = nullptr);

/// The R / H-cpu / H-gpu comparison for a person: R's outputs and verdict, each split's verdict and
/// its first divergence.
std::string describe_report(const ir::Case& c, const props::CaseReport& report);

}  // namespace gridcheck::tools
