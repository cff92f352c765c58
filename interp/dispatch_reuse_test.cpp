// A dispatch reuses the vectors of the thread's previous engine and race detector (interpreter.cpp's
// DispatchCache): whatever ran before on the thread, a dispatch reports exactly what it reports on a
// fresh thread (whose cache is empty). Each racy program has a race-free twin in the same sequences.

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

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

/// Everything a run reports that a leftover of an earlier dispatch could change.
std::string reported(const RunResult& r) {
  std::string s = std::string(name_of(r.status)) + " steps " + std::to_string(r.steps) + "\n" + ir::render(r.diagnostics);
  for (const RaceReport& race : r.races) s += race.message + " x" + std::to_string(race.occurrences) + "\n";
  for (const UninitReport& u : r.uninit) s += "uninit " + u.buffer + " x" + std::to_string(u.occurrences) + "\n";
  for (const OobRecord& o : r.oob) s += "oob " + o.buffer + " " + std::to_string(o.loads + o.stores) + "\n";
  for (const OutputBuffer& o : r.outputs) s += o.name + " " + ::testing::PrintToString(o.bytes) + "\n";
  return s;
}

struct Dispatch {
  const char* name;
  ir::Program program;
  std::vector<Bytes> inputs;
  Grid grid;
  std::uint32_t fixpoint = 1;
};

/// Workgroups hand values over through `mid`, across a grid_sync (ordered) or a barrier (a race).
ir::Program handoff(bool grid_sync, std::uint32_t n) {
  Builder b({2, 1, 1});
  Buf mid = b.read_write("mid", 0, ScalarType::U32, n);
  Buf out = b.output("out", 1, ScalarType::U32, n);
  return b.wrapped({b.let("x", b.u32(7)), b.store(mid, b.gid(), b.gid() + b.var("x")),
                    grid_sync ? b.grid_sync() : b.barrier(),
                    b.store(out, b.gid(), b.load(mid, b.u32(n - 1) - b.gid()))});
}

/// Reads workgroup memory no invocation wrote (uninit), `in` (never written: the detector does not
/// watch it, though the buffer of the same index in the programs above is) and out of bounds of `in`.
ir::Program unwritten_and_out_of_bounds() {
  Builder b({2, 1, 1});
  Buf in = b.read("in", 0, ScalarType::U32, 2);
  Buf sh = b.workgroup("sh", 2, ScalarType::U32);
  Buf out = b.output("out", 1, ScalarType::U32, 2);
  return b.wrapped({b.store(out, b.lid(), b.load(sh, b.lid()) + b.load(in, b.lid()) + b.load(in, b.u32(1) - b.lid()) +
                                              b.load(in, b.lid() + b.u32(5)))});
}

/// Many frame slots (lets, loop variables and bounds, temporaries) under branches, loops of zero
/// and several trips and a grid_sync: an engine sizes its frames without clearing them (engine.hpp,
/// Storage), so every slot must be written before it is read, whatever the frames held before.
ir::Program many_slots() {
  Builder b({4, 1, 1});
  Buf in = b.read("in", 0, ScalarType::U32, 8);
  Buf out = b.output("out", 1, ScalarType::U32, 8);
  return b.wrapped({b.let("a", b.load(in, b.gid()) * b.u32(3)),
                    b.if_(b.lid() < b.u32(2), {b.let("t", b.var("a") + b.u32(1)), b.assign("a", b.var("t") ^ b.lid())},
                          {b.let("e", b.var("a") - b.u32(5)), b.assign("a", b.var("e") * b.var("e"))}),
                    b.loop("i", b.lid(), b.u32(2), {b.assign("a", b.var("a") + b.var("i") * b.gid())}),
                    b.grid_sync(),
                    b.loop("j", b.u32(0), b.load(in, b.gid()) % b.u32(4), {b.let("s", b.var("j") + b.var("a")),
                                                                          b.assign("a", b.select(b.var("s") < b.u32(9), b.var("s"), b.var("a")))}),
                    b.store(out, b.gid(), b.var("a") + b.load(in, b.u32(7) - b.gid()))});
}

