#include "props/reduce/interesting_command.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include <signal.h>
#include <unistd.h>

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

bool process_gone(pid_t pid) {
  // Gone, or a zombie nobody reaped yet (a container's pid 1 may not reap).
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const std::size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

TEST(Props_InterestingCommandDeathTest, SigtermWhileACommandRunsKillsItsGroupToo) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::filesystem::path pid_file = std::filesystem::temp_directory_path() / "gridcheck-interesting-pid";
  std::filesystem::remove(pid_file);
  // Without the forwarding the sleeper would live its 30 s (and hold the death test's pipe that long).
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EXIT(
      {
        std::thread([] {
          std::this_thread::sleep_for(300ms);
          ::kill(::getpid(), SIGTERM);
        }).detach();
        run("echo $$ > " + pid_file.string() + "; exec sleep 30 #", "x\n", 20000ms);
      },
      testing::KilledBySignal(SIGTERM), "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  std::ifstream in(pid_file);
  pid_t sleeper = 0;
  ASSERT_TRUE(in >> sleeper);
  for (int i = 0; i < 100 && !process_gone(sleeper); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(process_gone(sleeper)) << "the command's process " << sleeper << " outlived the interrupted reduce";
  std::filesystem::remove(pid_file);
}

TEST(Props_InterestingCommand, TheCommandInheritsNoDescriptorButTheStandardThree) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);  // not close-on-exec
  const std::string probe = "test ! -e /dev/fd/" + std::to_string(fds[1]) + " #";
  const InterestingCall call = run(probe);
  ::close(fds[0]);
  ::close(fds[1]);
  EXPECT_EQ(call.status, InterestingStatus::Interesting) << call.detail;
}

TEST(Props_InterestingCommand, ASignalIsNotInteresting) {
  const InterestingCall call = run("kill -SEGV $$; true");
  EXPECT_EQ(call.status, InterestingStatus::NotInteresting);
  EXPECT_NE(call.detail.find("SIGSEGV"), std::string::npos) << call.detail;
}

}  // namespace
}  // namespace gridcheck::props
