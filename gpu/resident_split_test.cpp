// Resident mode: the by-name session (in place, fresh zeros, slices, one submission for many launches)
// and the split's dispatch loop over it, which must equal the host loop over VulkanExecutor byte for byte.

#include <gtest/gtest.h>

#include "gpu/buffer_pool.hpp"
#include "gpu/gpu_test_support.hpp"
#include "gpu/resident_split.hpp"
#include "gpu/vulkan_executor.hpp"
#include "ir/builder.hpp"
#include "planner/profile.hpp"
#include "planner/split_dispatch.hpp"

namespace gridcheck::gpu {
namespace {

using namespace ir;
using planner::Bytes;

using testing::bytes;
using testing::words;
planner::LaunchConfig grid1() {
  planner::LaunchConfig c;
  c.grid_override = std::array<std::uint32_t, 3>{1, 1, 1};
  return c;
}

class Gpu_Resident : public testing::GpuTest {
 protected:
  GlslCompiler compiler_;
};

TEST_F(Gpu_Resident, LaunchesShareOneSubmissionAndUpdateBuffersInPlace) {
  ResidentSession s(ctx(), compiler_);
  Builder b({4, 1, 1});
  auto acc = b.read_write("acc", 0, ScalarType::U32, 4);
  Program inc = b.wrapped({b.store(acc, b.gid(), b.load(acc, b.gid()) * b.u32(3) + b.u32(1))});
  const Bytes init = bytes({0, 1, 2, 3});
  ASSERT_FALSE(s.upload("acc", init));
  for (int i = 0; i < 3; ++i) ASSERT_FALSE(s.launch(inc, grid1()));
  EXPECT_EQ(s.queued_launches(), 3u);
  Bytes out;
  ASSERT_FALSE(s.download("acc", out));
  EXPECT_EQ(s.submissions(), 1u);
  EXPECT_EQ(words(out), (std::vector<std::uint32_t>{13, 40, 67, 94}));  // x -> 27x + 13
  EXPECT_FALSE(s.is_uploaded("acc"));
}

TEST_F(Gpu_Resident, OutputOnlyBuffersAreFreshZerosAndRangesAreSlicedOnTheDevice) {
  ResidentSession s(ctx(), compiler_);
  Builder b({4, 1, 1});
  auto src = b.read("src", 0, ScalarType::U32, 4);
  auto wo = b.write_only("dst", 1, ScalarType::U32, 4);
  b.decl(wo).output_byte_range = ByteRange{4, 12};
  Program p = b.wrapped({b.if_(b.gid() != b.u32(2), {b.store(wo, b.gid(), b.load(src, b.gid()) + b.u32(100))})});
  ASSERT_FALSE(s.upload("src", bytes({1, 2, 3, 4})));
  ASSERT_FALSE(s.upload("dst", bytes({9, 9, 9, 9, 9})));  // replaced: dst is not an input of the launch
  ASSERT_FALSE(s.launch(p, grid1()));
  Bytes out;
  ASSERT_FALSE(s.download("dst", out));
  EXPECT_EQ(words(out), (std::vector<std::uint32_t>{102, 0}));
}

TEST_F(Gpu_Resident, AMissingInputIsAnErrorBeforeAnythingIsQueued) {
  ResidentSession s(ctx(), compiler_);
  Builder b({1, 1, 1});
  auto src = b.read("src", 0, ScalarType::U32, 1);
  auto out = b.output("out", 1, ScalarType::U32, 1);
  Program p = b.wrapped({b.store(out, b.u32(0), b.load(src, b.u32(0)))});
  std::optional<planner::LaunchError> e = s.launch(p, grid1());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->message, "K032: input buffer `src` has no bytes on the device (upload it or produce it first)");
  EXPECT_EQ(s.queued_launches(), 0u);
}

TEST_F(Gpu_Resident, RelaunchingAnEqualProgramNeitherLowersNorCompilesItAgain) {
  ResidentSession s(ctx(), compiler_);
  Builder b({4, 1, 1});
  auto acc = b.read_write("acc", 0, ScalarType::U32, 4);
  Program inc = b.wrapped({b.store(acc, b.gid(), b.load(acc, b.gid()) * b.u32(3) + b.u32(1))});
  const Program copy = inc;
  ASSERT_FALSE(s.upload("acc", bytes({0, 1, 2, 3})));
  ASSERT_FALSE(s.launch(inc, grid1()));
  const std::uint64_t compiles = compiler_.compiles();
  const std::uint64_t hits = compiler_.hits();
  ASSERT_FALSE(s.launch(copy, grid1()));
  ASSERT_FALSE(s.launch(inc, grid1()));
  EXPECT_EQ(compiler_.compiles(), compiles);
  EXPECT_EQ(compiler_.hits(), hits);  // a lowering would have asked the compile cache again
  s.set_label("another label");  // not part of the GLSL (host and resident mode label differently): kept
  ASSERT_FALSE(s.launch(inc, grid1()));
  EXPECT_EQ(compiler_.compiles(), compiles);
  EXPECT_EQ(compiler_.hits(), hits);
  Bytes out;
  ASSERT_FALSE(s.download("acc", out));
  EXPECT_EQ(words(out), (std::vector<std::uint32_t>{40, 121, 202, 283}));  // x -> 81x + 40
}

TEST_F(Gpu_Resident, EqualProgramsWithTrapsAtOtherLocationsReportTheirOwnLocation) {
  auto make = [](std::uint32_t line) {
    Builder b({4, 1, 1});
    auto d = b.read("d", 0, ScalarType::I32, 4);
    auto out = b.output("out", 1, ScalarType::I32, 4);
    E quotient = b.i32(12) / b.load(d, b.gid());
    b.program().set_loc(quotient.id, SourceLoc{line, 5});
    return b.wrapped({b.store(out, b.gid(), quotient)});
  };
  ResidentSession s(ctx(), compiler_);
  ASSERT_FALSE(s.upload("d", bytes({1, 2, 0, 3})));
  for (std::uint32_t line : {7u, 9u}) {
    ASSERT_FALSE(s.launch(make(line), grid1()));
    std::optional<planner::LaunchError> e = s.sync();
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->kind, planner::LaunchErrorKind::Trap);
    EXPECT_EQ(e->loc, (SourceLoc{line, 5}));
  }
}

