// Memory rules (docs/semantics.md §3.4): out-of-bounds loads read the typed zero, stores and atomics do nothing
// (atomics return 0), all counted per buffer with the first location; by default such an access makes
// the status oob (R042), `oob warning` reports it, `oob defined` keeps quiet; negative i32 indices trap.

#include <gtest/gtest.h>

#include "interp/interpreter.hpp"
#include "interp/observer.hpp"
#include "interp/test_support.hpp"
#include "ir/builder.hpp"

namespace gridcheck::interp {
namespace {

using namespace testing;
using ir::Builder;
using ir::Buf;
using ir::ScalarType;

/// Out-of-bounds accesses as the defined behaviour, for the tests of that behaviour.
RunOptions oob_defined() {
  RunOptions o;
  o.oob = ir::MemoryCheck::Defined;
  return o;
}

TEST(Interp_Memory, OutOfBoundsLoadsReadTheTypedZero) {
  Builder b({1, 1, 1});
  Buf u = b.read("u", 0, ScalarType::U32, 1);
  Buf f = b.read("f", 1, ScalarType::F32, 1);
  Buf bo = b.read("bo", 2, ScalarType::Bool, 1);
  Buf out = b.output("out", 3, ScalarType::U32, 3);
  Buf fo = b.output("fo", 4, ScalarType::F32, 1);
  ir::Program p = b.wrapped({
      b.let("i", b.u32(5)),
      b.store(out, b.u32(0), b.load(u, b.var("i"))),
      b.store(fo, b.u32(0), b.load(f, b.var("i")) + b.f32(0.5f)),
      b.store(out, b.u32(1), b.select(b.load(bo, b.var("i")), b.u32(7), b.u32(9))),
      b.store(out, b.u32(2), b.load(u, b.u32(0))),
  });
  const std::vector<Bytes> inputs = {to_bytes({42}), to_bytes({f32(2.0f)}), to_bytes({1})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1}, 1, oob_defined());
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{0, 9, 42}));
  EXPECT_EQ(output(r, "fo"), (Words{f32(0.5f)}));
  ASSERT_EQ(r.oob.size(), 3u);
  EXPECT_EQ(r.oob[0].buffer, "u");
  EXPECT_EQ(r.oob[0].loads, 1u);
  EXPECT_EQ(r.oob[0].first_index, 5u);
  EXPECT_EQ(r.oob[0].first_site.what, "load from u");
  EXPECT_EQ(r.oob[0].first_site.path, "entry[0].body[1]");
}

TEST(Interp_Memory, OutOfBoundsStoresDoNothingAndAreCountedPerBuffer) {
  Builder b({4, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 2);
  Buf other = b.output("other", 1, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.gid() + b.u32(1)), b.store(other, b.gid(), b.u32(3))});
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1}, 1, oob_defined());
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_TRUE(r.diagnostics.empty()) << explain(r);  // defined: no report
  EXPECT_EQ(output(r, "out"), (Words{1, 2}));
  ASSERT_EQ(r.oob.size(), 1u);  // only out; other is in bounds
  EXPECT_EQ(r.oob[0].buffer, "out");
  EXPECT_EQ(r.oob[0].stores, 2u);
  EXPECT_EQ(r.oob[0].loads, 0u);
  EXPECT_EQ(r.oob[0].first_kind, AccessKind::Store);
  EXPECT_EQ(r.oob[0].first_index, 2u);
  EXPECT_EQ(r.oob[0].first_invocation.global, (Grid{2, 0, 0}));
  EXPECT_EQ(r.oob[0].first_site.what, "store to out");
}

TEST(Interp_Memory, InBoundsRunsReportNoOutOfBoundsAccess) {  // the silent twin of the two below
  Builder b({2, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.load(out, b.gid()) + b.u32(1))});
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_TRUE(r.oob.empty());
  EXPECT_TRUE(r.diagnostics.empty()) << explain(r);
}

TEST(Interp_Memory, OutOfBoundsAccessIsAnErrorByDefault) {
  Builder b({4, 1, 1});
  Buf c = b.output("c", 0, ScalarType::U32, 3);
  ir::Program p = b.wrapped({b.store(c, b.gid(), b.gid())});
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1});
  EXPECT_EQ(r.status, RunStatus::OutOfBounds) << explain(r);
  EXPECT_EQ(r.verdict(), ir::Verdict::Invalid);
  EXPECT_EQ(r.detail(), "oob");
  EXPECT_EQ(output(r, "c"), (Words{0, 1, 2}));  // the run completed with the defined behaviour
  ASSERT_EQ(r.diagnostics.size(), 1u) << explain(r);
  const ir::Diagnostic& d = r.diagnostics.all()[0];
  EXPECT_EQ(d.code, "R042");
  EXPECT_EQ(d.severity, ir::Severity::Error);
  EXPECT_NE(d.message.find("store of buffer 'c'[3] (it has 3 elements)"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("gid (3,0,0)"), std::string::npos) << d.message;
}

