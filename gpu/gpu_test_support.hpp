#pragma once
// Shared fixture of gpu_tests (header-only; not part of the library's API).
//
// Every test runs on one process-wide VulkanContext with VK_LAYER_KHRONOS_validation and synchronization
// validation, and fails if the layers reported any warning or error during the test. The device is the
// default choice, or $GRIDCHECK_DEVICE. Where the validation layer is not installed (a bare GPU host), set
// GRIDCHECK_GPU_TESTS_NO_VALIDATION=1 to run the same tests without it.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

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

/// The process-wide context; aborts the test run with the diagnostic when there is none.
inline VulkanContext& shared_context() {
  static std::unique_ptr<VulkanContext> ctx = [] {
    ir::Result<std::unique_ptr<VulkanContext>> made = VulkanContext::create(test_context_options());
    if (!made) {
      ADD_FAILURE() << ir::render(made.diagnostics());
      std::abort();
    }
    return std::move(made).value();
  }();
  return *ctx;
}

/// Fixture: a validated context, and zero validation messages at the end of every test.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_ = &shared_context();
    ctx_->validation_log().clear();
  }
  void TearDown() override {
    const auto messages = ctx_->validation_log().messages();
    EXPECT_TRUE(messages.empty()) << messages.size() << " validation message(s), first: " << messages.front();
  }
  VulkanContext& ctx() { return *ctx_; }

 private:
  VulkanContext* ctx_ = nullptr;
};

}  // namespace gridcheck::gpu::testing