TEST_F(Gpu_Resident, UploadingOverABufferAnotherNameSharesLeavesThatNameAlone) {
  ResidentSession s(ctx(), compiler_);
  Builder b({4, 1, 1});
  auto acc = b.read_write("acc", 0, ScalarType::U32, 4);
  Program inc = b.wrapped({b.store(acc, b.gid(), b.load(acc, b.gid()) + b.u32(1))});
  const std::vector<std::string> in = {"a"};
  const std::vector<std::string> out = {"b"};
  ASSERT_FALSE(s.upload("a", bytes({1, 2, 3, 4})));
  ASSERT_FALSE(s.launch(inc, grid1(), in, out));  // in place: `b` is `a`'s buffer
  ASSERT_FALSE(s.upload("a", bytes({10, 20, 30, 40})));
  ASSERT_FALSE(s.upload("c", bytes({5, 6, 7, 8})));
  ASSERT_FALSE(s.upload("c", bytes({50, 60, 70, 80})));  // nothing else holds `c`: overwritten
  Bytes a, b_bytes, c;
  ASSERT_FALSE(s.download("a", a));
  ASSERT_FALSE(s.download("b", b_bytes));
  ASSERT_FALSE(s.download("c", c));
  EXPECT_EQ(words(a), (std::vector<std::uint32_t>{10, 20, 30, 40}));
  EXPECT_EQ(words(b_bytes), (std::vector<std::uint32_t>{2, 3, 4, 5}));
  EXPECT_EQ(words(c), (std::vector<std::uint32_t>{50, 60, 70, 80}));
  EXPECT_TRUE(s.is_uploaded("a"));
  EXPECT_FALSE(s.is_uploaded("b"));
}

