// VulkanExecutor: the launch ABI of planner/executor.hpp, traps, grid inference, fixpoint, workgroup
// memory, barriers after returns, and the error paths (every one a LaunchError, never a crash).

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpu/gpu_test_support.hpp"
#include "gpu/vulkan_executor.hpp"
#include "ir/builder.hpp"

namespace gridcheck::gpu {
namespace {

using namespace ir;
using planner::Bytes;
using planner::LaunchConfig;
using planner::LaunchError;
using planner::LaunchErrorKind;

using testing::bytes;
using testing::words;
std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

class Gpu_Executor : public testing::GpuTest {
 protected:
  std::optional<LaunchError> launch(const Program& p, const std::vector<Bytes>& inputs, LaunchConfig config = {}) {
    std::vector<const Bytes*> ptrs;
    for (const Bytes& b : inputs) ptrs.push_back(&b);
    return exec().launch(p, ptrs, config, out_);
  }
  VulkanExecutor& exec() {
    if (!exec_) exec_ = std::make_unique<VulkanExecutor>(ctx());
    return *exec_;
  }
  std::vector<Bytes> out_;
  std::unique_ptr<VulkanExecutor> exec_;
};

LaunchConfig grid(std::uint32_t x, std::uint32_t y = 1, std::uint32_t z = 1) {
  LaunchConfig c;
  c.grid_override = std::array<std::uint32_t, 3>{x, y, z};
  return c;
}

TEST_F(Gpu_Executor, InputsAndOutputsFollowDeclarationOrderWithZeroFillAndByteRanges) {
  Builder b({4, 1, 1});
  auto a = b.read("a", 7, ScalarType::U32, 4);           // input 0
  auto rw = b.read_write("rw", 2, ScalarType::U32);      // input 1, output 0 (runtime-sized)
  auto wo = b.write_only("wo", 0, ScalarType::U32, 3);   // output 1, zero-filled
  auto o = b.output("o", 5, ScalarType::U32, 4);         // output 2, zero-filled, sliced to bytes 4..12
  b.decl(o).output_byte_range = ByteRange{4, 12};
  auto u = b.uniform("u", 3, ScalarType::U32, 2);        // input 2
  Program p = b.wrapped({
      b.store(rw, b.gid(), b.load(rw, b.gid()) + b.load(a, b.gid()) + b.load(u, b.u32(1))),
      b.if_(b.gid() == b.u32(1), {b.store(wo, b.u32(1), b.buf_len(rw))}),
      b.store(o, b.gid(), b.gid() * b.u32(10)),
  });
  ASSERT_FALSE(launch(p, {bytes({1, 2, 3, 4}), bytes({100, 200, 300, 400, 500}), bytes({0, 1000})}, grid(1)));
  ASSERT_EQ(out_.size(), 3u);
  EXPECT_EQ(words(out_[0]), (std::vector<std::uint32_t>{1101, 1202, 1303, 1404, 500}));  // gid 4 never runs
  EXPECT_EQ(words(out_[1]), (std::vector<std::uint32_t>{0, 5, 0}));
  EXPECT_EQ(words(out_[2]), (std::vector<std::uint32_t>{10, 20}));
}

// The test-only lowering fault (LoweringFault::StoreXorPlusOne) corrupts exactly the stores whose value
// is an xor; without it the same program is exact. Tests of GPU-only divergences rely on both halves.
TEST_F(Gpu_Executor, TheStoreXorFaultCorruptsOnlyXorStores) {
  Builder b({4, 1, 1});
  auto out = b.output("out", 0, ScalarType::U32, 8);
  Program p = b.wrapped({
      b.store(out, b.gid(), b.gid() ^ b.u32(6)),
      b.store(out, b.gid() + b.u32(4), b.gid() | b.u32(8)),
  });
  ASSERT_FALSE(launch(p, {}, grid(1)));
  const std::vector<std::uint32_t> exact{6, 7, 4, 5, 8, 9, 10, 11};
  EXPECT_EQ(words(out_[0]), exact);
  exec().set_lowering_fault(LoweringFault::StoreXorPlusOne);
  ASSERT_FALSE(launch(p, {}, grid(1)));
  EXPECT_EQ(words(out_[0]), (std::vector<std::uint32_t>{7, 8, 5, 6, 8, 9, 10, 11}));
  exec().set_lowering_fault(LoweringFault::None);
  ASSERT_FALSE(launch(p, {}, grid(1)));
  EXPECT_EQ(words(out_[0]), exact);
  EXPECT_EQ(lowering_fault_named("store-xor-plus-one"), LoweringFault::StoreXorPlusOne);
  EXPECT_EQ(lowering_fault_named("none"), LoweringFault::None);
  EXPECT_FALSE(lowering_fault_named("store-xor"));
}

TEST_F(Gpu_Executor, TheGridIsInferredPerSpec57WithoutAnOverride) {
  Builder b({64, 1, 1});
  auto out = b.output("out", 0, ScalarType::U32, 100);
  auto count = b.output("count", 1, ScalarType::U32, 1);
  Program p = b.wrapped({b.let("old", b.atomic_add(count, b.u32(0), b.u32(1))), b.store(out, b.gid(), b.u32(1))});
  ASSERT_FALSE(launch(p, {}));
  EXPECT_EQ(words(out_[1])[0], 128u);  // ceil(max count 100 / 64) = 2 workgroups (atomics: max of all counts)
}

TEST_F(Gpu_Executor, FixpointIterationsRelaunchWithPersistentBuffers) {
  Builder b({8, 1, 1});
  auto acc = b.read_write("acc", 0, ScalarType::U32, 8);
  Program p = b.wrapped({b.store(acc, b.gid(), b.load(acc, b.gid()) * b.u32(2) + b.u32(1))});
  LaunchConfig c = grid(1);
  c.fixpoint_iterations = 3;
  ASSERT_FALSE(launch(p, {bytes({0, 1, 2, 3, 4, 5, 6, 7})}, c));
  EXPECT_EQ(words(out_[0]), (std::vector<std::uint32_t>{7, 15, 23, 31, 39, 47, 55, 63}));  // x -> 8x + 7
}

TEST_F(Gpu_Executor, WorkgroupMemoryStartsZeroedAndBarriersShareItWithinTheWorkgroup) {
  Builder b({16, 1, 1});
  auto in = b.read("in", 0, ScalarType::U32, 64);
  auto tile = b.workgroup("tile", 17, ScalarType::U32);
  auto out = b.output("out", 1, ScalarType::U32, 64);
  auto untouched = b.output("untouched", 2, ScalarType::U32, 4);
  Program p = b.wrapped({
      b.store(untouched, b.wgid(), b.load(tile, b.u32(16))),  // never written: zero in every workgroup
      b.store(tile, b.lid(), b.load(in, b.gid())),
      b.barrier(),
      b.store(out, b.gid(), b.load(tile, b.u32(15) - b.lid())),
      b.barrier(),
      b.store(tile, b.u32(16), b.u32(99)),
  });
  std::vector<std::uint32_t> in_words(64);
  for (std::uint32_t i = 0; i < 64; ++i) in_words[i] = i * i;
  ASSERT_FALSE(launch(p, {bytes(in_words)}, grid(4)));
  for (std::uint32_t g = 0; g < 64; ++g) ASSERT_EQ(words(out_[0])[g], in_words[(g / 16) * 16 + 15 - g % 16]) << g;
  EXPECT_EQ(words(out_[1]), (std::vector<std::uint32_t>{0, 0, 0, 0}));
}

TEST_F(Gpu_Executor, InvocationsThatReturnedBeforeABarrierDoNotBlockTheOthers) {
  Builder b({8, 1, 1});
  auto tile = b.workgroup("tile", 8, ScalarType::U32);
  auto out = b.output("out", 0, ScalarType::U32, 16);
  Program p = b.wrapped({
      b.store(out, b.gid(), b.u32(1000)),
      b.if_(b.lid() % b.u32(2) == b.u32(1), {b.ret()}),
      b.store(tile, b.lid(), b.gid() + b.u32(1)),
      b.barrier(),
      b.loop("i", b.u32(0), b.u32(3), {b.barrier(), b.store(out, b.gid(), b.load(tile, (b.lid() + b.u32(2)) % b.u32(8)))}),
  });
  ASSERT_FALSE(launch(p, {}, grid(2)));
  std::vector<std::uint32_t> want(16);
  for (std::uint32_t g = 0; g < 16; ++g) want[g] = g % 2 == 1 ? 1000 : (g / 8) * 8 + (g % 8 + 2) % 8 + 1;
  EXPECT_EQ(words(out_[0]), want);
}

TEST_F(Gpu_Executor, NestedControlFlowAndScopedLocalsCompute) {
  Builder b({1, 1, 1});
  auto out = b.output("out", 0, ScalarType::U32, 2);
  Program p = b.wrapped({
      b.let("sum", b.u32(0)),
      b.loop("i", b.u32(0), b.u32(5),
             {b.loop("j", b.var("i"), b.u32(5),
                     {b.if_(b.var("j") % b.u32(2) == b.u32(0), {b.let("t", b.var("i") * b.var("j")), b.assign("sum", b.var("sum") + b.var("t"))},
                            {b.assign("sum", b.var("sum") + b.u32(1))})})}),
      b.block({b.let("t", b.u32(7)), b.store(out, b.u32(1), b.var("t"))}),
      b.store(out, b.u32(0), b.var("sum")),
  });
  ASSERT_FALSE(launch(p, {}, grid(1)));
  std::uint32_t sum = 0;
  for (std::uint32_t i = 0; i < 5; ++i)
    for (std::uint32_t j = i; j < 5; ++j) sum += j % 2 == 0 ? i * j : 1;
  EXPECT_EQ(words(out_[0]), (std::vector<std::uint32_t>{sum, 7}));
}

TEST_F(Gpu_Executor, OutOfBoundsLoadsReadZeroAndStoresAndAtomicsDoNothing) {
  Builder b({4, 1, 1});
  auto in = b.read("in", 0, ScalarType::F32);  // runtime-sized: zero bytes here
  auto buf = b.read_write("buf", 1, ScalarType::U32, 2);
  auto out = b.output("out", 2, ScalarType::U32, 4);
  Program p = b.wrapped({
      b.store(buf, b.gid() + b.u32(1), b.u32(77)),
      b.store(out, b.gid(), b.cast(ScalarType::U32, b.load(in, b.gid())) + b.buf_len(in) +
                                b.atomic_add(buf, b.u32(5) + b.gid(), b.u32(1))),
  });
  ASSERT_FALSE(launch(p, {Bytes{}, bytes({5, 6})}, grid(1)));
  EXPECT_EQ(words(out_[0]), (std::vector<std::uint32_t>{5, 77}));
  EXPECT_EQ(words(out_[1]), (std::vector<std::uint32_t>{0, 0, 0, 0}));
}

TEST_F(Gpu_Executor, BoolBuffersLoadAnyNonZeroWordAsTrueAndStoreZeroOrOne) {
  Builder b({4, 1, 1});
  auto in = b.read("in", 0, ScalarType::Bool, 4);
  auto out = b.output("out", 1, ScalarType::Bool, 4);
  auto as_u32 = b.output("as_u32", 2, ScalarType::U32, 4);
  Program p = b.wrapped({b.store(out, b.gid(), b.un(UnOp::LogicalNot, b.load(in, b.gid()))),
                         b.store(as_u32, b.gid(), b.cast(ScalarType::U32, b.load(in, b.gid())))});
  ASSERT_FALSE(launch(p, {bytes({0, 1, 2, 0xFFFFFFFF})}, grid(1)));
  EXPECT_EQ(words(out_[0]), (std::vector<std::uint32_t>{1, 0, 0, 0}));
  EXPECT_EQ(words(out_[1]), (std::vector<std::uint32_t>{0, 1, 1, 1}));
}

TEST_F(Gpu_Executor, F32ArithmeticIsCanonicalAndFlushesSubnormals) {
  Builder b({4, 1, 1});
  auto x = b.read("x", 0, ScalarType::F32, 4);
  auto out = b.output("out", 1, ScalarType::F32, 4);
  Program p = b.wrapped({b.store(out, b.gid(), b.load(x, b.gid()) * b.f32(0.5f))});
  ASSERT_FALSE(launch(p, {bytes({0x00800000u, 0x7F800001u, 0x80000001u, bits(3.0f)})}, grid(1)));
  EXPECT_EQ(words(out_[0]), (std::vector<std::uint32_t>{0x00000000u, 0x7FC00000u, 0x80000000u, bits(1.5f)}));
}

TEST_F(Gpu_Executor, LiteralIndicesBeyondEveryBufferReadZeroAndWriteNothing) {
  // Found by the differential campaign: glslang rejects a constant out-of-range subscript even inside
  // the dead branch of the bounds check, so such literals must not reach a subscript.
  Builder b({2, 1, 1});
  auto in = b.read("in", 0, ScalarType::U32);
  auto tile = b.workgroup("tile", 2, ScalarType::U32);
  auto out = b.output("out", 1, ScalarType::U32, 4);
  Program p = b.wrapped({
      b.store(tile, b.lid() + b.u32(5), b.u32(1)),  // a literal out-of-range store index is V036
      b.store(out, b.gid(), b.load(in, b.u32(2147483648u)) + b.load(tile, b.u32(7)) + b.load(out, b.u32(4)) + b.u32(3)),
      b.store(out, b.gid() + b.u32(0xFFFFFF00u), b.u32(9)),
  });
  std::optional<LaunchError> e = launch(p, {bytes({1, 2})}, grid(1));
  ASSERT_FALSE(e.has_value()) << e->message;
  EXPECT_EQ(words(out_[0]), (std::vector<std::uint32_t>{3, 3, 0, 0}));
}

TEST_F(Gpu_Executor, ConstantWordsKeepTheirBitsThroughSelects) {
  // Found by the differential campaign: Mesa 22.3 rewrites `c ? 0x3F800000u : 0x80000000u` as a
  // bool-to-float conversion (1.0 or +0.0), so program literals must stay unknown to the driver.
  Builder b({1, 1, 1});
  auto c = b.read("c", 0, ScalarType::U32, 1);
  auto f = b.output("f", 1, ScalarType::F32, 2);
  auto u = b.output("u", 2, ScalarType::U32, 1);
  Program p = b.wrapped({
      b.store(f, b.u32(0), b.select(b.load(c, b.u32(0)) > b.u32(5), b.f32(1.0f), b.f32_bits(0x80000000u))),
      b.store(f, b.u32(1), b.select(b.load(c, b.u32(0)) > b.u32(5), b.f32(1.0f),
                                    b.bin(BinOp::Min, b.un(UnOp::Abs, b.f32_bits(0x80000000u)), b.un(UnOp::Ceil, b.f32(-0.5f))))),
      b.store(u, b.u32(0), b.select(b.load(c, b.u32(0)) > b.u32(5), b.u32(0x3F800000u), b.u32(0x80000000u))),
  });
  ASSERT_FALSE(launch(p, {bytes({0})}, grid(1)));
  EXPECT_EQ(words(out_[0]), (std::vector<std::uint32_t>{0x80000000u, 0x80000000u}));
  EXPECT_EQ(words(out_[1]), (std::vector<std::uint32_t>{0x80000000u}));
}

TEST_F(Gpu_Executor, AProgramThatDoesNotValidateIsInvalidNotAnInternalError) {
  Builder b({1, 1, 1});
  auto out = b.output("out", 0, ScalarType::U32, 1);
  Program p = b.wrapped({b.assign("nowhere", b.u32(1)), b.store(out, b.u32(0), b.u32(1))});
  std::optional<LaunchError> e = launch(p, {}, grid(1));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, LaunchErrorKind::InvalidProgram);
  EXPECT_EQ(e->message.substr(0, 5), "K034:") << e->message;
  EXPECT_NE(e->message.find("[V120]"), std::string::npos) << e->message;
}

// ------------------------------------------------------------------------------------ traps

TEST_F(Gpu_Executor, AnI32DivisionByZeroIsATrapWithLocationAndInvocation) {
  Builder b({4, 1, 1});
  auto d = b.read("d", 0, ScalarType::I32, 8);
  auto out = b.output("out", 1, ScalarType::I32, 8);
  Program p = b.wrapped({b.store(out, b.gid(), b.i32(100) / b.load(d, b.gid()))});
  const ExprId div = p.stmt(p.list(p.stmt(p.entry_stmts()[0]).body)[0]).exprs[1];
  p.set_loc(div, SourceLoc{12, 34});
  std::optional<LaunchError> e = launch(p, {bytes({1, 2, 3, 4, 5, 0, 7, 0})}, grid(2));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, LaunchErrorKind::Trap);
  EXPECT_EQ(e->message, "divide_by_zero in invocation (5, 0, 0)");  // the smallest trapping invocation
  EXPECT_EQ(e->loc, (SourceLoc{12, 34}));
  ASSERT_TRUE(e->invocation.has_value());
  EXPECT_EQ(*e->invocation, (std::array<std::uint32_t, 3>{5, 0, 0}));
}

