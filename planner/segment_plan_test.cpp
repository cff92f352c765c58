// Per-segment buffer tables (docs/vyre-0.7.2.md §6.7, seed 000): the seed's accumulator test, the "seed
// accumulator case", each row of the role table on a concrete program, the 0.7.2 bugs that live in
// the table (docs/vyre-0.7.2.md#s10-a, F1, F2), and the input/output names.
#include "planner/segment_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "ir/builder.hpp"

namespace gridcheck::planner {
namespace {

using ir::BufferAccess;
using ir::Buf;
using ir::Builder;
using ir::MemoryKind;
using ir::Program;
using ir::ScalarType;
using Names = std::vector<std::string>;

SplitPlan plan(const Program& p) {
  ir::Result<SplitPlan> r = plan_split(vyre_0_7_2(), p);
  EXPECT_TRUE(r.ok());
  return std::move(r).value();
}

const ir::BufferDecl* find(const PlannedSegment& s, std::string_view name) { return s.program.find_buffer(name); }

const BufferRoleRow& row(const PlannedSegment& s, std::string_view name) {
  auto it = std::find_if(s.roles.begin(), s.roles.end(), [&](const BufferRoleRow& r) { return r.name == name; });
  GC_ASSERT(it != s.roles.end());
  return *it;
}

// seed 000: split_keeps_multi_segment_output_as_readwrite_accumulator
TEST(Planner_Table, SplitKeepsMultiSegmentOutputAsReadWriteAccumulator) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  Program program = b.wrapped({b.region("a", {b.store(out, b.u32(0), b.u32(0xAA))}), b.grid_sync(),
                               b.region("b", {b.store(out, b.u32(2), b.u32(0xBB))})});
  ir::Result<std::vector<Program>> segments = plan_segment_programs(vyre_0_7_2(), program);
  ASSERT_TRUE(segments.ok());
  ASSERT_EQ(segments->size(), 2u) << "one GridSync barrier -> two segments";

  const ir::BufferDecl* seg0_out = (*segments)[0].find_buffer("out");
  ASSERT_NE(seg0_out, nullptr) << "segment 0 must declare the output it writes";
  EXPECT_EQ(seg0_out->access, BufferAccess::WriteOnly) << "the first writer establishes the accumulator as write-only";
  EXPECT_TRUE(!seg0_out->is_output && !seg0_out->pipeline_live_out)
      << "split segment buffers must never be marked program-output; final values are reassembled by name";

  const ir::BufferDecl* seg1_out = (*segments)[1].find_buffer("out");
  ASSERT_NE(seg1_out, nullptr) << "segment 1 must declare the output it writes";
  EXPECT_EQ(seg1_out->access, BufferAccess::ReadWrite)
      << "a later writer of a multi-segment output must read+merge the accumulated value, not overwrite it";
  EXPECT_TRUE(!seg1_out->is_output && !seg1_out->pipeline_live_out)
      << "the later writer must consume its forwarded prior value";
  const Names inputs = vyre_input_names((*segments)[1]);
  EXPECT_NE(std::find(inputs.begin(), inputs.end(), "out"), inputs.end())
      << "the accumulated output must be forwarded as an input to the later writing segment";
}

// The brief's "seed accumulator case": `out = output(count 4)`,
// [Region a[store out[0]=0xAA], GS, Region b[store out[2]=0xBB]].
TEST(Planner_Table, SeedAccumulatorCaseGivesWriteOnlyThenReadWriteWithFlagsCleared) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  SplitPlan p = plan(b.wrapped({b.region("a", {b.store(out, b.u32(0), b.u32(0xAA))}), b.grid_sync(),
                                b.region("b", {b.store(out, b.u32(2), b.u32(0xBB))})}));
  ASSERT_EQ(p.segments.size(), 2u);
  EXPECT_TRUE(p.contains_fence);
  EXPECT_EQ(p.fence_count, 1u);
  const ir::BufferDecl* s0 = find(p.segments[0], "out");
  const ir::BufferDecl* s1 = find(p.segments[1], "out");
  ASSERT_TRUE(s0 && s1);
  EXPECT_EQ(s0->access, BufferAccess::WriteOnly);
  EXPECT_EQ(s0->kind, MemoryKind::Global);
  EXPECT_EQ(s1->access, BufferAccess::ReadWrite);
  EXPECT_EQ(s1->kind, MemoryKind::Global);
  for (const ir::BufferDecl* d : {s0, s1}) {
    EXPECT_FALSE(d->is_output);
    EXPECT_FALSE(d->pipeline_live_out);
    EXPECT_EQ(d->count, 4u);
    EXPECT_EQ(d->binding, 0u);
  }
  EXPECT_EQ(p.segments[0].input_names, Names{});
  EXPECT_EQ(p.segments[0].output_names, Names{"out"});
  EXPECT_EQ(p.segments[1].input_names, Names{"out"});
  EXPECT_EQ(p.segments[1].output_names, Names{"out"});
  EXPECT_EQ(p.caller_inputs, Names{});
  EXPECT_EQ(p.final_outputs, Names{"out"});
  EXPECT_EQ(row(p.segments[1], "out").decision.reason, "accumulator");
  EXPECT_EQ(row(p.segments[1], "out").facts.first_writer, FirstWriter::Earlier);
  EXPECT_EQ(row(p.segments[0], "out").facts.first_writer, FirstWriter::This);
}

