// The sound buffer-role rule (its proof: props/role_proof_test.cpp, docs/proof.md): decisions on the
// spec's divergence shapes, and the F1 / A1 / B1 programs end to end on the planner's MiniExecutor.
#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "planner/segment_plan.hpp"
#include "planner/sound_role_rule.hpp"
#include "planner/split_dispatch.hpp"
#include "planner/testing/fake_executors.hpp"

namespace gridcheck::planner {
namespace {

using ir::BufferAccess;
using ir::ScalarType;

RoleFacts facts(BufferAccess access, bool is_output, bool live_out, bool r, bool w, FirstWriter fw, bool last) {
  ir::BufferDecl d;
  d.access = access;
  d.is_output = is_output;
  d.pipeline_live_out = live_out;
  return role_facts(d, r, w, fw, last, false, false);
}

TEST(SoundRoleRule, EveryWritingSegmentConsumesTheLiveValue) {
  for (BufferAccess access : {BufferAccess::ReadWrite, BufferAccess::WriteOnly})
    for (FirstWriter fw : {FirstWriter::This, FirstWriter::Earlier})
      for (bool out : {false, true}) {
        const RoleDecision d = sound_role(facts(access, out, out, false, true, fw, false));
        EXPECT_EQ(d.disposition, Disposition::Rewrite);
        EXPECT_EQ(d.access, BufferAccess::ReadWrite) << ir::name_of(access) << " " << name_of(fw);
        EXPECT_FALSE(d.is_output || d.live_out);
      }
}

TEST(SoundRoleRule, ReadOnlySegmentsKeepUniformAndFinalOutputsStayLiveInTheLastSegment) {
  EXPECT_EQ(sound_role(facts(BufferAccess::Uniform, false, false, true, false, FirstWriter::None, false)).access,
            BufferAccess::Uniform);
  EXPECT_EQ(sound_role(facts(BufferAccess::ReadWrite, false, false, true, false, FirstWriter::None, false)).access,
            BufferAccess::ReadOnly);
  // Not referenced: omitted, except a final output in the last segment (B1).
  EXPECT_EQ(sound_role(facts(BufferAccess::ReadWrite, true, true, false, false, FirstWriter::None, false)).disposition,
            Disposition::Omit);
  const RoleDecision last = sound_role(facts(BufferAccess::ReadWrite, true, true, false, false, FirstWriter::None, true));
  EXPECT_EQ(last.disposition, Disposition::Rewrite);
  EXPECT_EQ(last.access, BufferAccess::ReadWrite);
  EXPECT_EQ(sound_role(facts(BufferAccess::ReadOnly, false, false, false, false, FirstWriter::None, true)).disposition,
            Disposition::Omit);
  RoleFacts wg = facts(BufferAccess::Workgroup, false, false, true, true, FirstWriter::This, false);
  EXPECT_TRUE(sound_role(wg).same_meaning(vyre_0_7_2_role(wg)));
}

TEST(SoundRoleRule, ProfileIsVyreWithTheRuleSwappedIn) {
  const Profile& p = sound_roles_profile();
  EXPECT_EQ(p.name, "sound-roles");
  const RoleFacts f = facts(BufferAccess::WriteOnly, false, false, false, true, FirstWriter::Earlier, true);
  EXPECT_EQ(p.table.role(f).access, BufferAccess::ReadWrite);
  EXPECT_EQ(vyre_0_7_2().table.role(f).access, BufferAccess::WriteOnly);
}

std::vector<std::uint32_t> run_words(const Profile& profile, const ir::Program& program, std::vector<Bytes> inputs,
                                     std::string_view name) {
  testing::MiniExecutor executor;
  const SplitRun run = run_split(profile, program, inputs, RunConfig{}, executor);
  if (!run.ok()) return {0xDEAD};
  return testing::as_words(*run.output(name));
}

TEST(SoundRoleRule, F1A1AndB1ProgramsKeepEverySlot) {
  {  // F1 (docs/vyre-0.7.2.md#g10): out = storage(write_only, 4); [out[0] = 0xAA, GS, out[2] = 0xBB].
    ir::Builder b;
    const ir::Buf out = b.write_only("out", 0, ScalarType::U32, 4);
    const ir::Program p = b.wrapped({b.store(out, b.u32(0), b.u32(0xAA)), b.grid_sync(), b.store(out, b.u32(2), b.u32(0xBB))});
    EXPECT_EQ(run_words(vyre_0_7_2(), p, {}, "out"), (std::vector<std::uint32_t>{0, 0, 0xBB, 0}));
    EXPECT_EQ(run_words(sound_roles_profile(), p, {}, "out"), (std::vector<std::uint32_t>{0xAA, 0, 0xBB, 0}));
  }
  {  // A1 (docs/vyre-0.7.2.md#s10-a): buf = read_write(4) = [1,2,3,4]; [buf[0] = 9, GS].
    ir::Builder b;
    const ir::Buf buf = b.read_write("buf", 0, ScalarType::U32, 4);
    const ir::Program p = b.wrapped({b.store(buf, b.u32(0), b.u32(9)), b.grid_sync()});
    EXPECT_EQ(run_words(vyre_0_7_2(), p, {testing::words({1, 2, 3, 4})}, "buf"), (std::vector<std::uint32_t>{9, 0, 0, 0}));
    EXPECT_EQ(run_words(sound_roles_profile(), p, {testing::words({1, 2, 3, 4})}, "buf"),
              (std::vector<std::uint32_t>{9, 2, 3, 4}));
  }
  {  // B1 (docs/vyre-0.7.2.md#s10-b): out = output(4), never referenced.
    ir::Builder b;
    const ir::Buf out = b.output("out", 0, ScalarType::U32, 4);
    const ir::Buf x = b.read_write("x", 1, ScalarType::U32, 1);
    (void)out;
    const ir::Program p = b.wrapped({b.store(x, b.u32(0), b.u32(1)), b.grid_sync(), b.store(x, b.u32(0), b.u32(2))});
    EXPECT_EQ(run_words(vyre_0_7_2(), p, {testing::words({0})}, "out"), (std::vector<std::uint32_t>{0xDEAD}));
    EXPECT_EQ(run_words(sound_roles_profile(), p, {testing::words({0})}, "out"), (std::vector<std::uint32_t>{0, 0, 0, 0}));
  }
}

}  // namespace
}  // namespace gridcheck::planner
