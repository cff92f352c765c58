// R's verdict over two schedules (interp/schedule_check.hpp, docs/semantics.md §3.6): bytes that
// differ between the schedule and its counterpart make the status nondeterministic (R044) when the
// detector is silent, race when it is off; a deterministic program stays ok.

#include <gtest/gtest.h>

#include "interp/schedule_check.hpp"
#include "interp/test_support.hpp"
#include "ir/builder.hpp"

namespace gridcheck::interp {
namespace {

using namespace testing;
using ir::Builder;
using ir::Buf;
using ir::ScalarType;

ir::Case make_case(ir::Program p, Grid grid) {
  ir::Case c;
  c.program = std::move(p);
  c.grid = grid;
  return c;
}

/// Each invocation takes a ticket from an atomic counter and writes its id at the ticket's slot:
/// no data race, but the slots depend on the order the atomics ran in.
ir::Case ticket_case() {
  Builder b({4, 1, 1});
  Buf ctr = b.read_write("ctr", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 8);
  return make_case(b.wrapped({b.store(out, b.atomic_add(ctr, b.u32(0), b.u32(1)), b.gid())}), Grid{2, 1, 1});
}

TEST(Interp_ScheduleCheck, AtomicOrderDependentBytesAreNondeterministic) {
  RunOptions o;
  o.detect_races = true;
  const RunResult r = run_case_on_two_schedules(ticket_case(), o);
  EXPECT_EQ(r.status, RunStatus::Nondeterministic) << explain(r);
  EXPECT_EQ(r.detail(), "nondeterministic");
  ASSERT_FALSE(r.diagnostics.empty());
  const ir::Diagnostic& d = r.diagnostics.all().back();
  EXPECT_EQ(d.code, "R044");
  EXPECT_NE(d.message.find("'out'[0]"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("reversed"), std::string::npos) << d.message;
  EXPECT_TRUE(r.races.empty());
}

TEST(Interp_ScheduleCheck, AtomicsWhoseOrderDoesNotShowStayOk) {  // the silent twin
  Builder b({4, 1, 1});
  Buf ctr = b.read_write("ctr", 0, ScalarType::U32, 1);
  ir::Case c = make_case(b.wrapped({b.let("t", b.atomic_add(ctr, b.u32(0), b.gid()))}), Grid{2, 1, 1});
  RunOptions o;
  o.detect_races = true;
  const RunResult r = run_case_on_two_schedules(c, o);
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "ctr"), (Words{28}));
}

TEST(Interp_ScheduleCheck, WithoutTheDetectorDifferentBytesAreARace) {
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Case c = make_case(b.wrapped({b.store(out, b.u32(0), b.gid())}), Grid{4, 1, 1});
  RunOptions o;
  o.detect_races = false;
  const RunResult r = run_case_on_two_schedules(c, o);
  EXPECT_EQ(r.status, RunStatus::Race) << explain(r);
  EXPECT_EQ(r.diagnostics.all().back().code, "R044");
}

// atomics_commute: when the second run may be skipped (docs/semantics.md §3.6).

TEST(Interp_AtomicsCommute, UnreadCommutativeAtomicsOfOneOperatorPerElementCommute) {
  Builder b({4, 1, 1});
  Buf ctr = b.read_write("ctr", 0, ScalarType::U32, 4);
  Buf out = b.output("out", 1, ScalarType::U32, 8);
  // add on every element at a computed index; max and or at two literal indices of another buffer.
  Buf lit = b.read_write("lit", 2, ScalarType::U32, 2);
  const ir::Program p = b.wrapped({b.let("a", b.atomic_add(ctr, b.gid(), b.u32(1))),
                                   b.let("m", b.atomic(ir::AtomicOp::Max, lit, b.u32(0), b.gid())),
                                   b.let("o", b.atomic(ir::AtomicOp::Or, lit, b.u32(1), b.gid())),
                                   b.store(out, b.gid(), b.gid())});
  EXPECT_TRUE(atomics_commute(p));
  Builder none({1, 1, 1});
  Buf o2 = none.output("out", 0, ScalarType::U32, 1);
  EXPECT_TRUE(atomics_commute(none.wrapped({none.store(o2, none.u32(0), none.u32(1))})));
}

TEST(Interp_AtomicsCommute, AReadOldValueAnExchangeOrMixedOperatorsOnOneElementDoNot) {
  EXPECT_FALSE(atomics_commute(ticket_case().program));  // the old value is stored
  {
    Builder b({4, 1, 1});
    Buf ctr = b.read_write("ctr", 0, ScalarType::U32, 1);
    EXPECT_FALSE(atomics_commute(b.wrapped({b.let("x", b.atomic(ir::AtomicOp::Exchange, ctr, b.u32(0), b.gid()))})));
  }
  {
    Builder b({4, 1, 1});
    Buf ctr = b.read_write("ctr", 0, ScalarType::U32, 2);
    // two operators at one literal index, and at a computed index
    EXPECT_FALSE(atomics_commute(b.wrapped({b.let("x", b.atomic_add(ctr, b.u32(0), b.u32(1))),
                                            b.let("y", b.atomic(ir::AtomicOp::Max, ctr, b.u32(0), b.u32(1)))})));
  }
  {
    Builder b({4, 1, 1});
    Buf ctr = b.read_write("ctr", 0, ScalarType::U32, 2);
    EXPECT_FALSE(atomics_commute(b.wrapped({b.let("x", b.atomic_add(ctr, b.gid(), b.u32(1))),
                                            b.let("y", b.atomic(ir::AtomicOp::Max, ctr, b.u32(1), b.u32(1)))})));
  }
}

TEST(Interp_ScheduleCheck, MixedOperatorsOnOneElementAreStillComparedAndFoundNondeterministic) {
  // Invocation 0 takes the max with 5, invocation 1 adds 1: 6 in order, 5 reversed.
  Builder b({2, 1, 1});
  Buf ctr = b.read_write("ctr", 0, ScalarType::U32, 1);
  ir::Case c = make_case(
      b.wrapped({b.if_(b.bin(ir::BinOp::Eq, b.gid(), b.u32(0)), {b.let("x", b.atomic(ir::AtomicOp::Max, ctr, b.u32(0), b.u32(5)))},
                       {b.let("y", b.atomic_add(ctr, b.u32(0), b.u32(1)))})}),
      Grid{1, 1, 1});
  EXPECT_FALSE(atomics_commute(c.program));
  RunOptions o;
  o.detect_races = true;
  const RunResult r = run_case_on_two_schedules(c, o);
  EXPECT_EQ(r.status, RunStatus::Nondeterministic) << explain(r);
}

TEST(Interp_ScheduleCheck, TheCounterpartOfInOrderIsReversedAndOfAnyOtherInOrder) {
  EXPECT_EQ(counterpart_of(Schedule::in_order()).kind, Schedule::Kind::Reversed);
  EXPECT_EQ(counterpart_of(Schedule::reversed()).kind, Schedule::Kind::InOrder);
  EXPECT_EQ(counterpart_of(Schedule::shuffle(3)).kind, Schedule::Kind::InOrder);
}

}  // namespace
}  // namespace gridcheck::interp
