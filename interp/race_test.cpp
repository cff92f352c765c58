// The race detector: every race test has a silent twin (engineering.md).

#include <gtest/gtest.h>

#include <algorithm>

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

/// An observer that watches nothing: attached beside the race detector, it makes the detector an
/// observer too (on_load / on_store / on_atomic), instead of the engine's direct path (engine.hpp).
class NoOpObserver final : public Observer {};
/// One that declines accesses: the detector beside it stays on the direct path.
class NoAccessObserver final : public Observer {
 public:
  bool watches_accesses() const override { return false; }
};

/// What a run reports, for comparing the two paths of the race detector.
std::string reported(const RunResult& r) {
  std::string s = std::string(name_of(r.status)) + "\n" + ir::render(r.diagnostics);
  for (const RaceReport& race : r.races) {
    s += race.message + " launch " + std::to_string(race.launch) + " occurrences " + std::to_string(race.occurrences) +
         " elements";
    for (std::uint64_t e : race.elements) s += " " + std::to_string(e);
    s += "\n";
  }
  for (const OutputBuffer& o : r.outputs) s += o.name + " " + ::testing::PrintToString(o.bytes) + "\n";
  return s;
}

/// Runs `run` (which executes with the options it is given) on the race detector's direct path and
/// on its observer path, checks that both report the same, and returns the direct path's result.
template <class Run>
RunResult on_both_paths(RunOptions o, const Run& run) {
  RunResult direct = run(o);
  NoAccessObserver declining;
  RunOptions beside = o;
  beside.observers.push_back(&declining);
  EXPECT_EQ(reported(direct), reported(run(beside))) << "an observer that declines accesses changed the reports";
  NoOpObserver none;
  o.observers.push_back(&none);
  const RunResult observed = run(o);
  EXPECT_EQ(reported(direct), reported(observed)) << "the race detector's direct and observer paths differ";
  return direct;
}

