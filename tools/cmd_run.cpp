// `gridcheck run FILE [--schedule in-order|reversed|shuffle:SEED] [--no-races] [--fuel N] [--max-memory SIZE]
// [--timeout SECONDS] [--json]`:
// runs a case on the reference interpreter R (true grid sync), prints every output buffer as typed
// values and the verdict, and checks the case's `expect R` lines (verdict and buffers). R's checks
// are those every other command applies (interp/schedule_check.hpp): the race detector, a second
// schedule whose bytes must agree, out-of-bounds accesses and uninitialised workgroup reads.
//
// Exit codes: 0 = the run is ok, or every `expect R` line is met; 1 = an expectation failed, or
// (without expectations) the run trapped, diverged, raced, accessed memory out of bounds, read
// uninitialised workgroup memory or gave schedule-dependent bytes; 2 = unreadable file, parse error,
// bad option, a program the reference refuses (invalid) without an expectation saying so, or a
// resource limit (memory, fuel, time: verdict `invalid limit`, docs/semantics.md §3.9); 3 = internal error.

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "interp/schedule_check.hpp"
#include "ir/equality.hpp"
#include "ir/text/case_file.hpp"
#include "ir/text/literal.hpp"
#include "ir/text/parser.hpp"
#include "props/oracle/expectations.hpp"
#include "tools/cli_support.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"
#include "tools/report_json.hpp"

namespace gridcheck::tools {
namespace {

struct RunArgs {
  std::string file;
  std::string schedule = "in-order";
  bool races = true;
  bool races_flag = false;                 ///< --races: accepted, the default
  std::string same_value_writes = "ok";    ///< "ok" or "race"
  std::string oob;                         ///< "", or a MemoryCheck name overriding the case's `oob` line
  std::string uninit;                      ///< likewise for `uninit`
  LimitArgs limits;        ///< --max-memory, --fuel, --timeout
  std::size_t max_print = 4096;  ///< elements printed per output buffer; 0 = all
  bool json = false;
  std::string split;                  ///< "", "cpu", "gpu" or "both": also run the split and compare with R
  std::vector<std::string> profiles;  ///< for --split
  PlannerArgs planner;                ///< for --split
  BackendArgs backend;                ///< device options for --split gpu
};

/// The first `limit` words of `bytes` (every word when limit is 0).
std::vector<std::uint32_t> words_of(const interp::Bytes& bytes, std::size_t limit = 0) {
  std::size_t n = bytes.size() / 4;
  if (limit != 0) n = std::min(n, limit);
  std::vector<std::uint32_t> w(n, 0);
  for (std::size_t i = 0; i < w.size(); ++i)
    for (int k = 0; k < 4; ++k) w[i] |= std::uint32_t{bytes[i * 4 + k]} << (8 * k);
  return w;
}

/// `words` as a value list; `omitted` more elements follow them in the buffer (--max-print).
std::string typed_list(ir::ScalarType element, const std::vector<std::uint32_t>& words, std::size_t omitted = 0) {
  std::string s = "[";
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) s += ", ";
    s += ir::text::format_value(element, words[i]);
  }
  if (omitted != 0) s += fmt::format(", ... {} more (--max-print 0 prints every element)", omitted);
  return s + "]";
}

nlohmann::json typed_json(ir::ScalarType element, std::uint32_t word) {
  switch (element) {
    case ir::ScalarType::U32: return word;
    case ir::ScalarType::I32: return static_cast<std::int32_t>(word);
    case ir::ScalarType::Bool: return word != 0;
    case ir::ScalarType::F32: return ir::text::format_value(element, word);
  }
  return word;
}

/// The outcome of checking one `expect R` line.
struct Check {
  std::string expectation;
  bool met = false;
  std::string message;
};

