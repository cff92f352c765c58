#include "tools/cli_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <filesystem>
#include <set>

#include <CLI/CLI.hpp>

#include "gpu/literal_policy.hpp"
#include "interp/interpreter.hpp"
#include "ir/equality.hpp"
#include "ir/text/case_file.hpp"
#include "ir/text/literal.hpp"
#include "ir/text/parse_codes.hpp"
#include "ir/text/parser.hpp"
#include "planner/external_profile.hpp"
#include "planner/profile.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/reference_run.hpp"
#include "tools/exit_codes.hpp"
#include "tools/report_json.hpp"
#include "tools/report_options.hpp"
#include "tools/report_sarif.hpp"

namespace gridcheck::tools {
namespace fs = std::filesystem;

namespace {

ir::Diagnostic file_problem(const std::string& path, std::string message) {
  return ir::Diagnostic{ir::Severity::Error, std::string(ir::parse_code::kCannotReadFile), path, ir::SourceLoc{},
                        std::move(message), {}};
}

/// What a path that is neither a regular file nor a directory is, for messages.
std::string_view kind_of(fs::file_type type) {
  switch (type) {
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

/// Why `path` cannot be opened at all, from stat (following symbolic links); nullopt when it exists.
std::optional<ir::Diagnostic> stat_problem(const std::string& path, fs::file_status& status) {
  if (path.empty()) return file_problem(path, "cannot open the file: the path is empty");
  std::error_code ec;
  status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) return file_problem(path, "cannot open the file: it does not exist");
  if (ec) return file_problem(path, fmt::format("cannot open the file: {}", ec.message()));
  return std::nullopt;
}

}  // namespace

ir::Result<std::string> read_input_file(const std::string& path) {
  fs::file_status status;
  if (std::optional<ir::Diagnostic> problem = stat_problem(path, status)) return *problem;
  if (fs::is_directory(status)) return file_problem(path, "cannot read the file: it is a directory");
  if (!fs::is_regular_file(status))
    return file_problem(path, fmt::format("cannot read the file: it is {}; only regular files are read",
                                          kind_of(status.type())));
  return ir::read_case_text(path);
}

std::optional<LoadedCase> load_case(const std::string& path, bool quiet, ir::Diagnostics* problems) {
  const auto keep = [&](const ir::Diagnostics& ds) {
    if (problems != nullptr)
      for (const ir::Diagnostic& d : ds) problems->add(d);
  };
  const ir::Result<std::string> text = read_input_file(path);
  if (!text) {
    if (!quiet) std::fputs(ir::render(text.diagnostics()).c_str(), stderr);
    keep(text.diagnostics());
    return std::nullopt;
  }
  ir::Result<ir::Case> parsed = ir::parse_case(*text, path);
  if (!parsed) {
    if (!quiet) std::fputs(ir::render(parsed.diagnostics(), *text).c_str(), stderr);
    keep(parsed.diagnostics());
    return std::nullopt;
  }
  return LoadedCase{std::move(parsed).value(), *text};
}

std::vector<std::string> collect_case_files(const std::vector<std::string>& paths, ir::Diagnostics& diagnostics) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    fs::file_status status;
    if (std::optional<ir::Diagnostic> problem = stat_problem(p, status)) {
      diagnostics.add(std::move(*problem));
      continue;
    }
    if (fs::is_regular_file(status)) {
      files.push_back(p);
      continue;
    }
    if (!fs::is_directory(status)) {
      diagnostics.add(file_problem(
          p, fmt::format("cannot read the file: it is {}; only regular files and directories are read",
                         kind_of(status.type()))));
      continue;
    }
    std::error_code ec;
    std::size_t found = 0;
    for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() != ".gc") continue;
      std::error_code type_ec;
      const fs::file_status entry = it->status(type_ec);  // follows symbolic links, as opening would
      if (fs::is_directory(entry)) continue;
      if (!fs::is_regular_file(entry)) {
        diagnostics.add(file_problem(it->path().string(),
                                     fmt::format("cannot read the file: it is {}; only regular files are read",
                                                 type_ec ? "not readable" : kind_of(entry.type()))));
        continue;
      }
      files.push_back(it->path().string());
      ++found;
    }
    if (ec) {
      diagnostics.add(file_problem(p, fmt::format("cannot read the directory: {}", ec.message())));
    } else if (found == 0) {
      diagnostics.add(file_problem(p, "the directory holds no case files (*.gc): nothing to check"));
    }
  }
  if (!diagnostics.empty()) return {};
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

