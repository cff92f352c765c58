// Observer hooks: order, invocation ids, sites, fence indices and memory snapshots — what a
// "last writer per element" observer and first-divergence snapshots need.

#include <gtest/gtest.h>

#include <map>

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

class Recorder final : public Observer {
 public:
  std::vector<std::string> events;
  std::vector<std::vector<Bytes>> fence_snapshots;
  /// buffer index -> element -> (global invocation, site) of the last store
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<InvocationIds, Site>> last_writer;
  LaunchContext ctx;
  bool accesses = true;  ///< watches_accesses
  std::size_t accesses_seen = 0;

  bool watches_accesses() const override { return accesses; }
  void on_load(const Access&) override { ++accesses_seen; }
  void on_atomic(const Access&) override { ++accesses_seen; }
  void on_launch_begin(const LaunchContext& c) override {
    ctx = c;
    events.push_back("launch " + std::to_string(c.launch));
  }
  void on_workgroup_enter(std::uint32_t wg) override { events.push_back("enter " + std::to_string(wg)); }
  void on_workgroup_leave(std::uint32_t wg) override { events.push_back("leave " + std::to_string(wg)); }
  void on_barrier_release(std::uint32_t wg, std::uint32_t pc) override {
    events.push_back("barrier " + std::to_string(wg) + " " + ctx.site(pc).what);
  }
  void on_fence_release(std::uint32_t index, std::uint32_t pc, const MemoryView& memory) override {
    events.push_back("fence " + std::to_string(index) + " " + ctx.site(pc).what);
    std::vector<Bytes> snapshot;
    for (auto span : memory.buffers) snapshot.emplace_back(span.begin(), span.end());
    fence_snapshots.push_back(std::move(snapshot));
  }
  void on_launch_end(std::uint32_t launch, const MemoryView&) override {
    events.push_back("end " + std::to_string(launch));
  }
  void on_store(const Access& a) override {
    ++accesses_seen;
    last_writer[{a.buffer, a.element}] = {ctx.ids(a.workgroup, a.local), ctx.site(a.pc)};
  }
  void on_out_of_bounds(AccessKind kind, std::uint32_t, std::uint64_t index, std::uint32_t, std::uint32_t,
                        std::uint32_t) override {
    events.push_back(std::string("oob ") + std::string(name_of(kind)) + " " + std::to_string(index));
  }
};

TEST(Interp_Observers, HooksArriveInOrderWithFenceIndicesAndSnapshots) {
  Builder b({2, 1, 1});
  Buf sh = b.workgroup("sh", 2, ScalarType::U32);
  Buf v = b.read_write("v", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.store(sh, b.lid(), b.gid()), b.barrier(), b.store(v, b.gid(), b.load(sh, b.u32(1) - b.lid())),
                             b.grid_sync(), b.store(v, b.gid(), b.load(v, b.gid()) + b.u32(10)), b.grid_sync()});
  Recorder rec;
  RunOptions o;
  o.observers = {&rec};
  const std::vector<Bytes> inputs = {to_bytes(fill(4, 0))};
  const RunResult r = run_reference(p, inputs, Grid{2, 1, 1}, 1, o);
  ASSERT_TRUE(r.ok()) << explain(r);
  const std::vector<std::string> expected = {
      "launch 0",  "enter 0", "barrier 0 barrier seq_cst", "leave 0", "enter 1", "barrier 1 barrier seq_cst", "leave 1",
      "fence 0 grid_sync", "enter 0", "leave 0", "enter 1", "leave 1", "fence 1 grid_sync", "enter 0", "leave 0",
      "enter 1", "leave 1", "end 0"};
  EXPECT_EQ(rec.events, expected);
  ASSERT_EQ(rec.fence_snapshots.size(), 2u);
  EXPECT_EQ(to_words(rec.fence_snapshots[0][0]), (Words{1, 0, 3, 2}));
  EXPECT_EQ(to_words(rec.fence_snapshots[1][0]), (Words{11, 10, 13, 12}));
}

