// The race detector: every race test has a silent twin (engineering.md).

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

RunResult run_races(const ir::Program& p, const std::vector<Bytes>& inputs, Grid grid,
                    Schedule schedule = Schedule::in_order(), std::uint32_t fixpoint = 1, bool strict = false) {
  RunOptions o;
  o.detect_races = true;
  o.schedule = schedule;
  o.same_value_writes_race = strict;
  return run_reference(p, inputs, grid, fixpoint, o);
}

const std::vector<Schedule> kSchedules = {Schedule::in_order(), Schedule::reversed(), Schedule::shuffle(1),
                                          Schedule::shuffle(2)};

TEST(Interp_Races, WriteWriteAcrossWorkgroupsIsARaceNamingBothInvocationsAndSites) {
  Builder b({2, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.if_(b.lid() == b.u32(0), {b.store(out, b.u32(0), b.gid())})});
  const RunResult r = run_races(p, {}, Grid{2, 1, 1});
  ASSERT_EQ(r.status, RunStatus::Race) << explain(r);
  EXPECT_EQ(r.verdict(), ir::Verdict::Invalid);
  EXPECT_EQ(r.detail(), "race");
  ASSERT_EQ(r.races.size(), 1u);
  const RaceReport& race = r.races[0];
  EXPECT_EQ(race.buffer, "out");
  EXPECT_EQ(race.element, 0u);
  EXPECT_EQ(race.first.kind, AccessKind::Store);
  EXPECT_EQ(race.second.kind, AccessKind::Store);
  EXPECT_EQ(race.first.invocation, (InvocationIds{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}));
  EXPECT_EQ(race.second.invocation, (InvocationIds{{2, 0, 0}, {0, 0, 0}, {1, 0, 0}}));
  EXPECT_EQ(race.first.site.what, "store to out");
  EXPECT_EQ(race.second.site.path, "entry[0].body[0].then[0]");
  EXPECT_FALSE(r.outputs.empty());  // a racy run still reports what this schedule produced
}

TEST(Interp_Races, DistinctElementsPerInvocationAreSilent) {
  Builder b({2, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.gid())});
  for (const Schedule& s : kSchedules) EXPECT_EQ(run_races(p, {}, Grid{2, 1, 1}, s).status, RunStatus::Ok);
}

ir::Program neighbour_exchange(bool with_barrier) {
  Builder b({4, 1, 1});
  Buf sh = b.workgroup("sh", 4, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 8);
  std::vector<ir::S> body = {b.store(sh, b.lid(), b.gid()), b.let("v", b.load(sh, (b.lid() + b.u32(1)) % b.u32(4)))};
  if (with_barrier) body.insert(body.begin() + 1, b.barrier());
  body.push_back(b.store(out, b.gid(), b.var("v")));
  return b.wrapped(body);
}

TEST(Interp_Races, WorkgroupMemoryReadOfAnotherInvocationsWriteWithoutBarrierIsARace) {
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(neighbour_exchange(false), {}, Grid{2, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Race) << s.to_string();
    EXPECT_TRUE(r.races[0].workgroup_memory);
    EXPECT_EQ(r.races[0].buffer, "sh");
  }
}

TEST(Interp_Races, WorkgroupMemoryExchangeBehindABarrierIsSilent) {
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(neighbour_exchange(true), {}, Grid{2, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Ok) << s.to_string() << explain(r);
    EXPECT_EQ(output(r, "out"), (Words{1, 2, 3, 0, 5, 6, 7, 4}));
  }
}

ir::Program cross_workgroup_handoff(bool grid_sync) {
  Builder b({2, 1, 1});
  Buf mid = b.read_write("mid", 0, ScalarType::U32, 4);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  return b.wrapped({b.store(mid, b.gid(), b.gid() + b.u32(1)), grid_sync ? b.grid_sync() : b.barrier(),
                    b.store(out, b.gid(), b.load(mid, b.u32(3) - b.gid()))});
}

