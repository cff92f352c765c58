#include "props/reduce/interesting_command.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace gridcheck::props {
namespace {

using namespace std::chrono_literals;

InterestingCall run(const std::string& command, std::string_view text = "kernel {}\n",
                    std::chrono::milliseconds timeout = 10000ms) {
  InterestingCommandOptions o;
  o.command = command;
  o.timeout = timeout;
  return InterestingCommand(o).check(text);
}

TEST(Props_InterestingCommand, PathIsTheLastArgumentOrWhereBracesStand) {
  EXPECT_EQ(InterestingCommand::shell_text("./test.sh -q"), "./test.sh -q \"$1\"");
  EXPECT_EQ(InterestingCommand::shell_text("grep -q x {} && test -s {}"), "grep -q x \"$1\" && test -s \"$1\"");
}

TEST(Props_InterestingCommand, ExitZeroIsInterestingAndTheCommandReadsTheCandidate) {
  EXPECT_EQ(run("grep -q needle", "hay needle hay\n").status, InterestingStatus::Interesting);
  const InterestingCall no = run("grep -q needle", "hay only\n");
  EXPECT_EQ(no.status, InterestingStatus::NotInteresting);
  EXPECT_EQ(no.exit_status, 1);
  EXPECT_EQ(run("grep -q needle {} && true", "a needle\n").status, InterestingStatus::Interesting);
}

TEST(Props_InterestingCommand, ThePathIsNeverCommandText) {
  // A candidate whose text is shell syntax cannot inject it: only the path is passed, as "$1".
  const std::filesystem::path marker = std::filesystem::temp_directory_path() / "gridcheck-interesting-injected";
  std::filesystem::remove(marker);
  const InterestingCall call = run("test -f", "$(touch " + marker.string() + ")\n");
  EXPECT_EQ(call.status, InterestingStatus::Interesting);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(Props_InterestingCommand, TheTemporaryFileIsRemovedAfterTheCall) {
  const std::filesystem::path record = std::filesystem::temp_directory_path() / "gridcheck-interesting-path";
  ASSERT_EQ(run("printf %s \"$1\" > " + record.string() + "; true {}").status, InterestingStatus::Interesting);
  std::ifstream in(record);
  std::string path;
  std::getline(in, path);
  EXPECT_NE(path.find("gridcheck-reduce-"), std::string::npos) << path;
  EXPECT_EQ(path.substr(path.size() - 3), ".gc");
  EXPECT_FALSE(std::filesystem::exists(path));
  std::filesystem::remove(record);
}

TEST(Props_InterestingCommand, AMissingCommandIsStatus127) {
  const InterestingCall call = run("/nonexistent/gridcheck-test");
  EXPECT_EQ(call.status, InterestingStatus::NotInteresting);
  EXPECT_EQ(call.exit_status, 127);
  EXPECT_NE(call.detail.find("command not found"), std::string::npos) << call.detail;
}

TEST(Props_InterestingCommand, AHangingCommandIsKilledAtTheTimeout) {
  const auto start = std::chrono::steady_clock::now();
  const InterestingCall call = run("sleep 30; true", "x\n", 300ms);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(call.status, InterestingStatus::TimedOut);
  EXPECT_EQ(call.detail, "timed out after 300 ms");
  EXPECT_LT(took, 5s);
}

TEST(Props_InterestingCommand, ASignalIsNotInteresting) {
  const InterestingCall call = run("kill -SEGV $$; true");
  EXPECT_EQ(call.status, InterestingStatus::NotInteresting);
  EXPECT_NE(call.detail.find("SIGSEGV"), std::string::npos) << call.detail;
}

}  // namespace
}  // namespace gridcheck::props