// ------------------------------------------------------------------ each row of the table

TEST(Planner_Table, AnUntouchedPlainReadWriteBufferPassesThrough) {
  Builder b;
  Buf rw = b.read_write("rw", 0, ScalarType::U32, 4);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  (void)rw;
  SplitPlan p = plan(b.wrapped({b.store(out, b.u32(0), b.u32(1)), b.grid_sync(), b.ret()}));
  for (const PlannedSegment& s : p.segments) {
    const ir::BufferDecl* d = find(s, "rw");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->access, BufferAccess::ReadWrite);
    EXPECT_EQ(row(s, "rw").decision.reason, "read-write passthrough");
  }
  EXPECT_EQ(p.segments[1].input_names, Names{"rw"});
  EXPECT_EQ(p.segments[1].output_names, Names{"rw"});
  EXPECT_EQ(find(p.segments[1], "out"), nullptr) << "an untouched output is omitted";
}

TEST(Planner_Table, UnreferencedBuffersAreOmittedIncludingWorkgroupMemory) {
  Builder b({4, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Buf sh = b.workgroup("sh", 4, ScalarType::U32);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  SplitPlan p = plan(b.wrapped({b.store(sh, b.lid(), b.load(a, b.gid())), b.grid_sync(),
                                b.store(out, b.gid(), b.u32(1))}));
  EXPECT_NE(find(p.segments[0], "a"), nullptr);
  EXPECT_NE(find(p.segments[0], "sh"), nullptr);
  EXPECT_EQ(find(p.segments[1], "a"), nullptr);
  EXPECT_EQ(find(p.segments[1], "sh"), nullptr);
  EXPECT_EQ(p.segments[1].program.buffers().size(), 1u);
}

TEST(Planner_Table, WorkgroupMemoryIsKeptUnchanged) {
  Builder b({4, 1, 1});
  Buf sh = b.workgroup("sh", 4, ScalarType::U32);
  b.decl(sh).binding = 7;
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  SplitPlan p = plan(b.wrapped({b.store(sh, b.lid(), b.u32(1)), b.store(out, b.gid(), b.load(sh, b.lid())),
                                b.grid_sync()}));
  const ir::BufferDecl* d = find(p.segments[0], "sh");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->access, BufferAccess::Workgroup);
  EXPECT_EQ(d->kind, MemoryKind::Shared);
  EXPECT_EQ(d->binding, 7u);
  EXPECT_EQ(row(p.segments[0], "sh").decision.disposition, Disposition::KeepUnchanged);
  EXPECT_EQ(p.segments[0].input_names, Names{});
  EXPECT_EQ(p.segments[0].output_names, Names{"out"});
}

TEST(Planner_Table, ReadAndWrittenBecomesReadWrite) {
  Builder b;
  Buf buf = b.read_write("buf", 0, ScalarType::U32, 4);
  SplitPlan p = plan(b.wrapped({b.store(buf, b.u32(0), b.load(buf, b.u32(1))), b.grid_sync()}));
  EXPECT_EQ(find(p.segments[0], "buf")->access, BufferAccess::ReadWrite);
  EXPECT_EQ(row(p.segments[0], "buf").decision.reason, "read and written");
}

TEST(Planner_Table, ReadOnlyUseBecomesReadOnlyAndUniformBecomesReadonlyStorage) {
  Builder b;
  Buf u = b.uniform("u", 0, ScalarType::U32, 1);
  Buf rw = b.read_write("rw", 1, ScalarType::U32, 4);
  Buf out = b.output("out", 2, ScalarType::U32, 4);
  SplitPlan p = plan(b.wrapped({b.grid_sync(), b.store(out, b.u32(0), b.load(u, b.u32(0)) + b.load(rw, b.u32(0)))}));
  const ir::BufferDecl* du = find(p.segments[1], "u");
  const ir::BufferDecl* drw = find(p.segments[1], "rw");
  ASSERT_TRUE(du && drw);
  EXPECT_EQ(du->access, BufferAccess::ReadOnly) << "G9: a uniform source becomes read-only storage";
  EXPECT_EQ(du->kind, MemoryKind::Readonly);
  EXPECT_EQ(drw->access, BufferAccess::ReadOnly);
  EXPECT_EQ(p.segments[1].input_names, (Names{"u", "rw"}));
  EXPECT_EQ(p.segments[1].output_names, Names{"out"});
}

TEST(Planner_Table, KindIsRederivedFromTheNewAccess) {
  Builder b;
  Buf pers = b.read_write("pers", 0, ScalarType::U32, 4);
  b.decl(pers).kind = MemoryKind::Persistent;
  SplitPlan p = plan(b.wrapped({b.store(pers, b.u32(0), b.u32(1)), b.grid_sync()}));
  EXPECT_EQ(find(p.segments[0], "pers")->kind, MemoryKind::Global);
  // Untouched in segment 1: passthrough, kind re-derived as well.
  EXPECT_EQ(find(p.segments[1], "pers")->kind, MemoryKind::Global);
}

TEST(Planner_Table, OtherFieldsAreKept) {
  Builder b;
  Buf out = b.output("out", 5, ScalarType::F32, 4);
  b.decl(out).output_byte_range = ir::ByteRange{4, 12};
  SplitPlan p = plan(b.wrapped({b.store(out, b.u32(1), b.f32(1.0f)), b.grid_sync(), b.store(out, b.u32(2), b.f32(2.0f))}));
  for (const PlannedSegment& s : p.segments) {
    const ir::BufferDecl* d = find(s, "out");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->binding, 5u);
    EXPECT_EQ(d->element, ScalarType::F32);
    EXPECT_EQ(d->count, 4u);
    ASSERT_TRUE(d->output_byte_range.has_value()) << "G3: the range is kept on segment declarations";
    EXPECT_EQ(*d->output_byte_range, (ir::ByteRange{4, 12}));
  }
}

