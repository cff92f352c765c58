// Printing IR made with the builder: golden text, and the locations print_with_locations records.
#include "ir/text/printer.hpp"

#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/equality.hpp"
#include "ir/text/parser.hpp"

namespace gridcheck::ir {
namespace {

// Walks two programs of the same shape in step and checks that every node of `parsed` carries the
// location that print_with_locations recorded for the matching node of `printed`.
class SameLocations {
 public:
  SameLocations(const Program& printed, const PrintedProgram& locs, const Program& parsed)
      : a_(printed), locs_(locs), b_(parsed) {}

  void lists(StmtList x, StmtList y) {
    const auto xs = a_.list(x);
    const auto ys = b_.list(y);
    ASSERT_EQ(xs.size(), ys.size());
    for (std::size_t i = 0; i < xs.size(); ++i) stmt(xs[i], ys[i]);
  }

 private:
  void stmt(StmtId x, StmtId y) {
    EXPECT_EQ(locs_.stmt_locs[index_of(x)], b_.loc(y));
    EXPECT_TRUE(b_.loc(y).known());
    const Stmt& s = a_.stmt(x);
    const Stmt& t = b_.stmt(y);
    for (std::size_t i = 0; i < s.exprs.size(); ++i)
      if (s.exprs[i] != kNoExpr) expr(s.exprs[i], t.exprs[i]);
    if (s.has_body()) {
      lists(s.body, t.body);
      lists(s.otherwise, t.otherwise);
    }
  }
  void expr(ExprId x, ExprId y) {
    EXPECT_EQ(locs_.expr_locs[index_of(x)], b_.loc(y));
    EXPECT_TRUE(b_.loc(y).known());
    const Expr& e = a_.expr(x);
    const Expr& f = b_.expr(y);
    for (std::size_t i = 0; i < e.operands.size(); ++i)
      if (e.operands[i] != kNoExpr) expr(e.operands[i], f.operands[i]);
  }

