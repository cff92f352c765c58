// The role rule as a pure function over an enumerable domain (docs/vyre-0.7.2.md §6.7).
#include "planner/role_rule.hpp"

#include <gtest/gtest.h>

#include <set>

namespace gridcheck::planner {
namespace {

using ir::BufferAccess;

TEST(Planner_RoleRule, TheDomainHasEveryConsistentCombinationOnce) {
  const std::vector<RoleFacts> all = enumerate_role_facts();
  // 5 accesses x 2 is_output x 2 live_out x 2 reads x 22 consistent (writes, first_writer,
  // last_segment, read_later, written_later) combinations: writes -> {earlier, this} x 5 later
  // patterns; no writes -> {none, earlier} x 5 + later x 2 (not last, written later).
  EXPECT_EQ(all.size(), 5u * 2 * 2 * 2 * 22);
  std::set<std::string> distinct;
  for (const RoleFacts& f : all) {
    EXPECT_TRUE(is_consistent(f));
    distinct.insert(to_string(f));
  }
  EXPECT_EQ(distinct.size(), all.size());
}

TEST(Planner_RoleRule, InconsistentFactsAreRejected) {
  RoleFacts f;
  f.writes = true;
  f.first_writer = FirstWriter::None;
  EXPECT_FALSE(is_consistent(f));
  f.first_writer = FirstWriter::Later;
  EXPECT_FALSE(is_consistent(f));
  f.writes = false;
  f.first_writer = FirstWriter::This;
  EXPECT_FALSE(is_consistent(f));
  f.first_writer = FirstWriter::Later;
  f.written_later = false;
  EXPECT_FALSE(is_consistent(f));
  f.first_writer = FirstWriter::None;
  f.last_segment = true;
  f.read_later = true;
  EXPECT_FALSE(is_consistent(f));
}

// Spec docs/vyre-0.7.2.md §6.7's table, transcribed from the spec text (not from the seed), first match wins.
RoleDecision spec_table(const RoleFacts& f) {
  const bool r = f.reads;
  const bool w = f.writes;
  auto rewrite = [](BufferAccess a) {
    RoleDecision d;
    d.disposition = Disposition::Rewrite;
    d.access = a;
    d.kind = a == BufferAccess::ReadOnly ? ir::MemoryKind::Readonly : ir::MemoryKind::Global;
    return d;
  };
  if (f.access == BufferAccess::ReadWrite && !f.is_output && !f.live_out && !r && !w) return rewrite(BufferAccess::ReadWrite);
  if (!r && !w) return RoleDecision{Disposition::Omit};
  if (f.access == BufferAccess::Workgroup) return RoleDecision{Disposition::KeepUnchanged};
  if ((f.is_output || f.live_out) && f.first_writer == FirstWriter::Earlier && w) return rewrite(BufferAccess::ReadWrite);
  if (r && w) return rewrite(BufferAccess::ReadWrite);
  if (r) return rewrite(BufferAccess::ReadOnly);
  return rewrite(BufferAccess::WriteOnly);
}

TEST(Planner_RoleRule, TheVyreRuleEqualsTheSpecTableOnTheWholeDomain) {
  std::size_t checked = 0;
  for_each_role_facts([&](const RoleFacts& f) {
    const RoleDecision got = vyre_0_7_2_role(f);
    EXPECT_TRUE(got.same_meaning(spec_table(f))) << to_string(f) << " -> " << to_string(got);
    if (got.disposition == Disposition::Rewrite) {
      EXPECT_FALSE(got.is_output || got.live_out) << to_string(f);
    }
    EXPECT_FALSE(got.reason.empty());
    ++checked;
  });
  EXPECT_GT(checked, 0u);
}

TEST(Planner_RoleRule, TheVyreRuleIgnoresTheFactsItDoesNotUse) {
  for_each_role_facts([&](const RoleFacts& f) {
    RoleFacts g = f;
    g.last_segment = false;
    g.read_later = !f.read_later;
    g.written_later = f.first_writer == FirstWriter::Later ? true : !f.written_later;
    if (!is_consistent(g)) return;
    EXPECT_TRUE(vyre_0_7_2_role(f).same_meaning(vyre_0_7_2_role(g))) << to_string(f);
  });
}

RoleFacts facts(BufferAccess access, bool is_output, bool live_out, bool reads, bool writes, FirstWriter first) {
  return role_facts([&] {
    ir::BufferDecl d;
    d.access = access;
    d.is_output = is_output;
    d.pipeline_live_out = live_out;
    return d;
  }(), reads, writes, first, false, false, false);
}

TEST(Planner_RoleRule, F1APlainWriteOnlyLaterWriterStaysWriteOnly) {
  const RoleDecision d = vyre_0_7_2_role(facts(BufferAccess::WriteOnly, false, false, false, true, FirstWriter::Earlier));
  EXPECT_EQ(d.access, BufferAccess::WriteOnly);
  EXPECT_TRUE(facts(BufferAccess::WriteOnly, false, false, false, true, FirstWriter::Earlier).backend_allocated());
}

TEST(Planner_RoleRule, AnOutputFirstWrittenHereIsWriteOnly) {
  EXPECT_EQ(vyre_0_7_2_role(facts(BufferAccess::ReadWrite, true, true, false, true, FirstWriter::This)).access,
            BufferAccess::WriteOnly);
  EXPECT_EQ(vyre_0_7_2_role(facts(BufferAccess::ReadWrite, true, true, false, true, FirstWriter::Earlier)).access,
            BufferAccess::ReadWrite);
}

TEST(Planner_RoleRule, DerivedFactsFollowTheAbiPredicates) {
  EXPECT_TRUE(facts(BufferAccess::ReadWrite, false, false, false, false, FirstWriter::None).caller_input());
  EXPECT_FALSE(facts(BufferAccess::ReadWrite, false, false, false, false, FirstWriter::None).backend_allocated());
  EXPECT_TRUE(facts(BufferAccess::ReadWrite, false, true, false, false, FirstWriter::None).backend_allocated());
  EXPECT_FALSE(facts(BufferAccess::ReadOnly, false, true, false, false, FirstWriter::None).backend_allocated());
  EXPECT_FALSE(facts(BufferAccess::ReadOnly, false, true, false, false, FirstWriter::None).caller_input());
  EXPECT_TRUE(facts(BufferAccess::Uniform, false, false, false, false, FirstWriter::None).caller_input());
}

}  // namespace
}  // namespace gridcheck::planner
