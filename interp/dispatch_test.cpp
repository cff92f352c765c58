// The dispatch model (docs/semantics.md §3.1, §5): inputs, zero-filled outputs, workgroup memory, results,
// grid inference, builtins, fixpoint, and the low-level execute entry.

#include <gtest/gtest.h>

#include "interp/interpreter.hpp"
#include "interp/test_support.hpp"
#include "ir/builder.hpp"

namespace gridcheck::interp {
namespace {

using namespace testing;
using ir::Builder;
using ir::Buf;
using ir::ScalarType;

TEST(Interp_Dispatch, InputsAreBoundToReferenceInputsInDeclarationOrder) {
  Builder b({4, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  Buf c = b.read("c", 2, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.load(a, b.gid()) - b.load(c, b.gid()))});
  const std::vector<Bytes> inputs = {to_bytes({10, 20, 30, 40}), to_bytes({1, 2, 3, 4})};
  RunResult r = run_reference(p, inputs);
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{9, 18, 27, 36}));
  EXPECT_EQ(r.outputs.size(), 1u);  // read-only buffers are not results
}

TEST(Interp_Dispatch, BackendAllocatedOutputsStartZeroFilledAtTheirStaticSize) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  Buf wo = b.write_only("wo", 1, ScalarType::U32, 3);
  ir::Program p = b.wrapped({b.store(out, b.u32(1), b.u32(7)), b.store(wo, b.u32(2), b.u32(5))});
  RunResult r = run_reference(p, {}, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{0, 7, 0, 0}));
  EXPECT_EQ(output(r, "wo"), (Words{0, 0, 5}));
}

TEST(Interp_Dispatch, ReadWriteBuffersKeepCallerBytesAndAreResults) {
  Builder b({1, 1, 1});
  Buf buf = b.read_write("buf", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.store(buf, b.u32(0), b.u32(9))});
  const std::vector<Bytes> inputs = {to_bytes({1, 2, 3, 4})};
  RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "buf"), (Words{9, 2, 3, 4}));
}

TEST(Interp_Dispatch, ResultsFollowDeclarationOrderAndOutputByteRange) {
  Builder b({1, 1, 1});
  Buf z = b.output("z", 0, ScalarType::U32, 4);
  b.read_write("rw", 1, ScalarType::U32, 2);
  Buf a = b.output("a", 2, ScalarType::U32, 4);
  b.decl(a).output_byte_range = ir::ByteRange{4, 12};
  ir::Program p = b.wrapped({b.store(z, b.u32(0), b.u32(1)), b.store(a, b.u32(1), b.u32(7)),
                             b.store(a, b.u32(2), b.u32(8)), b.store(a, b.u32(3), b.u32(9))});
  const std::vector<Bytes> inputs = {to_bytes({5, 6})};
  RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  ASSERT_EQ(r.outputs.size(), 3u);
  EXPECT_EQ(r.outputs[0].name, "z");
  EXPECT_EQ(r.outputs[1].name, "rw");
  EXPECT_EQ(r.outputs[2].name, "a");
  EXPECT_EQ(to_words(r.outputs[2].bytes), (Words{7, 8}));  // bytes 4..12 only
}

TEST(Interp_Dispatch, WorkgroupMemoryIsZeroedForEveryWorkgroup) {
  Builder b({4, 1, 1});
  Buf sh = b.workgroup("sh", 4, ScalarType::U32);
  Buf before = b.output("before", 0, ScalarType::U32, 12);
  Buf after = b.output("after", 1, ScalarType::U32, 12);
  ir::Program p = b.wrapped({
      b.let("old", b.load(sh, b.lid())),
      b.store(sh, b.lid(), b.var("old") + b.wgid() + b.u32(1)),
      b.store(before, b.gid(), b.var("old")),
      b.barrier(),
      b.store(after, b.gid(), b.load(sh, (b.lid() + b.u32(1)) % b.u32(4))),
  });
  RunResult r = run_reference(p, {}, Grid{3, 1, 1}, 1, memory_defined());  // reads the zero fill
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "before"), fill(12, 0));
  EXPECT_EQ(output(r, "after"), (Words{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}));
}

TEST(Interp_Dispatch, GridIsInferredByTheReferenceRule) {
  Builder b({64, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 130);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.gid() + b.u32(1))});
  RunResult r = run_reference(p, {}, std::nullopt, 1, memory_defined());  // the last workgroup's tail is out of bounds
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(r.grid, (Grid{3, 1, 1}));
  const Words w = output(r, "out");
  EXPECT_EQ(w[0], 1u);
  EXPECT_EQ(w[129], 130u);
  EXPECT_EQ(r.oob.size(), 1u);  // invocations 130..191 store out of bounds
  EXPECT_EQ(r.oob[0].stores, 62u);
}