TEST(Interp_Races, AWorkgroupBarrierDoesNotOrderOtherWorkgroups) {
  const std::vector<Bytes> inputs = {to_bytes(fill(4, 0))};
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(cross_workgroup_handoff(false), inputs, Grid{2, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Race) << s.to_string();
    EXPECT_NE(r.races[0].first.invocation.workgroup, r.races[0].second.invocation.workgroup);
  }
}

TEST(Interp_Races, AGridSyncOrdersEveryone) {
  const std::vector<Bytes> inputs = {to_bytes(fill(4, 0))};
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(cross_workgroup_handoff(true), inputs, Grid{2, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Ok) << s.to_string() << explain(r);
    EXPECT_EQ(output(r, "out"), (Words{4, 3, 2, 1}));
  }
}

TEST(Interp_Races, ALaunchBoundaryOrdersEveryone) {
  // Launch k reads the element another workgroup wrote in launch k-1: no race.
  Builder b({1, 1, 1});
  Buf v = b.read_write("v", 0, ScalarType::U32, 2);
  Buf out = b.output("out", 1, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.load(v, b.u32(1) - b.gid())), b.store(v, b.gid(), b.gid() + b.u32(5))});
  const std::vector<Bytes> inputs = {to_bytes({0, 0})};
  const RunResult r = run_races(p, inputs, Grid{2, 1, 1}, Schedule::in_order(), 2);
  // Within one launch workgroup 0 reads v[1] which workgroup 1 writes: that IS a race.
  EXPECT_EQ(r.status, RunStatus::Race);
  // Separate the read and the write by a grid_sync: what remains crosses only launch boundaries.
  Builder c({1, 1, 1});
  Buf v2 = c.read_write("v", 0, ScalarType::U32, 2);
  Buf out2 = c.output("out", 1, ScalarType::U32, 2);
  ir::Program q = c.wrapped({c.store(out2, c.gid(), c.load(v2, c.u32(1) - c.gid())), c.grid_sync(),
                             c.store(v2, c.gid(), c.gid() + c.u32(5))});
  const RunResult s = run_races(q, inputs, Grid{2, 1, 1}, Schedule::in_order(), 2);
  ASSERT_EQ(s.status, RunStatus::Ok) << explain(s);
  EXPECT_EQ(output(s, "out"), (Words{6, 5}));
}

TEST(Interp_Races, AtomicsDoNotRaceWithAtomics) {
  Builder b({4, 1, 1});
  Buf ctr = b.read_write("ctr", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.let("old", b.atomic_add(ctr, b.u32(0), b.u32(1)))});
  const std::vector<Bytes> inputs = {to_bytes({0})};
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(p, inputs, Grid{3, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Ok) << explain(r);
    EXPECT_EQ(output(r, "ctr"), (Words{12}));
  }
}

TEST(Interp_Races, APlainLoadOfAnAtomicallyUpdatedElementIsARace) {
  Builder b({4, 1, 1});
  Buf ctr = b.read_write("ctr", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.let("old", b.atomic_add(ctr, b.u32(0), b.u32(1))),
                             b.store(out, b.gid(), b.load(ctr, b.u32(0)))});
  const std::vector<Bytes> inputs = {to_bytes({0})};
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(p, inputs, Grid{1, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Race) << s.to_string();
    EXPECT_EQ(r.races[0].buffer, "ctr");
  }
}

ir::Program uniform_flag(bool same_value) {
  Builder b({4, 1, 1});
  Buf flag = b.output("flag", 0, ScalarType::U32, 1);
  return b.wrapped({b.store(flag, b.u32(0), same_value ? b.u32(1) : b.gid())});
}

TEST(Interp_Races, SameValueWritesAreToleratedByDefault) {
  const RunResult r = run_races(uniform_flag(true), {}, Grid{2, 1, 1});
  ASSERT_EQ(r.status, RunStatus::Ok) << explain(r);
  EXPECT_EQ(output(r, "flag"), (Words{1}));
}