RunResult run_races(const ir::Program& p, const std::vector<Bytes>& inputs, Grid grid,
                    Schedule schedule = Schedule::in_order(), std::uint32_t fixpoint = 1, bool strict = false) {
  RunOptions o;
  o.detect_races = true;
  o.schedule = schedule;
  o.same_value_writes_race = strict;
  o.uninit = ir::MemoryCheck::Defined;  // these tests are about races only
  return on_both_paths(o, [&](const RunOptions& with) { return run_reference(p, inputs, grid, fixpoint, with); });
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

// --- schedule independence of the verdict (issue 16, item 1) ---------------------------------------

ir::Program plain_store_then_atomics_of_every_workgroup(bool grid_sync) {
  // Oclgrind atomics/atomic_intergroup_race: invocation 0's plain store is ordered before its own
  // workgroup's atomics (barrier) but not before the other workgroup's, unless a grid_sync orders it.
  Builder b({4, 1, 1});
  Buf data = b.read_write("data", 0, ScalarType::U32, 1);
  return b.wrapped({b.if_(b.gid() == b.u32(0), {b.store(data, b.u32(0), b.u32(0))}),
                    grid_sync ? b.grid_sync() : b.barrier(), b.let("old", b.atomic_add(data, b.u32(0), b.u32(1)))});
}

TEST(Interp_Races, APlainStoreThenAnotherWorkgroupsAtomicIsARaceUnderEverySchedule) {
  const std::vector<Bytes> inputs = {to_bytes({0xFFFFFFFFu})};
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(plain_store_then_atomics_of_every_workgroup(false), inputs, Grid{2, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Race) << s.to_string();
    bool store_vs_atomic = false;
    for (const RaceReport& race : r.races)
      store_vs_atomic |= (race.first.kind == AccessKind::Store) != (race.second.kind == AccessKind::Store);
    EXPECT_TRUE(store_vs_atomic) << r.races[0].message;
  }
}

TEST(Interp_Races, APlainStoreOrderedByAGridSyncBeforeEveryonesAtomicsIsSilent) {  // the twin
  const std::vector<Bytes> inputs = {to_bytes({0xFFFFFFFFu})};
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(plain_store_then_atomics_of_every_workgroup(true), inputs, Grid{2, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Ok) << s.to_string() << explain(r);
    EXPECT_EQ(output(r, "data"), (Words{8}));
  }
}

ir::Program atomics_then_plain_store_in_one_workgroup(bool barrier) {
  // Oclgrind atomics/atomic_race_after: every invocation increments, then invocation 0 stores.
  Builder b({4, 1, 1});
  Buf data = b.read_write("data", 0, ScalarType::U32, 1);
  std::vector<ir::S> body = {b.let("old", b.atomic_add(data, b.u32(0), b.u32(1))),
                             b.if_(b.lid() == b.u32(0), {b.store(data, b.u32(0), b.u32(42))})};
  if (barrier) body.insert(body.begin() + 1, b.barrier());
  return b.wrapped(body);
}

TEST(Interp_Races, AtomicsOfOtherInvocationsThenAPlainStoreIsARaceUnderEverySchedule) {
  const std::vector<Bytes> inputs = {to_bytes({0})};
  for (const Schedule& s : kSchedules)
    EXPECT_EQ(run_races(atomics_then_plain_store_in_one_workgroup(false), inputs, Grid{1, 1, 1}, s).status,
              RunStatus::Race)
        << s.to_string();
}

TEST(Interp_Races, AtomicsThenABarrierThenAPlainStoreIsSilent) {  // the twin
  const std::vector<Bytes> inputs = {to_bytes({0})};
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(atomics_then_plain_store_in_one_workgroup(true), inputs, Grid{1, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Ok) << s.to_string() << explain(r);
    EXPECT_EQ(output(r, "data"), (Words{42}));
  }
}

// --- a failed compare-exchange is an atomic read (issue 16, item 2) ---------------------------------

ir::Program compare_exchange_beside_a_plain_read(std::uint32_t expected) {
  // Invocation 0 reads flag[0] plainly; the others compare-exchange it from `expected` to 9. The
  // element holds 5: with expected 5 the exchanges write (a race with the read), otherwise they fail.
  Builder b({4, 1, 1});
  Buf flag = b.read_write("flag", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  return b.wrapped({b.if_(b.lid() == b.u32(0), {b.store(out, b.u32(0), b.load(flag, b.u32(0)))},
                          {b.let("old", b.compare_exchange(flag, b.u32(0), b.u32(expected), b.u32(9)))})});
}

TEST(Interp_Races, ASucceedingCompareExchangeBesideAPlainReadIsARace) {
  const std::vector<Bytes> inputs = {to_bytes({5})};
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(compare_exchange_beside_a_plain_read(5), inputs, Grid{1, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Race) << s.to_string();
    EXPECT_EQ(r.races[0].buffer, "flag");
  }
}

TEST(Interp_Races, FailedCompareExchangesBesideAPlainReadAreSilent) {  // the twin
  const std::vector<Bytes> inputs = {to_bytes({5})};
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(compare_exchange_beside_a_plain_read(6), inputs, Grid{1, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Ok) << s.to_string() << explain(r);
    EXPECT_EQ(output(r, "flag"), (Words{5}));
  }
}

TEST(Interp_Races, AFailedCompareExchangeRacesWithAPlainStore) {
  // A failed compare-exchange still reads: an unordered plain store of another invocation races.
  Builder b({2, 1, 1});
  Buf flag = b.read_write("flag", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.if_(b.lid() == b.u32(0), {b.store(flag, b.u32(0), b.u32(5))},
                                   {b.let("old", b.compare_exchange(flag, b.u32(0), b.u32(7), b.u32(9)))})});
  const std::vector<Bytes> inputs = {to_bytes({5})};
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(p, inputs, Grid{1, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Race) << s.to_string();
    EXPECT_NE(r.races[0].message.find("failed compare-exchange"), std::string::npos) << r.races[0].message;
  }
}

// --- barrier memory scopes (issue 16, item 3) --------------------------------------------------------

/// `body` with every barrier's memory mask set to `mask`, run with the race detector.
RunResult run_with_barrier_mask(const ir::Program& p, std::uint8_t mask, std::vector<Bytes> buffers, Grid grid,
                                const Schedule& schedule) {
  RunOptions o;
  o.detect_races = true;
  o.schedule = schedule;
  o.uninit = ir::MemoryCheck::Defined;
  auto prepared = prepare(p, o);
  EXPECT_TRUE(prepared.ok()) << ir::render(prepared.diagnostics());
  bool any = false;
  for (Instr& in : prepared->compiled.code)
    if (in.op == Op::Barrier) {
      in.sub = mask;
      any = true;
    }
  EXPECT_TRUE(any);
  return on_both_paths(o, [&](const RunOptions& with) {
    std::vector<Bytes> copy = buffers;
    return execute(*prepared, copy, grid, 1, with);
  });
}

/// Invocation 0 writes element 0 of a workgroup buffer and of a storage buffer; after a barrier
/// every invocation reads both.
ir::Program write_barrier_read_both_classes() {
  Builder b({4, 1, 1});
  Buf sh = b.workgroup("sh", 1, ScalarType::U32);
  Buf st = b.read_write("st", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 8);
  return b.wrapped({b.if_(b.lid() == b.u32(0), {b.store(sh, b.u32(0), b.u32(3)), b.store(st, b.u32(0), b.u32(4))}),
                    b.barrier(), b.store(out, b.lid(), b.load(sh, b.u32(0))),
                    b.store(out, b.lid() + b.u32(4), b.load(st, b.u32(0)))});
}

std::vector<std::string> racy_buffers(const RunResult& r) {
  std::vector<std::string> names;
  for (const RaceReport& race : r.races)
    if (std::find(names.begin(), names.end(), race.buffer) == names.end()) names.push_back(race.buffer);
  std::sort(names.begin(), names.end());
  return names;
}

TEST(Interp_Races, ABarrierOfWorkgroupMemoryOnlyLeavesStorageAccessesUnordered) {
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_with_barrier_mask(write_barrier_read_both_classes(), kOrdersWorkgroupMemory,
                                              {to_bytes({0}), to_bytes(fill(8, 0))}, Grid{1, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Race) << s.to_string();
    EXPECT_EQ(racy_buffers(r), (std::vector<std::string>{"st"}));
  }
}

TEST(Interp_Races, ABarrierOfStorageOnlyLeavesWorkgroupMemoryAccessesUnordered) {
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_with_barrier_mask(write_barrier_read_both_classes(), kOrdersStorageMemory,
                                              {to_bytes({0}), to_bytes(fill(8, 0))}, Grid{1, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Race) << s.to_string();
    EXPECT_EQ(racy_buffers(r), (std::vector<std::string>{"sh"}));
  }
}

TEST(Interp_Races, ABarrierOfBothClassesOrdersBoth) {  // the twin of the two above
  for (std::uint8_t mask : {kOrdersAllMemory, std::uint8_t{0}})
    for (const Schedule& s : kSchedules) {
      const RunResult r = run_with_barrier_mask(write_barrier_read_both_classes(), mask,
                                                {to_bytes({0}), to_bytes(fill(8, 0))}, Grid{1, 1, 1}, s);
      ASSERT_EQ(r.status, RunStatus::Ok) << s.to_string() << explain(r);
    }
}

// --- reports (issue 16, item 4) ---------------------------------------------------------------------

TEST(Interp_Races, AReportNamesTheConflictingAccessOfAnInvocationThatReadAndWrote) {
  // Workgroup 0's invocation reads then writes v[0]; workgroup 1's reads it. Only the write conflicts.
  Builder b({1, 1, 1});
  Buf v = b.read_write("v", 0, ScalarType::U32, 1);
  Buf out = b.output("out", 1, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.let("x", b.load(v, b.u32(0))), b.store(out, b.gid(), b.var("x")),
                             b.if_(b.wgid() == b.u32(0), {b.store(v, b.u32(0), b.var("x") + b.u32(1))})});
  const std::vector<Bytes> inputs = {to_bytes({7})};
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(p, inputs, Grid{2, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Race) << s.to_string();
    for (const RaceReport& race : r.races) {
      // One of the two is the store of workgroup 0, the other the load of workgroup 1.
      const RaceReport::Access& store = race.first.kind == AccessKind::Store ? race.first : race.second;
      const RaceReport::Access& load = race.first.kind == AccessKind::Store ? race.second : race.first;
      EXPECT_EQ(store.kind, AccessKind::Store) << race.message;
      EXPECT_EQ(store.site.what, "store to v") << race.message;
      EXPECT_EQ(store.invocation.workgroup[0], 0u) << race.message;
      EXPECT_EQ(load.kind, AccessKind::Load) << race.message;
      EXPECT_EQ(load.invocation.workgroup[0], 1u) << race.message;
    }
  }
}

