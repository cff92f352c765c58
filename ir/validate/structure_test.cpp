// Phase 1 rules (structure and program level), each with a silent twin. Builder-made IR.
#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/validate/test_support.hpp"

namespace gridcheck::ir {
namespace {

using testing::reports;
using testing::silent;

TEST(Validate_Structure, EmptyEntryIsV105) {
  Builder b;
  EXPECT_TRUE(reports(b.raw({}), {"V105"}));
}

TEST(Validate_Structure, TopLevelNodeThatIsNotARegionIsV105) {
  Builder b;
  Buf out = b.read_write("out", 0, ScalarType::U32, 4);
  EXPECT_TRUE(reports(b.raw({b.region("a", {}), b.store(out, b.u32(0), b.u32(1))}), {"V105"}));
}

TEST(Validate_Structure, WrappedTwinOfV105IsSilent) {
  Builder b;
  Buf out = b.read_write("out", 0, ScalarType::U32, 4);
  EXPECT_TRUE(silent(b.wrapped({b.store(out, b.u32(0), b.u32(1))})));
  Builder two;
  EXPECT_TRUE(silent(two.raw({two.region("a", {}), two.region("b", {})})));
}

TEST(Validate_Structure, WorkgroupDimensionZeroIsV106) {
  Builder b({64, 0, 1});
  EXPECT_TRUE(reports(b.wrapped({}), {"V106"}));
  Builder twin({64, 1, 1});
  EXPECT_TRUE(silent(twin.wrapped({})));
}

TEST(Validate_Structure, DuplicateBufferNameIsV107) {
  Builder b;
  b.read("a", 0, ScalarType::U32, 4);
  b.read("a", 1, ScalarType::U32, 4);
  EXPECT_TRUE(reports(b.wrapped({}), {"V107"}));
}

TEST(Validate_Structure, DuplicateBindingIsV108ButWorkgroupBuffersAreExempt) {
  Builder b;
  b.read("a", 0, ScalarType::U32, 4);
  b.read_write("b", 0, ScalarType::U32, 4);
  EXPECT_TRUE(reports(b.wrapped({}), {"V108"}));

  Builder twin;
  twin.read("a", 0, ScalarType::U32, 4);
  twin.workgroup("s", 4, ScalarType::U32);  // binding 0 too, ignored
  twin.workgroup("t", 4, ScalarType::U32);
  EXPECT_TRUE(silent(twin.wrapped({})));
}

TEST(Validate_Structure, WorkgroupBufferWithCountZeroIsV109) {
  Builder b;
  b.workgroup("s", 0, ScalarType::U32);
  EXPECT_TRUE(reports(b.wrapped({}), {"V109"}));
}

TEST(Validate_Structure, OutputWithoutCountOrRangeIsV130) {
  Builder b;
  b.output("out", 0, ScalarType::U32);
  EXPECT_TRUE(reports(b.wrapped({}), {"V130"}));

  Builder twin;
  Buf out = twin.output("out", 0, ScalarType::U32);
  twin.decl(out).output_byte_range = ByteRange{0, 8};
  EXPECT_TRUE(silent(twin.wrapped({})));
}

TEST(Validate_Structure, MalformedOutputByteRangeIsG011) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  b.decl(out).output_byte_range = ByteRange{4, 20};  // 16 bytes declared
  EXPECT_TRUE(reports(b.wrapped({}), {"G011"}));

  Builder backwards;
  Buf o2 = backwards.output("out", 0, ScalarType::U32, 4);
  backwards.decl(o2).output_byte_range = ByteRange{8, 4};
  EXPECT_TRUE(reports(backwards.wrapped({}), {"G011"}));

