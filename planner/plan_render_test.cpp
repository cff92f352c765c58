// The printable plan: text golden and JSON shape.
#include "planner/plan_render.hpp"

#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "planner/segment_plan.hpp"

namespace gridcheck::planner {
namespace {

using ir::Buf;
using ir::Builder;
using ir::ScalarType;

SplitPlan accumulator_plan() {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  Buf a = b.read("a", 1, ScalarType::U32, 4);
  b.read_write("scratch", 2, ScalarType::U32);
  ir::Program p = b.wrapped({b.region("a", {b.let("v", b.load(a, b.u32(0))), b.store(out, b.u32(0), b.var("v"))}),
                             b.grid_sync(), b.region("b", {b.store(out, b.u32(2), b.var("v") + b.u32(1))})});
  return plan_split(vyre_0_7_2(), p).value();
}

TEST(Planner_Render, TextShowsEachSegmentsNamesLetsAndBufferTable) {
  const std::string expected =
      "plan (vyre-0.7.2): 1 fence, 2 segments\n"
      "caller inputs: a, scratch\n"
      "final outputs: out, scratch\n"
      "\n"
      "segment 0 of 2\n"
      "  inputs:  a, scratch\n"
      "  outputs: out, scratch\n"
      "  lets:    (none)\n"
      "  buffers:\n"
      "    buffer   binding  access      kind      count    input  output  rule\n"
      "    out      0        write_only  global    4        no     yes     written only\n"
      "    a        1        read        readonly  4        yes    no      read only\n"
      "    scratch  2        read_write  global    runtime  yes    yes     read-write passthrough\n"
      "\n"
      "segment 1 of 2\n"
      "  inputs:  out, a, scratch\n"
      "  outputs: out, scratch\n"
      "  lets:    v\n"
      "  buffers:\n"
      "    buffer   binding  access      kind      count    input  output  rule\n"
      "    out      0        read_write  global    4        yes    yes     accumulator\n"
      "    a        1        read        readonly  4        yes    no      read only\n"
      "    scratch  2        read_write  global    runtime  yes    yes     read-write passthrough\n";
  EXPECT_EQ(render_plan_text(accumulator_plan()), expected);
}

TEST(Planner_Render, TextListsOmittedBuffersAndIncludesTheIrWhenGivenAPrinter) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  b.read("unused", 1, ScalarType::U32, 4);
  SplitPlan plan = plan_split(vyre_0_7_2(), b.wrapped({b.store(out, b.u32(0), b.u32(1)), b.grid_sync()})).value();
  RenderOptions options;
  options.print_program = [](const ir::Program& p) { return "entry with " + std::to_string(p.buffers().size()) + " buffers\n"; };
  const std::string text = render_plan_text(plan, options);
  EXPECT_NE(text.find("  omitted: unused\n  ir:\n    entry with 1 buffers\n"), std::string::npos) << text;
  EXPECT_NE(text.find("segment 1 of 2\n  inputs:  (none)\n  outputs: (none)\n  lets:    (none)\n  buffers: (none)\n"
                      "  omitted: out, unused\n"),
            std::string::npos)
      << text;
}

TEST(Planner_Render, TextSaysWhenThereIsNoFence) {
  Builder b;
  Buf out = b.output("out", 0, ScalarType::U32, 4);
  SplitPlan plan = plan_split(vyre_0_7_2(), b.wrapped({b.store(out, b.u32(0), b.u32(1))})).value();
  const std::string text = render_plan_text(plan);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "plan (vyre-0.7.2): 0 fences, 1 segment; no grid_sync fence, so a dispatch runs the program unsplit");
}

TEST(Planner_Render, JsonCarriesTheTableFactsAndDecisions) {
  const nlohmann::json j = plan_to_json(accumulator_plan());
  EXPECT_EQ(j["profile"], "vyre-0.7.2");
  EXPECT_EQ(j["contains_fence"], true);
  EXPECT_EQ(j["fence_count"], 1);
  EXPECT_EQ(j["caller_inputs"], nlohmann::json({"a", "scratch"}));
  ASSERT_EQ(j["segments"].size(), 2u);
  const nlohmann::json& s1 = j["segments"][1];
  EXPECT_EQ(s1["let_prefix"], nlohmann::json({"v"}));
  EXPECT_EQ(s1["inputs"], nlohmann::json({"out", "a", "scratch"})) << "declaration order";
  const nlohmann::json& out = s1["buffers"][0];
  EXPECT_EQ(out["name"], "out");
  EXPECT_EQ(out["access"], "read_write");
  EXPECT_EQ(out["is_output"], false);
  EXPECT_EQ(out["consumes_input"], true);
  EXPECT_EQ(out["output_byte_range"], nullptr);
  EXPECT_EQ(out["rule"], "accumulator");
  const nlohmann::json& role = s1["roles"][0];
  EXPECT_EQ(role["facts"]["first_writer"], "earlier");
  EXPECT_EQ(role["facts"]["backend_allocated"], true);
  EXPECT_EQ(role["decision"]["disposition"], "rewrite");
  EXPECT_EQ(role["decision"]["access"], "read_write");
  EXPECT_FALSE(s1.contains("ir"));
  // Round trip through text.
  EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
}

}  // namespace
}  // namespace gridcheck::planner