TEST(Interp_Races, AReportListsTheDistinctElementsOfItsPairOfSites) {
  // Every workgroup writes elements 0..9 at one site: one report, its first 8 distinct elements.
  Builder b({1, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 10);
  ir::Program p = b.wrapped({b.loop("i", b.u32(0), b.u32(10), {b.store(out, b.var("i"), b.gid())})});
  const RunResult r = run_races(p, {}, Grid{3, 1, 1});
  ASSERT_EQ(r.status, RunStatus::Race);
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_EQ(r.races[0].occurrences, 20u);
  EXPECT_EQ(r.races[0].elements, (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_NE(r.races[0].message.find("20 times"), std::string::npos) << r.races[0].message;
}

TEST(Interp_Races, SameValueWritesOfAnInvocationThatAlsoWroteAnotherValueAreARace) {
  // Invocation 0 writes 5 then 7; invocation 1 writes 7: its write and the 5 are unordered.
  Builder b({2, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.if_(b.lid() == b.u32(0), {b.store(out, b.u32(0), b.u32(5))}),
                             b.store(out, b.u32(0), b.u32(7))});
  for (const Schedule& s : kSchedules) EXPECT_EQ(run_races(p, {}, Grid{1, 1, 1}, s).status, RunStatus::Race) << s.to_string();
}

TEST(Interp_Races, SameValueWritesAcrossBarrierIntervalsAreTolerated) {  // the twin
  // Invocation 0 writes 5, barrier, everyone writes 7: the 5 is ordered before every 7.
  Builder b({2, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.if_(b.lid() == b.u32(0), {b.store(out, b.u32(0), b.u32(5))}), b.barrier(),
                             b.store(out, b.u32(0), b.u32(7))});
  for (const Schedule& s : kSchedules) {
    const RunResult r = run_races(p, {}, Grid{1, 1, 1}, s);
    ASSERT_EQ(r.status, RunStatus::Ok) << s.to_string() << explain(r);
    EXPECT_EQ(output(r, "out"), (Words{7}));
  }
}

// --- the direct path and the observer path (engine.hpp) ------------------------------------------------

/// Storage written by every workgroup (`shared`: the same elements, else each its own), workgroup
/// memory re-read and re-written across barriers by the same and by other invocations, atomics on a
/// counter beside (`shared`) a plain store to it: the detector's one-invocation tags, its escalated
/// histories, its same-invocation-later-interval records and its atomic kinds.
ir::Program mixed_accesses(bool shared) {
  Builder b({4, 1, 1});
  Buf st = b.read_write("st", 0, ScalarType::U32, 8);
  Buf counter = b.read_write("counter", 1, ScalarType::U32, 1);
  Buf out = b.output("out", 2, ScalarType::U32, 8);
  Buf sh = b.workgroup("sh", 4, ScalarType::U32);
  std::vector<ir::S> body = {
      b.store(sh, b.lid(), b.gid()),
      b.store(st, shared ? b.lid() : b.gid(), b.gid() + b.load(st, shared ? b.lid() : b.gid())),
      b.let("old", b.atomic_add(counter, b.u32(0), b.u32(1))),
      b.barrier(),
      b.let("v", b.load(sh, (b.lid() + b.u32(1)) % b.u32(4))),
      b.barrier(),
      b.store(sh, b.lid(), b.var("v") + b.load(sh, b.lid())),
      b.store(sh, b.lid(), b.load(sh, b.lid()) * b.u32(3)),
      b.barrier(),
      b.store(out, b.gid(), b.load(sh, b.lid()) + b.load(sh, b.u32(0))),
  };
  if (shared) body.push_back(b.if_(b.gid() == b.u32(5), {b.store(counter, b.u32(0), b.u32(0))}));
  return b.wrapped(body);
}

TEST(Interp_Races, TheDirectPathAndTheObserverPathReportTheSameRaces) {
  const std::vector<Bytes> inputs = {to_bytes(iota(8)), to_bytes({0})};
  for (const Schedule& s : kSchedules)
    for (std::uint32_t fixpoint : {1u, 2u})
      for (bool strict : {false, true}) {
        // run_races compares the two paths' statuses, diagnostics, reports and outputs.
        const RunResult r = run_races(mixed_accesses(true), inputs, Grid{2, 1, 1}, s, fixpoint, strict);
        ASSERT_EQ(r.status, RunStatus::Race) << s.to_string();
        EXPECT_EQ(racy_buffers(r), (std::vector<std::string>{"counter", "st"})) << explain(r);
      }
}

TEST(Interp_Races, TheDirectPathAndTheObserverPathAgreeOnARaceFreeProgram) {  // the twin
  const std::vector<Bytes> inputs = {to_bytes(iota(8)), to_bytes({0})};
  for (const Schedule& s : kSchedules)
    for (std::uint32_t fixpoint : {1u, 2u}) {
      const RunResult r = run_races(mixed_accesses(false), inputs, Grid{2, 1, 1}, s, fixpoint);
      ASSERT_EQ(r.status, RunStatus::Ok) << s.to_string() << explain(r);
      EXPECT_TRUE(r.races.empty());
    }
}

}  // namespace
}  // namespace gridcheck::interp
