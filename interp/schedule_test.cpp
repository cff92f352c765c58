// Property: a race-free program gives the same bytes under every schedule (and the race detector
// stays silent on it); a racy one is detected under every schedule.

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

#include "interp/interpreter.hpp"
#include "interp/test_support.hpp"
#include "ir/builder.hpp"

namespace gridcheck::interp {
namespace {

using namespace testing;
using ir::Builder;
using ir::Buf;
using ir::ScalarType;

struct Subject {
  ir::Program program;
  Grid grid;
  std::uint32_t fixpoint;
  std::vector<std::uint32_t> input_sizes;  ///< words per reference input
};

/// A tree reduction in workgroup memory (barriers), then a grid_sync and a cross-workgroup sum.
Subject reduction_then_grid_sum() {
  Builder b({8, 1, 1});
  Buf in = b.read("in", 0, ScalarType::U32, 32);
  Buf sh = b.workgroup("sh", 8, ScalarType::U32);
  Buf partial = b.read_write("partial", 1, ScalarType::U32, 4);
  Buf total = b.output("total", 2, ScalarType::U32, 32);
  std::vector<ir::S> body = {b.store(sh, b.lid(), b.load(in, b.gid())), b.barrier()};
  for (std::uint32_t stride = 4; stride >= 1; stride /= 2) {
    body.push_back(b.if_(b.lid() < b.u32(stride),
                         {b.store(sh, b.lid(), b.load(sh, b.lid()) ^ (b.load(sh, b.lid() + b.u32(stride)) * b.u32(3)))}));
    body.push_back(b.barrier());
  }
  body.push_back(b.if_(b.lid() == b.u32(0), {b.store(partial, b.wgid(), b.load(sh, b.u32(0)))}));
  body.push_back(b.grid_sync());
  body.push_back(b.let("s", b.load(sh, b.lid())));  // workgroup memory survives the grid_sync
  body.push_back(b.loop("w", b.u32(0), b.u32(4), {b.assign("s", b.var("s") + b.load(partial, b.var("w")))}));
  body.push_back(b.store(total, b.gid(), b.var("s")));
  return {b.wrapped(body), Grid{4, 1, 1}, 1, {32, 4}};
}

/// Commutative atomics whose old values are unused (adds on hist[1..7], max on hist[0]), plus a
/// per-invocation store.
Subject atomic_histogram() {
  Builder b({4, 1, 1});
  Buf in = b.read("in", 0, ScalarType::U32, 16);
  Buf hist = b.read_write("hist", 1, ScalarType::U32, 8);
  Buf out = b.output("out", 2, ScalarType::U32, 16);
  ir::Program p = b.wrapped({b.let("v", b.load(in, b.gid())),
                             b.let("o", b.atomic_add(hist, b.var("v") % b.u32(7) + b.u32(1), b.u32(1))),
                             b.let("m", b.atomic(ir::AtomicOp::Max, hist, b.u32(0), b.var("v"))),
                             b.store(out, b.gid(), b.var("v") * b.u32(2))});
  return {std::move(p), Grid{4, 1, 1}, 1, {16, 8}};
}

/// Rotations through grid_syncs in a uniform loop, over two fixpoint launches.
Subject rotation_with_fixpoint() {
  Builder b({2, 2, 1});
  Buf v = b.read_write("v", 0, ScalarType::U32, 12);
  const ir::E flat = b.gid(1) * b.u32(6) + b.gid(0);
  ir::Program p = b.wrapped({b.loop("r", b.u32(0), b.u32(3),
                                    {b.let("t", b.load(v, (flat + b.u32(5)) % b.u32(12))), b.grid_sync(),
                                     b.store(v, flat, b.var("t") * b.u32(7) + b.var("r")), b.grid_sync()})});
  return {std::move(p), Grid{3, 1, 1}, 2, {12}};
}

std::vector<Bytes> random_inputs(const Subject& s) {
  std::vector<Bytes> inputs;
  for (std::uint32_t n : s.input_sizes) inputs.push_back(to_bytes(*rc::gen::container<Words>(n, rc::gen::arbitrary<std::uint32_t>())));
  return inputs;
}

void check_schedule_independent(const Subject& s) {
  const std::vector<Bytes> inputs = random_inputs(s);
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  RunOptions base;
  base.detect_races = true;
  const RunResult reference = run_reference(s.program, inputs, s.grid, s.fixpoint, base);
  RC_ASSERT(reference.status == RunStatus::Ok);
  for (const Schedule& schedule : {Schedule::reversed(), Schedule::shuffle(seed)}) {
    RunOptions o = base;
    o.schedule = schedule;
    const RunResult other = run_reference(s.program, inputs, s.grid, s.fixpoint, o);
    RC_ASSERT(other.status == RunStatus::Ok);
    RC_ASSERT(other.outputs.size() == reference.outputs.size());
    for (std::size_t i = 0; i < other.outputs.size(); ++i) RC_ASSERT(other.outputs[i].bytes == reference.outputs[i].bytes);
  }
}

RC_GTEST_PROP(Interp_Schedules, ReductionWithGridSyncIsScheduleIndependent, ()) {
  check_schedule_independent(reduction_then_grid_sum());
}

RC_GTEST_PROP(Interp_Schedules, CommutativeAtomicsAreScheduleIndependent, ()) {
  check_schedule_independent(atomic_histogram());
}

RC_GTEST_PROP(Interp_Schedules, GridSyncRotationsOverFixpointAreScheduleIndependent, ()) {
  check_schedule_independent(rotation_with_fixpoint());
}

RC_GTEST_PROP(Interp_Schedules, ARacyProgramIsDetectedUnderEverySchedule, ()) {
  // Each invocation reads its right neighbour's element that the neighbour overwrites, no barrier.
  Builder b({4, 1, 1});
  Buf v = b.read_write("v", 0, ScalarType::U32, 8);
  ir::Program p = b.wrapped({b.let("t", b.load(v, (b.gid() + b.u32(1)) % b.u32(8))), b.store(v, b.gid(), b.var("t") + b.u32(1))});
  RunOptions o;
  o.detect_races = true;
  o.schedule = Schedule::shuffle(*rc::gen::arbitrary<std::uint64_t>());
  const std::vector<Bytes> inputs = {to_bytes(*rc::gen::container<Words>(8, rc::gen::arbitrary<std::uint32_t>()))};
  RC_ASSERT(run_reference(p, inputs, Grid{2, 1, 1}, 1, o).status == RunStatus::Race);
}

TEST(Interp_Schedules, ShuffleChangesTheOrderOfARacyProgram) {
  // Not a property of correct programs: shows the schedules really differ (the last writer wins).
  Builder b({8, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.gid())});
  std::set<Words> seen;
  for (std::uint64_t seed = 0; seed < 16; ++seed) {
    RunOptions o;
    o.schedule = Schedule::shuffle(seed);
    seen.insert(output(run_reference(p, {}, Grid{1, 1, 1}, 1, o), "out"));
  }
  EXPECT_GT(seen.size(), 2u);
  RunOptions reversed;
  reversed.schedule = Schedule::reversed();
  EXPECT_EQ(output(run_reference(p, {}, Grid{1, 1, 1}, 1, reversed), "out"), (Words{0}));
  EXPECT_EQ(output(run_reference(p, {}, Grid{1, 1, 1}), "out"), (Words{7}));
}

}  // namespace
}  // namespace gridcheck::interp
