// The resource model's budget arithmetic (docs/semantics.md §3.9): one copy of a case's buffers from
// its declarations and input lines, the memory check and its diagnostic, --max-memory values.

#include "ir/resource_limits.hpp"

#include <gtest/gtest.h>

#include "ir/text/parser.hpp"

namespace gridcheck::ir {
namespace {

Case parse(std::string_view text) {
  Result<Case> c = parse_case(text, "t.gc");
  EXPECT_TRUE(c.ok()) << render(c.diagnostics());
  return std::move(c).value();
}

constexpr std::string_view kThreeBuffers = R"(case three
buffer small: u32[4] read binding 0
buffer any: u32[] read binding 1
buffer wg: u32[1024] workgroup
buffer out: u32[1000] read_write binding 2 output
input small = [1, 2, 3, 4]
input any = fill 7 count 250
kernel {
  out[0] = small[0] + any[0]
}
)";

TEST(IR_ResourceLimits, OneCopyCountsDeclaredInputAndOutputBytesButNotWorkgroupMemory) {
  // 16 (small) + 1000 (the runtime-sized input's 250 words) + 4000 (out); workgroup memory is the
  // interpreter's state, checked per dispatch.
  EXPECT_EQ(case_buffer_bytes(parse(kThreeBuffers)), 16u + 1000u + 4000u);
}

TEST(IR_ResourceLimits, TheCheckRefusesAtTheLargestBufferWhenTheCopiesExceedTheBudget) {
  const Case c = parse(kThreeBuffers);
  ResourceLimits limits;
  limits.max_memory = 3 * 5016;
  EXPECT_FALSE(check_case_memory(c, 3, limits, "R", "t.gc").has_value());  // exactly the budget: fits
  limits.max_memory = 3 * 5016 - 1;
  const auto d = check_case_memory(c, 3, limits, "R", "t.gc");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->code, "R023");
  EXPECT_TRUE(is_limit_code(d->code));
  EXPECT_EQ(d->file, "t.gc");
  EXPECT_EQ(d->loc.line, 5u);  // out, the largest buffer
  EXPECT_EQ(d->loc.col, 8u);
  EXPECT_NE(d->message.find("'out' of 3.9 KiB, held 3 times by R"), std::string::npos) << d->message;
}

TEST(IR_ResourceLimits, ByteSizesTakeBinarySuffixes) {
  std::string error;
  EXPECT_EQ(parse_byte_size("4096", error), 4096u);
  EXPECT_EQ(parse_byte_size("512M", error), 512u << 20);
  EXPECT_EQ(parse_byte_size("4G", error), std::uint64_t{4} << 30);
  EXPECT_EQ(parse_byte_size("4gib", error), std::uint64_t{4} << 30);
  EXPECT_EQ(parse_byte_size("2TB", error), std::uint64_t{2} << 40);
  EXPECT_EQ(parse_byte_size("7k", error), 7u << 10);
}

TEST(IR_ResourceLimits, BadByteSizesAreRefusedWithAReason) {
  for (const char* text : {"", "0", "-1", "4Q", "G", "1.5G", " 4G", "4 G", "4294967296T", "99999999999999999999"}) {
    std::string error;
    EXPECT_FALSE(parse_byte_size(text, error).has_value()) << text;
    EXPECT_FALSE(error.empty()) << text;
  }
}

TEST(IR_ResourceLimits, TheDefaultMemoryIsAtMostFourGiB) {
  EXPECT_LE(default_max_memory(), std::uint64_t{4} << 30);
  EXPECT_GT(default_max_memory(), 0u);
  EXPECT_EQ(ResourceLimits{}.fuel, kDefaultFuel);
  EXPECT_EQ(ResourceLimits{}.timeout_seconds, 0);
}

TEST(IR_ResourceLimits, NoTimeoutMeansNoDeadline) {
  ResourceLimits limits;
  EXPECT_FALSE(deadline_after(limits).has_value());
  limits.timeout_seconds = 2;
  const auto d = deadline_after(limits);
  ASSERT_TRUE(d.has_value());
  EXPECT_GT(*d, Clock::now());
}

TEST(IR_ResourceLimits, BytesPrintForAPerson) {
  EXPECT_EQ(format_bytes(1000), "1000 bytes");
  EXPECT_EQ(format_bytes(std::uint64_t{4} << 30), "4 GiB");
  EXPECT_EQ(format_bytes(3u << 19), "1.5 MiB");
}

}  // namespace
}  // namespace gridcheck::ir