TEST(Interp_Memory, OutOfBoundsWarningKeepsTheVerdict) {
  Builder b({1, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Buf out = b.output("out", 1, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.load(a, b.u32(4)) + b.load(a, b.u32(9)))});
  RunOptions o;
  o.oob = ir::MemoryCheck::Warning;
  const std::vector<Bytes> inputs = {to_bytes({1, 2, 3, 4})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1}, 1, o);
  ASSERT_TRUE(r.ok()) << explain(r);
  ASSERT_EQ(r.diagnostics.size(), 1u) << explain(r);
  EXPECT_EQ(r.diagnostics.all()[0].severity, ir::Severity::Warning);
  EXPECT_NE(r.diagnostics.all()[0].message.find("'a'[4]"), std::string::npos);
  EXPECT_NE(r.diagnostics.all()[0].message.find("1 more out-of-bounds accesses"), std::string::npos);
}

TEST(Interp_Memory, CaseOobLineSelectsTheCheck) {
  Builder b({2, 1, 1});
  Buf c = b.output("c", 0, ScalarType::U32, 1);
  ir::Case tc;
  tc.program = b.wrapped({b.store(c, b.gid(), b.u32(7))});
  tc.grid = Grid{1, 1, 1};
  EXPECT_EQ(run_case(tc).status, RunStatus::OutOfBounds);
  tc.oob = ir::MemoryCheck::Defined;
  EXPECT_EQ(run_case(tc).status, RunStatus::Ok);
  RunOptions strict;
  strict.oob = ir::MemoryCheck::Error;  // an explicit option wins over the case's line
  EXPECT_EQ(run_case(tc, strict).status, RunStatus::OutOfBounds);
}

TEST(Interp_Memory, OutOfBoundsAtomicsReturnZeroAndDoNothing) {
  Builder b({1, 1, 1});
  Buf ctr = b.read_write("ctr", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.atomic_add(ctr, b.u32(3), b.u32(5))),
                             b.store(out, b.u32(1), b.atomic_add(ctr, b.u32(0), b.u32(5)))});
  const std::vector<Bytes> inputs = {to_bytes({100})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1}, 1, oob_defined());
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{0, 100}));
  EXPECT_EQ(output(r, "ctr"), (Words{105}));
  ASSERT_EQ(r.oob.size(), 1u);
  EXPECT_EQ(r.oob[0].atomics, 1u);
  EXPECT_EQ(r.oob[0].first_kind, AccessKind::Atomic);
}

TEST(Interp_Memory, AtomicsReadModifyWriteAndReturnTheOldValue) {
  Builder b({8, 1, 1});
  Buf ctr = b.read_write("ctr", 0, ScalarType::U32, 4);
  Buf olds = b.output("olds", 1, ScalarType::U32, 8);
  ir::Program p = b.wrapped({
      b.store(olds, b.gid(), b.atomic_add(ctr, b.u32(0), b.u32(1))),
      b.let("m", b.atomic(ir::AtomicOp::Max, ctr, b.u32(1), b.gid() * b.u32(3))),
      b.let("o", b.atomic(ir::AtomicOp::Or, ctr, b.u32(2), b.u32(1) << b.gid())),
      b.let("c", b.compare_exchange(ctr, b.u32(3), b.gid(), b.gid() + b.u32(1))),
  });
  const std::vector<Bytes> inputs = {to_bytes({0, 0, 0, 0})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "ctr"), (Words{8, 21, 0xFF, 8}));  // the CAS chain 0->1->...->8 in order
  EXPECT_EQ(output(r, "olds"), iota(8));
}

TEST(Interp_Memory, NegativeI32IndexTraps) {
  Builder b({2, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Buf out = b.output("out", 1, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.load(a, b.cast(ScalarType::I32, b.gid()) - b.i32(1)))});
  const std::vector<Bytes> inputs = {to_bytes({1, 2, 3, 4})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
  ASSERT_EQ(r.status, RunStatus::Trap) << explain(r);
  EXPECT_EQ(r.trap->kind, ir::TrapKind::NegativeToU32);
  EXPECT_EQ(r.trap->invocation.global, (Grid{0, 0, 0}));
}

TEST(Interp_Memory, NonNegativeI32IndexIsAnOrdinaryIndex) {  // the silent twin
  Builder b({2, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Buf out = b.output("out", 1, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.load(a, b.cast(ScalarType::I32, b.gid()) + b.i32(1)))});
  const std::vector<Bytes> inputs = {to_bytes({1, 2, 3, 4})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{2, 3}));
}