TEST_F(Gpu_Executor, OverflowRemainderAndNegativeIndexTrapsNameTheirKind) {
  auto trap_of = [&](auto build) {
    Builder b({1, 1, 1});
    auto in = b.read("in", 0, ScalarType::I32, 2);
    auto out = b.output("out", 1, ScalarType::I32, 1);
    Program p = b.wrapped({b.store(out, b.u32(0), build(b, in))});
    std::optional<LaunchError> e = launch(p, {bytes({0x80000000u, 0xFFFFFFFFu})}, grid(1));
    return e ? e->message : std::string("no trap");
  };
  EXPECT_EQ(trap_of([](Builder& b, Buf in) { return b.load(in, b.u32(0)) / b.load(in, b.u32(1)); }),
            "divide_overflow in invocation (0, 0, 0)");
  EXPECT_EQ(trap_of([](Builder& b, Buf in) { return b.load(in, b.u32(0)) % b.load(in, b.u32(1)); }),
            "remainder_overflow in invocation (0, 0, 0)");
  EXPECT_EQ(trap_of([](Builder& b, Buf in) { return b.load(in, b.u32(1)) % b.i32(0); }),
            "remainder_by_zero in invocation (0, 0, 0)");
  EXPECT_EQ(trap_of([](Builder& b, Buf in) { return b.load(in, b.load(in, b.u32(1))); }),
            "negative_to_u32 in invocation (0, 0, 0)");
}

