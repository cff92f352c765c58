// The buffer target scans (docs/vyre-0.7.2.md §6.7, #f2): which names a segment reads and writes. A name is
// recorded once however often it is accessed (the scan inserts it on its first sighting only), reads
// and writes apart, and the public one-node scans add to whatever the set already holds.
#include "planner/buffer_scan.hpp"

#include <gtest/gtest.h>

#include "ir/builder.hpp"

namespace gridcheck::planner {
namespace {

using ir::Buf;
using ir::Builder;
using ir::ScalarType;
using Names = std::set<std::string, std::less<>>;

TEST(Planner_BufferScan, RepeatedAccessesAreRecordedOnceReadsAndWritesApart) {
  Builder b;
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Buf c = b.read_write("c", 1, ScalarType::U32, 4);
  Buf d = b.read("d", 2, ScalarType::U32, 4);
  Buf out = b.output("out", 3, ScalarType::U32, 4);
  Buf unused = b.read("unused", 4, ScalarType::U32, 4);
  (void)unused;
  const ir::Program p = b.wrapped({
      b.let("x", b.load(a, b.load(a, b.u32(0)) + b.load(a, b.u32(1)))),
      b.store(out, b.load(a, b.u32(2)), b.atomic_add(c, b.u32(0), b.buf_len(d))),
      b.store(out, b.u32(1), b.atomic_add(c, b.u32(1), b.load(c, b.u32(2)))),
  });
  for (const BufferAccessSet& s : {scan_segment_accesses(p), scan_segment_accesses_complete(p)}) {
    EXPECT_EQ(s.reads, (Names{"a", "c", "d"}));
    EXPECT_EQ(s.writes, (Names{"c", "out"}));
  }
}

TEST(Planner_BufferScan, OneNodeScansAddToTheSetTheyAreGiven) {
  Builder b;
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Buf c = b.read_write("c", 1, ScalarType::U32, 4);
  const ir::Program p = b.wrapped({b.store(c, b.u32(0), b.load(a, b.u32(0)))});
  const ir::StmtId root = p.entry_stmts()[0];
  const ir::StmtId store = p.list(p.stmt(root).body)[0];
  BufferAccessSet s;
  s.reads.emplace("earlier");
  s.writes.emplace("a");
  scan_expr_accesses(p, p.stmt(store).exprs[1], s);  // the stored value: a load of `a`
  EXPECT_EQ(s.reads, (Names{"a", "earlier"}));
  EXPECT_EQ(s.writes, (Names{"a"}));
  scan_stmt_accesses(p, root, s);  // the root region: recursed into
  EXPECT_EQ(s.reads, (Names{"a", "earlier"}));
  EXPECT_EQ(s.writes, (Names{"a", "c"}));
}

TEST(Planner_BufferScan, CompleteScanSeesAsyncEndpointsWhereTheVyreScanSeesNothing) {
  Builder b;
  Buf pool = b.read("pool", 0, ScalarType::U32, 16);
  Buf dst = b.read_write("dst", 1, ScalarType::U32, 16);
  Buf probe = b.read("probe", 2, ScalarType::U32, 4);
  const ir::Program p = b.wrapped(
      {b.async_load(pool, dst, b.load(probe, b.u32(0)), b.u32(16), "t"), b.async_wait("t"),
       b.async_load(pool, dst, b.load(probe, b.u32(1)), b.u32(16), "u")});
  const BufferAccessSet vyre = scan_segment_accesses(p);
  EXPECT_TRUE(vyre.reads.empty());
  EXPECT_TRUE(vyre.writes.empty());
  const BufferAccessSet complete = scan_segment_accesses_complete(p);
  EXPECT_EQ(complete.reads, (Names{"pool", "probe"}));
  EXPECT_EQ(complete.writes, (Names{"dst"}));
}

}  // namespace
}  // namespace gridcheck::planner
