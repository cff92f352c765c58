// Golden tests: text in, canonical text out, and the tree the parser builds.
#include "ir/text/parser.hpp"

#include <gtest/gtest.h>

#include <array>

#include "ir/equality.hpp"
#include "ir/text/printer.hpp"

namespace gridcheck::ir {
namespace {

Case parse_ok(std::string_view text) {
  Result<Case> r = parse_case(text, "golden.gc");
  if (!r) ADD_FAILURE() << render(r.diagnostics(), text);
  return r ? std::move(r).value() : Case{};
}

// Canonical text of `text`, checking on the way that the canonical text is a fixed point.
std::string canonical(std::string_view text) {
  const Case c = parse_ok(text);
  const std::string out = print(c);
  const Case again = parse_ok(out);
  EXPECT_TRUE(structurally_equal(c.program, again.program)) << out;
  EXPECT_EQ(print(again), out);
  return out;
}

// The kernel statements of a one-line-per-statement case, printed back.
std::string kernel_of(std::string_view statements) {
  const std::string out = canonical("case k\nkernel {\n" + std::string(statements) + "\n}\n");
  const std::size_t begin = out.find("kernel {\n");
  const std::size_t end = out.rfind("\n}\n");
  if (begin == std::string::npos || end == std::string::npos) return out;
  return out.substr(begin + 9, end - begin - 9 + 1);
}

const Expr& let_value(const Case& c, std::size_t index) {
  const Stmt& root = c.program.stmt(c.program.entry_stmts()[0]);
  const Stmt& let = c.program.stmt(c.program.list(root.body)[index]);
  return c.program.expr(let.exprs[0]);
}

TEST(IR_TextParser, TheBriefExampleCaseHasThisCanonicalForm) {
  const std::string out = canonical(R"gc(# docs/vyre-0.7.2.md#a1: read_write buffer with caller bytes, written but not read by a segment
case A1 "read_write buffer with caller bytes written but not read before a fence"
meta origin "vyre-0.7.2 docs/vyre-0.7.2.md#s10-a"

workgroup_size 1 1 1
grid 1 1 1            # workgroup counts; `grid auto` = inferred from the program (docs/semantics.md §3.1)
fixpoint 1

buffer buf: u32[4] read_write binding 0
buffer out: u32[4] read_write binding 1 output live_out
buffer sh: u32[64] workgroup
buffer dyn: u32[] read binding 2            # count 0 = runtime-sized
buffer r: u32[4] write_only binding 3 range 4..12 kind persistent
buffer a: i32[2] read binding 4
buffer b: f32[3] read binding 5
buffer c: u32[2] read binding 6

input buf = [1, 2, 3, 4]
input a = fill -7
input b = series 0 step 0.5
input c = random seed 42
input dyn = fill 3 count 16                  # count required for runtime-sized buffers

kernel {
  let v = buf[gid.x] + 1
  buf[0] = 9
  if v < len(buf) { return } else { barrier }
  loop i in 0..4 { out[i] = atomic_add(out, 0, 1) }
  grid_sync
}

expect R: ok
expect R buf = [9, 2, 3, 4]
expect R out hash 0x0123456789abcdef
expect H-cpu vyre-0.7.2: diverge planner
expect H-cpu vyre-0.7.2 buf = [9, 0, 0, 0]
expect H-gpu sound: match
)gc");
  EXPECT_EQ(out, R"gc(# docs/vyre-0.7.2.md#a1: read_write buffer with caller bytes, written but not read by a segment
case A1 "read_write buffer with caller bytes written but not read before a fence"
meta origin "vyre-0.7.2 docs/vyre-0.7.2.md#s10-a"

workgroup_size 1 1 1
grid 1 1 1
fixpoint 1

buffer buf: u32[4] read_write binding 0
buffer out: u32[4] read_write binding 1 output live_out
buffer sh: u32[64] workgroup
buffer dyn: u32[] read binding 2
buffer r: u32[4] write_only binding 3 range 4..12 kind persistent
buffer a: i32[2] read binding 4
buffer b: f32[3] read binding 5
buffer c: u32[2] read binding 6

input buf = [1, 2, 3, 4]
input a = fill -7
input b = series 0.0 step 0.5
input c = random seed 42
input dyn = fill 3 count 16

kernel {
  let v = buf[gid.x] + 1
  buf[0] = 9
  if v < len(buf) {
    return
  } else {
    barrier
  }
  loop i in 0..4 {
    out[i] = atomic_add(out, 0, 1)
  }
  grid_sync
}

expect R: ok
expect R buf = [9, 2, 3, 4]
expect R out hash 0x0123456789abcdef
expect H-cpu vyre-0.7.2: diverge planner
expect H-cpu vyre-0.7.2 buf = [9, 0, 0, 0]
expect H-gpu sound: match
)gc");
}

TEST(IR_TextParser, CaseSectionsBecomeCaseFields) {
  const Case c = parse_ok(R"gc(# first
#second
case split-7 "desc"
meta seed 1234
meta "replay command" "gridcheck replay x.gc"
grid auto
fixpoint 3
workgroup_size 64 1 1
buffer o: f32[2] read_write binding 1 output
buffer d: i32[] read binding 0
input o = [1.5, -0.0]
input d = series -2 step 3 count 5
kernel {}
expect H-cpu sound: invalid "race in segment 2"
expect W-gpu o = [f32_bits(0x7fc00000), 2]
)gc");
  EXPECT_EQ(c.header_comments, (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(c.name, "split-7");
  EXPECT_EQ(c.description, "desc");
  ASSERT_EQ(c.meta.size(), 2u);
  EXPECT_EQ(c.meta[0], (std::pair<std::string, std::string>{"seed", "1234"}));
  EXPECT_EQ(c.meta[1].first, "replay command");
  EXPECT_FALSE(c.grid.has_value());
  EXPECT_EQ(c.fixpoint, 3u);
  EXPECT_EQ(c.program.workgroup_size(), (std::array<std::uint32_t, 3>{64, 1, 1}));
  ASSERT_EQ(c.program.buffers().size(), 2u);
  const BufferDecl& o = c.program.buffers()[0];
  EXPECT_EQ(o.element, ScalarType::F32);
  EXPECT_TRUE(o.is_output);
  EXPECT_FALSE(o.pipeline_live_out);
  EXPECT_EQ(o.kind, MemoryKind::Global);
  EXPECT_EQ(o.loc, (SourceLoc{9, 8}));
  ASSERT_EQ(c.inputs.size(), 2u);
  EXPECT_EQ(c.inputs[0].values, (std::vector<std::uint32_t>{0x3fc00000u, 0x80000000u}));
  EXPECT_EQ(c.inputs[1].kind, InputData::Kind::Series);
  EXPECT_EQ(c.inputs[1].first, static_cast<std::uint32_t>(-2));
  EXPECT_EQ(c.inputs[1].step, 3u);
  EXPECT_EQ(c.inputs[1].length, 5u);
  EXPECT_EQ(materialize(c.inputs[1], ScalarType::I32, 0),
            (std::vector<std::uint32_t>{static_cast<std::uint32_t>(-2), 1, 4, 7, 10}));
  ASSERT_EQ(c.expectations.size(), 1u);
  EXPECT_EQ(c.expectations[0].oracle, Oracle::SplitCpu);
  EXPECT_EQ(c.expectations[0].profile, "sound");
  EXPECT_EQ(c.expectations[0].verdict, Verdict::Invalid);
  EXPECT_EQ(c.expectations[0].detail, "race in segment 2");
  EXPECT_EQ(c.expectations[0].loc, (SourceLoc{14, 1}));
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].oracle, Oracle::WholeGpu);
  EXPECT_TRUE(c.outputs[0].profile.empty());
  EXPECT_EQ(c.outputs[0].words, (std::vector<std::uint32_t>{0x7fc00000u, 0x40000000u}));
}

TEST(IR_TextParser, LaunchCountsFollowTheirVerdictInCanonicalForm) {
  const std::string text = R"gc(case k
fixpoint 4
buffer launches: u32[1] read_write binding 0 output
kernel {}
expect H-gpu vyre-0.7.2 launches = [3]
expect H-cpu sound launches 8       # every segment launch of every pass
expect H-cpu launches hash 0x1
expect H-cpu sound: match
expect H-gpu vyre-0.7.2 launches 6
expect H-gpu vyre-0.7.2: diverge planner
expect H-cpu launches 0
)gc";
  const Case c = parse_ok(text);
  ASSERT_EQ(c.launches.size(), 3u);
  EXPECT_EQ(c.launches[0].oracle, Oracle::SplitCpu);
  EXPECT_EQ(c.launches[0].profile, "sound");
  EXPECT_EQ(c.launches[0].count, 8u);
  EXPECT_EQ(c.launches[0].loc, (SourceLoc{6, 1}));
  EXPECT_EQ(c.launches[1].oracle, Oracle::SplitGpu);
  EXPECT_EQ(c.launches[1].profile, "vyre-0.7.2");
  EXPECT_EQ(c.launches[1].count, 6u);
  EXPECT_TRUE(c.launches[2].profile.empty());
  EXPECT_EQ(c.launches[2].count, 0u);
  // A buffer called `launches` keeps its list and hash forms.
  ASSERT_EQ(c.outputs.size(), 2u);
  EXPECT_EQ(c.outputs[0].buffer, "launches");
  EXPECT_EQ(c.outputs[1].hash, std::optional<std::uint64_t>{1});
  EXPECT_EQ(canonical(text), R"gc(case k

workgroup_size 1 1 1
grid auto
fixpoint 4

buffer launches: u32[1] read_write binding 0 output

kernel {}

expect H-cpu sound: match
expect H-cpu sound launches 8
expect H-gpu vyre-0.7.2: diverge planner
expect H-gpu vyre-0.7.2 launches 6
expect H-gpu vyre-0.7.2 launches = [3]
expect H-cpu launches 0
expect H-cpu launches hash 0x0000000000000001
)gc");
}

TEST(IR_TextParser, KernelIsOneRootRegionAndEntryIsTheRawList) {
  const Case k = parse_ok("case k\nkernel { return }\n");
  ASSERT_EQ(k.program.entry_stmts().size(), 1u);
  const Stmt& root = k.program.stmt(k.program.entry_stmts()[0]);
  EXPECT_EQ(root.kind, StmtKind::Region);
  EXPECT_EQ(k.program.name(root.names[0]), kRootRegionGenerator);
  EXPECT_EQ(root.names[1], kNoName);
  EXPECT_EQ(k.program.list(root.body).size(), 1u);

  const Case e = parse_ok("case e\nentry { region \"a\" {}; return }\n");
  ASSERT_EQ(e.program.entry_stmts().size(), 2u);
  EXPECT_EQ(e.program.stmt(e.program.entry_stmts()[1]).kind, StmtKind::Return);

  // The printer writes `kernel` exactly for one root region without a source region.
  EXPECT_NE(canonical("case e\nentry { region \"vyre.program.root\" { return } }\n").find("kernel {\n  return\n}"),
            std::string::npos);
  EXPECT_NE(canonical("case e\nentry { region \"vyre.program.root\" from \"s\" {} }\n")
                .find("entry {\n  region \"vyre.program.root\" from \"s\" {}\n}"),
            std::string::npos);
  EXPECT_NE(canonical("case e\nentry {}\n").find("\nentry {}\n"), std::string::npos);
}

TEST(IR_TextParser, InfixPrecedenceIsTheOperatorTablesAndParenthesesAreMinimal) {
  EXPECT_EQ(kernel_of("let a = (1 + 2) * 3\nlet b = 1 + (2 * 3)\nlet c = (1 - 2) - 3\nlet d = 1 - (2 - 3)"),
            "  let a = (1 + 2) * 3\n  let b = 1 + 2 * 3\n  let c = 1 - 2 - 3\n  let d = 1 - (2 - 3)\n");
  EXPECT_EQ(kernel_of("let e = a << 1 + 2 < 3 == true && x || y\nlet f = (a | b) ^ c & d"),
            "  let e = a << 1 + 2 < 3 == true && x || y\n  let f = (a | b) ^ c & d\n");
  const Case c = parse_ok("case p\nkernel {\n let e = 1 + 2 * 3 << 4\n}\n");
  const Expr& shl = let_value(c, 0);
  ASSERT_EQ(shl.kind, ExprKind::Binary);
  EXPECT_EQ(shl.bin_op(), BinOp::Shl);
  EXPECT_EQ(c.program.expr(shl.operands[0]).bin_op(), BinOp::Add);
}

TEST(IR_TextParser, CallFormsOfInfixAndPrefixOperatorsPrintInTheirShortForm) {
  EXPECT_EQ(kernel_of("let a = add(1, mul(2, 3))\nlet b = not(bit_not(negate(x)))\nlet c = abs_diff(1, 2)"),
            "  let a = 1 + 2 * 3\n  let b = !~-x\n  let c = abs_diff(1, 2)\n");
  EXPECT_EQ(kernel_of("let d = popcount(x) + u32(1.5) + select(c, 1, 2) + fma(1.0, 2.0, 3.0)"),
            "  let d = popcount(x) + u32(1.5) + select(c, 1, 2) + fma(1.0, 2.0, 3.0)\n");
}

TEST(IR_TextParser, AMinusBeforeANumberIsPartOfTheLiteralAndNegateOfALiteralKeepsParentheses) {
  const Case c = parse_ok("case n\nkernel {\n let a = -3i\n let b = -(3i)\n let c = negate(3i)\n let d = 1i - -3i\n}\n");
  const Expr& a = let_value(c, 0);
  EXPECT_EQ(a.kind, ExprKind::LitI32);
  EXPECT_EQ(a.payload, static_cast<std::uint32_t>(-3));
  EXPECT_EQ(let_value(c, 1).kind, ExprKind::Unary);
  EXPECT_EQ(let_value(c, 2).kind, ExprKind::Unary);
  EXPECT_EQ(c.program.expr(let_value(c, 3).operands[1]).kind, ExprKind::LitI32);
  EXPECT_EQ(kernel_of("let a = -3i\nlet b = -(3i)\nlet c = negate(3i)\nlet d = 1i - -3i\nlet e = -(-3i)\nlet f = -1.5\nlet g = -0.0"),
            "  let a = -3i\n  let b = -(3i)\n  let c = -(3i)\n  let d = 1i - -3i\n  let e = -(-3i)\n  let f = -1.5\n"
            "  let g = -0.0\n");
}

TEST(IR_TextParser, LiteralsPrintInCanonicalSpelling) {
  EXPECT_EQ(kernel_of("let a = 0xFF\nlet b = 1.5f\nlet c = 2f\nlet d = 1e3\nlet e = f32_bits(0x3fc00000)\n"
                      "let f = f32_bits(0x7fc00000)\nlet g = f32_bits(0xff800000)\nlet h = 0xFFFFFFFFi\nlet i = true"),
            "  let a = 255\n  let b = 1.5\n  let c = 2.0\n  let d = 1000.0\n  let e = 1.5\n"
            "  let f = f32_bits(0x7fc00000)\n  let g = f32_bits(0xff800000)\n  let h = -1i\n  let i = true\n");
}

TEST(IR_TextParser, AtomicsPrintTheirOrderingOnlyWhenItIsNotSeqCst) {
  const Case c = parse_ok(
      "case a\nkernel {\n let a = atomic_compare_exchange(o, 1, 2, 3, relaxed)\n let b = atomic_max(o, 0, 5, seq_cst)\n}\n");
  const Expr& cas = let_value(c, 0);
  EXPECT_EQ(cas.atomic_op(), AtomicOp::CompareExchange);
  EXPECT_EQ(cas.ordering, MemoryOrdering::Relaxed);
  EXPECT_EQ(c.program.expr(cas.operands[0]).payload, 1u);  // index
  EXPECT_EQ(c.program.expr(cas.operands[1]).payload, 3u);  // value
  EXPECT_EQ(c.program.expr(cas.operands[2]).payload, 2u);  // expected
  EXPECT_EQ(kernel_of("let a = atomic_compare_exchange(o, 1, 2, 3, relaxed)\nlet b = atomic_max(o, 0, 5, seq_cst)"),
            "  let a = atomic_compare_exchange(o, 1, 2, 3, relaxed)\n  let b = atomic_max(o, 0, 5)\n");
}

TEST(IR_TextParser, EveryStatementKindHasItsCanonicalLine) {
  EXPECT_EQ(kernel_of(R"gc(if a {} else if b { barrier acquire } else { block { region "x" from "y" { all_reduce buf sum group 2 } } }
broadcast buf root 3
all_gather buf -> out
reduce_scatter buf -> out max group 1
async_load buf -> out offset 0 size 16 tag "t"
async_store buf -> out offset gid.x * 4 size 4 tag "t\x01\"q"
async_wait "t"
indirect_dispatch buf offset 4
trap 1 tag "boom"
opaque "ext"
barrier seq_cst; barrier relaxed; barrier grid_sync; grid_sync; return)gc"),
            R"gc(  if a {} else if b {
    barrier acquire
  } else {
    block {
      region "x" from "y" {
        all_reduce buf sum group 2
      }
    }
  }
  broadcast buf root 3
  all_gather buf -> out
  reduce_scatter buf -> out max group 1
  async_load buf -> out offset 0 size 16 tag "t"
  async_store buf -> out offset gid.x * 4 size 4 tag "t\x01\"q"
  async_wait "t"
  indirect_dispatch buf offset 4
  trap 1 tag "boom"
  opaque "ext"
  barrier
  barrier relaxed
  grid_sync
  grid_sync
  return
)gc");
}