TEST_F(Gpu_Executor, AReturnedInvocationDoesNotTrap) {
  Builder b({4, 1, 1});
  auto out = b.output("out", 0, ScalarType::I32, 4);
  auto tile = b.workgroup("tile", 4, ScalarType::U32);
  Program p = b.wrapped({b.if_(b.lid() == b.u32(2), {b.ret()}), b.barrier(),
                         b.store(out, b.lid(), b.i32(8) / (b.cast(ScalarType::I32, b.lid()) - b.i32(2))),
                         b.store(tile, b.lid(), b.u32(1))});
  ASSERT_FALSE(launch(p, {}, grid(1)));
  EXPECT_EQ(words(out_[0]), (std::vector<std::uint32_t>{static_cast<std::uint32_t>(-4), static_cast<std::uint32_t>(-8), 0, 8}));
}

// ------------------------------------------------------------------------------------ errors

TEST_F(Gpu_Executor, InputCountAndStaticLengthMismatchesAreInvalidProgramErrors) {
  Builder b({1, 1, 1});
  auto a = b.read("a", 0, ScalarType::U32, 4);
  auto out = b.output("out", 1, ScalarType::U32, 1);
  Program p = b.wrapped({b.store(out, b.u32(0), b.load(a, b.u32(0)))});
  std::optional<LaunchError> none = launch(p, {}, grid(1));
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->kind, LaunchErrorKind::InvalidProgram);
  EXPECT_EQ(none->message, "K032: the launch takes 1 input buffers but received 0");
  std::optional<LaunchError> shorter = launch(p, {bytes({1, 2, 3})}, grid(1));
  ASSERT_TRUE(shorter.has_value());
  EXPECT_EQ(shorter->message, "K032: input buffer `a` has 12 bytes but its declaration needs exactly 16 (count 4)");
}