std::vector<Dispatch> dispatches() {
  std::vector<Dispatch> d;
  d.push_back({"racy exchange", neighbour_exchange(false), {}, Grid{2, 1, 1}});
  d.push_back({"exchange behind a barrier", neighbour_exchange(true), {}, Grid{2, 1, 1}});
  d.push_back({"big racy handoff", handoff(false, 64), {to_bytes(fill(64, 0))}, Grid{32, 1, 1}});
  d.push_back({"big handoff across a grid_sync", handoff(true, 64), {to_bytes(fill(64, 3))}, Grid{32, 1, 1}, 2});
  d.push_back({"small racy handoff", handoff(false, 4), {to_bytes(fill(4, 0))}, Grid{2, 1, 1}});
  d.push_back({"small handoff across a grid_sync", handoff(true, 4), {to_bytes(fill(4, 1))}, Grid{2, 1, 1}, 3});
  d.push_back({"uninit and oob", unwritten_and_out_of_bounds(), {to_bytes({1, 2})}, Grid{1, 1, 1}});
  d.push_back({"many frame slots", many_slots(), {to_bytes({5, 0, 7, 2, 9, 3, 11, 6})}, Grid{2, 1, 1}, 2});
  return d;
}

RunOptions options() {
  RunOptions o;
  o.detect_races = true;
  o.oob = ir::MemoryCheck::Warning;
  o.uninit = ir::MemoryCheck::Warning;
  return o;
}

RunResult run(const Dispatch& d, const RunOptions& o = options()) {
  return run_reference(d.program, d.inputs, d.grid, d.fixpoint, o);
}

/// `d` on a thread of its own: nothing ran there before.
std::string on_fresh_thread(const Dispatch& d) {
  std::string s;
  std::thread t([&] { s = reported(run(d)); });
  t.join();
  return s;
}

TEST(Interp_DispatchReuse, EveryDispatchAfterEveryOtherReportsWhatItReportsOnAFreshThread) {
  const std::vector<Dispatch> all = dispatches();
  std::vector<std::string> fresh;
  for (const Dispatch& d : all) fresh.push_back(on_fresh_thread(d));
  // The racy ones race and their twins do not (else the comparison below proves little).
  EXPECT_TRUE(fresh[0].starts_with("race")) << fresh[0];
  EXPECT_TRUE(fresh[1].starts_with("ok")) << fresh[1];
  EXPECT_TRUE(fresh[2].starts_with("race")) << fresh[2];
  EXPECT_TRUE(fresh[3].starts_with("ok")) << fresh[3];
  EXPECT_NE(fresh[6].find("uninit sh"), std::string::npos) << fresh[6];
  EXPECT_NE(fresh[6].find("oob in"), std::string::npos) << fresh[6];
  EXPECT_TRUE(fresh[7].starts_with("ok")) << fresh[7];
  std::thread t([&] {  // every ordered pair, on one thread
    for (std::size_t i = 0; i < all.size(); ++i)
      for (std::size_t j = 0; j < all.size(); ++j) {
        (void)run(all[i]);
        EXPECT_EQ(reported(run(all[j])), fresh[j]) << all[j].name << " after " << all[i].name;
      }
  });
  t.join();
}

/// Runs another dispatch from inside a launch of the outer one (the cache is taken then).
class NestedDispatch final : public Observer {
 public:
  explicit NestedDispatch(const Dispatch& inner) : inner_(inner) {}
  void on_launch_begin(const LaunchContext&) override { inner_report = reported(run(inner_)); }
  std::string inner_report;

 private:
  const Dispatch& inner_;
};

TEST(Interp_DispatchReuse, ADispatchInsideAnotherReportsWhatBothReportAlone) {
  const std::vector<Dispatch> all = dispatches();
  for (const auto& [outer, inner] : {std::pair{0, 3}, std::pair{3, 0}, std::pair{2, 5}}) {
    NestedDispatch nested(all[inner]);
    RunOptions o = options();
    o.observers.push_back(&nested);
    EXPECT_EQ(reported(run(all[outer], o)), on_fresh_thread(all[outer])) << all[outer].name;
    EXPECT_EQ(nested.inner_report, on_fresh_thread(all[inner])) << all[inner].name;
  }
}

}  // namespace
}  // namespace gridcheck::interp