std::vector<std::string> collect_case_files(const std::vector<std::string>& paths, std::string& error) {
  ir::Diagnostics diagnostics;
  std::vector<std::string> files = collect_case_files(paths, diagnostics);
  error.clear();
  if (!diagnostics.empty()) {
    const ir::Diagnostic& first = *diagnostics.begin();
    error = fmt::format("{}: {}", first.file, first.message);
  }
  return files;
}

std::optional<ir::Diagnostic> check_output_file(const std::string& path) {
  if (path.empty()) return file_problem(path, "cannot write the file: the path is empty");
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() != fs::file_type::not_found && ec)
    return file_problem(path, fmt::format("cannot write the file: {}", ec.message()));
  if (fs::is_directory(status)) return file_problem(path, "cannot write the file: it is a directory");
  if (fs::exists(status) && !fs::is_regular_file(status))
    return file_problem(path, fmt::format("cannot write the file: it is {}; only regular files are written",
                                          kind_of(status.type())));
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    return file_problem(path, fmt::format("cannot write the file: its directory {} does not exist", parent.string()));
  return std::nullopt;
}

std::optional<std::uint64_t> parse_count(std::string_view text, std::uint64_t max) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > max) return std::nullopt;
  return value;
}

namespace {

/// CLI11's check of one numeric value (check_numeric_options): "" when `text` is acceptable, else
/// why not (CLI11 prefixes the option's name). Integers are rewritten in canonical decimal.
std::string check_number(std::string& text, bool integer, std::uint64_t max) {
  if (text.empty()) return "an empty value is not a number";
  const bool negative = text.front() == '-';
  if (integer) {
    if (negative) return fmt::format("{} is negative; this option takes a whole number >= 0", text);
    if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return fmt::format("'{}' is not a whole number (decimal digits only)", text);
    const std::optional<std::uint64_t> value = parse_count(text, max);
    if (!value) return fmt::format("{} is out of range (at most {})", text, max);
    text = std::to_string(*value);
    return {};
  }
  double value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(first, last, value);
  if (end != last || (ec != std::errc() && ec != std::errc::result_out_of_range))
    return fmt::format("'{}' is not a number", text);
  if (ec == std::errc::result_out_of_range) return fmt::format("{} is out of range", text);
  if (!std::isfinite(value)) return fmt::format("{} is not a finite number", text);
  if (negative || std::signbit(value)) return fmt::format("{} is negative; this option takes a number >= 0", text);
  return {};
}

}  // namespace

void check_numeric_options(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    const bool integer = type == "UINT" || type == "INT";
    if (!integer && type != "FLOAT") continue;
    std::uint64_t max = type == "INT" ? static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                                      : std::numeric_limits<std::uint64_t>::max();
    if (option->check_lname("jobs")) max = kMaxJobs;
    // A transform runs before the option's other validators and before CLI11 converts the value.
    option->transform(CLI::Validator(
        [integer, max](std::string& text) { return check_number(text, integer, max); }, ""));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) check_numeric_options(*sub);
}

