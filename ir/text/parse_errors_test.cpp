// Malformed input: every diagnostic has its code and points at the offending token; parsing recovers
// to report several errors and never loops or crashes.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "ir/text/limits.hpp"
#include "ir/text/parser.hpp"

namespace gridcheck::ir {
namespace {

struct Malformed {
  std::string name;
  std::string text;
  std::string code;
  std::uint32_t line;
  std::uint32_t col;
};

void PrintTo(const Malformed& m, std::ostream* os) { *os << m.name; }

std::string k(std::string_view statements) { return "case t\nkernel {\n" + std::string(statements) + "\n}\n"; }
std::string with_buffer(std::string_view buffer_line, std::string_view rest) {
  return "case t\n" + std::string(buffer_line) + "\n" + std::string(rest) + "\nkernel {}\n";
}

std::vector<Malformed> table() {
  return {
      // lexical
      {"UnexpectedCharacter", k("  let x = 1 $ 2"), "P001", 3, 13},
      {"NonAsciiOutsideAString", k("  let \xc3\xa9 = 1"), "P001", 3, 7},
      {"UnterminatedString", "case t \"open\nkernel {}\n", "P002", 1, 8},
      {"UnterminatedQuotedName", k("  let `x = 1"), "P002", 3, 7},
      {"BadEscapeInString", "case t \"bad \\q\"\nkernel {}\n", "P003", 1, 13},
      {"BadHexEscape", k("  opaque \"\\x4\""), "P003", 3, 11},
      {"NumberWithLetters", k("  let x = 12abc"), "P004", 3, 11},
      {"HexWithoutDigits", k("  let x = 0x"), "P004", 3, 11},
      {"IntegerSuffixOnFraction", k("  let x = 1.5i"), "P004", 3, 11},
      {"IdentifierTooLong", k("  let " + std::string(300, 'a') + " = 1"), "P005", 3, 7},
      {"StringTooLong", "case t \"" + std::string(5000, 's') + "\"\nkernel {}\n", "P006", 1, 8},
      // syntax
      {"WorkgroupSizeWithTwoComponents", "case t\nworkgroup_size 1 1\nkernel {}\n", "P010", 2, 19},
      {"StoreWithoutEquals", k("  buf[0] 9"), "P010", 3, 10},
      {"LetWithoutName", k("  let 5 = 1"), "P010", 3, 7},
      {"LetIsAnAssignmentToALocalNamedLet", k("  let = 1 +"), "P010", 4, 1},
      {"TwoStatementsOnOneLine", k("  return return"), "P010", 3, 10},
      {"MissingLoopDots", k("  loop i in 0 4 {}"), "P010", 3, 15},
      {"UnknownDirective", "case t\nkernal {}\nkernel {}\n", "P011", 2, 1},
      {"UnknownStatement", k("  lett x = 1"), "P012", 3, 3},
      {"UnclosedKernelBrace", "case t\nkernel {\n  let x = 1\n", "P013", 2, 8},
      {"UnclosedInnerBraceBeforeADirective", "case t\nkernel {\n  if x {\n    return\nexpect R: ok\n", "P013", 3, 8},
      {"UnclosedParenthesis", "case t\nkernel {\n  let x = (1 + 2", "P013", 3, 11},
      {"UnclosedValueList", "case t\nbuffer b: u32[2] read binding 0\ninput b = [1,\nkernel {}\n", "P013", 3, 11},
      {"BlocksNestedTooDeep",
       "case t\nkernel {\n" + [] {
         std::string s;
         for (int i = 0; i < 200; ++i) s += "block {\n";
         for (int i = 0; i < 200; ++i) s += "}\n";
         return s;
       }() + "}\n",
       "P014", 202, 7},
      {"ParenthesesNestedTooDeep", k("  let x = " + std::string(250, '(') + "1" + std::string(250, ')')), "P014", 3, 211},
      {"ExpressionTreeTooTall",
       k("  let x = 1" + [] {
         std::string s;
         for (int i = 0; i < 250; ++i) s += " + 1";
         return s;
       }()),
       "P014", 3, 809},
      {"UnknownFunction", k("  let x = frob(1)"), "P015", 3, 11},
      {"SelectWithTwoArguments", k("  let x = select(1, 2)"), "P016", 3, 11},
      {"AtomicWithoutValue", k("  let x = atomic_add(b, 1)"), "P016", 3, 11},
      {"UnknownAxis", k("  let x = gid.w"), "P017", 3, 15},
      {"UnknownBarrierOrdering", k("  barrier sometimes"), "P018", 3, 11},
      {"UnknownBarrierMemory", k("  barrier acq_rel memory local"), "P057", 3, 26},
      {"UnknownBarrierMemoryWithoutOrdering", k("  barrier memory everything"), "P057", 3, 18},
      {"BarrierMemoryWithoutAWord", k("  barrier memory"), "P010", 3, 17},
      {"BarrierMemoryAfterGridSyncStatement", k("  grid_sync memory workgroup"), "P010", 3, 13},
      {"UnknownAtomicOrdering", k("  let x = atomic_or(b, 0, 1, eventually)"), "P018", 3, 30},
      {"UnknownCollectiveOperator", k("  all_reduce b avg"), "P019", 3, 16},
      {"UnknownElementType", with_buffer("buffer b: u64[4] read binding 0", ""), "P020", 2, 11},
      {"UnknownAccess", with_buffer("buffer b: u32[4] readonly binding 0", ""), "P021", 2, 18},
      {"UnknownMemoryKind", with_buffer("buffer b: u32[4] read binding 0 kind fast", ""), "P022", 2, 38},
      {"SecondGridLine", "case t\ngrid 1 1 1\ngrid auto\nkernel {}\n", "P023", 3, 1},
      {"SecondKernel", "case t\nkernel {}\nentry {}\n", "P023", 3, 1},
      {"BindingGivenTwice", with_buffer("buffer b: u32[4] read binding 0 binding 1", ""), "P024", 2, 33},
      {"NoCaseLine", "kernel {}\n", "P025", 1, 1},
      {"NoKernel", "case t\n", "P025", 1, 1},
      {"StorageBufferWithoutBinding", with_buffer("buffer b: u32[4] read", ""), "P026", 2, 8},
      // literals and limits
      {"U32LiteralTooLarge", k("  let x = 4294967296"), "P030", 3, 11},
      {"I32LiteralTooLarge", k("  let x = 3000000000i"), "P030", 3, 11},
      {"NegativeU32Literal", k("  let x = -1"), "P030", 3, 11},
      {"F32LiteralOverflows", k("  let x = 1e39"), "P030", 3, 11},
      {"BindingOver32Bits", with_buffer("buffer b: u32[4] read binding 4294967296", ""), "P030", 2, 31},
      {"BadHash", with_buffer("buffer b: u32[4] read binding 0", "expect R b hash 0xZZ"), "P030", 3, 17},
      {"FloatInU32List", with_buffer("buffer b: u32[2] read binding 0", "input b = [1, 1.5]"), "P031", 3, 15},
      {"TrueInU32List", with_buffer("buffer b: u32[1] read binding 0", "input b = [true]"), "P031", 3, 12},
      {"FractionalCount", with_buffer("buffer b: u32[2.5] read binding 0", ""), "P031", 2, 15},
      {"BufferTooLarge", with_buffer("buffer b: u32[268435457] read binding 0", ""), "P032", 2, 15},
      {"WorkgroupComponentTooLarge", "case t\nworkgroup_size 2048 1 1\nkernel {}\n", "P033", 2, 16},
      {"WorkgroupTooManyInvocations", "case t\nworkgroup_size 64 64 1\nkernel {}\n", "P033", 2, 1},
      {"GridZero", "case t\ngrid 0 1 1\nkernel {}\n", "P034", 2, 6},
      {"GridTooLarge", "case t\ngrid 1 1 65536\nkernel {}\n", "P034", 2, 10},
      {"FixpointZero", "case t\nfixpoint 0\nkernel {}\n", "P035", 2, 10},
      {"FixpointTooLarge", "case t\nfixpoint 1000001\nkernel {}\n", "P035", 2, 10},
      {"InputCountZero", with_buffer("buffer d: u32[] read binding 0", "input d = fill 1 count 0"), "P036", 3, 24},
      {"InputCountTooLarge", with_buffer("buffer d: u32[] read binding 0", "input d = fill 1 count 268435457"), "P036", 3, 24},
      {"ByteRangeBackwards", with_buffer("buffer b: u32[4] read binding 0 range 8..4", ""), "P037", 2, 39},
      // case data
      {"InputForUnknownBuffer", "case t\ninput nope = [1]\nkernel {}\n", "P040", 2, 7},
      {"ExpectForUnknownBuffer", "case t\nkernel {}\nexpect R nope = [1]\n", "P040", 3, 10},
      {"SecondInputForABuffer", with_buffer("buffer b: u32[1] read binding 0", "input b = [1]\ninput b = [2]"), "P041", 4, 7},
      {"InputForWorkgroupBuffer", with_buffer("buffer s: u32[1] workgroup", "input s = [1]"), "P042", 3, 7},
      {"InputListTooShort", with_buffer("buffer b: u32[3] read binding 0", "input b = [1, 2]"), "P043", 3, 11},
      {"ExpectedListTooLong", with_buffer("buffer b: u32[1] read binding 0", "expect R b = [1, 2]"), "P043", 3, 14},
      {"RuntimeSizedFillWithoutCount", with_buffer("buffer d: u32[] read binding 0", "input d = fill 1"), "P044", 3, 11},
      {"CountDiffersFromDeclared", with_buffer("buffer b: u32[4] read binding 0", "input b = fill 1 count 3"), "P045", 3, 24},
      {"UnknownOracle", "case t\nkernel {}\nexpect Q: ok\n", "P046", 3, 8},
      {"UnknownVerdict", "case t\nkernel {}\nexpect R: fine\n", "P047", 3, 11},
      {"SecondVerdictForAnOracle", "case t\nkernel {}\nexpect H-cpu sound: match\nexpect H-cpu sound: diverge\n", "P048", 4, 1},
      {"SecondExpectationForABuffer",
       with_buffer("buffer b: u32[1] read binding 0", "expect R b = [1]\nexpect R b hash 0x1"), "P048", 4, 1},
      {"ExpectForWorkgroupBuffer", with_buffer("buffer s: u32[1] workgroup", "expect R s = [0]"), "P049", 3, 10},
      {"LaunchCountTooLarge", "case t\nkernel {}\nexpect H-cpu sound launches 4294967296\n", "P030", 3, 29},
      {"LaunchCountNotANumber", "case t\nkernel {}\nexpect H-cpu sound launches four\n", "P030", 3, 29},
      {"SecondLaunchCount", "case t\nkernel {}\nexpect H-cpu sound launches 2\nexpect H-cpu sound launches 3\n", "P048", 4, 1},
      {"LaunchesWithTwoProfiles", "case t\nkernel {}\nexpect H-cpu a b launches 2\n", "P010", 3, 16},
      {"LaunchCountForReference", "case t\nkernel {}\nexpect R launches 1\n", "P051", 3, 8},
      {"LaunchCountForWaves", "case t\nkernel {}\nexpect R-waves sound launches 3\n", "P051", 3, 8},
      {"SeriesOfBool", with_buffer("buffer f: bool[2] read binding 0", "input f = series 0 step 1"), "P050", 3, 11},
  };
}

class IR_TextParseErrors : public ::testing::TestWithParam<Malformed> {};

TEST_P(IR_TextParseErrors, ReportsTheCodeAtTheOffendingToken) {
  const Malformed& m = GetParam();
  const Result<Case> r = parse_case(m.text, "bad.gc");
  ASSERT_FALSE(r.ok()) << "accepted:\n" << m.text;
  bool found = false;
  for (const Diagnostic& d : r.diagnostics()) {
    EXPECT_EQ(d.code.substr(0, 1), "P");
    EXPECT_EQ(d.file, "bad.gc");
    EXPECT_FALSE(d.message.empty());
    EXPECT_NE(d.message.back(), '.') << d.message;
    EXPECT_TRUE(d.message[0] < 'A' || d.message[0] > 'Z') << d.message;
    found = found || (d.code == m.code && d.loc == SourceLoc{m.line, m.col});
  }
  EXPECT_TRUE(found) << "expected " << m.code << " at " << m.line << ":" << m.col << ", got:\n"
                     << render(r.diagnostics(), m.text);
}

INSTANTIATE_TEST_SUITE_P(Table, IR_TextParseErrors, ::testing::ValuesIn(table()),
                         [](const ::testing::TestParamInfo<Malformed>& info) { return info.param.name; });

TEST(IR_TextParseRecovery, ReportsOneErrorPerBadLineAndKeepsGoing) {
  const std::string text =
      "case t\nfixpoint 0\nbuffer b: u32[2] read binding 0\ninput b = [1, 1.5,\n  7]\nkernel {\n  let 5 = 1\n"
      "  let y = frob(2)\n  return\n}\nexpect R: fine\n";
  const Result<Case> r = parse_case(text, "bad.gc");
  ASSERT_FALSE(r.ok());
  std::vector<std::pair<std::string, std::uint32_t>> got;
  for (const Diagnostic& d : r.diagnostics()) got.emplace_back(d.code, d.loc.line);
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::uint32_t>>{
                     {"P035", 2}, {"P031", 4}, {"P010", 7}, {"P015", 8}, {"P047", 11}}))
      << render(r.diagnostics(), text);
}