TEST(IR_TextParser, BarrierMemoryScopesParseAndPrintOnlyWhenNotAll) {
  const Case c = parse_ok("case a\nkernel {\n barrier memory workgroup\n barrier acquire memory storage\n"
                          " barrier release memory all\n barrier grid_sync memory workgroup\n}\n");
  const std::span<const StmtId> body = c.program.list(c.program.stmt(c.program.entry_stmts()[0]).body);
  ASSERT_EQ(body.size(), 4u);
  const std::array<std::pair<MemoryOrdering, BarrierMemory>, 4> want = {{
      {MemoryOrdering::SeqCst, BarrierMemory::Workgroup},
      {MemoryOrdering::Acquire, BarrierMemory::Storage},
      {MemoryOrdering::Release, BarrierMemory::All},
      {MemoryOrdering::GridSync, BarrierMemory::Workgroup},
  }};
  for (std::size_t i = 0; i < want.size(); ++i) {
    const Stmt& s = c.program.stmt(body[i]);
    ASSERT_EQ(s.kind, StmtKind::Barrier) << i;
    EXPECT_EQ(s.ordering(), want[i].first) << i;
    EXPECT_EQ(s.barrier_memory(), want[i].second) << i;
  }
  // `memory all` is the default and is not printed; a grid_sync with a scope keeps the long form so
  // that the validator can reject it (G014).
  EXPECT_EQ(kernel_of("barrier memory all; barrier seq_cst memory workgroup; barrier acq_rel memory storage\n"
                      "barrier grid_sync memory storage; barrier grid_sync memory all"),
            "  barrier\n  barrier memory workgroup\n  barrier acq_rel memory storage\n"
            "  barrier grid_sync memory storage\n  grid_sync\n");
}