bool resolve_profiles(const std::vector<std::string>& names, std::vector<const planner::Profile*>& out,
                      std::string& error) {
  out.clear();
  if (names.empty()) out.push_back(&planner::default_profile());
  for (const std::string& name : names) {
    if (name == "all") {
      for (std::string_view n : planner::profile_names()) out.push_back(planner::find_profile(n));
      continue;
    }
    const planner::Profile* p = planner::find_profile(name);
    if (p == nullptr) {
      std::string known;
      for (std::string_view n : planner::profile_names()) known += (known.empty() ? "" : ", ") + std::string(n);
      error = fmt::format("unknown profile '{}' (known: {})", name, known);
      return false;
    }
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return true;
}

std::vector<const planner::Profile*> profiles_of_case(const ir::Case& c) {
  std::vector<const planner::Profile*> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& name) {
    if (name.empty() || !seen.insert(name).second) return;
    if (const planner::Profile* p = planner::find_profile(name)) out.push_back(p);
  };
  for (const ir::Expectation& e : c.expectations) add(e.profile);
  for (const ir::ExpectedOutput& o : c.outputs) add(o.profile);
  if (out.empty()) out.push_back(&planner::default_profile());
  return out;
}

std::string format_buffer(ir::ScalarType element, const std::vector<std::uint8_t>& bytes, std::size_t max_values) {
  const std::size_t n = bytes.size() / 4;
  std::string s = fmt::format("{}[{}] = [", ir::name_of(element), n);
  for (std::size_t i = 0; i < n; ++i) {
    if (n > max_values && i == max_values / 2) {
      s += fmt::format("... {} more ..., ", n - max_values);
      i = n - max_values / 2;
    }
    const std::uint32_t w = std::uint32_t{bytes[4 * i]} | std::uint32_t{bytes[4 * i + 1]} << 8 |
                            std::uint32_t{bytes[4 * i + 2]} << 16 | std::uint32_t{bytes[4 * i + 3]} << 24;
    s += ir::text::format_value(element, w);
    if (i + 1 < n) s += ", ";
  }
  return s + "]";
}

void add_backend_options(CLI::App* cmd, BackendArgs& args, bool allow_auto) {
  cmd->add_option("--backend", args.backend,
                  allow_auto ? "cpu (H-cpu), gpu (H-gpu), both, or auto (default: H-gpu too for cases that record "
                               "H-gpu verdicts)"
                             : "cpu (H-cpu, default), gpu (H-gpu on Vulkan), or both")
      ->check(CLI::IsMember(allow_auto ? std::vector<std::string>{"cpu", "gpu", "both", "auto"}
                                       : std::vector<std::string>{"cpu", "gpu", "both"}));
  cmd->add_option("--device", args.device, "Vulkan device index or name (default: first discrete GPU, else lavapipe)");
  cmd->add_option("--mode", args.mode, "H-gpu split mode: host, resident, or both (default; they must agree)")
      ->check(CLI::IsMember({"host", "resident", "both"}));
  cmd->add_flag("--validation", args.validation, "enable Vulkan validation and synchronization validation layers");
  cmd->add_option("--dump-glsl", args.dump_glsl, "write every lowered GLSL shader to this directory");
  cmd->add_option("--pipeline-cache", args.pipeline_cache,
                  "directory of H-gpu's VkPipelineCache file and SPIR-V cache file, or off (default: "
                  "$GRIDCHECK_PIPELINE_CACHE, else $XDG_CACHE_HOME/gridcheck, else ~/.cache/gridcheck; safe to delete)");
  cmd->add_option("--cache-max-mib", args.cache_max_mib,
                  "the cap on each of those two files in MiB (default 256): past it they keep what was met first")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20));
  add_gpu_literals_option(cmd, args.literals);
}

void add_gpu_literals_option(CLI::App* cmd, std::string& literals) {
  cmd->add_option("--gpu-literals", literals,
                  "program literals in H-gpu's shaders: hidden (default): those that can become a value are hidden from "
                  "the driver's compiler as (literal ^ zero), those that only form an index, a branch condition or a loop "
                  "bound are constants; all-hidden: every literal hidden; visible: every literal a constant (the "
                  "driver's constant folding is tested too and compiles are cheaper; Mesa folds some wrongly). "
                  "docs/gpu.md#literals")
      ->check(CLI::IsMember({"hidden", "all-hidden", "visible"}));
}