  const Program& a_;
  const PrintedProgram& locs_;
  const Program& b_;
};

Program example() {
  Builder b({64, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, 1024);
  Buf out = b.output("out", 1, ScalarType::U32, 1024);
  Buf sh = b.workgroup("sh", 64, ScalarType::U32);
  Buf f = b.read_write("f", 2, ScalarType::F32);
  b.decl(f).output_byte_range = ByteRange{0, 16};
  return b.wrapped({
      b.let("v", b.load(a, b.gid()) + b.u32(1)),
      b.store(sh, b.lid(), b.var("v")),
      b.barrier(),
      b.if_(b.lid() == b.u32(0), {b.store(out, b.wgid(), b.load(sh, b.u32(0)))}),
      b.grid_sync(),
      b.let("n", b.un(UnOp::Negate, b.i32(3)) * (b.i32(-2) - b.i32(1))),
      b.store(f, b.u32(0), b.fma(b.f32(1.5f), b.f32_bits(0x7fc00000u), b.cast(ScalarType::F32, b.var("v")))),
      b.loop("i", b.u32(0), b.buf_len(out), {b.assign("v", b.atomic_add(out, b.var("i"), b.u32(1)))}),
      b.ret(),
  });
}

constexpr std::string_view kExampleText = R"(workgroup_size 64 1 1

buffer a: u32[1024] read binding 0
buffer out: u32[1024] read_write binding 1 output live_out
buffer sh: u32[64] workgroup
buffer f: f32[] read_write binding 2 range 0..16

kernel {
  let v = a[gid.x] + 1
  sh[lid.x] = v
  barrier
  if lid.x == 0 {
    out[wgid.x] = sh[0]
  }
  grid_sync
  let n = -(3i) * (-2i - 1i)
  f[0] = fma(1.5, f32_bits(0x7fc00000), f32(v))
  loop i in 0..len(out) {
    v = atomic_add(out, i, 1)
  }
  return
}
)";

TEST(IR_TextPrinter, PrintsABuilderProgramAsThisGoldenText) { EXPECT_EQ(print(example()), kExampleText); }

TEST(IR_TextPrinter, TheGoldenTextParsesBackToTheBuilderProgram) {
  const Program p = example();
  Result<Program> back = parse_program(kExampleText, "golden.gc");
  ASSERT_TRUE(back) << render(back.diagnostics(), kExampleText);
  EXPECT_TRUE(structurally_equal(p, *back));
  EXPECT_EQ(content_hash(p), content_hash(*back));
}

TEST(IR_TextPrinter, RecordsTheLocationsTheParserWouldRecord) {
  const Program p = example();
  const PrintedProgram printed = print_with_locations(p);
  EXPECT_EQ(printed.text, kExampleText);
  ASSERT_EQ(printed.stmt_locs.size(), p.stmt_count());
  ASSERT_EQ(printed.expr_locs.size(), p.expr_count());
  ASSERT_EQ(printed.buffer_locs.size(), 4u);
  EXPECT_EQ(printed.buffer_locs[1], (SourceLoc{4, 8}));
  const StmtId root = p.entry_stmts()[0];
  EXPECT_EQ(printed.stmt_locs[index_of(root)], (SourceLoc{8, 1}));
  const StmtId let_v = p.list(p.stmt(root).body)[0];
  EXPECT_EQ(printed.stmt_locs[index_of(let_v)], (SourceLoc{9, 3}));
  EXPECT_EQ(printed.expr_locs[index_of(p.stmt(let_v).exprs[0])], (SourceLoc{9, 20}));  // the +

  Result<Program> back = parse_program(printed.text, "golden.gc");
  ASSERT_TRUE(back);
  for (std::size_t i = 0; i < back->buffers().size(); ++i) EXPECT_EQ(back->buffers()[i].loc, printed.buffer_locs[i]);
  SameLocations(p, printed, *back).lists(p.entry(), back->entry());
}

TEST(IR_TextPrinter, UnreachableNodesKeepAnUnknownLocation) {
  Builder b;
  const E unused = b.u32(7);
  const Program p = b.wrapped({b.ret()});
  const PrintedProgram printed = print_with_locations(p);
  EXPECT_FALSE(printed.expr_locs[index_of(unused.id)].known());
}

TEST(IR_TextPrinter, NamesThatAreNotPlainIdentifiersAreQuoted) {
  Builder b;
  Buf weird = b.read_write("my buffer", 0, ScalarType::U32, 2);
  const Program p = b.raw({b.let("true", b.u32(1)), b.store(weird, b.var("a`b"), b.var("\n")), b.let("if", b.var("if"))});
  const std::string text = print(p);
  EXPECT_NE(text.find("buffer `my buffer`: u32[2] read_write binding 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("entry {\n  let `true` = 1\n  `my buffer`[`a\\`b`] = `\\n`\n  let if = if\n}\n"), std::string::npos)
      << text;
  Result<Program> back = parse_program(text, "q.gc");
  ASSERT_TRUE(back) << render(back.diagnostics(), text);
  EXPECT_TRUE(structurally_equal(p, *back));
}

TEST(IR_TextPrinter, EveryOperatorOfTheTableRoundTripsInBothForms) {
  Builder b;
  std::vector<S> body;
  for (const BinOpInfo& row : all_bin_ops())
    body.push_back(b.let("b", b.bin(row.op, b.bin(row.op, b.var("x"), b.var("y")), b.bin(row.op, b.var("z"), b.i32(-1)))));
  for (const UnOpInfo& row : all_un_ops()) {
    body.push_back(b.let("u", b.un(row.op, b.un(row.op, b.var("x")))));
    body.push_back(b.let("w", b.un(row.op, b.u32(3)) + b.un(row.op, b.var("x") + b.var("y"))));
  }
  for (const AtomicOpInfo& row : all_atomic_ops()) {
    Buf o{b.program().intern("o")};
    body.push_back(row.has_expected ? b.let("a", b.compare_exchange(o, b.u32(0), b.u32(1), b.u32(2), MemoryOrdering::AcqRel))
                                    : b.let("a", b.atomic(row.op, o, b.u32(0), b.u32(1), MemoryOrdering::Relaxed)));
  }
  const Program p = b.wrapped(body);
  const std::string text = print(p);
  Result<Program> back = parse_program(text, "ops.gc");
  ASSERT_TRUE(back) << render(back.diagnostics(), text);
  EXPECT_TRUE(structurally_equal(p, *back)) << text;
  EXPECT_EQ(print(*back), text);
}

TEST(IR_TextPrinter, AProgramIsPrintedWithoutCaseSections) {
  Builder b;
  const Program p = b.raw({});
  EXPECT_EQ(print(p), "workgroup_size 1 1 1\n\nentry {}\n");
}

}  // namespace
}  // namespace gridcheck::ir