TEST(IR_TextParseRecovery, AnUnclosedBraceIsReportedOnceAndTheFollowingDirectivesStillParse) {
  const std::string text = "case t\nkernel {\n  if x {\n    loop i in 0..2 {\n      return\nexpect R: fine\n";
  const Result<Case> r = parse_case(text, "bad.gc");
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics().size(), 2u) << render(r.diagnostics(), text);
  EXPECT_EQ(r.diagnostics().all()[0].code, "P013");
  EXPECT_EQ(r.diagnostics().all()[0].loc, (SourceLoc{4, 20}));
  EXPECT_EQ(r.diagnostics().all()[1].code, "P047");  // the expect line was parsed as a directive
}

TEST(IR_TextParseRecovery, StopsAfterTheErrorLimitWithAFinalDiagnostic) {
  std::string text = "case t\n";
  for (int i = 0; i < 500; ++i) text += "bogus line\n";
  const Result<Case> r = parse_case(text, "bad.gc");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics().size(), text_limits::kMaxErrors + 1);
  EXPECT_EQ(r.diagnostics().all().back().code, "P027");
  EXPECT_EQ(r.diagnostics().all().front().code, "P011");
}

TEST(IR_TextParseRecovery, AFileOverTheSizeLimitIsRejectedBeforeLexing) {
  const std::string text(text_limits::kMaxFileBytes + 1, '#');
  const Result<Case> r = parse_case(text, "huge.gc");
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics().size(), 1u);
  EXPECT_EQ(r.diagnostics().all()[0].code, "P007");
}