void add_same_value_writes_option(CLI::App* cmd, std::string& value) {
  cmd->add_option("--same-value-writes", value,
                  "two unordered plain writes of the value the element already gets: ok (default, as Oclgrind) or "
                  "race")
      ->check(CLI::IsMember({"ok", "race"}));
}

void add_planner_options(CLI::App* cmd, PlannerArgs& args) {
  cmd->add_option("--planner-cmd", args.command,
                  "run plans from an external planner: CMD (run by /bin/sh -c) speaks gridcheck-plan/1 on "
                  "stdin/stdout (docs/plan-protocol.md); its profile `external` is then the one used, unless "
                  "--profile names others too");
  cmd->add_option("--planner-name", args.name, "with --planner-cmd: name the profile `external:NAME`");
  cmd->add_option("--planner-timeout", args.timeout_seconds,
                  "with --planner-cmd: seconds to wait for each answer before the planner is killed (S302; default 10)")
      ->check(timeout_seconds_validator());
}

CLI::Validator timeout_seconds_validator() {
  return CLI::Validator(
      [](std::string& text) {
        // check_numeric_options has made it a finite number >= 0; the bound keeps it in milliseconds.
        constexpr double kMaxSeconds = 1e6;
        const double seconds = std::strtod(text.c_str(), nullptr);
        return seconds > 0 && seconds <= kMaxSeconds
                   ? std::string()
                   : fmt::format("{} is not a timeout: seconds above 0, at most {:.0f}", text, kMaxSeconds);
      },
      "");
}

void add_limit_options(CLI::App* cmd, LimitArgs& args, std::uint64_t default_fuel) {
  cmd->add_option("--max-memory", args.max_memory,
                  fmt::format("memory a case may use: inputs, R's buffers and race shadow, the split's copies, "
                              "outputs (bytes, or with K, M, G, T; default the smaller of 4 GiB and half the "
                              "physical memory, here {}); beyond it: R023/R013, verdict invalid limit, exit 2",
                              ir::format_bytes(ir::default_max_memory())))
      ->check(CLI::Validator(
          [](std::string& text) {
            std::string error;
            return ir::parse_byte_size(text, error) ? std::string() : error;
          },
          ""))
      ->type_name("SIZE");
  cmd->add_option("--fuel", args.fuel,
                  fmt::format("instructions per dispatch (R over all fixpoint launches; each split launch) (default "
                              "2^{}{}); beyond it: R021 at the statement where the run stopped, verdict invalid limit",
                              std::countr_zero(default_fuel),
                              default_fuel == ir::kDefaultFuel ? ", a few seconds" : " per candidate case"))
      ->check(CLI::Validator(
          [](std::string& text) {
            // check_numeric_options has made it a whole number >= 0.
            return text == "0" ? std::string("0 is not a budget: at least 1 instruction") : std::string();
          },
          ""));
  cmd->add_option("--timeout", args.timeout_seconds,
                  "wall-clock seconds per case, checked in the interpreter's loop and at each split launch (default "
                  "60; 0 = none); beyond it: R022, verdict invalid limit")
      ->check(CLI::Validator(
          [](std::string& text) {
            constexpr double kMaxSeconds = 1e6;
            const double seconds = std::strtod(text.c_str(), nullptr);
            return seconds <= kMaxSeconds ? std::string()
                                          : fmt::format("{} is out of range (at most {:.0f} seconds)", text, kMaxSeconds);
          },
          ""));
}