TEST(IR_TextParser, KeywordsAreContextualSoTheyCanNameLocalsAndBuffers) {
  EXPECT_EQ(kernel_of("let if = 1\nif = if + 1\nloop in in 0..len(grid) { grid[in] = in }\nlet len = gid.x + len\n"
                      "let `true` = `a b`"),
            "  let if = 1\n  if = if + 1\n  loop in in 0..len(grid) {\n    grid[in] = in\n  }\n"
            "  let len = gid.x + len\n  let `true` = `a b`\n");
}

TEST(IR_TextParser, LongValueListsWrapSixteenToALine) {
  std::string list;
  for (int i = 0; i < 20; ++i) list += (i ? ", " : "") + std::to_string(i);
  const std::string out =
      canonical("case l\nbuffer b: u32[20] read binding 0\ninput b = [" + list + "]\nkernel {}\n");
  EXPECT_NE(out.find("input b = [\n  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,\n  16, 17, 18, 19\n]\n"),
            std::string::npos)
      << out;
}

TEST(IR_TextParser, RecordsTheLocationOfEveryStatementExpressionAndBuffer) {
  const Case c = parse_ok("case l\nbuffer b: u32[4] read_write binding 0\nkernel {\n  let v = b[gid.x] + 1\n  b[0] = -2i\n}\n");
  const Program& p = c.program;
  EXPECT_EQ(p.buffers()[0].loc, (SourceLoc{2, 8}));
  const StmtId root = p.entry_stmts()[0];
  EXPECT_EQ(p.loc(root), (SourceLoc{3, 1}));
  const auto body = p.list(p.stmt(root).body);
  EXPECT_EQ(p.loc(body[0]), (SourceLoc{4, 3}));
  EXPECT_EQ(p.loc(body[1]), (SourceLoc{5, 3}));
  const Stmt& let = p.stmt(body[0]);
  const Expr& add = p.expr(let.exprs[0]);
  EXPECT_EQ(p.loc(let.exprs[0]), (SourceLoc{4, 20}));  // a binary operator is located at its operator
  EXPECT_EQ(p.loc(add.operands[0]), (SourceLoc{4, 11}));
  EXPECT_EQ(p.loc(p.expr(add.operands[0]).operands[0]), (SourceLoc{4, 13}));
  EXPECT_EQ(p.loc(add.operands[1]), (SourceLoc{4, 22}));
  EXPECT_EQ(p.loc(p.stmt(body[1]).exprs[1]), (SourceLoc{5, 10}));  // a negative literal starts at its minus
}

TEST(IR_TextParser, ParseProgramReadsWhatPrintProgramWrites) {
  const std::string text = "workgroup_size 8 1 1\n\nbuffer out: u32[8] read_write binding 0 output live_out\n\n"
                           "kernel {\n  out[gid.x] = gid.x\n}\n";
  Result<Program> p = parse_program(text, "p.gc");
  ASSERT_TRUE(p) << render(p.diagnostics(), text);
  EXPECT_EQ(print(*p), text);
  Result<Program> bad = parse_program("case x\nkernel {}\n", "p.gc");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.diagnostics().all()[0].code, "P011");
}

TEST(IR_TextParser, CommentsAndSemicolonsAndBlankLinesAreLayoutOnly) {
  const std::string a = print(parse_ok("case c\nkernel {\n  let x = 1; let y = 2 # two\n\n  return\n}\n"));
  const std::string b = print(parse_ok("case c\n# a comment after the case line is not kept\nkernel {\nlet x = 1\nlet y = 2\nreturn\n}"));
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace gridcheck::ir