TEST(IR_TextParseRecovery, RenderedDiagnosticsShowFileLineColumnAndACaret) {
  const std::string text = "case t\nkernel {\n  let x = frob(1)\n}\n";
  const Result<Case> r = parse_case(text, "cases/bad.gc");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(render(r.diagnostics(), text),
            "cases/bad.gc:3:11: error[P015]: unknown function frob\n"
            "    let x = frob(1)\n"
            "            ^\n");
}

TEST(IR_TextParseRecovery, GarbageNeverHangsOrCrashes) {
  // A few adversarial shapes; the fuzz driver covers far more.
  for (const std::string& text : {std::string(100000, '{'), std::string(100000, '('), std::string(100000, '['),
                                  std::string("case t\nkernel {\nlet x = ") + std::string(100000, '-') + "1\n}\n",
                                  std::string("case t\nkernel {\nlet x = ") + std::string(100000, '!') + "x\n}\n",
                                  std::string("case t\nkernel {\nlet x = ") + std::string(50000, '(') + "\n}\n",
                                  std::string("\xff\xfe\x00\x01", 4), std::string("expect"), std::string("input b = ["),
                                  std::string("case t\nkernel {\n  if a {} else if b {} else") + std::string(3000, ' ')}) {
    const Result<Case> r = parse_case(text, "g.gc");
    EXPECT_FALSE(r.ok());
    if (!r.ok()) {
      EXPECT_LE(r.diagnostics().size(), text_limits::kMaxErrors + 1);
    }
  }
}

TEST(IR_TextParseRecovery, WorkgroupSizeZeroIsLeftToTheValidator) {
  // V106 (a zero workgroup dimension) is a validator rule; the text must be able to express it.
  const Result<Case> r = parse_case("case t\nworkgroup_size 0 1 1\nkernel {}\n", "v106.gc");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->program.workgroup_size()[0], 0u);
}

}  // namespace
}  // namespace gridcheck::ir