ir::ResourceLimits to_limits(const LimitArgs& args, std::uint64_t default_fuel) {
  ir::ResourceLimits limits;
  if (!args.max_memory.empty()) {
    std::string error;
    if (const auto bytes = ir::parse_byte_size(args.max_memory, error)) limits.max_memory = *bytes;
  }
  limits.fuel = args.fuel != 0 ? args.fuel : default_fuel;
  limits.timeout_seconds = args.timeout_seconds;
  return limits;
}

namespace {

std::shared_ptr<planner::PlannerProcess>& external_process() {
  static std::shared_ptr<planner::PlannerProcess> process;
  return process;
}

}  // namespace

bool apply_planner(const PlannerArgs& args, std::vector<std::string>& profile_names, const char* command) {
  if (args.command.empty()) {
    if (!args.name.empty()) {
      std::fprintf(stderr, "gridcheck %s: --planner-name needs --planner-cmd\n", command);
      return false;
    }
    return true;
  }
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  const std::string name = planner::external_profile_name(args.name);
  if (planner::find_profile(name) == nullptr) {
    const auto timeout = std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(args.timeout_seconds * 1000)));
    planner::ExternalPlanner external = planner::make_external_profile(args.command, args.name, timeout);
    const ir::Result<const planner::Profile*> registered = planner::register_profile(std::move(external.profile));
    if (!registered) {
      std::fprintf(stderr, "gridcheck %s: %s\n", command, ir::render(registered.diagnostics()).c_str());
      return false;
    }
    external_process() = external.process;
    std::atexit([] {
      if (external_process()) external_process()->shutdown();
    });
    if (std::optional<ir::Diagnostic> error = external.process->ensure_started()) {
      std::fprintf(stderr, "gridcheck %s: %s", command, ir::render(*error).c_str());
      return false;
    }
  }
  if (std::find(profile_names.begin(), profile_names.end(), name) == profile_names.end()) profile_names.push_back(name);
  return true;
}

bool case_expects_gpu(const ir::Case& c) {
  for (const ir::Expectation& e : c.expectations)
    if (e.oracle == ir::Oracle::SplitGpu || e.oracle == ir::Oracle::WholeGpu) return true;
  for (const ir::ExpectedOutput& o : c.outputs)
    if (o.oracle == ir::Oracle::SplitGpu || o.oracle == ir::Oracle::WholeGpu) return true;
  return false;
}

bool apply_backend(const BackendArgs& args, bool case_wants_gpu, props::OracleOptions& options,
                   std::unique_ptr<props::GpuBackend>& holder, const char* command) {
  const bool cpu = args.backend != "gpu";
  const bool gpu = args.backend == "gpu" || args.backend == "both" || (args.backend == "auto" && case_wants_gpu);
  options.cpu = cpu;
  options.gpu = nullptr;
  options.gpu_resident = nullptr;
  if (!gpu) return true;
  if (!holder) {
    props::GpuBackendOptions gpu_options;
    gpu_options.device = args.device;
    gpu_options.validation = args.validation;
    if (!args.dump_glsl.empty()) gpu_options.dump_glsl = args.dump_glsl;
    if (args.pipeline_cache == "off") gpu_options.pipeline_cache = false;
    else if (!args.pipeline_cache.empty()) gpu_options.pipeline_cache_dir = args.pipeline_cache;
    gpu_options.cache_file_max_bytes = args.cache_max_mib << 20;
    gpu_options.literals = *gpu::literal_policy_named(args.literals);  // the option's check admits only these names
    gpu_options.concurrency = args.concurrency;
    // The test hook (docs/gpu.md#test-fault): a deliberate lowering bug, announced on every use.
    if (const char* fault = std::getenv("GRIDCHECK_TEST_GPU_FAULT"); fault != nullptr && *fault != '\0') {
      const std::optional<gpu::LoweringFault> named = gpu::lowering_fault_named(fault);
      if (!named) {
        std::fprintf(stderr,
                     "gridcheck %s: GRIDCHECK_TEST_GPU_FAULT=%s names no test fault (none, store-xor-plus-one)\n",
                     command, fault);
        return false;
      }
      gpu_options.lowering_fault = *named;
      if (*named != gpu::LoweringFault::None)
        std::fprintf(stderr,
                     "gridcheck %s: GRIDCHECK_TEST_GPU_FAULT=%s: H-gpu's lowering is deliberately wrong (a test hook)\n",
                     command, fault);
    }
    auto opened = props::GpuBackend::open(gpu_options);
    if (!opened) {
      std::fprintf(stderr, "gridcheck %s: cannot open a Vulkan device for H-gpu:\n%s", command,
                   ir::render(opened.diagnostics()).c_str());
      return false;
    }
    holder = std::move(opened).value();
  }
  if (args.mode != "resident") options.gpu = holder->host_runner();
  if (args.mode == "resident") options.gpu = holder->resident_runner();
  if (args.mode == "both") options.gpu_resident = holder->resident_runner();
  return true;
}