TEST(Planner_Table, AnAtomicCountsAsReadAndWrite) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 1);
  SplitPlan p = plan(b.wrapped({b.let("prior", b.atomic_add(out, b.u32(0), b.u32(1))), b.grid_sync(), b.ret()}));
  EXPECT_EQ(find(p.segments[0], "out")->access, BufferAccess::ReadWrite);
  EXPECT_EQ(p.segments[0].input_names, Names{"out"});
  EXPECT_TRUE(p.segments[1].program.buffers().empty()) << "segment 1 references nothing";
}

// ------------------------------------------------------------------ 0.7.2 bugs in the table

TEST(Planner_Table, AReadWriteBufferWrittenButNotReadBecomesWriteOnly) {
  // docs/vyre-0.7.2.md#a1: the caller's bytes are dropped (the executor zero-fills write_only buffers).
  Builder b;
  Buf buf = b.read_write("buf", 0, ScalarType::U32, 4);
  SplitPlan p = plan(b.wrapped({b.store(buf, b.u32(0), b.u32(9)), b.grid_sync()}));
  EXPECT_EQ(find(p.segments[0], "buf")->access, BufferAccess::WriteOnly);
  EXPECT_EQ(p.segments[0].input_names, Names{});
  EXPECT_EQ(p.caller_inputs, Names{"buf"});
}

TEST(Planner_Table, BufLenInTheSameSegmentMasksTheWriteOnlyRewrite) {
  Builder b;
  Buf buf = b.read_write("buf", 0, ScalarType::U32, 4);
  SplitPlan p = plan(b.wrapped({b.if_(b.gid() < b.buf_len(buf), {b.store(buf, b.gid(), b.u32(9))}), b.grid_sync()}));
  EXPECT_EQ(find(p.segments[0], "buf")->access, BufferAccess::ReadWrite);
}