TEST(Interp_Memory, BoolStoresWriteZeroOrOneAndBoolLoadsNormalise) {
  Builder b({1, 1, 1});
  Buf in = b.read("in", 0, ScalarType::Bool, 2);
  Buf out = b.output("out", 1, ScalarType::Bool, 2);
  Buf n = b.output("n", 2, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.load(in, b.u32(0))), b.store(out, b.u32(1), b.u32(5) > b.u32(4)),
                             b.store(n, b.u32(0), b.cast(ScalarType::U32, b.load(in, b.u32(1))))});
  const std::vector<Bytes> inputs = {to_bytes({0x100, 0xFFFFFFFF})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{1, 1}));
  EXPECT_EQ(output(r, "n"), (Words{1}));
}

TEST(Interp_Memory, F32LoadsAreCanonicalised) {
  Builder b({2, 1, 1});
  Buf in = b.read("in", 0, ScalarType::F32, 2);
  Buf out = b.output("out", 1, ScalarType::F32, 2);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.load(in, b.gid()))});
  const std::vector<Bytes> inputs = {to_bytes({0x80000003u, 0xFFA00001u})};
  const RunResult r = run_reference(p, inputs, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), (Words{0x80000000u, 0x7FC00000u}));
}

}  // namespace
}  // namespace gridcheck::interp

namespace gridcheck::interp {
namespace {

/// Counts the out-of-bounds accesses it is told of.
struct OobCounter final : Observer {
  std::uint64_t told = 0;
  void on_out_of_bounds(AccessKind, std::uint32_t, std::uint64_t, std::uint32_t, std::uint32_t, std::uint32_t) override {
    ++told;
  }
};

TEST(Interp_Memory, RepeatedOutOfBoundsAccessesCountTheSameWithAndWithoutObserversOrDetectors) {
  // Every invocation: a store, a load and an atomic past the end of v, twice (a loop); the first
  // report stays invocation 0's store. The loop counts a buffer's later ones inline unless an
  // observer watches accesses: the counts must not depend on which loop ran.
  ir::Builder b({2, 1, 1});
  ir::Buf v = b.read_write("v", 0, ir::ScalarType::U32, 4);
  ir::Buf out = b.output("out", 1, ir::ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.loop("k", b.u32(0), b.u32(2),
                                    {b.store(v, b.gid() + b.u32(10), b.u32(1)),
                                     b.store(out, b.gid(), b.load(v, b.gid() + b.u32(20)) + b.atomic_add(v, b.gid() + b.u32(30), b.u32(1)))})});
  const std::vector<Bytes> inputs = {to_bytes(fill(4, 0))};
  for (int config = 0; config < 5; ++config) {
    OobCounter counter;
    RunOptions o = config == 4 ? memory_defined() : oob_defined();
    o.detect_races = config == 1 || config == 3;
    if (config == 2 || config == 3) o.observers = {&counter};  // an observer of accesses (with races in 3)
    if (config == 0) o.uninit = ir::MemoryCheck::Warning;
    const RunResult r = run_reference(p, inputs, Grid{2, 1, 1}, 1, o);
    ASSERT_TRUE(r.ok()) << "config " << config << ": " << explain(r);
    ASSERT_EQ(r.oob.size(), 1u) << "config " << config;
    const OobRecord& rec = r.oob[0];
    EXPECT_EQ(rec.buffer, "v");
    EXPECT_EQ(rec.stores, 8u) << "config " << config;  // 4 invocations, 2 iterations
    EXPECT_EQ(rec.loads, 8u) << "config " << config;
    EXPECT_EQ(rec.atomics, 8u) << "config " << config;
    EXPECT_EQ(rec.first_kind, AccessKind::Store);
    EXPECT_EQ(rec.first_index, 10u);
    EXPECT_EQ(rec.first_invocation.global, (Grid{0, 0, 0}));
    EXPECT_EQ(output(r, "out"), (Words{0, 0, 0, 0}));
    EXPECT_EQ(counter.told, config == 2 || config == 3 ? 24u : 0u) << "config " << config;  // the observer hears each
  }
}

}  // namespace
}  // namespace gridcheck::interp