/// Amber's mismatch text: `N values differed, first difference at byte i: a != b`.
std::string mismatch(ir::ScalarType element, const std::vector<std::uint32_t>& expected,
                     const std::vector<std::uint32_t>& actual) {
  if (expected.size() != actual.size())
    return fmt::format("expected {} values, the run produced {}", expected.size(), actual.size());
  std::size_t differ = 0, first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] == actual[i]) continue;
    if (differ++ == 0) first = i;
  }
  return fmt::format("{} values differed, first difference at byte {}: run {} != expected {}", differ, first * 4,
                     ir::text::format_value(element, actual[first]), ir::text::format_value(element, expected[first]));
}

std::vector<Check> check_expectations(const ir::Case& c, const interp::RunResult& r) {
  std::vector<Check> checks;
  for (const ir::Expectation& e : c.expectations) {
    if (e.oracle != ir::Oracle::Reference) continue;
    Check check;
    check.expectation = fmt::format("expect R: {}{}{}", ir::name_of(e.verdict), e.detail.empty() ? "" : " ", e.detail);
    bool detail_ok = e.detail.empty() || e.detail == r.detail();
    if (!detail_ok && r.status == interp::RunStatus::Invalid)
      for (const ir::Diagnostic& d : r.diagnostics)
        detail_ok = detail_ok || (d.severity == ir::Severity::Error && d.code == e.detail);
    check.met = e.verdict == r.verdict() && detail_ok;
    if (!check.met)
      check.message = fmt::format("the run's verdict is {}{}{}", ir::name_of(r.verdict()), r.detail().empty() ? "" : " ",
                                  r.detail());
    checks.push_back(std::move(check));
  }
  for (const ir::ExpectedOutput& e : c.outputs) {
    if (e.oracle != ir::Oracle::Reference) continue;
    Check check;
    const interp::OutputBuffer* out = r.output(e.buffer);
    if (e.hash) {
      check.expectation = fmt::format("expect R {} hash 0x{:016x}", e.buffer, *e.hash);
    } else {
      check.expectation = fmt::format("expect R {} = [...]", e.buffer);
    }
    if (out == nullptr) {
      check.message = r.outputs.empty() ? fmt::format("the run produced no outputs (verdict {})", ir::name_of(r.verdict()))
                                        : fmt::format("'{}' is not an output of the reference", e.buffer);
    } else if (e.hash) {
      const std::uint64_t h = ir::fnv1a64(out->bytes.data(), out->bytes.size());
      check.met = h == *e.hash;
      if (!check.met) check.message = fmt::format("the bytes hash to 0x{:016x}", h);
    } else if (e.words) {
      const auto actual = words_of(out->bytes);
      check.met = actual == *e.words;
      if (!check.met) check.message = mismatch(out->element, *e.words, actual);
    }
    checks.push_back(std::move(check));
  }
  return checks;
}

int exit_code_for(const interp::RunResult& r, const std::vector<Check>& checks) {
  // A resource limit says nothing about the program: exit 2 unless the case expects exactly that.
  const bool limit = r.verdict() == ir::Verdict::Invalid && r.detail() == "limit";
  if (limit && (checks.empty() || std::any_of(checks.begin(), checks.end(), [](const Check& c) { return !c.met; })))
    return kExitBadInput;
  if (!checks.empty()) {
    for (const Check& c : checks)
      if (!c.met) return kExitMismatch;
    return kExitOk;
  }
  switch (r.status) {
    case interp::RunStatus::Ok: return kExitOk;
    case interp::RunStatus::Invalid: return kExitBadInput;
    default: return kExitMismatch;
  }
}

