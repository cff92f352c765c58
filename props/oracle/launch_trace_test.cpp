#include "props/oracle/launch_trace.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "ir/text/parser.hpp"

namespace gridcheck::props {
namespace {

ir::Case parse(std::string_view text) {
  ir::Result<ir::Case> c = ir::parse_case(text, "trace.gc");
  EXPECT_TRUE(c.ok());
  return std::move(c).value();
}

std::vector<std::uint32_t> words(const planner::Bytes& b) {
  std::vector<std::uint32_t> w(b.size() / 4);
  if (!w.empty()) std::memcpy(w.data(), b.data(), w.size() * 4);
  return w;
}

bool bit(const std::vector<std::uint8_t>& bits, std::size_t i) { return (bits[i / 8] >> (i % 8)) & 1u; }

// docs/vyre-0.7.2.md#a1 (corpus/s10_a1_rw_written_not_read.gc): the store on line 9 runs in phase 0.
constexpr std::string_view kA1 = R"(case a1 "a1"
workgroup_size 1 1 1
grid 1 1 1
fixpoint 1
buffer buf: u32[4] read_write binding 0
input buf = [1, 2, 3, 4]

kernel {
  buf[0] = 9
  grid_sync
}
)";

OracleOptions with_profile(const planner::Profile& p) {
  OracleOptions o;
  o.profiles = {&p};
  return o;
}

TEST(Props_LaunchTrace, RecordsEveryPhaseOfRWithItsStores) {
  const ir::Case c = parse(kA1);
  const LaunchTrace t = trace_launches(c, with_profile(planner::vyre_0_7_2()));
  ASSERT_EQ(t.buffers.size(), 1u);
  EXPECT_EQ(words(t.buffers[0].initial), (std::vector<std::uint32_t>{1, 2, 3, 4}));
  ASSERT_EQ(t.reference.size(), 2u);  // the fence's release, then the launch end
  EXPECT_EQ(t.reference[0].fence_line, 10u);
  EXPECT_EQ(t.reference[1].fence_line, 0u);
  EXPECT_EQ(words(t.reference[0].buffers[0].bytes), (std::vector<std::uint32_t>{9, 2, 3, 4}));
  const auto& stored = t.reference[0].buffers[0].stored;
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_TRUE(bit(stored, 0));
  EXPECT_FALSE(bit(stored, 1) || bit(stored, 2) || bit(stored, 3));
  EXPECT_EQ(t.reference[0].buffers[0].store_lines, (std::vector<std::uint32_t>{9}));
  EXPECT_TRUE(t.reference[1].buffers[0].store_lines.empty());  // phase 1 stores nothing
  EXPECT_EQ(t.fence_lines, (std::vector<std::uint32_t>{10}));
  EXPECT_EQ(t.kernel_first_line, 9u);
  EXPECT_EQ(t.kernel_last_line, 10u);
}

TEST(Props_LaunchTrace, VyreLaunchZeroDiffersFromItsAlignedPhaseAtElementOne) {
  const ir::Case c = parse(kA1);
  const LaunchTrace t = trace_launches(c, with_profile(planner::vyre_0_7_2()));
  ASSERT_EQ(t.splits.size(), 1u);
  const SplitTrace& s = t.splits[0];
  EXPECT_EQ(s.profile, "vyre-0.7.2");
  EXPECT_TRUE(s.aligned);
  ASSERT_EQ(s.launches.size(), 2u);
  ASSERT_EQ(s.launches[0].reference_phase, std::optional<std::size_t>(0));
  ASSERT_EQ(s.launches[0].buffers.size(), 1u);
  EXPECT_EQ(words(s.launches[0].buffers[0].bytes), (std::vector<std::uint32_t>{9, 0, 0, 0}));
  const planner::Bytes r = reference_view(c.program, t.reference[0], "buf", s.launches[0].buffers[0].bytes.size());
  EXPECT_EQ(first_different_element(r, s.launches[0].buffers[0].bytes), std::optional<std::size_t>(1));
}

TEST(Props_LaunchTrace, SoundLaunchesEqualTheirAlignedPhases) {
  const ir::Case c = parse(kA1);
  const LaunchTrace t = trace_launches(c, with_profile(planner::sound()));
  ASSERT_EQ(t.splits.size(), 1u);
  ASSERT_FALSE(t.splits[0].launches.empty());
  // Sound drops the trailing grid_sync: one launch against R's two phases, so only the pass's end
  // lines up, with R's last phase.
  EXPECT_FALSE(t.splits[0].aligned);
  ASSERT_EQ(t.splits[0].launches.size(), 1u);
  EXPECT_EQ(t.splits[0].launches[0].reference_phase, std::optional<std::size_t>(1));
  for (const SplitLaunch& l : t.splits[0].launches) {
    ASSERT_TRUE(l.reference_phase.has_value());
    for (const TracedBuffer& b : l.buffers) {
      const planner::Bytes r = reference_view(c.program, t.reference[*l.reference_phase], b.name, b.bytes.size());
      EXPECT_EQ(first_different_element(r, b.bytes), std::nullopt) << b.name << " launch " << l.index;
    }
  }
}

TEST(Props_LaunchTrace, FixpointIterationsAlignPassByPass) {
  const ir::Case c = parse(R"(case fp "fp"
workgroup_size 2 1 1
grid 1 1 1
fixpoint 3
buffer acc: u32[2] read_write binding 0
input acc = [0, 0]

kernel {
  acc[gid.x] = acc[gid.x] + 1
  grid_sync
  acc[gid.x] = acc[gid.x] * 2
}
)");
  const LaunchTrace t = trace_launches(c, with_profile(planner::sound()));
  ASSERT_EQ(t.reference.size(), 6u);  // 3 iterations of 2 phases
  EXPECT_EQ(t.reference[5].iteration, 2u);
  EXPECT_EQ(t.reference[5].phase, 1u);
  // ((0+1)*2+1)*2+1)*2 = 14
  EXPECT_EQ(words(t.reference[5].buffers[0].bytes), (std::vector<std::uint32_t>{14, 14}));
  const SplitTrace& s = t.splits[0];
  ASSERT_TRUE(s.aligned);
  ASSERT_EQ(s.launches.size(), 6u);
  EXPECT_EQ(s.launches[3].reference_phase, std::optional<std::size_t>(3));
  EXPECT_EQ(s.launches[3].pass, 1u);
  EXPECT_EQ(s.launches[3].segment, 1u);
}

TEST(Props_LaunchTrace, KeepsAPrefixOfTheStepsWithinTheMemoryBudget) {
  const ir::Case c = parse(R"(case fp "fp"
workgroup_size 1 1 1
grid 1 1 1
fixpoint 3
buffer acc: u32[64] read_write binding 0
input acc = fill 0

kernel {
  loop i in 0..64 { acc[i] = acc[i] + 1 }
  grid_sync
  loop i in 0..64 { acc[i] = acc[i] * 2 }
}
)");
  OracleOptions o = with_profile(planner::sound());
  // R's half, 1100 bytes, holds 4 phases of 256 + 8 (the stored bitmap); the split's 2200 - 1056
  // holds 4 launches of 256.
  o.limits.max_memory = 2200;
  const LaunchTrace t = trace_launches(c, o);
  ASSERT_EQ(t.reference.size(), 4u);
  ASSERT_EQ(t.splits[0].launches.size(), 4u);
  EXPECT_EQ(t.steps_left_out, 4u);  // R's phases 4 and 5, launches 4 and 5
  EXPECT_EQ(t.splits[0].launches[3].index, 3u);
  EXPECT_EQ(t.splits[0].launches[3].reference_phase, std::optional<std::size_t>(3));
  const LaunchTrace whole = trace_launches(c, with_profile(planner::sound()));
  EXPECT_EQ(whole.steps_left_out, 0u);
  ASSERT_EQ(whole.reference.size(), 6u);
  EXPECT_EQ(words(t.reference[3].buffers[0].bytes), words(whole.reference[3].buffers[0].bytes));
}

TEST(Props_LaunchTrace, FirstDifferentElement) {
  const planner::Bytes a = {1, 0, 0, 0, 2, 0, 0, 0};
  planner::Bytes b = a;
  EXPECT_EQ(first_different_element(a, b), std::nullopt);
  b[5] = 7;
  EXPECT_EQ(first_different_element(a, b), std::optional<std::size_t>(1));
  EXPECT_EQ(first_different_element(a, planner::Bytes(a.begin(), a.begin() + 4)), std::optional<std::size_t>(1));
}

}  // namespace
}  // namespace gridcheck::props