TEST_F(Gpu_Executor, AZeroFilledOutputWithoutASizeIsAnError) {
  Builder b({1, 1, 1});
  auto out = b.write_only("out", 0, ScalarType::U32);
  Program p = b.wrapped({b.store(out, b.u32(0), b.u32(1))});
  std::optional<LaunchError> e = launch(p, {}, grid(1));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, LaunchErrorKind::InvalidProgram);
  EXPECT_EQ(e->message.substr(0, 5), "K033:");
}

TEST_F(Gpu_Executor, DeviceLimitsAreResourceErrors) {
  {
    Builder b({4096, 1, 1});
    auto out = b.output("out", 0, ScalarType::U32, 1);
    Program p = b.wrapped({b.store(out, b.u32(0), b.u32(1))});
    std::optional<LaunchError> e = launch(p, {}, grid(1));
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->kind, LaunchErrorKind::Resource);
    EXPECT_EQ(e->message.substr(0, 5), "K022:") << e->message;
  }
  {
    Builder b({1, 1, 1});
    const std::uint32_t words_over = ctx().info().max_shared_memory_bytes / 4 + 1;
    auto tile = b.workgroup("tile", words_over, ScalarType::U32);
    auto out = b.output("out", 0, ScalarType::U32, 1);
    Program p = b.wrapped({b.store(out, b.u32(0), b.load(tile, b.u32(0)))});
    std::optional<LaunchError> e = launch(p, {}, grid(1));
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->kind, LaunchErrorKind::Resource);
    EXPECT_EQ(e->message.substr(0, 5), "K023:") << e->message;
  }
  {
    Builder b({1, 1, 1});
    auto out = b.output("out", 0, ScalarType::U32, 1);
    Program p = b.wrapped({b.store(out, b.u32(0), b.u32(1))});
    std::optional<LaunchError> e = launch(p, {}, grid(ctx().info().max_workgroup_count[0] + 1));
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->kind, LaunchErrorKind::Resource);
    EXPECT_EQ(e->message.substr(0, 5), "K021:") << e->message;
  }
}

