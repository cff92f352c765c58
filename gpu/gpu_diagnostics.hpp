#pragma once
// The K### diagnostic codes of the GPU layer (engineering.md: `K` = GPU) and how each one surfaces as a
// planner::LaunchError. One table is the single source of truth for code, launch-error kind and whether
// the problem is ours (an internal error: generated GLSL or SPIR-V that does not compile or validate).

#include <cstdint>
#include <string>
#include <string_view>

#include <vulkan/vulkan.h>

#include "ir/diagnostic.hpp"
#include "planner/executor.hpp"

namespace gridcheck::gpu {

enum class Code : std::uint8_t {
  NoVulkan,              ///< K001 loader or instance unavailable
  NoComputeDevice,       ///< K002 no physical device with a compute queue
  DeviceNotFound,        ///< K003 --device matches nothing
  DeviceAmbiguous,       ///< K004 --device matches several names
  NoValidationLayer,     ///< K005 validation requested but VK_LAYER_KHRONOS_validation is not installed
  ApiTooOld,             ///< K006 the device supports less than Vulkan 1.2
  MissingFeature,        ///< K007 the lowered program needs a device feature the device lacks
  OutOfMemory,           ///< K010 host or device memory exhausted
  DeviceLost,            ///< K011 VK_ERROR_DEVICE_LOST
  VulkanCallFailed,      ///< K012 any other failing Vulkan call
  NoHostVisibleMemory,   ///< K013 no HOST_VISIBLE|HOST_COHERENT memory type for storage buffers
  BufferTooLarge,        ///< K020 beyond maxStorageBufferRange or maxMemoryAllocationSize
  GridTooLarge,          ///< K021 beyond maxComputeWorkGroupCount (or an empty grid)
  WorkgroupTooLarge,     ///< K022 beyond maxComputeWorkGroupSize / maxComputeWorkGroupInvocations
  SharedMemoryTooLarge,  ///< K023 beyond maxComputeSharedMemorySize
  TooManyBuffers,        ///< K024 beyond maxPerStageDescriptorStorageBuffers or the push-constant space
  ContainsFence,         ///< K030 a grid_sync fence reached a single-launch executor
  Unlowerable,           ///< K031 a construct the lowering cannot express (collectives, async, trap, opaque)
  BadInputs,             ///< K032 wrong number of inputs or a byte length that contradicts the declaration
  NoOutputSize,          ///< K033 a zero-filled output without a static size or output_byte_range
  Untyped,               ///< K034 the launched program does not validate (ir::validate) or type-check
  GlslCompileFailed,     ///< K090 internal: lowered GLSL rejected by glslang (GLSL saved to a file)
  SpirvInvalid,          ///< K091 internal: SPIR-V rejected by spirv-val (GLSL saved to a file)
};

struct CodeInfo {
  Code code;
  std::string_view id;  ///< "K001"
  planner::LaunchErrorKind kind;
  bool internal;        ///< our own bug, not the user's
};

const CodeInfo& info(Code code);

/// An error diagnostic with the code's id and `message` (one sentence, lower case, no period).
ir::Diagnostic make_error(Code code, std::string message);

/// The code of a K### diagnostic; nullopt for other codes.
std::optional<Code> code_of(const ir::Diagnostic& d);

/// The launch error for a diagnostic: the table's kind, the message prefixed with its code
/// ("K020: ...") and, for internal codes, with "internal error: ".
planner::LaunchError to_launch_error(const ir::Diagnostic& d);

/// "VK_ERROR_DEVICE_LOST" etc.
std::string_view vk_result_name(VkResult result);

/// A diagnostic for a failed Vulkan call: OutOfMemory / DeviceLost / VulkanCallFailed by result.
ir::Diagnostic vk_error(VkResult result, std::string_view what);

}  // namespace gridcheck::gpu