// Where the host reads buffer memory uncached (an NVIDIA GPU's BAR), prefetch and download go through
// staging copies; on lavapipe they read in place. Either way a download shows the latest bytes.
TEST_F(Gpu_Resident, ADownloadShowsWhatLaterLaunchesAndUploadsMadeOfAPrefetchedBuffer) {
  ResidentSession s(ctx(), compiler_);
  Builder b({4, 1, 1});
  auto acc = b.read_write("acc", 0, ScalarType::U32, 4);
  Program inc = b.wrapped({b.store(acc, b.gid(), b.load(acc, b.gid()) + b.u32(1))});
  const std::vector<std::string> names = {"acc", "nothing"};
  ASSERT_FALSE(s.upload("acc", bytes({1, 2, 3, 4})));
  ASSERT_FALSE(s.launch(inc, grid1()));
  s.prefetch(names);
  ASSERT_FALSE(s.launch(inc, grid1()));  // after the prefetch: the prefetched copy is out of date
  Bytes out;
  ASSERT_FALSE(s.download("acc", out));
  EXPECT_EQ(words(out), (std::vector<std::uint32_t>{3, 4, 5, 6}));
  EXPECT_EQ(s.submissions(), 1u);
  s.prefetch(names);
  ASSERT_FALSE(s.sync());
  ASSERT_FALSE(s.download("acc", out));
  EXPECT_EQ(words(out), (std::vector<std::uint32_t>{3, 4, 5, 6}));
  ASSERT_FALSE(s.upload("acc", bytes({7, 8, 9, 10})));  // the same size: written in place
  ASSERT_FALSE(s.download("acc", out));
  EXPECT_EQ(words(out), (std::vector<std::uint32_t>{7, 8, 9, 10}));
  EXPECT_EQ(s.submissions(), 1u);  // staging copies are not launches
}

// begin_run: a name the run does not keep is gone, and the last run's fresh buffers come back in order,
// zero-filled over their new range (nothing of the last run's bytes survives).
TEST_F(Gpu_Resident, ARunForgetsOtherNamesAndGetsTheLastRunsFreshBuffersZeroed) {
  ResidentSession s(ctx(), compiler_);
  auto writer = [](std::uint32_t from, std::uint32_t to, std::uint32_t value) {
    Builder b({4, 1, 1});
    auto out = b.output("out", 0, ScalarType::U32, 4);
    return b.wrapped({b.if_(b.gid() >= b.u32(from) && b.gid() < b.u32(to), {b.store(out, b.gid(), b.u32(value))})});
  };
  const std::vector<std::string_view> keep_a = {"a"};
  s.begin_run(keep_a);
  ASSERT_FALSE(s.upload("a", bytes({1, 2, 3, 4})));
  ASSERT_FALSE(s.upload("b", bytes({5, 6, 7, 8})));
  ASSERT_FALSE(s.launch(writer(0, 2, 7), grid1()));
  Bytes out;
  ASSERT_FALSE(s.download("out", out));
  EXPECT_EQ(words(out), (std::vector<std::uint32_t>{7, 7, 0, 0}));
  const std::uint64_t created = ctx().buffers().stats().created;
  s.begin_run(keep_a);
  EXPECT_TRUE(s.has("a"));
  EXPECT_FALSE(s.has("b"));
  EXPECT_FALSE(s.has("out"));
  ASSERT_FALSE(s.launch(writer(2, 4, 9), grid1()));  // the last run's `out` buffer again, zeroed
  ASSERT_FALSE(s.download("out", out));
  EXPECT_EQ(words(out), (std::vector<std::uint32_t>{0, 0, 9, 9}));
  EXPECT_EQ(ctx().buffers().stats().created, created);
  Bytes a;
  ASSERT_FALSE(s.download("a", a));
  EXPECT_EQ(words(a), (std::vector<std::uint32_t>{1, 2, 3, 4}));
}

// ---------------------------------------------------------------- the split, host vs resident