TEST_F(Gpu_Executor, AFenceIsRefusedBeforeAnythingRuns) {
  Builder b({1, 1, 1});
  auto out = b.output("out", 0, ScalarType::U32, 1);
  Program p = b.wrapped({b.store(out, b.u32(0), b.u32(1)), b.grid_sync()});
  std::optional<LaunchError> e = launch(p, {}, grid(1));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, LaunchErrorKind::InvalidProgram);
  EXPECT_EQ(e->message.substr(0, 5), "K030:");
}

TEST_F(Gpu_Executor, RepeatedLaunchesHitTheCompileAndPipelineCaches) {
  Builder b({1, 1, 1});
  auto out = b.output("out", 0, ScalarType::U32, 1);
  Program p = b.wrapped({b.store(out, b.u32(0), b.u32(41) + b.u32(1))});
  const std::uint64_t kernel_hits = exec().kernels().kernels().hits();
  for (int i = 0; i < 3; ++i) ASSERT_FALSE(launch(p, {}, grid(1)));
  EXPECT_EQ(exec().compiler().compiles(), 1u);
  EXPECT_EQ(exec().kernels().kernels().hits(), kernel_hits + 2);  // kept kernels: not even lowered again
  EXPECT_EQ(exec().compiler().hits(), 0u);
  EXPECT_EQ(words(out_[0])[0], 42u);
  EXPECT_EQ(exec().name(), "vulkan:" + ctx().info().name);
}

}  // namespace
}  // namespace gridcheck::gpu
