#include "ir/text/case_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ir/text/limits.hpp"

namespace gridcheck::ir {
namespace {

class IR_TextCaseFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gridcheck_case_file_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& content) {
    const auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << content;
    return path.string();
  }
  std::filesystem::path dir_;
};

TEST_F(IR_TextCaseFile, LoadsAndParsesAFileAndRemembersItsPath) {
  const std::string path = write("ok.gc", "case ok\nkernel { return }\n");
  Result<Case> c = load_case_file(path);
  ASSERT_TRUE(c) << render(c.diagnostics());
  EXPECT_EQ(c->name, "ok");
  EXPECT_EQ(c->file, path);
}

TEST_F(IR_TextCaseFile, AMissingFileIsADiagnosticNamingTheFile) {
  const std::string path = (dir_ / "missing.gc").string();
  Result<Case> c = load_case_file(path);
  ASSERT_FALSE(c);
  ASSERT_EQ(c.diagnostics().size(), 1u);
  EXPECT_EQ(c.diagnostics().all()[0].code, "P008");
  EXPECT_EQ(c.diagnostics().all()[0].file, path);
  EXPECT_EQ(render(c.diagnostics()), path + ": error[P008]: cannot open the file: it does not exist\n");
}

TEST_F(IR_TextCaseFile, ADirectoryIsNotACaseFile) {
  Result<Case> c = load_case_file(dir_.string());
  ASSERT_FALSE(c);
  EXPECT_EQ(c.diagnostics().all()[0].code, "P008");
}

TEST_F(IR_TextCaseFile, AFileOverTheSizeLimitIsRefused) {
  const std::string path = write("huge.gc", std::string(text_limits::kMaxFileBytes + 1, ' '));
  Result<Case> c = load_case_file(path);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.diagnostics().all()[0].code, "P007");
}

TEST_F(IR_TextCaseFile, ParseErrorsCarryThePathAndPosition) {
  const std::string path = write("bad.gc", "case bad\nkernel {\n  let x = 1 +\n}\n");
  Result<Case> c = load_case_file(path);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.diagnostics().all()[0].file, path);
  EXPECT_EQ(c.diagnostics().all()[0].loc, (SourceLoc{4, 1}));
}

TEST_F(IR_TextCaseFile, AtomicWriteReplacesTheFileAndLeavesNoTemporary) {
  const std::string path = write("out.gc", "old contents\n");
  ASSERT_TRUE(write_file_atomically(path, "case new\nkernel { return }\n"));
  Result<std::string> text = read_case_text(path);
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "case new\nkernel { return }\n");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST_F(IR_TextCaseFile, AtomicWriteIntoAMissingDirectoryFailsAndKeepsNothing) {
  const std::string path = (dir_ / "no-such-dir" / "out.gc").string();
  EXPECT_FALSE(write_file_atomically(path, "x"));
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace gridcheck::ir