struct Both {
  planner::SplitRun host;
  std::vector<Bytes> host_out;
  planner::SplitRun resident;
  std::vector<Bytes> resident_out;
};

class Gpu_ResidentSplit : public Gpu_Resident {
 protected:
  Both run_both(const Program& p, const std::vector<Bytes>& inputs, planner::RunConfig config) {
    Both r;
    VulkanExecutor exec(ctx());
    r.host = planner::run_split_into(planner::vyre_0_7_2(), p, inputs, config, exec, r.host_out);
    ResidentSession session(ctx(), compiler_);
    r.resident = run_split_resident(planner::vyre_0_7_2(), p, inputs, config, session, r.resident_out);
    resident_submissions_ = session.submissions();
    return r;
  }
  std::uint64_t resident_submissions_ = 0;
};

TEST_F(Gpu_ResidentSplit, SpecUpstreamExampleKeepsBothSlotsInBothModes) {
  Builder b({1, 1, 1});
  auto out = b.output("out", 0, ScalarType::U32, 4);
  Program p = b.raw({b.region("a", {b.store(out, b.u32(0), b.u32(0xAA))}), b.grid_sync(),
                     b.region("b", {b.store(out, b.u32(2), b.u32(0xBB))})});
  planner::RunConfig config;
  config.grid = std::array<std::uint32_t, 3>{1, 1, 1};
  Both r = run_both(p, {}, config);
  ASSERT_TRUE(r.host.ok()) << r.host.failure->diagnostic.message;
  ASSERT_TRUE(r.resident.ok()) << r.resident.failure->diagnostic.message;
  EXPECT_EQ(r.host.segment_count, 2u);
  ASSERT_EQ(r.host_out.size(), 1u);
  EXPECT_EQ(words(r.host_out[0]), (std::vector<std::uint32_t>{0xAA, 0, 0xBB, 0}));
  EXPECT_EQ(r.resident_out, r.host_out);
  EXPECT_EQ(resident_submissions_, 1u);  // both segments in one command buffer
}

TEST_F(Gpu_ResidentSplit, MultiSegmentAccumulatorsWithFixpointPassesAgree) {
  Builder b({8, 1, 1});
  auto in = b.read("in", 0, ScalarType::U32, 32);
  auto acc = b.read_write("acc", 1, ScalarType::U32, 32);
  auto tmp = b.write_only("tmp", 2, ScalarType::U32, 32);
  auto out = b.output("out", 3, ScalarType::U32, 32);
  auto tile = b.workgroup("tile", 8, ScalarType::U32);
  Program p = b.raw({
      b.region("s0", {b.store(tile, b.lid(), b.load(in, b.gid())), b.barrier(),
                      b.store(tmp, b.gid(), b.load(tile, b.u32(7) - b.lid()) + b.load(acc, b.gid()))}),
      b.grid_sync(),
      b.region("s1", {b.store(acc, b.gid(), b.bin(BinOp::SaturatingAdd, b.load(tmp, b.gid()), b.load(acc, b.gid())))}),
      b.grid_sync(),
      b.region("s2", {b.store(out, b.gid(), b.load(acc, (b.gid() + b.u32(1)) % b.u32(32)))}),
  });
  std::vector<std::uint32_t> in_words(32), acc_words(32);
  for (std::uint32_t i = 0; i < 32; ++i) {
    in_words[i] = i * 7 + 1;
    acc_words[i] = 1000 * i;
  }
  planner::RunConfig config;
  config.fixpoint_iterations = 3;
  Both r = run_both(p, {bytes(in_words), bytes(acc_words)}, config);
  ASSERT_TRUE(r.host.ok()) << r.host.failure->diagnostic.message;
  ASSERT_TRUE(r.resident.ok()) << r.resident.failure->diagnostic.message;
  EXPECT_EQ(r.host.segment_count, 3u);
  EXPECT_EQ(r.resident.passes, r.host.passes);
  EXPECT_EQ(r.resident.launch_count(), r.host.launch_count());
  ASSERT_EQ(r.host_out.size(), r.resident_out.size());
  for (std::size_t i = 0; i < r.host_out.size(); ++i) EXPECT_EQ(words(r.resident_out[i]), words(r.host_out[i])) << r.host.output_names[i];
}