namespace {

nlohmann::json to_json(const props::ByteDiff& d) {
  return {{"buffer", d.buffer},
          {"differing_values", d.differing_elements},
          {"first_byte", d.first_byte},
          {"element", d.element_index},
          {"expected", d.expected_word},
          {"actual", d.actual_word},
          {"expected_bytes", d.expected_bytes},
          {"actual_bytes", d.actual_bytes},
          {"text", d.describe()}};
}

}  // namespace

nlohmann::json to_json(const interp::Site& s) {
  return {{"line", s.loc.line}, {"col", s.loc.col}, {"path", s.path}, {"what", s.what}};
}

nlohmann::json to_json(const interp::InvocationIds& ids) {
  return {{"global", ids.global}, {"local", ids.local}, {"workgroup", ids.workgroup}};
}

nlohmann::json to_json(const ir::Diagnostic& d) {
  nlohmann::json j = {{"severity", ir::name_of(d.severity)}, {"code", d.code}, {"file", d.file},
                      {"line", d.loc.line}, {"col", d.loc.col}, {"message", d.message}};
  if (!d.notes.empty()) {
    j["notes"] = nlohmann::json::array();
    for (const ir::Diagnostic& n : d.notes) j["notes"].push_back(to_json(n));
  }
  return j;
}

nlohmann::json to_json(const ir::Diagnostics& ds) {
  nlohmann::json j = nlohmann::json::array();
  for (const ir::Diagnostic& d : ds) j.push_back(to_json(d));
  return j;
}

nlohmann::json to_json(const props::CaseReport& report) {
  nlohmann::json j;
  const interp::RunResult& r = report.reference;
  j["reference"] = {{"verdict", ir::name_of(report.reference_verdict)},
                    {"detail", report.reference_detail},
                    {"schedule_dependent", report.schedule_dependent},
                    {"steps", r.steps},
                    {"grid", r.grid},
                    {"diagnostics", to_json(r.diagnostics)}};
  nlohmann::json outputs = nlohmann::json::array();
  for (const interp::OutputBuffer& o : r.outputs)
    outputs.push_back({{"name", o.name},
                       {"type", ir::name_of(o.element)},
                       {"bytes", o.bytes.size()},
                       {"hash", fmt::format("0x{:016x}", ir::fnv1a64(o.bytes.data(), o.bytes.size()))}});
  j["reference"]["outputs"] = outputs;
  j["splits"] = nlohmann::json::array();
  for (const props::OracleOutcome& s : report.outcomes) {
    nlohmann::json sj = {{"oracle", s.oracle},   {"profile", s.profile},   {"verdict", ir::name_of(s.verdict)},
                         {"detail", s.detail},   {"message", s.message},   {"comparison", s.comparison_rule},
                         {"launches", s.launches}};
    if (s.failure) sj["failure"] = to_json(s.failure->diagnostic);
    if (s.divergence) {
      const props::FirstDivergence& fd = *s.divergence;
      nlohmann::json d = {{"final", to_json(fd.final_diff)}};
      if (fd.segment) d["segment"] = {{"pass", *fd.pass}, {"index", *fd.segment}, {"diff", to_json(*fd.segment_diff)}};
      if (fd.last_writer) d["last_writer"] = to_json(*fd.last_writer);
      if (fd.last_writer_site) d["last_writer_site"] = to_json(*fd.last_writer_site);
      sj["first_divergence"] = d;
    }
    j["splits"].push_back(std::move(sj));
  }
  return j;
}