void print_text(const ir::Case& c, const std::string& text, const RunArgs& args, const interp::RunResult& r,
                const std::vector<Check>& checks, int exit_code) {
  const std::string grid = r.grid[0] == 0 ? std::string("not chosen") : fmt::format("{}x{}x{}", r.grid[0], r.grid[1], r.grid[2]);
  std::printf("case %s: R, schedule %s, grid %s, fixpoint %u\n", c.name.c_str(), args.schedule.c_str(), grid.c_str(),
              c.fixpoint);
  for (const interp::OutputBuffer& o : r.outputs) {
    const std::size_t count = o.bytes.size() / 4;
    const auto words = words_of(o.bytes, args.max_print);
    std::printf("%s: %s[%zu] = %s\n", o.name.c_str(), std::string(ir::name_of(o.element)).c_str(), count,
                typed_list(o.element, words, count - words.size()).c_str());
  }
  for (const interp::OobRecord& o : r.oob)
    std::printf("out of bounds: %s: %llu loads, %llu stores, %llu atomics; first: %s of element %llu by %s at %s\n",
                o.buffer.c_str(), static_cast<unsigned long long>(o.loads), static_cast<unsigned long long>(o.stores),
                static_cast<unsigned long long>(o.atomics), std::string(interp::name_of(o.first_kind)).c_str(),
                static_cast<unsigned long long>(o.first_index), interp::to_string(o.first_invocation).c_str(),
                interp::to_string(o.first_site).c_str());
  for (const interp::UninitReport& u : r.uninit)
    std::printf("uninitialised: %s: %llu reads at %s before any write, first of element %llu by %s in launch %u\n",
                u.buffer.c_str(), static_cast<unsigned long long>(u.occurrences), interp::to_string(u.site).c_str(),
                static_cast<unsigned long long>(u.first_element), interp::to_string(u.first_invocation).c_str(), u.launch);
  std::fputs(render_run_diagnostics(r.diagnostics, text, exit_code).c_str(), stderr);
  const std::string detail = r.detail();
  std::printf("verdict: %s%s%s (%llu steps)\n", std::string(ir::name_of(r.verdict())).c_str(), detail.empty() ? "" : " ",
              detail.c_str(), static_cast<unsigned long long>(r.steps));
  for (const Check& check : checks)
    std::printf("%s: %s%s%s\n", check.expectation.c_str(), check.met ? "met" : "FAILED", check.met ? "" : ": ",
                check.message.c_str());
}

nlohmann::json run_to_json(const ir::Case& c, const RunArgs& args, const interp::RunResult& r,
                       const std::vector<Check>& checks, int exit_code) {
  nlohmann::json j;
  j["file"] = args.file;
  j["case"] = c.name;
  j["schedule"] = args.schedule;
  j["races_checked"] = args.races;
  j["grid"] = r.grid;
  j["fixpoint"] = c.fixpoint;
  j["verdict"] = ir::name_of(r.verdict());
  j["detail"] = r.detail();
  j["status"] = interp::name_of(r.status);
  j["steps"] = r.steps;
  j["outputs"] = nlohmann::json::array();
  for (const interp::OutputBuffer& o : r.outputs) {
    nlohmann::json out = {{"name", o.name}, {"type", ir::name_of(o.element)}};
    const auto words = words_of(o.bytes, args.max_print);
    out["count"] = o.bytes.size() / 4;
    out["truncated"] = words.size() < o.bytes.size() / 4;
    out["words"] = words;
    out["values"] = nlohmann::json::array();
    for (std::uint32_t w : words) out["values"].push_back(typed_json(o.element, w));
    out["hash"] = fmt::format("0x{:016x}", ir::fnv1a64(o.bytes.data(), o.bytes.size()));
    j["outputs"].push_back(std::move(out));
  }
  j["uninit"] = nlohmann::json::array();
  for (const interp::UninitReport& u : r.uninit)
    j["uninit"].push_back({{"buffer", u.buffer}, {"site", to_json(u.site)}, {"element", u.first_element},
                           {"invocation", to_json(u.first_invocation)}, {"launch", u.launch},
                           {"occurrences", u.occurrences}});
  j["oob"] = nlohmann::json::array();
  for (const interp::OobRecord& o : r.oob)
    j["oob"].push_back({{"buffer", o.buffer}, {"elements", o.element_count}, {"loads", o.loads}, {"stores", o.stores}, {"atomics", o.atomics},
                        {"first", {{"kind", interp::name_of(o.first_kind)}, {"index", o.first_index},
                                   {"site", to_json(o.first_site)}, {"invocation", to_json(o.first_invocation)}}}});
  if (r.trap)
    j["trap"] = {{"kind", ir::name_of(r.trap->kind)}, {"site", to_json(r.trap->site)},
                 {"invocation", to_json(r.trap->invocation)}, {"launch", r.trap->launch}, {"message", r.trap->message}};
  if (r.divergence)
    j["divergence"] = {{"kind", interp::name_of(r.divergence->kind)},
                       {"scope", r.divergence->grid_scope ? "grid" : "workgroup"},
                       {"first", {{"site", to_json(r.divergence->first_site)}, {"invocation", to_json(r.divergence->first)}}},
                       {"second", {{"site", to_json(r.divergence->second_site)}, {"invocation", to_json(r.divergence->second)}}},
                       {"launch", r.divergence->launch},
                       {"message", r.divergence->message}};
  j["races"] = nlohmann::json::array();
  for (const interp::RaceReport& race : r.races)
    j["races"].push_back({{"buffer", race.buffer}, {"element", race.element}, {"workgroup_memory", race.workgroup_memory},
                          {"first", {{"kind", interp::name_of(race.first.kind)}, {"site", to_json(race.first.site)},
                                     {"invocation", to_json(race.first.invocation)}}},
                          {"second", {{"kind", interp::name_of(race.second.kind)}, {"site", to_json(race.second.site)},
                                      {"invocation", to_json(race.second.invocation)}}},
                          {"launch", race.launch}, {"occurrences", race.occurrences}, {"elements", race.elements}});
  j["diagnostics"] = nlohmann::json::array();
  for (const ir::Diagnostic& d : r.diagnostics) j["diagnostics"].push_back(to_json(d));
  j["expectations"] = nlohmann::json::array();
  for (const Check& check : checks)
    j["expectations"].push_back({{"expectation", check.expectation}, {"met", check.met}, {"message", check.message}});
  j["exit_code"] = exit_code;
  return j;
}