/// Two segments over a grid_sync; the second divides by the first one's copy of `d`, so an input
/// with a zero traps there (integer division by zero).
Program trap_in_second_segment() {
  Builder b({4, 1, 1});
  auto d = b.read("d", 0, ScalarType::I32, 4);
  auto out = b.output("out", 1, ScalarType::I32, 4);
  Program p = b.raw({b.region("s0", {b.store(out, b.gid(), b.load(d, b.gid()))}), b.grid_sync(),
                     b.region("s1", {b.store(out, b.gid(), b.i32(12) / b.load(out, b.gid()))})});
  return p;
}

TEST_F(Gpu_ResidentSplit, ATrapInTheSecondSegmentFailsTheSameWayInBothModes) {
  const Program p = trap_in_second_segment();
  planner::RunConfig config;
  config.grid = std::array<std::uint32_t, 3>{1, 1, 1};
  Both r = run_both(p, {bytes({1, 2, 0, 3})}, config);
  ASSERT_FALSE(r.host.ok());
  ASSERT_FALSE(r.resident.ok());
  EXPECT_EQ(r.resident.failure->diagnostic.code, r.host.failure->diagnostic.code);
  EXPECT_EQ(r.resident.failure->diagnostic.message, r.host.failure->diagnostic.message);
  EXPECT_EQ(r.resident.failure->segment, r.host.failure->segment);
  ASSERT_TRUE(r.resident.failure->launch_error.has_value());
  EXPECT_EQ(r.resident.failure->launch_error->kind, planner::LaunchErrorKind::Trap);
  EXPECT_EQ(r.resident.failure->launch_error->message, "divide_by_zero in invocation (2, 0, 0)");
}

// Planned once: run after run equals run_split_resident (outputs, launches, passes, failures), takes every
// segment's kernel from its slot after the first run, and resubmits the recorded command buffer when the
// run's buffers are the same; new input bytes are still what a run computes from.
TEST_F(Gpu_ResidentSplit, APreparedSplitRunsLikeTheUnpreparedOneRunAfterRun) {
  Builder b({8, 1, 1});
  auto in = b.read("in", 0, ScalarType::U32, 32);
  auto acc = b.read_write("acc", 1, ScalarType::U32, 32);
  auto tmp = b.write_only("tmp", 2, ScalarType::U32, 32);
  auto out = b.output("out", 3, ScalarType::U32, 32);
  Program p = b.raw({
      b.region("s0", {b.store(tmp, b.gid(), b.load(in, b.gid()) * b.u32(5) + b.load(acc, b.gid()))}),
      b.grid_sync(),
      b.region("s1", {b.store(acc, b.gid(), b.load(tmp, b.gid()) ^ b.load(acc, b.gid()))}),
      b.grid_sync(),
      b.region("s2", {b.store(out, b.gid(), b.load(acc, (b.gid() + b.u32(3)) % b.u32(32)))}),
  });
  for (const char* profile_name : {"vyre-0.7.2", "sound"}) {
    const planner::Profile* profile = planner::find_profile(profile_name);
    ASSERT_NE(profile, nullptr);
    for (std::uint32_t iterations : {1u, 3u}) {
      planner::RunConfig config;
      config.fixpoint_iterations = iterations;
      config.grid = std::array<std::uint32_t, 3>{4, 1, 1};
      PreparedSplit prepared = prepare_split_resident(*profile, p);
      ASSERT_TRUE(prepared.plan.has_value());
      ResidentSession plain_session(ctx(), compiler_);
      ResidentSession prepared_session(ctx(), compiler_);
      for (std::uint32_t round = 0; round < 3; ++round) {
        std::vector<std::uint32_t> in_words(32), acc_words(32);
        for (std::uint32_t i = 0; i < 32; ++i) {
          in_words[i] = i * 7 + round;
          acc_words[i] = 1000 * i + round;
        }
        const std::vector<Bytes> inputs = {bytes(in_words), bytes(acc_words)};
        std::vector<Bytes> plain_out, prepared_out;
        const planner::SplitRun plain = run_split_resident(*profile, p, inputs, config, plain_session, plain_out);
        const planner::SplitRun run = run_prepared_resident(prepared, inputs, config, prepared_session, prepared_out);
        ASSERT_TRUE(plain.ok()) << plain.failure->diagnostic.message;
        ASSERT_TRUE(run.ok()) << run.failure->diagnostic.message;
        EXPECT_EQ(run.launch_count(), plain.launch_count());
        EXPECT_EQ(run.passes, plain.passes);
        EXPECT_EQ(run.output_names, plain.output_names);
        EXPECT_EQ(prepared_out, plain_out) << profile_name << ", " << iterations << " iterations, round " << round;
      }
      EXPECT_GE(prepared_session.slot_hits(), 2 * prepared.plan->segments.size()) << profile_name;
      if (iterations == 1) {
        EXPECT_EQ(plain_session.slot_hits(), 0u);  // unprepared: slots last one run, one pass here
        EXPECT_GE(prepared_session.resubmissions(), 1u) << profile_name;
      }
    }
  }
}

