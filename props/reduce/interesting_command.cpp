#include "props/reduce/interesting_command.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char** environ;

namespace gridcheck::props {
namespace {

using Clock = std::chrono::steady_clock;

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? fmt::format("SIG{} ({})", abbrev, sig) : fmt::format("signal {}", sig);
}

std::string temp_directory() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// While a command runs, SIGINT, SIGTERM and SIGHUP kill its process group first (it is not in the
// terminal's foreground group, so a Ctrl-C would otherwise leave it running), then take their
// previous course: the previous handler, or the default action re-raised.
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP};
volatile sig_atomic_t g_running_group = 0;
struct sigaction g_previous[3];

void kill_group_then_continue(int sig) {
  const pid_t group = static_cast<pid_t>(g_running_group);
  if (group > 0) ::kill(-group, SIGKILL);
  for (int i = 0; i < 3; ++i) {
    if (kForwarded[i] != sig) continue;
    const struct sigaction& previous = g_previous[i];
    if ((previous.sa_flags & SA_SIGINFO) == 0 && previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
      previous.sa_handler(sig);
      return;
    }
    if ((previous.sa_flags & SA_SIGINFO) == 0 && previous.sa_handler == SIG_IGN) return;
    ::sigaction(sig, &previous, nullptr);
    ::raise(sig);
  }
}

/// Installs kill_group_then_continue for the life of one call; restores the previous handlers.
class ForwardSignals {
 public:
  explicit ForwardSignals(pid_t group) {
    g_running_group = static_cast<sig_atomic_t>(group);
    struct sigaction action = {};
    action.sa_handler = kill_group_then_continue;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < 3; ++i) ::sigaction(kForwarded[i], &action, &g_previous[i]);
  }
  ~ForwardSignals() {
    for (int i = 0; i < 3; ++i) ::sigaction(kForwarded[i], &g_previous[i], nullptr);
    g_running_group = 0;
  }
  ForwardSignals(const ForwardSignals&) = delete;
  ForwardSignals& operator=(const ForwardSignals&) = delete;
};

std::string seconds_text(std::chrono::milliseconds ms) {
  return ms.count() % 1000 == 0 ? fmt::format("{} s", ms.count() / 1000) : fmt::format("{} ms", ms.count());
}

}  // namespace

InterestingCommand::InterestingCommand(InterestingCommandOptions options)
    : options_(std::move(options)), shell_text_(shell_text(options_.command)) {}

std::string InterestingCommand::shell_text(std::string_view command) {
  std::string out;
  bool substituted = false;
  for (std::size_t i = 0; i < command.size(); ++i) {
    if (command.compare(i, 2, "{}") == 0) {
      out += "\"$1\"";
      substituted = true;
      ++i;
    } else {
      out += command[i];
    }
  }
  if (!substituted) out += " \"$1\"";
  return out;
}

InterestingCall InterestingCommand::check(std::string_view case_text) {
  const auto start = Clock::now();
  ++calls_;
  std::string path = temp_directory() + "/gridcheck-reduce-XXXXXX.gc";
  InterestingCall call;
  const int fd = ::mkostemps(path.data(), 3, O_CLOEXEC);
  if (fd < 0) {
    call.status = InterestingStatus::CannotRun;
    call.detail = fmt::format("cannot create a temporary file in {}: {}", temp_directory(), std::strerror(errno));
  } else {
    const bool written = write_all(fd, case_text);
    ::close(fd);
    if (!written) {
      call.status = InterestingStatus::CannotRun;
      call.detail = fmt::format("cannot write the temporary file {}: {}", path, std::strerror(errno));
    } else {
      call = run(path);
    }
    ::unlink(path.c_str());
  }
  total_ += Clock::now() - start;
  return call;
}

InterestingCall InterestingCommand::run(const std::string& path) {
  InterestingCall call;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (options_.show_output) {
    posix_spawn_file_actions_adddup2(&actions, 2, 1);  // its stdout to our stderr: our stdout is the case
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);  // nothing of ours but stdin, stdout, stderr
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group: a timeout kills the shell's children too
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::string sh = "sh", dash_c = "-c", text = shell_text_, name = "gridcheck-interesting", file = path;
  char* argv[] = {sh.data(), dash_c.data(), text.data(), name.data(), file.data(), nullptr};
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) {
    call.status = InterestingStatus::CannotRun;
    call.detail = fmt::format("/bin/sh cannot be started: {}", std::strerror(spawned));
    return call;
  }
  const ForwardSignals forward(pid);
  // Poll for the exit: short sleeps first (most tests finish in milliseconds), then 10 ms.
  const Clock::time_point deadline = Clock::now() + options_.timeout;
  std::chrono::microseconds nap{100};
  int status = 0;
  for (;;) {
    // WNOWAIT: the exited shell stays a zombie, so its process group id cannot be reused before the
    // group is killed below.
    siginfo_t info{};
    const int r = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (r == 0 && info.si_pid == pid) break;
    if (r < 0 && errno != EINTR) {
      call.status = InterestingStatus::CannotRun;
      call.detail = fmt::format("waiting for the command failed: {}", std::strerror(errno));
      ::kill(-pid, SIGKILL);
      return call;
    }
    if (Clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      call.status = InterestingStatus::TimedOut;
      call.detail = fmt::format("timed out after {}", seconds_text(options_.timeout));
      return call;
    }
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds{10000});
  }
  // Anything the command left running in its group goes too; then the shell is reaped.
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    call.exit_status = WEXITSTATUS(status);
    call.status = call.exit_status == 0 ? InterestingStatus::Interesting : InterestingStatus::NotInteresting;
    call.detail = fmt::format("exited with status {}", call.exit_status);
    if (call.exit_status == 127) call.detail += " (/bin/sh: command not found)";
    if (call.exit_status == 126) call.detail += " (/bin/sh: command not executable)";
    if (call.exit_status > 128 && call.exit_status < 128 + NSIG)
      call.detail += fmt::format(" (the command was killed by {})", signal_name(call.exit_status - 128));
  } else if (WIFSIGNALED(status)) {
    call.status = InterestingStatus::NotInteresting;
    call.detail = fmt::format("was killed by {}", signal_name(WTERMSIG(status)));
  }
  return call;
}

}  // namespace gridcheck::props
