#include "repro/bundle.hpp"

#include <fmt/format.h>

#include <fstream>
#include <system_error>

#include "repro/amber_script.hpp"
#include "gridcheck_repro_runner_template.hpp"  // generated from repro/runner/ by repro/CMakeLists.txt

namespace gridcheck::repro {
namespace {

std::string hex(const Bytes& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

std::string_view step_name(StepKind k) {
  switch (k) {
    case StepKind::Copy: return "copy";
    case StepKind::Dispatch: return "dispatch";
    case StepKind::CheckTrap: return "check_trap";
  }
  return "copy";
}

bool write_file(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  return static_cast<bool>(out);
}

}  // namespace

std::string_view runner_source() { return kRunnerSource; }
std::string_view runner_cmake() { return kRunnerCmake; }

nlohmann::json to_manifest(const Repro& repro, const BundleOptions& options) {
  using nlohmann::json;
  json m;
  m["format"] = "gridcheck-repro/1";
  m["case"] = repro.case_name;
  m["case_file"] = repro.case_file;
  m["profile"] = repro.profile;
  m["command"] = options.command;
  m["summary"] = {{"split", repro.split},
                  {"segments", repro.segment_count},
                  {"passes", repro.passes},
                  {"pass_budget", repro.pass_budget},
                  {"converged_early", repro.converged_early},
                  {"launches", repro.launch_count},
                  {"split_matches_reference", repro.split_matches_reference}};
  m["caller_inputs"] = repro.caller_inputs;
  json buffers = json::array();
  for (const ReproBuffer& b : repro.buffers) {
    json j = {{"name", b.name}, {"kind", name_of(b.kind)}, {"bytes", b.init.size()}, {"init", hex(b.init)}};
    if (!b.live_name.empty()) j[b.kind == BufferKind::Live ? "live_name" : "declaration"] = b.live_name;
    buffers.push_back(std::move(j));
  }
  m["buffers"] = std::move(buffers);
  json pipelines = json::array();
  for (const ReproPipeline& p : repro.pipelines) {
    json bindings = json::array();
    for (const ReproBinding& b : p.bindings) bindings.push_back({{"binding", b.binding}, {"buffer", repro.buffers[b.buffer].name}});
    pipelines.push_back({{"name", p.name},
                         {"label", p.label},
                         {"segment", p.segment == ReproPipeline::kUnsplit ? json(nullptr) : json(p.segment)},
                         {"spirv", p.name + ".spv"},
                         {"glsl", p.name + ".comp"},
                         {"workgroup_size", p.workgroup_size},
                         {"bindings", std::move(bindings)},
                         {"push_constants", p.push_words},
                         {"trap", p.trap ? json(repro.buffers[*p.trap].name) : json(nullptr)},
                         {"needs_float64", p.needs_float64},
                         {"needs_int64_atomics", p.needs_int64_atomics}});
  }
  m["pipelines"] = std::move(pipelines);
  json steps = json::array();
  for (const ReproStep& s : repro.steps) {
    json j = {{"op", step_name(s.kind)}};
    if (s.kind == StepKind::Copy) {
      j["from"] = repro.buffers[s.from].name;
      j["to"] = repro.buffers[s.to].name;
      j["from_offset"] = s.from_offset;
      j["bytes"] = s.bytes;
      j["why"] = s.why;
    } else {
      j["pipeline"] = repro.pipelines[s.pipeline].name;
      j["launch"] = s.launch;
      j["pass"] = s.pass;
      if (s.kind == StepKind::Dispatch) {
        j["grid"] = s.grid;
        j["repeat"] = s.repeat;
      }
    }
    steps.push_back(std::move(j));
  }
  m["steps"] = std::move(steps);
  json expect = json::array();
  for (const ReproExpect& e : repro.expects)
    expect.push_back({{"name", e.name},
                      {"element", ir::name_of(e.element)},
                      {"buffer", repro.buffers[e.buffer].name},
                      {"offset", e.offset},
                      {"bytes", e.split.size()},
                      {"reference", hex(e.reference)},
                      {"split", hex(e.split)}});
  m["expect"] = std::move(expect);
  return m;
}

std::optional<ir::Diagnostic> write_bundle(const Repro& repro, const std::filesystem::path& dir, const BundleOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string where = dir.string();
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) return export_error("E020", where, {}, "the bundle directory exists and is not a directory");
    if (!fs::is_empty(dir, ec)) return export_error("E020", where, {}, "the bundle directory exists and is not empty");
  } else {
    const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
    if (!fs::is_directory(parent, ec)) return export_error("E020", where, {}, "the bundle directory's parent does not exist");
    if (!fs::create_directory(dir, ec)) return export_error("E021", where, {}, fmt::format("cannot create the bundle directory: {}", ec.message()));
  }
  auto put = [&](const std::string& name, std::string_view text) -> std::optional<ir::Diagnostic> {
    if (!write_file(dir / name, text)) return export_error("E021", (dir / name).string(), {}, "cannot write this file of the bundle");
    return std::nullopt;
  };
  for (const ReproPipeline& p : repro.pipelines) {
    const std::string_view spv(reinterpret_cast<const char*>(p.spirv.data()), p.spirv.size() * sizeof(std::uint32_t));
    if (auto e = put(p.name + ".spv", spv)) return e;
    if (auto e = put(p.name + ".comp", p.glsl)) return e;
  }
  if (auto e = put("manifest.json", to_manifest(repro, options).dump(1) + "\n")) return e;
  if (auto e = put("runner.cpp", runner_source())) return e;
  if (auto e = put("CMakeLists.txt", runner_cmake())) return e;
  if (!options.case_text.empty())
    if (auto e = put("case.gc", options.case_text)) return e;
  std::string amber_note;
  ir::Result<std::string> amber = to_amber(repro, AmberOptions{options.command});
  if (amber) {
    if (auto e = put("repro.amber", *amber)) return e;
    amber_note = "`repro.amber` is the same reproducer as AmberScript: `amber -t spv1.5 -v 1.2 repro.amber`.\n";
  } else {
    amber_note = fmt::format("No AmberScript: {}.\n", amber.diagnostics().all().front().message);
  }
  const std::string readme = fmt::format(
      "# gridcheck reproducer: case `{}` under profile `{}`\n\n"
      "Written by `{}` (docs/export.md of the gridcheck repository).\n"
      "{} segment(s), {} pass(es), {} launch(es); the split {} the reference interpreter R.\n\n"
      "```sh\ncmake -S . -B build && cmake --build build && ./build/runner   # PASS (exit 0) or FAIL (exit 1)\n```\n\n"
      "Needs only the Vulkan loader and nlohmann-json (Debian: libvulkan-dev, nlohmann-json3-dev). `GRIDCHECK_DEVICE=INDEX|NAME`\n"
      "picks the device (default: the first discrete GPU, else the first device with a compute queue; lavapipe:\n"
      "`VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json`). `--actual FILE` writes the final bytes as JSON.\n\n"
      "`manifest.json` lists the buffers with their bytes, each pipeline's SPIR-V, GLSL, bindings and push constants, the\n"
      "steps in order (host copies, dispatches with grid sizes, trap checks) and, per final output, R's bytes\n"
      "(`reference`) and the split's own bytes (`split`). {}",
      repro.case_name, repro.profile, options.command, repro.segment_count, repro.passes, repro.launch_count,
      repro.split_matches_reference ? "matches" : "diverges from", amber_note);
  if (auto e = put("README.md", readme)) return e;
  return std::nullopt;
}

}  // namespace gridcheck::repro