TEST_F(Gpu_ResidentSplit, APreparedSplitFailsLikeTheUnpreparedOne) {
  const Program p = trap_in_second_segment();
  planner::RunConfig config;
  config.grid = std::array<std::uint32_t, 3>{1, 1, 1};
  PreparedSplit prepared = prepare_split_resident(planner::vyre_0_7_2(), p);
  ResidentSession plain_session(ctx(), compiler_);
  ResidentSession prepared_session(ctx(), compiler_);
  for (const std::vector<std::uint32_t>& d_words : {std::vector<std::uint32_t>{1, 2, 0, 3}, std::vector<std::uint32_t>{1, 2, 4, 3},
                                                    std::vector<std::uint32_t>{0, 2, 4, 3}}) {
    const std::vector<Bytes> inputs = {bytes(d_words)};
    std::vector<Bytes> plain_out, prepared_out;
    const planner::SplitRun plain = run_split_resident(planner::vyre_0_7_2(), p, inputs, config, plain_session, plain_out);
    const planner::SplitRun run = run_prepared_resident(prepared, inputs, config, prepared_session, prepared_out);
    ASSERT_EQ(run.ok(), plain.ok());
    if (plain.ok()) {
      EXPECT_EQ(prepared_out, plain_out);
      continue;
    }
    EXPECT_EQ(run.failure->diagnostic.message, plain.failure->diagnostic.message);
    EXPECT_EQ(run.failure->segment, plain.failure->segment);
    ASSERT_TRUE(run.failure->launch_error.has_value());
    EXPECT_EQ(run.failure->launch_error->message, plain.failure->launch_error->message);
  }
  // A fence-free program is one launch, prepared or not.
  Builder c({4, 1, 1});
  auto x = c.read_write("x", 0, ScalarType::U32, 4);
  Program unsplit = c.wrapped({c.store(x, c.gid(), c.load(x, c.gid()) + c.u32(9))});
  PreparedSplit one = prepare_split_resident(planner::vyre_0_7_2(), unsplit);
  EXPECT_FALSE(one.split);
  std::vector<Bytes> o1, o2;
  const std::vector<Bytes> inputs = {bytes({1, 2, 3, 4})};
  ASSERT_TRUE(run_split_resident(planner::vyre_0_7_2(), unsplit, inputs, config, plain_session, o1).ok());
  ASSERT_TRUE(run_prepared_resident(one, inputs, config, prepared_session, o2).ok());
  EXPECT_EQ(o2, o1);
  EXPECT_EQ(words(o2.at(0)), (std::vector<std::uint32_t>{10, 11, 12, 13}));
}

}  // namespace
}  // namespace gridcheck::gpu
