// The concrete side of the role model: the tabulated rule is the production code's answer on the
// whole domain, the declaration classes follow the ABI predicates, and the simulator reproduces the
// spec's hand traces.
#include <gtest/gtest.h>

#include <algorithm>

#include "planner/sound_role_rule.hpp"
#include "props/prove/role_model.hpp"
#include "props/prove/role_variants.hpp"

namespace gridcheck::props {
namespace {

using planner::FirstWriter;
using planner::RoleFacts;

std::uint32_t decl(ir::BufferAccess a, bool out, bool live) { return *model_decl_index(a, out, live); }
constexpr auto RW = ir::BufferAccess::ReadWrite;
constexpr auto WO = ir::BufferAccess::WriteOnly;

TEST(RoleModel_Table, TabulatesEveryConsistentStorageFactByCallingTheRule) {
  std::size_t expected = 0;
  planner::for_each_role_facts([&](const RoleFacts& f) { expected += f.access != ir::BufferAccess::Workgroup; });
  const RoleTable table = RoleTable::tabulate(planner::vyre_0_7_2_role);
  EXPECT_EQ(table.rows().size(), expected);
  for (const TabulatedRole& row : table.rows()) {
    EXPECT_TRUE(row.decision.same_meaning(planner::vyre_0_7_2_role(row.facts))) << to_string(row.facts);
    EXPECT_EQ(table.find(row.facts), &row);
  }
  RoleFacts inconsistent;
  inconsistent.writes = true;
  inconsistent.first_writer = FirstWriter::None;
  EXPECT_EQ(table.find(inconsistent), nullptr);
  RoleFacts workgroup;
  workgroup.access = ir::BufferAccess::Workgroup;
  EXPECT_EQ(table.find(workgroup), nullptr);
}

TEST(RoleModel_Table, DecisionBitsFollowTheSegmentDeclarationsAbi) {
  const RoleTable table = RoleTable::tabulate(vyre_0_6_1_role);
  RoleFacts f = planner::role_facts(model_decls()[decl(RW, true, true)].as_decl(), true, true, FirstWriter::Earlier,
                                    true, false, false);
  const TabulatedRole* row = table.find(f);
  ASSERT_NE(row, nullptr);
  // 0.6.1 keeps is_output on the last writer: a read_write declaration that is not an input.
  EXPECT_TRUE(row->decision.is_output);
  EXPECT_EQ(row->bits, (RoleBits{true, false, true, true}));
  f.writes = false;
  f.first_writer = FirstWriter::Earlier;
  EXPECT_EQ(table.find(f)->bits, (RoleBits{true, true, false, false}));  // read only
  f.reads = false;
  EXPECT_EQ(table.find(f)->bits, (RoleBits{}));  // omitted
}

TEST(RoleModel_Decls, OnlyReadAndUniformLiveOutWithoutOutputAreOutsideTheModel) {
  std::vector<std::string> outside;
  for (const ModelDecl& d : model_decls()) {
    if (!d.in_scope) {
      outside.push_back(d.name());
      continue;
    }
    EXPECT_EQ(d.caller_input, d.reference_input) << d.name();
    EXPECT_EQ(d.final_output, d.reference_output) << d.name();
    EXPECT_NE(d.caller_input, d.backend_allocated) << d.name();  // caller bytes xor zeros
    if (d.writable) {
      EXPECT_TRUE(d.final_output) << d.name();
    }
  }
  EXPECT_EQ(outside, (std::vector<std::string>{"read+live_out", "uniform+live_out"}));
}

TEST(RoleModel_Facts, DerivedLikeThePlannersScanOfEverySegment) {
  Pattern p = Pattern::empty(decl(RW, false, false), 4, 1);
  p.reads = {false, true, false, true};
  p.writes = {false, true, false, true};
  const RoleFacts f0 = segment_facts(p, 0), f1 = segment_facts(p, 1), f2 = segment_facts(p, 2), f3 = segment_facts(p, 3);
  EXPECT_EQ(f0.first_writer, FirstWriter::Later);
  EXPECT_TRUE(f0.read_later && f0.written_later && !f0.last_segment);
  EXPECT_EQ(f1.first_writer, FirstWriter::This);
  EXPECT_EQ(f2.first_writer, FirstWriter::Earlier);
  EXPECT_TRUE(f2.written_later);
  EXPECT_EQ(f3.first_writer, FirstWriter::Earlier);
  EXPECT_TRUE(f3.last_segment && !f3.read_later && !f3.written_later);
  for (std::uint32_t k = 0; k < 4; ++k) EXPECT_TRUE(planner::is_consistent(segment_facts(p, k)));
}

TEST(RoleModel_Simulator, SpecA1LosesTheCallerBytesUnderVyreAndNotUnderSound) {
  // docs/vyre-0.7.2.md#a1: read_write with caller bytes, segment 0 writes (another element) without reading.
  Pattern p = Pattern::empty(decl(RW, false, false), 2, 1);
  p.writes[0] = true;
  const ElementRun vyre = simulate(RoleTable::tabulate(planner::vyre_0_7_2_role), p);
  EXPECT_EQ(vyre.first.kind, ViolationKind::FinalWrong);
  EXPECT_EQ(vyre.true_final, caller_word(0));
  EXPECT_EQ(vyre.split_final, 0u);
  const ElementRun sound = simulate(RoleTable::tabulate(planner::sound_role), p);
  EXPECT_FALSE(sound.first);
  EXPECT_EQ(sound.split_final, caller_word(0));
}

TEST(RoleModel_Simulator, SpecF1AndB1) {
  // F1: a plain write_only buffer written in segments 0 and 1; element 0 only by segment 0.
  Pattern f1 = Pattern::empty(decl(WO, false, false), 2, 1);
  f1.writes = {true, true};
  f1.element_write[0][0] = true;
  const ElementRun vyre = simulate(RoleTable::tabulate(planner::vyre_0_7_2_role), f1);
  EXPECT_EQ(vyre.first.kind, ViolationKind::FinalWrong);
  EXPECT_EQ(vyre.true_final, written_word(0, 0, 0, 2));
  EXPECT_EQ(vyre.split_final, 0u);
  // B1: an output no segment references.
  const Pattern b1 = Pattern::empty(decl(RW, true, true), 2, 1);
  const ElementRun missing = simulate(RoleTable::tabulate(planner::vyre_0_7_2_role), b1);
  EXPECT_EQ(missing.first.kind, ViolationKind::FinalMissing);
  EXPECT_EQ(split_code(missing.first.kind), "S009");
  const ElementRun zeros = simulate(RoleTable::tabulate(planner::sound_role), b1);
  EXPECT_FALSE(zeros.first);
  EXPECT_EQ(zeros.split_final, 0u);
}

TEST(RoleModel_Describe, MergesDeclarationsAndFactValuesWithTheSameDecisions) {
  const std::vector<std::string> lines = describe_table(RoleTable::tabulate(planner::vyre_0_7_2_role));
  auto has = [&](std::string_view s) { return std::find(lines.begin(), lines.end(), s) != lines.end(); };
  EXPECT_TRUE(has("read, write_only, uniform:"));
  EXPECT_TRUE(has("read_write:"));
  EXPECT_TRUE(has("  r=0 w=0 fw=* last=* rl=* wl=* -> read_write (read-write passthrough)"));
  EXPECT_TRUE(has("  r=0 w=1 fw=earlier last=* rl=* wl=* -> read_write (accumulator)"));
  const std::vector<std::string> sound = describe_table(RoleTable::tabulate(planner::sound_role));
  EXPECT_NE(std::find(sound.begin(), sound.end(), "  r=0 w=1 fw=* last=* rl=* wl=* -> read_write (written: consumes the live value)"),
            sound.end());
}

}  // namespace
}  // namespace gridcheck::props
