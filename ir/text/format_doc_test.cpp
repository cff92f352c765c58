// docs/format.md documents every diagnostic code the parser can report.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "ir/text/parse_codes.hpp"

namespace gridcheck::ir {
namespace {

TEST(IR_TextFormatDoc, EveryParseCodeIsInTheDiagnosticTable) {
  std::ifstream in(std::string(GRIDCHECK_SOURCE_DIR) + "/docs/format.md");
  ASSERT_TRUE(in) << "docs/format.md is missing";
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string doc = buffer.str();
  for (std::string_view code : parse_code::kAll)
    EXPECT_NE(doc.find("| " + std::string(code) + " |"), std::string::npos) << code << " is not in docs/format.md";
}

TEST(IR_TextFormatDoc, CodesAreUnique) {
  for (std::size_t i = 0; i < parse_code::kAll.size(); ++i)
    for (std::size_t j = i + 1; j < parse_code::kAll.size(); ++j) EXPECT_NE(parse_code::kAll[i], parse_code::kAll[j]);
}

}  // namespace
}  // namespace gridcheck::ir
