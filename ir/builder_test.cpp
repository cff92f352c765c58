#include "ir/builder.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/abi.hpp"
#include "ir/equality.hpp"
#include "ir/walk.hpp"

namespace gridcheck::ir {
namespace {

TEST(IR_Program, InternKeepsOneIdPerSpellingAcrossGrowthAndCopies) {
  Program p;
  std::vector<NameId> ids;
  for (int i = 0; i < 300; ++i) ids.push_back(p.intern("n" + std::to_string(i)));  // the index grows
  EXPECT_EQ(p.name_count(), 300u);
  for (int i = 0; i < 300; ++i) {
    const std::string spelling = "n" + std::to_string(i);
    EXPECT_EQ(index_of(ids[i]), static_cast<std::uint32_t>(i));  // ids in order of first use
    EXPECT_EQ(p.intern(spelling), ids[i]);
    EXPECT_EQ(p.find_name(spelling), ids[i]);
    EXPECT_EQ(p.name(ids[i]), spelling);
  }
  EXPECT_FALSE(p.find_name("n300").has_value());
  EXPECT_FALSE(p.find_name("").has_value());
  EXPECT_FALSE(Program().find_name("n0").has_value());  // no index yet
  Program copy = p;                                      // the index is copied with the names
  EXPECT_EQ(copy.intern("n299"), ids[299]);
  EXPECT_EQ(index_of(copy.intern("fresh")), 300u);
  EXPECT_FALSE(p.find_name("fresh").has_value());
  EXPECT_EQ(index_of(p.intern("")), 300u);  // the empty spelling is a name like any other
  EXPECT_EQ(p.find_name(""), NameId{300});
}

TEST(IR_Builder, WrappedAddsOneRootRegionAroundPlainStatements) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  Program p = b.wrapped({b.store(out, b.u32(0), b.u32(0xAA)), b.grid_sync(), b.store(out, b.u32(2), b.u32(0xBB))});
  ASSERT_EQ(p.entry_stmts().size(), 1u);
  const Stmt& root = p.stmt(p.entry_stmts()[0]);
  EXPECT_EQ(root.kind, StmtKind::Region);
  EXPECT_EQ(p.name(root.names[0]), kRootRegionGenerator);
  EXPECT_EQ(p.list(root.body).size(), 3u);
  EXPECT_TRUE(p.stmt(p.list(root.body)[1]).is_fence());
}

TEST(IR_Builder, WrappedKeepsAnEntryThatIsAlreadyAllRegions) {
  Builder b;
  Program p = b.wrapped({b.region("a", {b.ret()}), b.region("b", {})});
  ASSERT_EQ(p.entry_stmts().size(), 2u);
  EXPECT_EQ(p.name(p.stmt(p.entry_stmts()[0]).names[0]), "a");
}

TEST(IR_Builder, WrappedWrapsAnEmptyEntry) {
  Builder b;
  Program p = b.wrapped(Builder::Body{});
  ASSERT_EQ(p.entry_stmts().size(), 1u);
  EXPECT_TRUE(p.list(p.stmt(p.entry_stmts()[0]).body).empty());
}

TEST(IR_Builder, TakeWrappedBuildsWhatWrappedBuilds) {
  // Two builders fed the same calls: one copies its program out, the other moves it out.
  auto build = [](bool take, bool regions) {
    Builder b;
    Buf out = b.output("out", 0, ScalarType::U32, 4);
    std::vector<S> entry;
    if (regions) {
      entry = {b.region("a", {b.store(out, b.u32(0), b.u32(1))}), b.region("b", {b.ret()})};
    } else {
      entry = {b.store(out, b.u32(0), b.u32(0xAA)), b.grid_sync(), b.store(out, b.u32(2), b.u32(0xBB))};
    }
    return take ? b.take_wrapped(entry) : b.wrapped(entry);
  };
  for (bool regions : {false, true}) {
    const Program taken = build(true, regions);
    const Program copied = build(false, regions);
    EXPECT_TRUE(structurally_equal(taken, copied)) << "regions " << regions;
    EXPECT_EQ(content_hash(taken), content_hash(copied));
    EXPECT_EQ(taken.entry_stmts().size(), regions ? 2u : 1u);
  }
}

TEST(IR_Builder, OutputConstructorMatchesSpecTable) {
  Builder b;
  Buf out = b.output("out", 3, ScalarType::U32, 8);
  const BufferDecl& d = b.decl(out);
  EXPECT_EQ(d.access, BufferAccess::ReadWrite);
  EXPECT_EQ(d.kind, MemoryKind::Global);
  EXPECT_TRUE(d.is_output);
  EXPECT_TRUE(d.pipeline_live_out);
  EXPECT_TRUE(is_backend_allocated_output(d));
  EXPECT_FALSE(is_reference_input(d));
  EXPECT_TRUE(is_reference_output(d));
}

TEST(IR_Builder, AbiPredicatesForPlainBuffers) {
  Builder b;
  const BufferDecl ro = b.decl(b.read("a", 0, ScalarType::U32, 4));
  const BufferDecl rw = b.decl(b.read_write("b", 1, ScalarType::U32, 4));
  const BufferDecl wo = b.decl(b.write_only("c", 2, ScalarType::U32, 4));
  const BufferDecl wg = b.decl(b.workgroup("d", 4, ScalarType::U32));
  EXPECT_TRUE(is_reference_input(ro));
  EXPECT_FALSE(is_reference_output(ro));
  EXPECT_TRUE(is_reference_input(rw));
  EXPECT_TRUE(is_reference_output(rw));
  EXPECT_FALSE(is_reference_input(wo));
  EXPECT_TRUE(is_backend_allocated_output(wo));
  EXPECT_FALSE(is_reference_input(wg));
  EXPECT_FALSE(is_reference_output(wg));
  EXPECT_EQ(wg.kind, MemoryKind::Shared);
}

TEST(IR_Builder, OperatorsBuildTheBinOpOfTheSameSpelling) {
  Builder b;
  E x = b.var("x") + b.u32(1);
  EXPECT_EQ(b.program().expr(x.id).bin_op(), BinOp::Add);
  E y = (b.var("x") << b.u32(2)) >= b.u32(3);
  EXPECT_EQ(b.program().expr(y.id).bin_op(), BinOp::Ge);
  EXPECT_EQ(b.program().expr(b.program().expr(y.id).operands[0]).bin_op(), BinOp::Shl);
}

TEST(IR_Builder, WalkVisitsNestedBodiesInPreorder) {
  Builder b;
  Program p = b.raw({b.if_(b.boolean(true), {b.ret()}, {b.block({b.barrier()})}), b.grid_sync()});
  std::vector<StmtKind> kinds;
  for_each_stmt(p, p.entry(), [&](StmtId id) { kinds.push_back(p.stmt(id).kind); });
  EXPECT_EQ(kinds, (std::vector<StmtKind>{StmtKind::If, StmtKind::Return, StmtKind::Block, StmtKind::Barrier,
                                          StmtKind::Barrier}));
}

TEST(IR_Builder, CompactedDropsUnreachableNodesAndKeepsMeaning) {
  Builder b;
  b.let("garbage", b.u32(1));  // never placed in a list
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  Program p = b.wrapped({b.store(out, b.u32(0), b.u32(7))});
  Program c = p.compacted();
  EXPECT_LT(c.stmt_count(), p.stmt_count());
  EXPECT_LT(c.expr_count(), p.expr_count());
}

TEST(IR_Builder, CompactedCopiesNestedListsInOrder) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  b.let("garbage", b.u32(1));  // never placed in a list
  Program p = b.wrapped({b.store(out, b.u32(0), b.u32(1)),
                         b.if_(b.boolean(true), {b.store(out, b.u32(1), b.u32(2)), b.block({b.store(out, b.u32(2), b.u32(3))})},
                               {b.store(out, b.u32(3), b.u32(4))}),
                         b.store(out, b.u32(0), b.u32(5))});
  const Program c = p.compacted();
  const auto stores = [](const Program& q) {
    std::vector<std::pair<StmtKind, std::uint32_t>> seen;  // kind, and a store's value literal
    for_each_stmt(q, q.entry(), [&](StmtId id) {
      const Stmt& s = q.stmt(id);
      seen.emplace_back(s.kind, s.kind == StmtKind::Store ? q.expr(s.exprs[1]).payload : 0u);
    });
    return seen;
  };
  EXPECT_EQ(stores(c), stores(p));
  EXPECT_EQ(stores(c).size(), 8u);  // the root region, the if, the block and five stores
}

TEST(IR_Builder, ReserveMoreKeepsIdsAndNodes) {
  Builder b;
  Program p = b.raw({b.ret()});
  const std::size_t exprs = p.expr_count(), stmts = p.stmt_count();
  p.reserve_more(64, 64, 64);
  EXPECT_EQ(p.expr_count(), exprs);
  EXPECT_EQ(p.stmt_count(), stmts);
  EXPECT_EQ(index_of(p.add_expr(Expr{})), exprs);
  EXPECT_EQ(p.entry_stmts().size(), 1u);
}

}  // namespace
}  // namespace gridcheck::ir