std::string render_run_diagnostics(const ir::Diagnostics& diagnostics, std::string_view text, int exit_code) {
  if (exit_code != kExitOk) return ir::render(diagnostics, text);
  std::string out;
  for (ir::Diagnostic d : diagnostics) {
    if (d.severity == ir::Severity::Error) d.severity = ir::Severity::Note;
    out += ir::render(d, text);
  }
  return out;
}

namespace {

/// The findings of one comparison for --sarif and --github: R's diagnostics (errors as notes when the
/// command exits 0, as render_run_diagnostics prints them), then one per split that diverges or fails,
/// a divergence located at R's last writer of the first differing element, else at the buffer's declaration.
std::vector<ir::Diagnostic> comparison_findings(const ir::Case& c, const props::CaseReport& report, const std::string& file,
                                                int exit_code) {
  std::vector<ir::Diagnostic> findings;
  for (ir::Diagnostic d : report.reference.diagnostics) {
    if (exit_code == kExitOk && d.severity == ir::Severity::Error) d.severity = ir::Severity::Note;
    if (d.file.empty()) d.file = file;
    findings.push_back(std::move(d));
  }
  for (const props::OracleOutcome& s : report.outcomes) {
    const std::string split = fmt::format("{} {}", s.oracle, s.profile);
    if (s.verdict == ir::Verdict::Diverge) {
      ir::Diagnostic d{ir::Severity::Error, std::string(finding_rule::kDivergence), file, ir::SourceLoc{},
                       fmt::format("{} diverges from R{}{}: {}", split, s.detail.empty() ? "" : ", blame ", s.detail,
                                   s.message),
                       {}};
      if (s.divergence && s.divergence->last_writer_site && s.divergence->last_writer_site->loc.known()) {
        d.loc = s.divergence->last_writer_site->loc;
        d.message += fmt::format(" (the element was last written in R by {})", interp::to_string(*s.divergence->last_writer_site));
      } else if (const ir::BufferDecl* buffer = s.divergence ? c.program.find_buffer(s.divergence->final_diff.buffer) : nullptr) {
        d.loc = buffer->loc;
      }
      findings.push_back(std::move(d));
    } else if (s.verdict == ir::Verdict::Error) {
      ir::Diagnostic d = s.failure ? s.failure->diagnostic
                                   : ir::Diagnostic{ir::Severity::Error, std::string(finding_rule::kSplitError), file,
                                                    ir::SourceLoc{}, s.message, {}};
      if (d.file.empty()) d.file = file;
      d.severity = ir::Severity::Error;
      d.message = fmt::format("{} fails{}{}: {}", split, s.detail.empty() ? "" : " ", s.detail, d.message);
      findings.push_back(std::move(d));
    }
  }
  return findings;
}

}  // namespace