TEST(Planner_Table, APlainWriteOnlyBufferWrittenInTwoSegmentsIsNotAnAccumulator) {
  // F1 (present in 0.7.2): the accumulator rule keys on is_output/live_out, not backend allocation.
  Builder b;
  Buf out = b.write_only("out", 0, ScalarType::U32, 4);
  SplitPlan p = plan(b.wrapped({b.store(out, b.u32(0), b.u32(0xAA)), b.grid_sync(), b.store(out, b.u32(2), b.u32(0xBB))}));
  EXPECT_EQ(find(p.segments[0], "out")->access, BufferAccess::WriteOnly);
  EXPECT_EQ(find(p.segments[1], "out")->access, BufferAccess::WriteOnly);
  EXPECT_EQ(p.segments[1].input_names, Names{});
}

TEST(Planner_Table, ALiveOutReadWriteBufferIsAnAccumulator) {
  Builder b;
  Buf live = b.read_write("live", 0, ScalarType::U32, 4);
  b.decl(live).pipeline_live_out = true;
  SplitPlan p = plan(b.wrapped({b.store(live, b.u32(0), b.u32(1)), b.grid_sync(), b.store(live, b.u32(1), b.u32(2))}));
  EXPECT_EQ(find(p.segments[1], "live")->access, BufferAccess::ReadWrite);
  EXPECT_EQ(p.caller_inputs, Names{}) << "live_out buffers are not caller inputs";
}

TEST(Planner_Table, AsyncAndIndirectOperandsAreNotScanned) {
  // F2 (present in 0.7.2): AsyncLoad source/destination, IndirectDispatch count_buffer and Trap
  // operands are never scanned, so buffers used only there are dropped from the segment.
  Builder b;
  Buf pool = b.read("pool", 0, ScalarType::U32, 16);
  Buf dst = b.read_write("dst", 1, ScalarType::U32, 16);
  Buf counts = b.read("counts", 2, ScalarType::U32, 4);
  Buf probe = b.read("probe", 3, ScalarType::U32, 4);
  Buf out = b.output("out", 4, ScalarType::U32, 4);
  SplitPlan p = plan(b.wrapped({b.store(out, b.u32(0), b.u32(1)), b.grid_sync(),
                                b.async_load(pool, dst, b.load(probe, b.u32(0)), b.u32(16), "t"), b.async_wait("t"),
                                b.indirect_dispatch(counts, 0), b.trap(b.load(probe, b.u32(1)), "trap"),
                                b.opaque("ext")}));
  const PlannedSegment& s1 = p.segments[1];
  EXPECT_EQ(find(s1, "pool"), nullptr);
  EXPECT_EQ(find(s1, "counts"), nullptr);
  EXPECT_EQ(find(s1, "probe"), nullptr) << "operand expressions are not scanned either";
  ASSERT_NE(find(s1, "dst"), nullptr) << "only as a read_write passthrough";
  EXPECT_EQ(row(s1, "dst").decision.reason, "read-write passthrough");
  EXPECT_EQ(find(s1, "out"), nullptr) << "Opaque touches nothing";
}

TEST(Planner_Table, CollectivesReadAndWriteTheirBuffers) {
  Builder b;
  Buf acc = b.read_write("acc", 0, ScalarType::U32, 4);
  Buf in = b.read("in", 1, ScalarType::U32, 4);
  Buf gathered = b.read_write("gathered", 2, ScalarType::U32, 16);
  Buf bc = b.read_write("bc", 3, ScalarType::U32, 4);
  SplitPlan p = plan(b.wrapped({b.all_reduce(acc, ir::CollectiveOp::Sum), b.all_gather(in, gathered),
                                b.broadcast(bc, 0), b.grid_sync()}));
  const PlannedSegment& s0 = p.segments[0];
  EXPECT_EQ(find(s0, "acc")->access, BufferAccess::ReadWrite);
  EXPECT_EQ(find(s0, "bc")->access, BufferAccess::ReadWrite);
  EXPECT_EQ(find(s0, "in")->access, BufferAccess::ReadOnly);
  EXPECT_EQ(find(s0, "gathered")->access, BufferAccess::WriteOnly);
}

