#include "ir/equality.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "ir/builder.hpp"

namespace gridcheck::ir {
namespace {

Program accumulator(std::uint32_t second_value) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  return b.wrapped({b.store(out, b.u32(0), b.u32(0xAA)), b.grid_sync(), b.store(out, b.u32(2), b.u32(second_value))});
}

TEST(IR_Equality, SameConstructionIsEqualWithEqualHash) {
  EXPECT_TRUE(structurally_equal(accumulator(0xBB), accumulator(0xBB)));
  EXPECT_EQ(content_hash(accumulator(0xBB)), content_hash(accumulator(0xBB)));
}

TEST(IR_Equality, DifferentLiteralIsNotEqual) {
  EXPECT_FALSE(structurally_equal(accumulator(0xBB), accumulator(0xBC)));
  EXPECT_NE(content_hash(accumulator(0xBB)), content_hash(accumulator(0xBC)));
}

TEST(IR_Equality, AProgramThatExtendsAnotherIsNotEqualEitherWay) {
  // The second walk compares with the first as it goes: a longer or a shorter stream must differ.
  const auto stores = [](std::size_t n) {
    Builder b;
    Buf out = b.output("out", 0, ScalarType::U32, 4);
    std::vector<S> body;
    for (std::size_t i = 0; i < n; ++i) body.push_back(b.store(out, b.u32(static_cast<std::uint32_t>(i)), b.u32(7)));
    return b.wrapped(body);
  };
  EXPECT_TRUE(structurally_equal(stores(2), stores(2)));
  EXPECT_FALSE(structurally_equal(stores(2), stores(3)));
  EXPECT_FALSE(structurally_equal(stores(3), stores(2)));
  EXPECT_NE(content_hash(stores(2)), content_hash(stores(3)));
}

TEST(IR_Equality, BarrierMemoryScopeMatters) {
  const auto with = [](BarrierMemory memory) {
    Builder b({4, 1, 1});
    Buf out = b.output("out", 0, ScalarType::U32, 4);
    return b.wrapped({b.store(out, b.lid(), b.u32(1)), b.barrier(MemoryOrdering::SeqCst, memory)});
  };
  EXPECT_TRUE(structurally_equal(with(BarrierMemory::Storage), with(BarrierMemory::Storage)));
  EXPECT_FALSE(structurally_equal(with(BarrierMemory::All), with(BarrierMemory::Workgroup)));
  EXPECT_FALSE(structurally_equal(with(BarrierMemory::Workgroup), with(BarrierMemory::Storage)));
  EXPECT_NE(content_hash(with(BarrierMemory::All)), content_hash(with(BarrierMemory::Storage)));
}

TEST(IR_Equality, ArenaLayoutAndGarbageDoNotMatter) {
  Builder b;
  b.u32(12345);                  // garbage expression first, shifting every expression id
  b.program().intern("unused");  // and an extra name, shifting name ids
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  E v = b.u32(0xBB);  // built before the index, unlike accumulator()
  Program p = b.wrapped({b.store(out, b.u32(0), b.u32(0xAA)), b.grid_sync(), b.store(out, b.u32(2), v)});
  EXPECT_TRUE(structurally_equal(p, accumulator(0xBB)));
  EXPECT_EQ(content_hash(p), content_hash(accumulator(0xBB)));
  EXPECT_TRUE(structurally_equal(p.compacted(), p));
}

TEST(IR_Equality, BufferDeclarationOrderMatters) {
  Builder b1;
  b1.read("a", 0, ScalarType::U32, 4);
  b1.read("b", 1, ScalarType::U32, 4);
  Builder b2;
  b2.read("b", 1, ScalarType::U32, 4);
  b2.read("a", 0, ScalarType::U32, 4);
  EXPECT_FALSE(structurally_equal(b1.wrapped({b1.ret()}), b2.wrapped({b2.ret()})));
}

TEST(IR_Equality, BufferFlagsMatter) {
  Builder b1;
  b1.read_write("a", 0, ScalarType::U32, 4);
  Builder b2;
  b2.decl(b2.read_write("a", 0, ScalarType::U32, 4)).pipeline_live_out = true;
  EXPECT_FALSE(structurally_equal(b1.wrapped({b1.ret()}), b2.wrapped({b2.ret()})));
}

TEST(IR_Equality, Fnv1aMatchesKnownVector) {
  // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (reference value from the FNV specification).
  EXPECT_EQ(fnv1a64("a", 1), 0xaf63dc4c8601ec8cull);
}

}  // namespace
}  // namespace gridcheck::ir
