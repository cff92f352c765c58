// How validator diagnostics read: positions for builder-made IR (path notes, validate_printed), the
// rule table, and that docs/validation.md documents every code.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "ir/builder.hpp"
#include "ir/validate/test_support.hpp"

namespace gridcheck::ir {
namespace {

std::string_view line_of(std::string_view text, std::uint32_t line) {
  for (std::uint32_t i = 1; i < line; ++i) {
    const std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) return {};
    text.remove_prefix(nl + 1);
  }
  return text.substr(0, text.find('\n'));
}

TEST(Validate_Diagnostics, BuilderIrDiagnosticsNameTheStatementPath) {
  Builder b({64, 1, 1});
  Program p = b.wrapped({b.let("x", b.u32(0)), b.if_(b.lid() == b.u32(0), {}, {b.barrier()})});
  EXPECT_EQ(render(validate(p, "k")),
            "k: error[V010]: barrier may be reached by only part of a workgroup: it is under control flow that is "
            "not workgroup-uniform\n"
            "k: note: at entry[0].body[1].else[0] (barrier seq_cst)\n"
            "k: note: this condition or bound varies within a workgroup at entry[0].body[1] (if)\n");
}

TEST(Validate_Diagnostics, ValidatePrintedGivesBuilderIrLineAndColumn) {
  Builder b({4, 1, 1});
  Buf out = b.read_write("out", 0, ScalarType::U32, 4);
  Program p = b.wrapped({b.store(out, b.gid(), b.u32(1)), b.if_(b.wgid() == b.u32(0), {b.grid_sync()}),
                         b.store(out, b.u32(4), b.u32(2))});
  const PrintedValidation result = validate_printed(p, "printed");
  ASSERT_EQ(testing::codes_of(result.diagnostics), (std::vector<std::string>{"G002", "V036"}));
  const Diagnostic& fence = result.diagnostics.all()[0];
  ASSERT_TRUE(fence.loc.known());
  EXPECT_EQ(line_of(result.text, fence.loc.line).substr(fence.loc.col - 1), "grid_sync");
  const Diagnostic& store = result.diagnostics.all()[1];
  ASSERT_TRUE(store.loc.known());
  EXPECT_EQ(line_of(result.text, store.loc.line).substr(store.loc.col - 1, 1), "4");
  // The rendering carries the printed line and a caret under the column.
  const std::string rendered = render(result.diagnostics, result.text);
  const std::string header = "printed:" + std::to_string(fence.loc.line) + ":" + std::to_string(fence.loc.col) +
                             ": error[G002]: ";
  EXPECT_EQ(rendered.rfind(header, 0), 0u) << rendered;
  EXPECT_NE(rendered.find(std::string(fence.loc.col + 1, ' ') + "^\n"), std::string::npos) << rendered;
}

TEST(Validate_Diagnostics, ValidatePrintedGivesBufferDeclarationsPositions) {
  Builder b;
  b.read("a", 0, ScalarType::U32, 4);
  b.read("b", 0, ScalarType::U32, 4);
  const PrintedValidation result = validate_printed(b.wrapped({}), "printed");
  ASSERT_EQ(testing::codes_of(result.diagnostics), (std::vector<std::string>{"V108"}));
  const SourceLoc loc = result.diagnostics.all()[0].loc;
  ASSERT_TRUE(loc.known());
  EXPECT_EQ(line_of(result.text, loc.line).substr(loc.col - 1, 1), "b");
}

TEST(Validate_Diagnostics, ValidatePrintedDoesNotPrintMalformedIr) {
  Builder b;
  Expr e{ExprKind::WorkgroupId, 7};
  E bad{&b.program(), b.program().add_expr(e)};
  const PrintedValidation result = validate_printed(b.wrapped({b.let("x", bad)}));
  EXPECT_TRUE(result.text.empty());
  EXPECT_EQ(testing::codes_of(result.diagnostics), (std::vector<std::string>{"G007"}));
}

TEST(Validate_Rules, TableIsSortedUniqueAndLookedUp) {
  const auto rules = validation_rules();
  ASSERT_FALSE(rules.empty());
  for (std::size_t i = 1; i < rules.size(); ++i) EXPECT_LT(rules[i - 1].code, rules[i].code);
  for (const ValidationRule& r : rules) {
    EXPECT_EQ(find_validation_rule(r.code), &r);
    EXPECT_TRUE(r.phase == 1 || r.phase == 2) << r.code;
    EXPECT_TRUE(r.origin == "vyre" ? r.code[0] == 'V' : r.code[0] == 'G') << r.code;
  }
  EXPECT_EQ(find_validation_rule("V999"), nullptr);
}

TEST(Validate_Rules, EveryCodeIsDocumentedInValidationMd) {
  std::ifstream in(std::string(GRIDCHECK_SOURCE_DIR) + "/docs/validation.md");
  ASSERT_TRUE(in) << "docs/validation.md not found";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  std::set<std::string> documented;
  for (std::size_t at = doc.find("\n| "); at != std::string::npos; at = doc.find("\n| ", at + 1)) {
    const std::string code = doc.substr(at + 3, 4);
    if ((code[0] == 'V' || code[0] == 'G') && std::isdigit(static_cast<unsigned char>(code[1]))) documented.insert(code);
  }
  for (const ValidationRule& r : validation_rules())
    EXPECT_TRUE(documented.contains(std::string(r.code))) << r.code << " has no row in docs/validation.md";
  for (const std::string& code : documented)
    EXPECT_NE(find_validation_rule(code), nullptr) << code << " is documented but not in the rule table";
}

}  // namespace
}  // namespace gridcheck::ir
