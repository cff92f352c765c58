// The round-trip properties of the text format over random programs and cases:
//   parse(print(c)) is the same case (program structurally equal, every case field equal),
//   print(parse(print(c))) == print(c), and the parser records the locations print_with_locations reports.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "ir/equality.hpp"
#include "ir/text/parser.hpp"
#include "ir/text/printer.hpp"
#include "ir/text/random_case_for_tests.hpp"

namespace gridcheck::ir {
namespace {

// Every choice uniform over its whole range (gen::inRange alone narrows the range at small sizes,
// which would make most cases trivial); shrinking still moves each choice towards `lo`.
struct RapidCheckChoose {
  int operator()(int lo, int hi) const {
    return static_cast<int>(*rc::gen::resize(100, rc::gen::inRange<std::int64_t>(lo, std::int64_t{hi} + 1)));
  }
};

Case random_case() {
  RapidCheckChoose choose;
  testing::RandomCaseGenerator<RapidCheckChoose> generator(choose);
  return generator.generate();
}

void assert_same_case_data(const Case& a, const Case& b) {
  RC_ASSERT(a.name == b.name);
  RC_ASSERT(a.description == b.description);
  RC_ASSERT(a.header_comments == b.header_comments);
  RC_ASSERT(a.meta == b.meta);
  RC_ASSERT(a.grid == b.grid);
  RC_ASSERT(a.fixpoint == b.fixpoint);
  RC_ASSERT(a.oob == b.oob);
  RC_ASSERT(a.uninit == b.uninit);
  RC_ASSERT(a.inputs.size() == b.inputs.size());
  for (std::size_t i = 0; i < a.inputs.size(); ++i) {
    const InputData& x = a.inputs[i];
    const InputData& y = b.inputs[i];
    RC_ASSERT(x.buffer == y.buffer);
    RC_ASSERT(x.kind == y.kind);
    RC_ASSERT(x.values == y.values);
    RC_ASSERT(x.first == y.first);
    RC_ASSERT(x.step == y.step);
    RC_ASSERT(x.seed == y.seed);
    RC_ASSERT(x.length == y.length);
  }
  RC_ASSERT(a.expectations.size() == b.expectations.size());
  for (std::size_t i = 0; i < a.expectations.size(); ++i) {
    RC_ASSERT(a.expectations[i].oracle == b.expectations[i].oracle);
    RC_ASSERT(a.expectations[i].profile == b.expectations[i].profile);
    RC_ASSERT(a.expectations[i].verdict == b.expectations[i].verdict);
    RC_ASSERT(a.expectations[i].detail == b.expectations[i].detail);
  }
  RC_ASSERT(a.outputs.size() == b.outputs.size());
  for (std::size_t i = 0; i < a.outputs.size(); ++i) {
    RC_ASSERT(a.outputs[i].oracle == b.outputs[i].oracle);
    RC_ASSERT(a.outputs[i].profile == b.outputs[i].profile);
    RC_ASSERT(a.outputs[i].buffer == b.outputs[i].buffer);
    RC_ASSERT(a.outputs[i].words == b.outputs[i].words);
    RC_ASSERT(a.outputs[i].hash == b.outputs[i].hash);
  }
  RC_ASSERT(a.launches.size() == b.launches.size());
  for (std::size_t i = 0; i < a.launches.size(); ++i) {
    RC_ASSERT(a.launches[i].oracle == b.launches[i].oracle);
    RC_ASSERT(a.launches[i].profile == b.launches[i].profile);
    RC_ASSERT(a.launches[i].count == b.launches[i].count);
  }
}

// Every reachable node of `parsed` has the location recorded for the matching node of `printed`.
void assert_same_locations(const Program& printed, const PrintedProgram& locs, const Program& parsed, StmtList x,
                           StmtList y);
void assert_same_expr_locations(const Program& printed, const PrintedProgram& locs, const Program& parsed, ExprId x,
                                ExprId y) {
  RC_ASSERT(locs.expr_locs[index_of(x)] == parsed.loc(y));
  const Expr& e = printed.expr(x);
  for (std::size_t i = 0; i < e.operands.size(); ++i)
    if (e.operands[i] != kNoExpr) assert_same_expr_locations(printed, locs, parsed, e.operands[i], parsed.expr(y).operands[i]);
}
void assert_same_locations(const Program& printed, const PrintedProgram& locs, const Program& parsed, StmtList x,
                           StmtList y) {
  const auto xs = printed.list(x);
  const auto ys = parsed.list(y);
  RC_ASSERT(xs.size() == ys.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    RC_ASSERT(locs.stmt_locs[index_of(xs[i])] == parsed.loc(ys[i]));
    const Stmt& s = printed.stmt(xs[i]);
    const Stmt& t = parsed.stmt(ys[i]);
    for (std::size_t k = 0; k < s.exprs.size(); ++k)
      if (s.exprs[k] != kNoExpr) assert_same_expr_locations(printed, locs, parsed, s.exprs[k], t.exprs[k]);
    if (s.has_body()) {
      assert_same_locations(printed, locs, parsed, s.body, t.body);
      assert_same_locations(printed, locs, parsed, s.otherwise, t.otherwise);
    }
  }
}

/// Runs a property over at least `cases` random cases (RC_PARAMS=max_success=N raises it; the
/// RC_PARAMS seed and reproduce strings apply as usual) and fails the test with RapidCheck's report.
template <typename Property>
void check_at_least(int cases, Property property) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  rc::detail::TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = std::max(params.maxSuccess, cases);
  const rc::detail::TestResult result = rc::detail::checkTestable(property, metadata, params);
  if (!result.template is<rc::detail::SuccessResult>()) {
    std::ostringstream report;
    rc::detail::printResultMessage(result, report);
    FAIL() << report.str();
  }
}

// The text format's bar: 10,000 random cases per property in every run.
constexpr int kRoundTripCases = 10000;

TEST(IR_TextRoundTrip, ParsingThePrintedCaseGivesTheSameCaseAndTheSameText) {
  check_at_least(kRoundTripCases, [] {
    const Case c = random_case();
    const std::string text = print(c);
    const Result<Case> back = parse_case(text, "roundtrip.gc");
    if (!back) RC_FAIL("the printed case does not parse:\n" + render(back.diagnostics(), text) + "\n" + text);
    RC_ASSERT(structurally_equal(c.program, back->program));
    RC_ASSERT(content_hash(c.program) == content_hash(back->program));
    assert_same_case_data(c, *back);
    RC_ASSERT(print(*back) == text);
  });
}

TEST(IR_TextRoundTrip, TheParserRecordsTheLocationsThePrinterReports) {
  check_at_least(kRoundTripCases, [] {
    const Case c = random_case();
    const PrintedProgram printed = print_with_locations(c.program);
    const Result<Program> back = parse_program(printed.text, "locations.gc");
    if (!back) RC_FAIL("the printed program does not parse:\n" + render(back.diagnostics(), printed.text));
    RC_ASSERT(print(*back) == printed.text);
    assert_same_locations(c.program, printed, *back, c.program.entry(), back->entry());
  });
}

}  // namespace
}  // namespace gridcheck::ir