TEST(Interp_Dispatch, BuiltinsDescribeTheInvocationAndTheGrid) {
  Builder b({2, 2, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 24);
  // Row-major over the global ids (width 2*2 = 4): pack lid.x, lid.y, wg.x, wg.y, sizes and counts.
  const ir::E index = b.gid(1) * b.u32(4) + b.gid(0);
  const ir::E packed = b.lid(0) | (b.lid(1) << b.u32(4)) | (b.wgid(0) << b.u32(8)) | (b.wgid(1) << b.u32(12)) |
                       (b.num_workgroups(0) << b.u32(16)) | (b.num_workgroups(1) << b.u32(20)) |
                       (b.workgroup_size(0) << b.u32(24)) | (b.wgid(2) << b.u32(28));
  ir::Program p = b.wrapped({b.store(out, index, packed)});
  RunResult r = run_reference(p, {}, Grid{2, 3, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  const Words w = output(r, "out");
  for (std::uint32_t gy = 0; gy < 6; ++gy) {
    for (std::uint32_t gx = 0; gx < 4; ++gx) {
      const std::uint32_t expected = (gx % 2) | ((gy % 2) << 4) | ((gx / 2) << 8) | ((gy / 2) << 12) | (2u << 16) |
                                     (3u << 20) | (2u << 24);
      EXPECT_EQ(w[gy * 4 + gx], expected) << gx << "," << gy;
    }
  }
}

TEST(Interp_Dispatch, ExecuteUpdatesEveryNonWorkgroupBufferInPlace) {
  Builder b({2, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Buf sh = b.workgroup("sh", 2, ScalarType::U32);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.store(sh, b.lid(), b.load(a, b.gid()) * b.u32(3)), b.barrier(),
                             b.store(out, b.gid(), b.load(sh, b.u32(1) - b.lid()))});
  std::vector<Bytes> buffers = {to_bytes({1, 2, 3, 4}), to_bytes({7, 7, 7, 7})};  // out gets caller bytes here
  RunResult r = execute(p, buffers, Grid{2, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_TRUE(r.outputs.empty());
  EXPECT_EQ(to_words(buffers[0]), (Words{1, 2, 3, 4}));
  EXPECT_EQ(to_words(buffers[1]), (Words{6, 3, 12, 9}));
}

TEST(Interp_Dispatch, FixpointRelaunchesOverPersistentStorageWithFreshWorkgroupMemory) {
  Builder b({2, 1, 1});
  Buf acc = b.read_write("acc", 0, ScalarType::U32, 2);
  Buf sh = b.workgroup("sh", 2, ScalarType::U32);
  Buf seen = b.output("seen", 1, ScalarType::U32, 2);
  ir::Program p = b.wrapped({
      b.store(acc, b.gid(), b.load(acc, b.gid()) * b.u32(2) + b.u32(1)),
      b.store(sh, b.lid(), b.load(sh, b.lid()) + b.u32(1)),
      b.store(seen, b.gid(), b.load(seen, b.gid()) + b.load(sh, b.lid())),
  });
  const std::vector<Bytes> inputs = {to_bytes({0, 10})};
  RunResult r = run_reference(p, inputs, Grid{1, 1, 1}, 3, memory_defined());  // reads the zero fill
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "acc"), (Words{7, 87}));
  EXPECT_EQ(output(r, "seen"), (Words{3, 3}));  // sh is 1 in every launch; seen accumulates
}

TEST(Interp_Dispatch, ShortInputIsRefusedAndLongerInputIsKept) {
  Builder b({1, 1, 1});
  Buf a = b.read_write("a", 0, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.store(a, b.buf_len(a) - b.u32(1), b.buf_len(a))});
  const std::vector<Bytes> shorter = {to_bytes({1})};
  RunResult refused = run_reference(p, shorter, Grid{1, 1, 1});
  EXPECT_EQ(refused.status, RunStatus::Invalid);
  EXPECT_EQ(refused.detail(), "R015");
  const std::vector<Bytes> longer = {to_bytes({1, 2, 3})};
  RunResult r = run_reference(p, longer, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "a"), (Words{1, 2, 3}));  // buf_len is 3: the element count of the bytes given
}

TEST(Interp_Dispatch, RuntimeSizedBuffersTakeTheirLengthFromTheBytes) {
  Builder b({4, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32);
  Buf out = b.read_write("out", 1, ScalarType::U32);
  ir::Program p = b.wrapped({b.if_(b.gid() < b.buf_len(a), {b.store(out, b.gid(), b.load(a, b.gid()) + b.buf_len(out))})});
  const std::vector<Bytes> inputs = {to_bytes({1, 2, 3}), to_bytes({0, 0, 0, 0, 0})};
  RunResult r = run_reference(p, inputs);
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(r.grid, (Grid{2, 1, 1}));  // 5 output elements over workgroups of 4
  EXPECT_EQ(output(r, "out"), (Words{6, 7, 8, 0, 0}));
}

TEST(Interp_Dispatch, CaseInputsAreMaterialisedByName) {
  Builder b({4, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Buf k = b.read("k", 1, ScalarType::U32, 1);
  Buf out = b.output("out", 2, ScalarType::U32, 4);
  ir::Case c;
  c.program = b.wrapped({b.store(out, b.gid(), b.load(a, b.gid()) + b.load(k, b.u32(0)))});
  ir::InputData series;
  series.buffer = "a";
  series.kind = ir::InputData::Kind::Series;
  series.first = 10;
  series.step = 5;
  c.inputs.push_back(series);  // k has no data: zero-filled
  RunResult r = run_case(c);
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{10, 15, 20, 25}));

  ir::InputData bogus;
  bogus.buffer = "out";
  c.inputs.push_back(bogus);
  RunResult bad = run_case(c);
  EXPECT_EQ(bad.status, RunStatus::Invalid);
  EXPECT_EQ(bad.detail(), "R019");
}

TEST(Interp_Dispatch, OutputWithoutStaticSizeIsRefused) {
  Builder b({1, 1, 1});
  Buf wo = b.write_only("wo", 0, ScalarType::U32);
  ir::Program p = b.wrapped({b.store(wo, b.u32(0), b.u32(1))});
  RunOptions o;
  o.validate = false;  // the validator warns (G013); the dispatch itself has no size to allocate
  RunResult r = run_reference(p, {}, Grid{1, 1, 1}, 1, o);
  EXPECT_EQ(r.status, RunStatus::Invalid);
  EXPECT_EQ(r.detail(), "R016");
}

}  // namespace
}  // namespace gridcheck::interp
