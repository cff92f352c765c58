#include "gpu/gpu_diagnostics.hpp"

#include <array>

#include <fmt/format.h>

namespace gridcheck::gpu {
namespace {

using K = planner::LaunchErrorKind;

// clang-format off
constexpr std::array kCodes = {
    CodeInfo{Code::NoVulkan,             "K001", K::Backend,        false},
    CodeInfo{Code::NoComputeDevice,      "K002", K::Backend,        false},
    CodeInfo{Code::DeviceNotFound,       "K003", K::Backend,        false},
    CodeInfo{Code::DeviceAmbiguous,      "K004", K::Backend,        false},
    CodeInfo{Code::NoValidationLayer,    "K005", K::Backend,        false},
    CodeInfo{Code::ApiTooOld,            "K006", K::Backend,        false},
    CodeInfo{Code::MissingFeature,       "K007", K::Resource,       false},
    CodeInfo{Code::OutOfMemory,          "K010", K::Resource,       false},
    CodeInfo{Code::DeviceLost,           "K011", K::Backend,        false},
    CodeInfo{Code::VulkanCallFailed,     "K012", K::Backend,        false},
    CodeInfo{Code::NoHostVisibleMemory,  "K013", K::Backend,        false},
    CodeInfo{Code::BufferTooLarge,       "K020", K::Resource,       false},
    CodeInfo{Code::GridTooLarge,         "K021", K::Resource,       false},
    CodeInfo{Code::WorkgroupTooLarge,    "K022", K::Resource,       false},
    CodeInfo{Code::SharedMemoryTooLarge, "K023", K::Resource,       false},
    CodeInfo{Code::TooManyBuffers,       "K024", K::Resource,       false},
    CodeInfo{Code::ContainsFence,        "K030", K::InvalidProgram, false},
    CodeInfo{Code::Unlowerable,          "K031", K::InvalidProgram, false},
    CodeInfo{Code::BadInputs,            "K032", K::InvalidProgram, false},
    CodeInfo{Code::NoOutputSize,         "K033", K::InvalidProgram, false},
    CodeInfo{Code::Untyped,              "K034", K::InvalidProgram, false},
    CodeInfo{Code::GlslCompileFailed,    "K090", K::Backend,        true},
    CodeInfo{Code::SpirvInvalid,         "K091", K::Backend,        true},
};
// clang-format on

constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < kCodes.size(); ++i)
    if (static_cast<std::size_t>(kCodes[i].code) != i) return false;
  return true;
}
static_assert(rows_in_enum_order());

}  // namespace

const CodeInfo& info(Code code) { return kCodes[static_cast<std::size_t>(code)]; }

ir::Diagnostic make_error(Code code, std::string message) {
  ir::Diagnostic d;
  d.severity = ir::Severity::Error;
  d.code = std::string(info(code).id);
  d.message = std::move(message);
  return d;
}

std::optional<Code> code_of(const ir::Diagnostic& d) {
  for (const CodeInfo& row : kCodes)
    if (row.id == d.code) return row.code;
  return std::nullopt;
}

planner::LaunchError to_launch_error(const ir::Diagnostic& d) {
  planner::LaunchError e;
  const std::optional<Code> code = code_of(d);
  e.kind = code ? info(*code).kind : K::Backend;
  const bool internal = code && info(*code).internal;
  e.message = fmt::format("{}{}: {}", internal ? "internal error: " : "", d.code, d.message);
  e.loc = d.loc;
  return e;
}

std::string_view vk_result_name(VkResult result) {
  switch (result) {
#define GC_VK_CASE(x) \
  case x: return #x;
    GC_VK_CASE(VK_SUCCESS)
    GC_VK_CASE(VK_NOT_READY)
    GC_VK_CASE(VK_TIMEOUT)
    GC_VK_CASE(VK_INCOMPLETE)
    GC_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    GC_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    GC_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    GC_VK_CASE(VK_ERROR_DEVICE_LOST)
    GC_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    GC_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    GC_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    GC_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    GC_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    GC_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    GC_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    GC_VK_CASE(VK_ERROR_FRAGMENTED_POOL)
    GC_VK_CASE(VK_ERROR_UNKNOWN)
    GC_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    GC_VK_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    GC_VK_CASE(VK_ERROR_FRAGMENTATION)
    GC_VK_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    GC_VK_CASE(VK_PIPELINE_COMPILE_REQUIRED)
    GC_VK_CASE(VK_ERROR_VALIDATION_FAILED_EXT)
    GC_VK_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef GC_VK_CASE
    default: return "VK_ERROR_(unknown)";
  }
}

ir::Diagnostic vk_error(VkResult result, std::string_view what) {
  Code code = Code::VulkanCallFailed;
  if (result == VK_ERROR_OUT_OF_HOST_MEMORY || result == VK_ERROR_OUT_OF_DEVICE_MEMORY ||
      result == VK_ERROR_OUT_OF_POOL_MEMORY || result == VK_ERROR_FRAGMENTATION ||
      result == VK_ERROR_FRAGMENTED_POOL || result == VK_ERROR_TOO_MANY_OBJECTS)
    code = Code::OutOfMemory;
  else if (result == VK_ERROR_DEVICE_LOST)
    code = Code::DeviceLost;
  return make_error(code, fmt::format("{} failed with {}", what, vk_result_name(result)));
}

}  // namespace gridcheck::gpu