TEST(Interp_Observers, StoresCarryTheInvocationAndSiteForALastWriterMap) {
  Builder b({4, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.u32(1)), b.if_(b.gid() == b.u32(6), {b.store(out, b.u32(1), b.u32(2))})});
  Recorder rec;
  RunOptions o = memory_defined();  // workgroup 1 stores out of bounds
  o.observers = {&rec};
  const RunResult r = run_reference(p, {}, Grid{2, 1, 1}, 1, o);
  ASSERT_TRUE(r.ok()) << explain(r);
  const auto& w1 = rec.last_writer.at({0u, 1u});
  EXPECT_EQ(w1.first.global, (Grid{6, 0, 0}));
  EXPECT_EQ(w1.first.local, (Grid{2, 0, 0}));
  EXPECT_EQ(w1.first.workgroup, (Grid{1, 0, 0}));
  EXPECT_EQ(w1.second.path, "entry[0].body[1].then[0]");
  const auto& w3 = rec.last_writer.at({0u, 3u});
  EXPECT_EQ(w3.first.global, (Grid{3, 0, 0}));
  EXPECT_EQ(w3.second.path, "entry[0].body[0]");
  // out has 4 elements; invocations 4..7 store out of bounds in the first statement.
  EXPECT_EQ(std::count_if(rec.events.begin(), rec.events.end(), [](const std::string& e) { return e.rfind("oob store", 0) == 0; }), 4);
}

ir::Program loads_stores_atomics_barriers_fences() {
  Builder b({2, 1, 1});
  Buf sh = b.workgroup("sh", 2, ScalarType::U32);
  Buf v = b.read_write("v", 0, ScalarType::U32, 4);
  Buf n = b.read_write("n", 1, ScalarType::U32, 1);
  return b.wrapped({b.store(sh, b.lid(), b.gid()), b.barrier(), b.store(v, b.gid(), b.load(sh, b.u32(1) - b.lid())),
                    b.grid_sync(), b.let("old", b.atomic_add(n, b.u32(0), b.u32(1))),
                    b.store(v, b.gid(), b.load(v, b.gid()) + b.u32(10)),
                    b.if_(b.gid() == b.u32(3), {b.store(v, b.gid() * b.u32(3), b.u32(1))})});  // out of bounds
}

/// The events other than out-of-bounds accesses.
std::vector<std::string> in_bounds_events(const Recorder& r) {
  std::vector<std::string> out;
  for (const std::string& e : r.events)
    if (e.rfind("oob ", 0) != 0) out.push_back(e);
  return out;
}

TEST(Interp_Observers, AnObserverThatDeclinesAccessesGetsEveryOtherHookAndNoAccessInOrOutOfBounds) {
  for (bool races : {false, true}) {
    Recorder declining, watching;
    declining.accesses = false;
    RunOptions o = memory_defined();  // the out-of-bounds store is defined behaviour
    o.detect_races = races;
    o.observers = {&declining, &watching};
    const std::vector<Bytes> inputs = {to_bytes(fill(4, 0)), to_bytes({0})};
    const RunResult r = run_reference(loads_stores_atomics_barriers_fences(), inputs, Grid{2, 1, 1}, 1, o);
    ASSERT_TRUE(r.ok()) << explain(r);
    EXPECT_EQ(declining.accesses_seen, 0u);
    EXPECT_EQ(watching.accesses_seen, 4u * 6u);  // 4 invocations, each: 3 stores, 2 loads, 1 atomic
    EXPECT_EQ(declining.events, in_bounds_events(watching));
    EXPECT_EQ(watching.events.size(), declining.events.size() + 1);  // the out-of-bounds store
    EXPECT_EQ(declining.fence_snapshots, watching.fence_snapshots);
  }
}

TEST(Interp_Observers, AnObserverThatDeclinesAccessesAloneGetsTheSameHooksAsOneThatWatches) {
  // Alone, it leaves the engine its loop without access calls (with the race detector: the
  // detector's direct path); the other hooks arrive as they do for an observer of accesses.
  for (bool races : {false, true}) {
    Recorder declining, watching;
    declining.accesses = false;
    const std::vector<Bytes> inputs = {to_bytes(fill(4, 0)), to_bytes({0})};
    RunOptions o = memory_defined();
    o.detect_races = races;
    o.observers = {&declining};
    const RunResult a = run_reference(loads_stores_atomics_barriers_fences(), inputs, Grid{2, 1, 1}, 1, o);
    o.observers = {&watching};
    const RunResult b = run_reference(loads_stores_atomics_barriers_fences(), inputs, Grid{2, 1, 1}, 1, o);
    ASSERT_TRUE(a.ok()) << explain(a);
    ASSERT_TRUE(b.ok()) << explain(b);
    EXPECT_EQ(declining.accesses_seen, 0u);
    EXPECT_GT(watching.accesses_seen, 0u);
    EXPECT_EQ(declining.events, in_bounds_events(watching));
    EXPECT_EQ(declining.fence_snapshots, watching.fence_snapshots);
    EXPECT_FALSE(declining.events.empty());
  }
}

}  // namespace
}  // namespace gridcheck::interp