TEST(Interp_Races, SameValueWritesAreARaceWhenStrict) {
  const RunResult r = run_races(uniform_flag(true), {}, Grid{2, 1, 1}, Schedule::in_order(), 1, true);
  EXPECT_EQ(r.status, RunStatus::Race);
}

TEST(Interp_Races, DifferentValueWritesAreARace) {
  EXPECT_EQ(run_races(uniform_flag(false), {}, Grid{1, 1, 1}).status, RunStatus::Race);
}

TEST(Interp_Races, TwoReadersThenOneWriterIsARaceUnderEverySchedule) {
  // Both invocations read sh[0]; invocation 0 then writes it. In reversed order the writer was the
  // last reader: the detector must still remember the other reader.
  Builder b({2, 1, 1});
  Buf sh = b.workgroup("sh", 1, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.let("v", b.load(sh, b.u32(0))), b.store(out, b.gid(), b.var("v")),
                             b.if_(b.lid() == b.u32(0), {b.store(sh, b.u32(0), b.var("v") + b.u32(1))})});
  for (const Schedule& s : kSchedules) EXPECT_EQ(run_races(p, {}, Grid{1, 1, 1}, s).status, RunStatus::Race) << s.to_string();
}

TEST(Interp_Races, ReadersBeforeABarrierAndAWriterAfterItAreSilent) {  // the twin
  Builder b({2, 1, 1});
  Buf sh = b.workgroup("sh", 1, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.let("v", b.load(sh, b.u32(0))), b.store(out, b.gid(), b.var("v")), b.barrier(),
                             b.if_(b.lid() == b.u32(0), {b.store(sh, b.u32(0), b.var("v") + b.u32(1))})});
  for (const Schedule& s : kSchedules) EXPECT_EQ(run_races(p, {}, Grid{1, 1, 1}, s).status, RunStatus::Ok) << s.to_string();
}

TEST(Interp_Races, AReaderInAnEarlierWorkgroupRacesWithALaterReadWriteWorkgroup) {
  // Workgroup 0 reads buf[0]; workgroup 1 reads it, then writes it (same invocation, no race of its own).
  Builder b({1, 1, 1});
  Buf buf = b.read_write("buf", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.let("v", b.load(buf, b.u32(0))), b.store(out, b.gid(), b.var("v")),
                             b.if_(b.wgid() == b.u32(1), {b.store(buf, b.u32(0), b.var("v") + b.u32(1))})});
  const std::vector<Bytes> inputs = {to_bytes({7})};
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(p, inputs, Grid{2, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Race) << s.to_string();
    EXPECT_EQ(r.races[0].buffer, "buf");
  }
}

TEST(Interp_Races, ReadModifyWriteOfOwnElementAcrossBarriersIsSilent) {
  Builder b({4, 1, 1});
  Buf v = b.read_write("v", 0, ScalarType::U32, 8);
  ir::Program p = b.wrapped({b.loop("i", b.u32(0), b.u32(3),
                                    {b.store(v, b.gid(), b.load(v, b.gid()) + b.u32(1)), b.barrier()})});
  const std::vector<Bytes> inputs = {to_bytes(fill(8, 0))};
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(p, inputs, Grid{2, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Ok) << explain(r);
    EXPECT_EQ(output(r, "v"), fill(8, 3));
  }
}

TEST(Interp_Races, RepeatedRacesAtTheSameSitesAreReportedOnceWithACount) {
  Builder b({8, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.gid())});
  const RunResult r = run_races(p, {}, Grid{1, 1, 1});
  ASSERT_EQ(r.status, RunStatus::Race);
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_EQ(r.races[0].occurrences, 7u);
  EXPECT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics.all()[0].code, "R040");
}

TEST(Interp_Races, RacesAreNotCheckedUnlessRequested) {
  Builder b({8, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.gid())});
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(output(r, "out"), (Words{7}));
}

}  // namespace
}  // namespace gridcheck::interp