int fail_input(const RunArgs& args, const ir::Diagnostics& ds, std::string_view text) {
  if (args.json) {
    nlohmann::json j = {{"file", args.file}, {"verdict", "invalid"}, {"outputs", nlohmann::json::array()},
                        {"diagnostics", nlohmann::json::array()}, {"exit_code", kExitBadInput}};
    for (const ir::Diagnostic& d : ds) j["diagnostics"].push_back(to_json(d));
    std::printf("%s\n", dump_document("run", j).c_str());
  } else {
    std::fputs(ir::render(ds, text).c_str(), stderr);
  }
  return kExitBadInput;
}

/// `--split cpu|gpu|both`: R against the split under each profile, byte for byte.
int run_split_file(const RunArgs& args) {
  const auto loaded = load_case(args.file);
  if (!loaded) return kExitBadInput;
  props::OracleOptions options;
  std::string error;
  std::vector<std::string> profiles = args.profiles;
  if (!apply_planner(args.planner, profiles, "run")) return kExitBadInput;
  if (!resolve_profiles(profiles, options.profiles, error)) {
    std::fprintf(stderr, "gridcheck run: %s\n", error.c_str());
    return kExitBadInput;
  }
  options.limits = to_limits(args.limits);
  BackendArgs backend = args.backend;
  backend.backend = args.split;
  std::unique_ptr<props::GpuBackend> gpu;
  if (!apply_backend(backend, false, options, gpu, "run")) return kExitBadInput;
  return compare_case(*loaded, options, args.json, args.file);
}

int run_case_file(const RunArgs& args) {
  const auto schedule = interp::Schedule::parse(args.schedule);
  if (!schedule) {
    std::fprintf(stderr, "gridcheck run: bad --schedule '%s' (in-order, reversed or shuffle:SEED)\n", args.schedule.c_str());
    return kExitBadInput;
  }
  if (!args.split.empty()) return run_split_file(args);
  const ir::Result<std::string> text = read_input_file(args.file);
  if (!text) return fail_input(args, text.diagnostics(), {});
  const ir::Result<ir::Case> parsed = ir::parse_case(*text, args.file);
  if (!parsed) return fail_input(args, parsed.diagnostics(), *text);

  interp::RunOptions options;
  options.schedule = *schedule;
  options.detect_races = args.races;
  options.same_value_writes_race = args.same_value_writes == "race";
  if (!args.oob.empty()) options.oob = ir::memory_check_from_name(args.oob);
  if (!args.uninit.empty()) options.uninit = ir::memory_check_from_name(args.uninit);
  options.limits = to_limits(args.limits);
  options.deadline = ir::deadline_after(options.limits);
  options.file = args.file;
  const interp::RunResult result =
      args.races ? interp::run_case_on_two_schedules(*parsed, options) : interp::run_case(*parsed, options);
  const std::vector<Check> checks = check_expectations(*parsed, result);
  const int code = exit_code_for(result, checks);
  if (args.json) {
    std::printf("%s\n", dump_document("run", run_to_json(*parsed, args, result, checks, code)).c_str());
  } else {
    print_text(*parsed, *text, args, result, checks, code);
  }
  return code;
}

}  // namespace

