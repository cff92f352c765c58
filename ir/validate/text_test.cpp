// Text in, diagnostics out: invalid programs written as `.gc` text, each asserting every diagnostic's
// code AND line:col (docs/engineering.md#lesson-3). Complements the builder-made rule tests; the corpus cases under
// corpus/invalid/ are checked here too, against their `# validate:` annotations.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/text/parser.hpp"
#include "ir/validate/test_support.hpp"

namespace gridcheck::ir {
namespace {

struct Expected {
  std::string code;
  std::uint32_t line;
  std::uint32_t col;
  friend bool operator==(const Expected&, const Expected&) = default;
};

std::string show(const std::vector<Expected>& list) {
  std::string out;
  for (const Expected& e : list) out += e.code + "@" + std::to_string(e.line) + ":" + std::to_string(e.col) + " ";
  return out;
}

struct TextCase {
  std::string name;
  std::string text;  ///< a program text: workgroup_size, buffer lines, kernel or entry block
  std::vector<Expected> expected;
  ValidateOptions options = {};
};

void PrintTo(const TextCase& c, std::ostream* os) { *os << c.name; }

// Line 1 is the text's first line. Columns count from 1.
const std::vector<TextCase>& cases() {
  static const std::vector<TextCase> kCases = {
      // ------------------------------------------------------------------ program and buffer table
      {"V105_EntryWithARawStore",
       "workgroup_size 1 1 1\n"
       "buffer out: u32[4] read_write binding 0\n"
       "entry {\n"
       "  out[0] = 1\n"
       "}\n",
       {{"V105", 4, 3}}},
      {"V106_ZeroWorkgroupDimension",
       "workgroup_size 8 0 1\n"
       "kernel {}\n",
       {{"V106", 0, 0}}},
      {"V107_DuplicateBufferName",
       "workgroup_size 1 1 1\n"
       "buffer a: u32[4] read binding 0\n"
       "buffer a: u32[4] read binding 1\n"
       "kernel {}\n",
       {{"V107", 3, 8}}},
      {"V108_DuplicateBinding",
       "workgroup_size 1 1 1\n"
       "buffer a: u32[4] read binding 3\n"
       "buffer s: u32[4] workgroup\n"
       "buffer b: u32[4] read_write binding 3\n"
       "kernel {}\n",
       {{"V108", 4, 8}}},
      {"V109_WorkgroupBufferWithoutElements",
       "workgroup_size 1 1 1\n"
       "buffer s: u32[0] workgroup\n"
       "kernel {}\n",
       {{"V109", 2, 8}}},
      {"V130_UnsizedOutput",
       "workgroup_size 1 1 1\n"
       "buffer out: u32[] read_write binding 0 output live_out\n"
       "kernel {}\n",
       {{"V130", 2, 8}}},
      {"G011_OutputRangeBeyondTheBuffer",
       "workgroup_size 1 1 1\n"
       "buffer out: u32[4] read_write binding 0 output live_out range 8..20\n"
       "kernel {}\n",
       {{"G011", 2, 8}}},
      // ------------------------------------------------------------------------------- references
      {"V064_StoreIntoUnknownBuffer",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  ghost[0] = 1\n"
       "}\n",
       {{"V064", 3, 3}}},
      {"V065_LoadFromUnknownBuffer",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  let x = 1 + ghost[2]\n"
       "}\n",
       {{"V065", 3, 15}}},
      {"V061_AtomicOnUnknownBuffer",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  let x = atomic_or(ghost, 0, 1)\n"
       "}\n",
       {{"V061", 3, 11}}},
      {"G101_LenOfUnknownBuffer",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  loop i in 0..len(ghost) {\n"
       "  }\n"
       "}\n",
       {{"G101", 3, 16}}},
      {"V127_IndirectDispatchOfUnknownBuffer",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  indirect_dispatch ghost offset 0\n"
       "}\n",
       {{"V127", 3, 3}}},
      {"V126_MisalignedIndirectDispatch",
       "workgroup_size 1 1 1\n"
       "buffer counts: u32[3] read binding 0\n"
       "kernel {\n"
       "  indirect_dispatch counts offset 6\n"
       "}\n",
       {{"V126", 4, 3}}},
      // --------------------------------------------------------------------- scoping and sequences
      {"V008_LetShadowsAnOuterLet",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  let x = 1\n"
       "  if x == 1 {\n"
       "    let x = 2\n"
       "  }\n"
       "}\n",
       {{"V008", 5, 5}}},
      {"V032_DuplicateSiblingLetEvenWithShadowingAllowed",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  let x = 1\n"
       "  let x = 2\n"
       "}\n",
       {{"V032", 4, 3}},
       ValidateOptions{.allow_shadowing = true}},
      {"V011_AssignToLoopVariable",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  loop i in 0..4 {\n"
       "    i = 2\n"
       "  }\n"
       "}\n",
       {{"V011", 4, 5}}},
      {"V120_AssignToUndeclaredName",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  block {\n"
       "    let total = 0\n"
       "  }\n"
       "  total = 5\n"
       "}\n",
       {{"V120", 6, 3}}},
      {"V119_AssignToReadBufferName",
       "workgroup_size 1 1 1\n"
       "buffer a: u32[4] read binding 0\n"
       "kernel {\n"
       "  a = 1\n"
       "}\n",
       {{"V119", 4, 3}}},
      {"G009_AssignToReadWriteBufferName",
       "workgroup_size 1 1 1\n"
       "buffer rw: u32[4] read_write binding 0\n"
       "kernel {\n"
       "  rw = 1\n"
       "}\n",
       {{"G009", 4, 3}}},
      {"V112_ReturnBeforeTheEndOfALoopBody",
       "workgroup_size 1 1 1\n"
       "buffer out: u32[4] read_write binding 0\n"
       "kernel {\n"
       "  loop i in 0..4 {\n"
       "    return\n"
       "    out[i] = 1\n"
       "  }\n"
       "}\n",
       {{"V112", 5, 5}}},
      {"G100_UseOfALoopVariableAfterItsLoop",
       "workgroup_size 1 1 1\n"
       "buffer out: u32[4] read_write binding 0\n"
       "kernel {\n"
       "  loop i in 0..4 {\n"
       "  }\n"
       "  out[i] = 1\n"
       "}\n",
       {{"G100", 6, 7}}},
      // ------------------------------------------------------------------------------------- types
      {"G102_MixedOperandTypes",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  let x = 1 + 2i\n"
       "}\n",
       {{"G102", 3, 13}}},
      {"G105_AssignmentChangesType",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  let x = 1\n"
       "  x = 1.5\n"
       "}\n",
       {{"G105", 4, 3}}},
      {"V028_FmaOfIntegers",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  let x = fma(1, 2, 3)\n"
       "}\n",
       {{"V028", 3, 11}}},
      {"V121_StoreF32IntoU32",
       "workgroup_size 1 1 1\n"
       "buffer out: u32[4] read_write binding 0\n"
       "kernel {\n"
       "  out[1] = 2.5\n"
       "}\n",
       {{"V121", 4, 12}}},
      {"V122_StoreIndexI32AndV036Negative",
       "workgroup_size 1 1 1\n"
       "buffer out: u32[4] read_write binding 0\n"
       "kernel {\n"
       "  out[-1i] = 2\n"
       "}\n",
       {{"V122", 4, 7}, {"V036", 4, 7}}},
      {"V036_LiteralStoreIndexEqualToCount",
       "workgroup_size 1 1 1\n"
       "buffer out: u32[4] read_write binding 0\n"
       "kernel {\n"
       "  out[3] = 1\n"
       "  out[4] = 1\n"
       "}\n",
       {{"V036", 5, 7}}},
      {"V123_IfConditionF32",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  if 0.5 {\n"
       "  }\n"
       "}\n",
       {{"V123", 3, 6}}},
      {"V124_V125_LoopBoundsI32",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  loop i in 0i..4 {\n"
       "  }\n"
       "  loop j in 0..4i {\n"
       "  }\n"
       "}\n",
       {{"V124", 3, 13}, {"V125", 5, 16}}},
      // ------------------------------------------------------------------------ access and atomics
      {"V063_StoreIntoUniformBuffer",
       "workgroup_size 1 1 1\n"
       "buffer params: u32[4] uniform binding 0\n"
       "kernel {\n"
       "  params[0] = 1\n"
       "}\n",
       {{"V063", 4, 3}}},
      {"V009_AtomicOnWriteOnlyBuffer",
       "workgroup_size 1 1 1\n"
       "buffer w: u32[4] write_only binding 0\n"
       "kernel {\n"
       "  let old = atomic_max(w, 0, 9)\n"
       "}\n",
       {{"V009", 4, 13}}},
      {"V025_AtomicOnWorkgroupMemory",
       "workgroup_size 4 1 1\n"
       "buffer s: u32[4] workgroup\n"
       "kernel {\n"
       "  let old = atomic_add(s, lid.x, 1)\n"
       "}\n",
       {{"V025", 4, 13}}},
      {"V014_AtomicOnF32Buffer",
       "workgroup_size 1 1 1\n"
       "buffer f: f32[4] read_write binding 0\n"
       "kernel {\n"
       "  let old = atomic_add(f, 0, 1)\n"
       "}\n",
       {{"V014", 4, 13}}},
      {"V027_V057_AtomicOperandsI32",
       "workgroup_size 1 1 1\n"
       "buffer c: u32[4] read_write binding 0\n"
       "kernel {\n"
       "  let old = atomic_add(c, 1i, 1)\n"
       "  let new = atomic_add(c, 1, 5i)\n"
       "}\n",
       {{"V027", 4, 27}, {"V057", 5, 30}}},
      {"V058_CompareExchangeExpectedI32",
       "workgroup_size 1 1 1\n"
       "buffer c: u32[4] read_write binding 0\n"
       "kernel {\n"
       "  let old = atomic_compare_exchange(c, 0, 0i, 1)\n"
       "}\n",
       {{"V058", 4, 43}}},
      {"V046_CollectiveByDefault",
       "workgroup_size 1 1 1\n"
       "buffer x: u32[4] read_write binding 0\n"
       "kernel {\n"
       "  all_reduce x sum\n"
       "}\n",
       {{"V046", 4, 3}}},
      {"V134_AsyncCopyIntoReadBuffer",
       "workgroup_size 1 1 1\n"
       "buffer src: u32[4] read_write binding 0\n"
       "buffer dst: u32[4] read binding 1\n"
       "kernel {\n"
       "  async_load src -> dst offset 0 size 16 tag \"t\"\n"
       "  async_wait \"t\"\n"
       "}\n",
       {{"V134", 5, 3}}},
      // ------------------------------------------------------------------ barriers and uniformity
      {"V043_RelaxedBarrier",
       "workgroup_size 1 1 1\n"
       "kernel {\n"
       "  barrier relaxed\n"
       "}\n",
       {{"V043", 3, 3}}},
      {"V010_BarrierInElseOfLocalIdBranch",
       "workgroup_size 8 1 1\n"
       "kernel {\n"
       "  if lid.x % 2 == 0 {\n"
       "  } else {\n"
       "    barrier acquire\n"
       "  }\n"
       "}\n",
       {{"V010", 5, 5}}},
      {"V010_FenceInLoopWithABoundLoadedPerInvocation",
       "workgroup_size 8 1 1\n"
       "buffer n: u32[8] read binding 0\n"
       "kernel {\n"
       "  let count = n[lid.x]\n"
       "  loop i in 0..count {\n"
       "    grid_sync\n"
       "  }\n"
       "}\n",
       {{"V010", 6, 5}}},
      {"G003_LoopCarriedDivergence",
       "workgroup_size 8 1 1\n"
       "kernel {\n"
       "  let turn = 0\n"
       "  loop i in 0..4 {\n"
       "    if turn == i {\n"
       "      barrier\n"
       "    }\n"
       "    turn = lid.x\n"
       "  }\n"
       "}\n",
       {{"G003", 6, 7}}},
      {"G002_FenceInLoopBoundedByWorkgroupId",
       "workgroup_size 8 1 1\n"
       "kernel {\n"
       "  loop i in 0..wgid.x {\n"
       "    grid_sync\n"
       "  }\n"
       "}\n",
       {{"G002", 4, 5}}},
      {"V055_ReturnAfterTheLastBarrierInsideABlock",
       "workgroup_size 8 1 1\n"
       "kernel {\n"
       "  loop i in 0..4 {\n"
       "    block {\n"
       "      barrier\n"
       "    }\n"
       "    if lid.x == i {\n"
       "      return\n"
       "    }\n"
       "  }\n"
       "}\n",
       {{"V055", 3, 3}}},
      // ----------------------------------------------------------------------------------- warnings
      {"G001_FenceUnderUniformIf",
       "workgroup_size 8 1 1\n"
       "buffer a: u32[4] read binding 0\n"
       "kernel {\n"
       "  if len(a) == 4 {\n"
       "    grid_sync\n"
       "  }\n"
       "}\n",
       {{"G001", 5, 5}}},
      {"G004_G005_G006_Warnings",
       "workgroup_size 1 1 1\n"
       "buffer w: u32[4] write_only binding 0\n"
       "kernel {\n"
       "  w[0] = w[1]\n"
       "  w[1] = w[9]\n"
       "  let q = 5i / 0i\n"
       "}\n",
       {{"G004", 4, 10}, {"G004", 5, 10}, {"G005", 5, 12}, {"G006", 6, 14}}},
      {"G012_G013_DeclarationWarnings",
       "workgroup_size 1 1 1\n"
       "buffer a: u32[4] read binding 0 live_out\n"
       "buffer w: u32[] write_only binding 1\n"
       "kernel {}\n",
       {{"G012", 2, 8}, {"G013", 3, 8}}},
  };
  return kCases;
}

class Validate_Text : public ::testing::TestWithParam<TextCase> {};

TEST_P(Validate_Text, ReportsCodeAndPosition) {
  const TextCase& c = GetParam();
  const Result<Program> program = parse_program(c.text, "t.gc");
  ASSERT_TRUE(program.ok()) << render(program.diagnostics(), c.text);
  const Diagnostics ds = validate(*program, "t.gc", c.options);
  std::vector<Expected> actual;
  for (const Diagnostic& d : ds) actual.push_back({d.code, d.loc.line, d.loc.col});
  EXPECT_EQ(actual, c.expected) << "expected " << show(c.expected) << "\n" << render(ds, c.text);
  for (const Diagnostic& d : ds) {
    const ValidationRule* rule = find_validation_rule(d.code);
    ASSERT_NE(rule, nullptr) << d.code;
    EXPECT_EQ(rule->severity, d.severity) << d.code;
  }
}

INSTANTIATE_TEST_SUITE_P(Invalid, Validate_Text, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<TextCase>& info) { return info.param.name; });

TEST(Validate_TextRendering, CaretSitsUnderTheOffendingStatement) {
  const std::string text =
      "workgroup_size 4 1 1\n"
      "kernel {\n"
      "  if wgid.x == 0 {\n"
      "    grid_sync\n"
      "  }\n"
      "}\n";
  const Result<Program> program = parse_program(text, "g6.gc");
  ASSERT_TRUE(program.ok());
  EXPECT_EQ(render(validate(*program, "g6.gc"), text),
            "g6.gc:4:5: error[G002]: grid_sync may be reached by only part of the grid: its control flow depends "
            "on the workgroup id\n"
            "      grid_sync\n"
            "      ^\n"
            "g6.gc:3:3: note: this condition or bound varies between workgroups\n"
            "    if wgid.x == 0 {\n"
            "    ^\n");
}

// The corpus cases under corpus/invalid/ carry `# validate: error CODE at LINE:COL` lines.
TEST(Validate_CorpusInvalid, EveryCaseReportsExactlyItsAnnotatedDiagnostics) {
  const std::filesystem::path dir = std::filesystem::path(GRIDCHECK_SOURCE_DIR) / "corpus" / "invalid";
  ASSERT_TRUE(std::filesystem::is_directory(dir));
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".gc") continue;
    ++files;
    std::ifstream in(entry.path());
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    std::vector<Expected> expected;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      // "# validate: error G002 at 18:5" (corpus/check_case.cmake reads the same lines)
      char severity[16] = {};
      char code[16] = {};
      unsigned at_line = 0;
      unsigned at_col = 0;
      if (line.rfind("# validate:", 0) != 0) continue;
      ASSERT_EQ(std::sscanf(line.c_str(), "# validate: %15s %15s at %u:%u", severity, code, &at_line, &at_col), 4)
          << line;
      expected.push_back({code, at_line, at_col});
    }
    SCOPED_TRACE(entry.path().string());
    ASSERT_FALSE(expected.empty()) << "no # validate: line";
    const Result<Case> parsed = parse_case(text, entry.path().string());
    ASSERT_TRUE(parsed.ok()) << render(parsed.diagnostics(), text);
    const Diagnostics ds = validate(parsed->program, entry.path().string());
    EXPECT_TRUE(ds.has_errors());
    std::vector<Expected> actual;
    for (const Diagnostic& d : ds) actual.push_back({d.code, d.loc.line, d.loc.col});
    EXPECT_EQ(actual, expected) << render(ds, text);
  }
  EXPECT_GE(files, 10);
}

}  // namespace
}  // namespace gridcheck::ir
