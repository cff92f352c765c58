// `gridcheck devices`: lists the Vulkan devices with the index and name that `--device` accepts, the
// device type, API version, subgroup size, the limits that decide what a launch may use, and which one
// gridcheck picks by default. `--json` prints the same as the document gridcheck/devices/1. Exit 2 when there is no Vulkan.

#include <cstdio>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpu/vulkan_context.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"
#include "tools/report_json.hpp"

namespace gridcheck::tools {
namespace {

std::string yes_no(bool b) { return b ? "yes" : "no"; }

int run_devices(bool json) {
  const ir::Result<std::vector<gpu::DeviceInfo>> devices = gpu::list_devices();
  if (!devices) {
    std::fputs(ir::render(devices.diagnostics()).c_str(), stderr);
    return kExitBadInput;
  }
  const ir::Result<std::size_t> chosen = gpu::select_device(*devices, "");
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const gpu::DeviceInfo& d : *devices) {
      out.push_back({
          {"index", d.index},
          {"name", d.name},
          {"type", gpu::name_of(d.type)},
          {"api_version", gpu::format_version(d.api_version)},
          {"default", chosen.ok() && *chosen == d.index},
          {"compute_queue", d.has_compute_queue},
          {"subgroup_size", d.subgroup_size},
          {"max_workgroup_count", d.max_workgroup_count},
          {"max_workgroup_size", d.max_workgroup_size},
          {"max_workgroup_invocations", d.max_workgroup_invocations},
          {"max_shared_memory_bytes", d.max_shared_memory_bytes},
          {"max_storage_buffer_range", d.max_storage_buffer_range},
          {"max_storage_buffers_per_stage", d.max_storage_buffers_per_stage},
          {"max_push_constants_bytes", d.max_push_constants_bytes},
          {"max_memory_allocation_bytes", d.max_memory_allocation_bytes},
          {"shader_float64", d.shader_float64},
          {"buffer_int64_atomics", d.buffer_int64_atomics},
      });
    }
    std::printf("%s\n", dump_document("devices", {{"devices", out}}).c_str());
    return kExitOk;
  }
  for (const gpu::DeviceInfo& d : *devices) {
    const bool is_default = chosen.ok() && *chosen == d.index;
    std::printf("%s", fmt::format("{}{}: {} ({}, Vulkan {}){}\n", is_default ? "* " : "  ", d.index, d.name, gpu::name_of(d.type),
                                  gpu::format_version(d.api_version), is_default ? "  [default]" : "")
                          .c_str());
    if (!d.has_compute_queue) {
      std::printf("      no compute queue: not usable\n");
      continue;
    }
    std::printf("%s", fmt::format("      subgroup size {}; workgroup size <= {}x{}x{} and {} invocations; shared memory {} bytes\n",
                                  d.subgroup_size, d.max_workgroup_size[0], d.max_workgroup_size[1], d.max_workgroup_size[2],
                                  d.max_workgroup_invocations, d.max_shared_memory_bytes)
                          .c_str());
    std::printf("%s", fmt::format("      grid <= {}x{}x{} workgroups; storage buffer range {} bytes; {} storage buffers per stage; "
                                  "push constants {} bytes\n",
                                  d.max_workgroup_count[0], d.max_workgroup_count[1], d.max_workgroup_count[2],
                                  d.max_storage_buffer_range, d.max_storage_buffers_per_stage, d.max_push_constants_bytes)
                          .c_str());
    std::printf("%s", fmt::format("      shaderFloat64 {} (f32 arithmetic); 64-bit buffer atomics {} (trap records)\n",
                                  yes_no(d.shader_float64), yes_no(d.buffer_int64_atomics))
                          .c_str());
  }
  if (!chosen) std::fputs(ir::render(chosen.diagnostics()).c_str(), stderr);
  return kExitOk;
}

}  // namespace

void register_devices(CLI::App& root, int& exit_code) {
  CLI::App* cmd = root.add_subcommand("devices", "list the Vulkan devices that --device can select (index or name)");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "print one JSON document (gridcheck/devices/1) with the array of devices");
  cmd->callback([json, &exit_code] { exit_code = run_devices(*json); });
}

}  // namespace gridcheck::tools