void register_run(CLI::App& root, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = root.add_subcommand(
      "run",
      "Run a case on the reference interpreter R (one dispatch, true grid sync): print every output buffer and the "
      "verdict, and check the case's `expect R` lines. R checks what every command checks: races (the race detector "
      "and a second schedule whose bytes must agree), out-of-bounds accesses and reads of uninitialised workgroup "
      "memory. Exit 0 ok / expectations met, 1 an expectation failed (or, without expectations, a trap, divergence, race, "
      "oob, uninit or nondeterministic verdict), 2 bad input, a refused program or a resource limit (--max-memory, "
      "--fuel, --timeout: verdict invalid limit), 3 internal error.");
  cmd->add_option("file", args->file, "case file (.gc)")->required();
  cmd->add_option("--schedule", args->schedule, "in-order (default), reversed, or shuffle:SEED");
  cmd->add_flag("--races", args->races_flag, "check races (the default; kept for scripts)");
  cmd->add_flag("!--no-races", args->races,
                "skip the race detector and the second schedule (one run under --schedule)");
  add_same_value_writes_option(cmd, args->same_value_writes);
  cmd->add_option("--oob", args->oob,
                  "out-of-bounds accesses: error (verdict invalid oob), warning or defined; default: the case's "
                  "`oob` line, else error")
      ->check(CLI::IsMember({"error", "warning", "defined"}));
  cmd->add_option("--uninit", args->uninit,
                  "reads of workgroup memory before any write: error (verdict invalid uninit), warning or defined; "
                  "default: the case's `uninit` line, else error")
      ->check(CLI::IsMember({"error", "warning", "defined"}));
  add_limit_options(cmd, args->limits);
  cmd->add_flag("--json", args->json, "print one JSON document (gridcheck/run/1: verdict, outputs, diagnostics, ...; with --split gridcheck/diff/1) to stdout");
  cmd->add_option("--max-print", args->max_print,
                  "elements printed per output buffer, text and JSON (default 4096; 0 = every element); expectations "
                  "and hashes always use the whole buffer");
  cmd->add_option("--split", args->split,
                  "also run the host split on cpu (H-cpu), gpu (H-gpu) or both and compare with R byte for byte: "
                  "verdict match or diverge with the first differing buffer and byte (exit 1 on diverge)")
      ->check(CLI::IsMember({"cpu", "gpu", "both"}));
  cmd->add_option("--profile", args->profiles, "planner profile(s) for --split (default sound; 'all')");
  add_planner_options(cmd, args->planner);
  cmd->add_option("--device", args->backend.device, "Vulkan device for --split gpu (index or name)");
  cmd->add_option("--mode", args->backend.mode, "H-gpu split mode: host, resident, or both (default)")
      ->check(CLI::IsMember({"host", "resident", "both"}));
  cmd->add_option("--dump-glsl", args->backend.dump_glsl, "write every lowered GLSL shader to this directory");
  cmd->add_flag("--validation", args->backend.validation, "enable Vulkan validation layers for --split gpu");
  add_gpu_literals_option(cmd, args->backend.literals);
  cmd->callback([args, &exit_code] { exit_code = run_case_file(*args); });  // exceptions: main.cpp, exit 3
}

}  // namespace gridcheck::tools