int compare_case(const LoadedCase& loaded, const props::OracleOptions& options, bool json, const std::string& file,
                 const ReportArgs* reports, const ComparisonHook& after) {
  const props::CaseReport report = props::evaluate_case(loaded.test_case, options);
  int code = kExitOk;
  if (report.reference_verdict == ir::Verdict::Invalid) code = kExitBadInput;
  for (const props::OracleOutcome& s : report.outcomes)  // a split launch past a resource limit
    if (s.verdict == ir::Verdict::Invalid && s.detail == "limit") code = kExitBadInput;
  for (const props::OracleOutcome& s : report.outcomes)
    if (s.verdict == ir::Verdict::Diverge || s.verdict == ir::Verdict::Error) code = kExitMismatch;
  const ir::Diagnostics& diagnostics = report.reference.diagnostics;
  if (json) {
    nlohmann::json j = to_json(report);
    j["file"] = file;
    j["case"] = loaded.test_case.name;
    j["exit_code"] = code;
    std::printf("%s\n", dump_document("diff", j).c_str());
  } else {
    std::fputs(render_run_diagnostics(diagnostics, loaded.text, code).c_str(), stderr);
    std::fputs(describe_report(loaded.test_case, report).c_str(), stdout);
  }
  std::fflush(stdout);
  if (reports != nullptr && !emit_reports(*reports, "diff", comparison_findings(loaded.test_case, report, file, code), true))
    return kExitBadInput;
  if (after) return after(report, code);
  return code;
}

int report_unloadable_case(const std::string& file, const ir::Diagnostics& problems, bool json,
                           const ReportArgs* reports) {
  if (json) {
    const nlohmann::json j = {{"file", file}, {"diagnostics", to_json(problems)}, {"exit_code", kExitBadInput}};
    std::printf("%s\n", dump_document("diff", j).c_str());
    std::fflush(stdout);
  }
  if (reports != nullptr) emit_reports(*reports, "diff", std::vector<ir::Diagnostic>(problems.begin(), problems.end()), true);
  return kExitBadInput;
}

std::string describe_report(const ir::Case& c, const props::CaseReport& report) {
  std::string out;
  const interp::RunResult& r = report.reference;
  const std::string grid = r.grid[0] == 0 ? std::string("not chosen") : fmt::format("{}x{}x{}", r.grid[0], r.grid[1], r.grid[2]);
  out += fmt::format("case {}: grid {}, fixpoint {}\n", c.name, grid, c.fixpoint);
  out += fmt::format("R      {}{}{}\n", ir::name_of(report.reference_verdict), report.reference_detail.empty() ? "" : " ",
                     report.reference_detail);
  for (const interp::OutputBuffer& o : r.outputs) out += fmt::format("  {}: {}\n", o.name, format_buffer(o.element, o.bytes));
  if (report.schedule_dependent) out += "  R's outputs depend on the schedule (R044): the case has no single reference result\n";
  for (const props::OracleOutcome& s : report.outcomes) {
    // The launch count, and the case's recorded one for this oracle and profile when it differs.
    std::string launches;
    const auto split = ir::oracle_from_name(s.oracle);
    if (split == ir::Oracle::SplitCpu || split == ir::Oracle::SplitGpu || s.launches > 0) {
      launches = fmt::format("{} launch{}, ", s.launches, s.launches == 1 ? "" : "es");
      for (const ir::ExpectedLaunches& l : c.launches) {
        const std::string_view profile = l.profile.empty() ? planner::vyre_0_7_2().name : std::string_view(l.profile);
        if (split && l.oracle == *split && profile == s.profile && l.count != s.launches)
          launches = fmt::format("{} launch{}, {} recorded, ", s.launches, s.launches == 1 ? "" : "es", l.count);
      }
    }
    out += fmt::format("{:<6} {:<12} {}{}{}  ({}{})\n", s.oracle, s.profile, ir::name_of(s.verdict),
                       s.detail.empty() ? "" : " ", s.detail, launches, s.comparison_rule);
    if (!s.message.empty()) out += fmt::format("  {}\n", s.message);
    if (s.verdict != ir::Verdict::Diverge) continue;
    for (std::size_t i = 0; i < s.output_names.size() && i < s.outputs.size(); ++i) {
      const ir::BufferDecl* decl = c.program.find_buffer(s.output_names[i]);
      out += fmt::format("  {}: {}\n", s.output_names[i],
                         format_buffer(decl ? decl->element : ir::ScalarType::U32, s.outputs[i]));
    }
  }
  return out;
}

}  // namespace gridcheck::tools
