#pragma once
// Shared fixture of gpu_tests (header-only; not part of the library's API).
//
// Every GpuTest runs on one process-wide VulkanContext with VK_LAYER_KHRONOS_validation and synchronization
// validation, and fails if the layers reported any warning or error during the test. The device is the
// default choice, or $GRIDCHECK_DEVICE. Where the validation layer is not installed (a bare GPU host), every
// GpuTest is skipped with that reason, and tests without the fixture still run; set
// GRIDCHECK_GPU_TESTS_NO_VALIDATION=1 to run the GpuTests without the layer instead.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/device_buffer.hpp"
#include "gpu/glsl_compiler.hpp"
#include "gpu/gpu_diagnostics.hpp"
#include "gpu/vulkan_context.hpp"
#include "ir/diagnostic.hpp"
#include "planner/executor.hpp"

namespace gridcheck::gpu::testing {

/// u32 words <-> buffer bytes, little-endian as the executors lay them out.
inline planner::Bytes bytes(const std::vector<std::uint32_t>& values) {
  planner::Bytes b(values.size() * 4);
  if (!values.empty()) std::memcpy(b.data(), values.data(), b.size());
  return b;
}
inline std::vector<std::uint32_t> words(const planner::Bytes& b) {
  std::vector<std::uint32_t> w(b.size() / 4);
  if (!w.empty()) std::memcpy(w.data(), b.data(), w.size() * 4);
  return w;
}

/// A small shader of the engine tests: dst[i] = src[i] * 2 + add for i < n (src at binding 0, dst at
/// binding 3; push constants n, add; 64 invocations per workgroup).
inline constexpr std::string_view kScaleShader = R"(#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint data[]; } src;
layout(std430, set = 0, binding = 3) buffer Out { uint data[]; } dst;
layout(push_constant) uniform Params { uint n; uint add; } params;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < params.n) dst.data[i] = src.data[i] * 2u + params.add;
}
)";

/// `glsl` compiled once per process (a test's own shaders); aborts the run with the diagnostics if it
/// does not compile.
inline const Spirv& compiled(std::string_view glsl) {
  static GlslCompiler compiler;
  ir::Result<const Spirv*> s = compiler.compile(glsl, "gpu_test");
  if (!s) {
    ADD_FAILURE() << ir::render(s.diagnostics());
    std::abort();
  }
  return **s;
}

/// A mapped buffer's contents as u32 words.
inline std::vector<std::uint32_t> words_of(const DeviceBuffer& b) {
  std::vector<std::uint32_t> w(b.size() / 4);
  if (!w.empty()) std::memcpy(w.data(), b.bytes().data(), w.size() * 4);
  return w;
}

inline bool validation_wanted() {
  const char* off = std::getenv("GRIDCHECK_GPU_TESTS_NO_VALIDATION");
  return off == nullptr || std::string(off) != "1";
}

inline ContextOptions test_context_options() {
  ContextOptions o;
  if (const char* d = std::getenv("GRIDCHECK_DEVICE")) o.device = d;
  o.validation = validation_wanted();
  return o;
}

/// The process-wide context, made on first use: `context` is null when it could not be made, and then
/// `diagnostics` say why.
struct SharedContext {
  std::unique_ptr<VulkanContext> context;
  ir::Diagnostics diagnostics;
};

inline SharedContext& shared_context_state() {
  static SharedContext state = [] {
    SharedContext s;
    ir::Result<std::unique_ptr<VulkanContext>> made = VulkanContext::create(test_context_options());
    if (made)
      s.context = std::move(made).value();
    else
      s.diagnostics = made.diagnostics();
    return s;
  }();
  return state;
}

/// Why GpuTests cannot run here and are skipped: the validation layer they run under was requested but is
/// not installed (K005). Empty when the shared context exists or fails for another reason.
inline std::string validation_layer_skip_reason() {
  const SharedContext& s = shared_context_state();
  if (s.context || s.diagnostics.empty()) return {};
  const ir::Diagnostic& first = s.diagnostics.all()[0];
  if (code_of(first) != Code::NoValidationLayer) return {};
  return first.code + ": " + first.message +
         "; this test runs under the validation layer (set GRIDCHECK_GPU_TESTS_NO_VALIDATION=1 to run it without)";
}

/// The process-wide context; aborts the test run with the diagnostic when there is none.
inline VulkanContext& shared_context() {
  SharedContext& s = shared_context_state();
  if (!s.context) {
    ADD_FAILURE() << ir::render(s.diagnostics);
    std::abort();
  }
  return *s.context;
}

/// Fixture: a validated context, and zero validation messages at the end of every test. Skipped, with
/// the reason, where the validation layer is missing.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string reason = validation_layer_skip_reason(); !reason.empty()) GTEST_SKIP() << reason;
    ctx_ = &shared_context();
    ctx_->validation_log().clear();
  }
  void TearDown() override {
    if (ctx_ == nullptr) return;  // skipped in SetUp
    const auto messages = ctx_->validation_log().messages();
    EXPECT_TRUE(messages.empty()) << messages.size() << " validation message(s), first: " << messages.front();
  }
  VulkanContext& ctx() { return *ctx_; }

 private:
  VulkanContext* ctx_ = nullptr;
};

}  // namespace gridcheck::gpu::testing