TEST(Planner_Table, AReadOnlyLiveOutBufferIsNeitherACallerInputNorSeeded) {
  // docs/vyre-0.7.2.md#s10-b edge: RO + live_out is a split output but not an input.
  Builder b;
  Buf ro = b.read("ro", 0, ScalarType::U32, 4);
  b.decl(ro).pipeline_live_out = true;
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  SplitPlan p = plan(b.wrapped({b.grid_sync(), b.store(out, b.u32(0), b.load(ro, b.u32(0)))}));
  EXPECT_EQ(p.caller_inputs, Names{});
  EXPECT_EQ(p.final_outputs, (Names{"ro", "out"}));
  EXPECT_EQ(p.segments[1].input_names, Names{"ro"});
}

TEST(Planner_Table, RowsRecordTheLaterFactsForOtherProfiles) {
  Builder b;
  Buf buf = b.read_write("buf", 0, ScalarType::U32, 4);
  Buf out = b.output("out", 1, ScalarType::U32, 4);
  SplitPlan p = plan(b.wrapped({b.store(buf, b.u32(0), b.u32(1)), b.grid_sync(), b.grid_sync(),
                                b.store(out, b.u32(0), b.load(buf, b.u32(0)))}));
  ASSERT_EQ(p.segments.size(), 3u);
  const RoleFacts f0 = row(p.segments[0], "buf").facts;
  EXPECT_TRUE(f0.writes && !f0.reads && f0.read_later && !f0.written_later && !f0.last_segment);
  EXPECT_EQ(f0.first_writer, FirstWriter::This);
  const RoleFacts f1 = row(p.segments[1], "buf").facts;
  EXPECT_TRUE(!f1.writes && !f1.reads && f1.read_later && f1.first_writer == FirstWriter::Earlier);
  const RoleFacts f2 = row(p.segments[2], "buf").facts;
  EXPECT_TRUE(f2.reads && f2.last_segment && !f2.read_later);
  const RoleFacts out0 = row(p.segments[0], "out").facts;
  EXPECT_EQ(out0.first_writer, FirstWriter::Later);
  EXPECT_TRUE(out0.written_later);
  for (const PlannedSegment& s : p.segments)
    for (const BufferRoleRow& r : s.roles) EXPECT_TRUE(is_consistent(r.facts)) << r.name;
}

}  // namespace
}  // namespace gridcheck::planner

namespace gridcheck::planner {
namespace {

TEST(Planner_Table, ADuplicateDeclarationSharesTheFactsOfItsSpelling) {
  // Invalid IR (V107), but the table must not depend on which declaration a scan's name resolves to.
  Builder b;
  Buf out = b.read_write("out", 0, ScalarType::U32, 4);
  b.read_write("out", 1, ScalarType::U32, 4);
  Buf other = b.read_write("other", 2, ScalarType::U32, 4);
  SplitPlan p = plan(b.wrapped({b.store(out, b.u32(0), b.u32(1)), b.grid_sync(),
                                b.store(other, b.u32(0), b.load(out, b.u32(0)))}));
  ASSERT_EQ(p.segments.size(), 2u);
  for (const PlannedSegment& s : p.segments) {
    ASSERT_EQ(s.roles.size(), 3u);
    EXPECT_EQ(s.roles[0].name, "out");
    EXPECT_EQ(s.roles[1].name, "out");
    EXPECT_EQ(s.roles[1].facts.reads, s.roles[0].facts.reads);
    EXPECT_EQ(s.roles[1].facts.writes, s.roles[0].facts.writes);
    EXPECT_EQ(s.roles[1].facts.first_writer, s.roles[0].facts.first_writer);
    EXPECT_EQ(s.roles[1].facts.read_later, s.roles[0].facts.read_later);
    EXPECT_EQ(s.roles[1].facts.written_later, s.roles[0].facts.written_later);
  }
  EXPECT_TRUE(p.segments[0].roles[1].facts.writes) << "the second declaration sees the first's store";
  EXPECT_TRUE(p.segments[0].roles[1].facts.read_later);
  EXPECT_TRUE(p.segments[1].roles[1].facts.reads);
  EXPECT_FALSE(p.segments[1].roles[2].facts.reads) << "the silent twin: `other` is only written";
  EXPECT_TRUE(p.segments[1].roles[2].facts.writes);
}

}  // namespace
}  // namespace gridcheck::planner
