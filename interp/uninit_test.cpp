// Uninitialised workgroup reads (docs/semantics.md §3.4, UninitDetector): a load of a workgroup
// element no invocation of the workgroup stored to earlier in the launch is status uninit (R043)
// by default; each racy-looking case has a silent twin that writes first.

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

std::size_t count_code(const RunResult& r, std::string_view code) {
  std::size_t n = 0;
  for (const ir::Diagnostic& d : r.diagnostics) n += d.code == code ? 1 : 0;
  return n;
}

TEST(Interp_Uninit, ReadOfUnwrittenWorkgroupMemoryIsAnError) {
  Builder b({4, 1, 1});
  Buf sh = b.workgroup("sh", 4, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.load(sh, b.lid()))});
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1});
  EXPECT_EQ(r.status, RunStatus::Uninitialized) << explain(r);
  EXPECT_EQ(r.detail(), "uninit");
  ASSERT_EQ(r.uninit.size(), 1u);  // one site
  EXPECT_EQ(r.uninit[0].buffer, "sh");
  EXPECT_EQ(r.uninit[0].occurrences, 4u);
  EXPECT_EQ(r.uninit[0].first_element, 0u);
  EXPECT_EQ(count_code(r, "R043"), 1u);
  EXPECT_EQ(output(r, "out"), fill(4, 0));  // R's zero fill
}

TEST(Interp_Uninit, WriteBarrierReadIsSilent) {  // the twin: every lane writes its element first
  Builder b({4, 1, 1});
  Buf sh = b.workgroup("sh", 4, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 8);
  ir::Program p = b.wrapped({b.store(sh, b.lid(), b.lid() + b.u32(1)), b.barrier(),
                             b.store(out, b.gid(), b.load(sh, (b.lid() + b.u32(1)) % b.u32(4)))});
  const RunResult r = run_reference(p, {}, Grid{2, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_TRUE(r.uninit.empty());
  EXPECT_EQ(count_code(r, "R043"), 0u);
}

TEST(Interp_Uninit, EachWorkgroupStartsUnwritten) {
  // Workgroup 0 writes sh[0]; workgroup 1 only reads it: its memory is its own, so the read is uninitialised.
  Builder b({1, 1, 1});
  Buf sh = b.workgroup("sh", 1, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 2);
  ir::Program p = b.wrapped({b.if_(b.wgid() == b.u32(0), {b.store(sh, b.u32(0), b.u32(5))}),
                             b.store(out, b.wgid(), b.load(sh, b.u32(0)))});
  const RunResult r = run_reference(p, {}, Grid{2, 1, 1});
  EXPECT_EQ(r.status, RunStatus::Uninitialized) << explain(r);
  ASSERT_EQ(r.uninit.size(), 1u);
  EXPECT_EQ(r.uninit[0].first_invocation.workgroup, (Grid{1, 0, 0}));
  EXPECT_EQ(r.uninit[0].occurrences, 1u);
}

TEST(Interp_Uninit, WorkgroupMemoryWrittenBeforeAGridSyncStaysWritten) {  // silent: memory persists across it
  Builder b({2, 1, 1});
  Buf sh = b.workgroup("sh", 2, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  ir::Program p = b.wrapped({b.store(sh, b.lid(), b.gid()), b.grid_sync(), b.store(out, b.gid(), b.load(sh, b.lid()))});
  const RunResult r = run_reference(p, {}, Grid{2, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), iota(4));
}

TEST(Interp_Uninit, EveryLaunchStartsUnwritten) {
  // Launch 0 reads before it writes; so does launch 1, although launch 0 wrote the element.
  Builder b({1, 1, 1});
  Buf sh = b.workgroup("sh", 1, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.load(sh, b.u32(0))), b.store(sh, b.u32(0), b.u32(1))});
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1}, 2);
  EXPECT_EQ(r.status, RunStatus::Uninitialized) << explain(r);
  ASSERT_EQ(r.uninit.size(), 2u);
  EXPECT_EQ(r.uninit[0].launch, 0u);
  EXPECT_EQ(r.uninit[1].launch, 1u);
}

TEST(Interp_Uninit, WarningAndDefinedKeepTheVerdict) {
  Builder b({1, 1, 1});
  Buf sh = b.workgroup("sh", 1, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  ir::Program p = b.wrapped({b.store(out, b.u32(0), b.load(sh, b.u32(0)))});
  RunOptions o;
  o.uninit = ir::MemoryCheck::Warning;
  const RunResult warned = run_reference(p, {}, Grid{1, 1, 1}, 1, o);
  ASSERT_TRUE(warned.ok()) << explain(warned);
  ASSERT_EQ(count_code(warned, "R043"), 1u);
  EXPECT_EQ(warned.diagnostics.all()[0].severity, ir::Severity::Warning);
  o.uninit = ir::MemoryCheck::Defined;
  const RunResult quiet = run_reference(p, {}, Grid{1, 1, 1}, 1, o);
  ASSERT_TRUE(quiet.ok()) << explain(quiet);
  EXPECT_TRUE(quiet.diagnostics.empty());
}

// With the race detector on, a load of a workgroup buffer that is never written takes the engine's
// handler without the detector (it cannot race); the uninitialised-read check stays in it.
TEST(Interp_Uninit, ReadOfANeverWrittenWorkgroupBufferIsAnErrorWithTheRaceDetectorOn) {
  Builder b({4, 1, 1});
  Buf sh = b.workgroup("sh", 4, ScalarType::U32);
  Buf out = b.output("out", 0, ScalarType::U32, 8);
  ir::Program p = b.wrapped({b.store(out, b.gid(), b.load(sh, b.lid()))});
  RunOptions o;
  o.detect_races = true;
  const RunResult r = run_reference(p, {}, Grid{2, 1, 1}, 1, o);
  EXPECT_EQ(r.status, RunStatus::Uninitialized) << explain(r);
  ASSERT_EQ(r.uninit.size(), 1u);
  EXPECT_EQ(r.uninit[0].buffer, "sh");
  EXPECT_EQ(r.uninit[0].occurrences, 8u);
  EXPECT_TRUE(r.races.empty());
}

TEST(Interp_Uninit, ReadsAfterWritesAreSilentWithTheRaceDetectorOn) {  // the twin
  Builder b({4, 1, 1});
  Buf sh = b.workgroup("sh", 4, ScalarType::U32);
  Buf in = b.read("in", 0, ScalarType::U32, 8);
  Buf out = b.output("out", 1, ScalarType::U32, 8);
  ir::Program p = b.wrapped({b.store(sh, b.lid(), b.load(in, b.gid())), b.barrier(),
                             b.store(out, b.gid(), b.load(sh, (b.lid() + b.u32(1)) % b.u32(4)))});
  RunOptions o;
  o.detect_races = true;
  const std::vector<Bytes> inputs = {to_bytes(iota(8, 10))};
  const RunResult r = run_reference(p, inputs, Grid{2, 1, 1}, 1, o);
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_TRUE(r.uninit.empty());
  EXPECT_EQ(output(r, "out"), (Words{11, 12, 13, 10, 15, 16, 17, 14}));
}

}  // namespace
}  // namespace gridcheck::interp