  Builder twin;  // docs/vyre-0.7.2.md#g3's range
  Buf o3 = twin.output("out", 0, ScalarType::U32, 4);
  twin.decl(o3).output_byte_range = ByteRange{4, 12};
  EXPECT_TRUE(silent(twin.wrapped({})));
}

TEST(Validate_Structure, AbiEdgeDeclarationsAreG012Warnings) {
  Builder b;
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  b.decl(a).pipeline_live_out = true;
  Buf rw = b.read_write("rw", 1, ScalarType::U32, 4);
  b.decl(rw).kind = MemoryKind::Persistent;
  Buf s = b.workgroup("s", 4, ScalarType::U32);
  b.decl(s).is_output = true;
  Program p = b.wrapped({});
  EXPECT_TRUE(reports(p, {"G012", "G012", "G012"}));
  EXPECT_TRUE(is_valid(p));
}

TEST(Validate_Structure, UnsizedBackendAllocatedBufferIsG013Warning) {
  Builder b;
  b.write_only("w", 0, ScalarType::U32);
  Program p = b.wrapped({});
  EXPECT_TRUE(reports(p, {"G013"}));
  EXPECT_TRUE(is_valid(p));
  Builder twin;  // a runtime-sized read_write buffer gets its size from the caller's bytes
  twin.read_write("rw", 0, ScalarType::U32);
  EXPECT_TRUE(silent(twin.wrapped({})));
}

TEST(Validate_Structure, IndirectDispatchOffsetMustBeAlignedV126) {
  Builder b;
  Buf c = b.read("counts", 0, ScalarType::U32, 4);
  EXPECT_TRUE(reports(b.wrapped({b.indirect_dispatch(c, 6)}), {"V126"}));
  Builder twin;
  Buf c2 = twin.read("counts", 0, ScalarType::U32, 4);
  EXPECT_TRUE(silent(twin.wrapped({twin.indirect_dispatch(c2, 8)})));
}

TEST(Validate_Structure, IndirectDispatchOfUnknownBufferIsV127) {
  Builder b;
  Buf ghost{b.program().intern("ghost")};
  EXPECT_TRUE(reports(b.wrapped({b.indirect_dispatch(ghost, 0)}), {"V127"}));
}

TEST(Validate_Structure, UnknownBuffersAreReportedPerAccessKind) {
  Builder b;
  Buf ghost{b.program().intern("ghost")};
  Buf real = b.read_write("real", 0, ScalarType::U32, 4);
  Program p = b.wrapped({
      b.store(ghost, b.u32(0), b.u32(1)),
      b.let("x", b.load(ghost, b.u32(0))),
      b.let("y", b.atomic_add(ghost, b.u32(0), b.u32(1))),
      b.let("z", b.buf_len(ghost)),
      b.store(real, b.u32(0), b.u32(1)),
  });
  EXPECT_TRUE(reports(p, {"V064", "V065", "V061", "G101"}));
}

TEST(Validate_Structure, CompareExchangeNeedsExpectedAndOthersRefuseItV059V060) {
  Builder b;
  Buf c = b.read_write("c", 0, ScalarType::U32, 1);
  E missing = b.atomic(AtomicOp::CompareExchange, c, b.u32(0), b.u32(1));
  Expr extra{ExprKind::Atomic, static_cast<std::uint8_t>(AtomicOp::Add), MemoryOrdering::SeqCst,
             index_of(c.name)};
  extra.operands = {b.u32(0).id, b.u32(1).id, b.u32(2).id};
  E with_expected{&b.program(), b.program().add_expr(extra)};
  EXPECT_TRUE(reports(b.wrapped({b.let("x", missing), b.let("y", with_expected)}), {"V059", "V060"}));

  Builder twin;
  Buf c2 = twin.read_write("c", 0, ScalarType::U32, 1);
  EXPECT_TRUE(silent(twin.wrapped({twin.let("x", twin.compare_exchange(c2, twin.u32(0), twin.u32(0), twin.u32(1))),
                                    twin.let("y", twin.atomic_add(c2, twin.u32(0), twin.u32(1)))})));
}

TEST(Validate_Structure, BuiltinAxisAboveTwoIsG007) {
  Builder b;
  Expr e{ExprKind::WorkgroupId, 3};
  E bad{&b.program(), b.program().add_expr(e)};
  EXPECT_TRUE(reports(b.wrapped({b.let("x", bad)}), {"G007"}));
  Builder twin;
  EXPECT_TRUE(silent(twin.wrapped({twin.let("x", twin.wgid(2))})));
}

TEST(Validate_Structure, MissingOperandIsG008AndStopsPhaseTwo) {
  Builder b;
  Expr add{ExprKind::Binary, static_cast<std::uint8_t>(BinOp::Add)};
  add.operands = {b.u32(1).id, kNoExpr, kNoExpr};
  E bad{&b.program(), b.program().add_expr(add)};
  // The assignment to an undeclared name (V120) is a phase-2 error: it must not be reported.
  EXPECT_TRUE(reports(b.wrapped({b.let("x", bad), b.assign("nope", b.u32(1))}), {"G008"}));
}

TEST(Validate_Structure, ALeafWithAnOperandIsG008AndAPlainLeafIsSilent) {
  Builder b;
  Expr literal{ExprKind::LitU32};
  literal.operands = {kNoExpr, kNoExpr, b.u32(2).id};  // a literal has no operand slot
  E bad{&b.program(), b.program().add_expr(literal)};
  EXPECT_TRUE(reports(b.wrapped({b.let("x", bad)}), {"G008"}));
  Builder twin;
  EXPECT_TRUE(silent(twin.wrapped({twin.let("x", twin.u32(2) + twin.gid(0))})));
}

TEST(Validate_Structure, AnExpressionCycleIsG008NotACrash) {
  Builder b;
  // Forge `neg` whose operand is itself.
  const ExprId id{static_cast<std::uint32_t>(b.program().expr_count())};
  Expr neg{ExprKind::Unary, static_cast<std::uint8_t>(UnOp::Negate)};
  neg.operands = {id, kNoExpr, kNoExpr};
  ASSERT_EQ(b.program().add_expr(neg), id);
  EXPECT_TRUE(reports(b.wrapped({b.let("x", E{&b.program(), id})}), {"G008"}));
}

TEST(Validate_Structure, StatementCycleIsG008NotACrash) {
  Builder b;
  Program p = b.wrapped({b.block({})});
  // Forge a block whose body contains itself.
  Stmt self{StmtKind::Block};
  const StmtId id{static_cast<std::uint32_t>(p.stmt_count())};
  const StmtId ids[] = {id};
  self.body = p.add_list(ids);
  ASSERT_EQ(p.add_stmt(self), id);
  const StmtId region_body[] = {id};
  Stmt region{StmtKind::Region};
  region.names[0] = p.intern("root");
  region.body = p.add_list(region_body);
  const StmtId entry[] = {p.add_stmt(region)};
  p.set_entry(entry);
  EXPECT_TRUE(reports(p, {"G008"}));
}

TEST(Validate_Structure, OutOfRangeIdsAndEnumsAreG008) {
  Builder b;
  Program p = b.wrapped({b.barrier()});
  Stmt bad_barrier{StmtKind::Barrier};
  bad_barrier.op = 17;
  Stmt bad_memory{StmtKind::Barrier};
  bad_memory.op = static_cast<std::uint8_t>(MemoryOrdering::SeqCst);
  bad_memory.literal = kBarrierMemoryCount;
  Stmt bad_let{StmtKind::Let};
  bad_let.names[0] = p.intern("x");
  bad_let.exprs[0] = ExprId{12345};
  const StmtId body[] = {p.add_stmt(bad_barrier), p.add_stmt(bad_memory), p.add_stmt(bad_let), StmtId{999}};
  Stmt region{StmtKind::Region};
  region.names[0] = p.intern("root");
  region.body = p.add_list(body);
  const StmtId entry[] = {p.add_stmt(region)};
  p.set_entry(entry);
  EXPECT_TRUE(reports(p, {"G008", "G008", "G008", "G008"}));
}

}  // namespace
}  // namespace gridcheck::ir
