#include "planner/planner_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "planner/plan_protocol.hpp"
#include "planner/split_errors.hpp"

extern char** environ;

namespace gridcheck::planner {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxLine = std::size_t{64} << 20;  // a response line longer than this is S303
constexpr std::chrono::milliseconds kCloseGrace{2000};

void default_sink(std::string_view line) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::fprintf(stderr, "[planner] %.*s\n", static_cast<int>(line.size()), line.data());
  std::fflush(stderr);
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? fmt::format("SIG{} ({})", abbrev, sig) : fmt::format("signal {}", sig);
}

std::string describe_status(int status) {
  // /bin/sh reports a command killed by signal N as exit status 128 + N.
  if (WIFEXITED(status) && WEXITSTATUS(status) > 128 && WEXITSTATUS(status) < 128 + NSIG)
    return fmt::format("exited with status {} (the command was killed by {})", WEXITSTATUS(status),
                       signal_name(WEXITSTATUS(status) - 128));
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("was killed by {}", signal_name(WTERMSIG(status)));
  return fmt::format("stopped (wait status {})", status);
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

// write(2) with SIGPIPE blocked in this thread; a SIGPIPE it raises is consumed, so a dead reader
// is an EPIPE error, never a signal.
ssize_t write_no_sigpipe(int fd, const char* data, std::size_t size) {
  sigset_t pipe_set, old_mask, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  const ssize_t n = ::write(fd, data, size);
  const int error = errno;
  if (n < 0 && error == EPIPE && !was_pending) {
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) == -1 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  errno = error;
  return n;
}

}  // namespace

struct PlannerProcess::Child {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
  std::string out_buffer, err_buffer;
  bool out_eof = false, err_eof = false;
  bool reaped = false;
  int status = 0;
  bool handshaken = false;

  ~Child() {
    for (int fd : {in, out, err})
      if (fd >= 0) ::close(fd);
  }

  // Reads what is available on `fd` (non-blocking); false at EOF or on an error.
  static bool drain(int fd, std::string& buffer) {
    char chunk[65536];
    for (;;) {
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n > 0) {
        buffer.append(chunk, static_cast<std::size_t>(n));
        if (buffer.size() > kMaxLine + sizeof chunk) return true;
        continue;
      }
      if (n == 0) return false;
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;
    }
  }

  void forward_stderr(const StderrSink& sink, bool flush_partial) {
    std::size_t start = 0;
    for (std::size_t nl; (nl = err_buffer.find('\n', start)) != std::string::npos; start = nl + 1)
      sink(std::string_view(err_buffer).substr(start, nl - start));
    err_buffer.erase(0, start);
    if ((flush_partial || err_buffer.size() > 65536) && !err_buffer.empty()) {
      sink(err_buffer);
      err_buffer.clear();
    }
  }

  // Polls stdout (when `want_out`) and stderr until `deadline` or until one of them has news.
  void poll_once(const StderrSink& sink, bool want_out, Clock::time_point deadline) {
    pollfd fds[2];
    nfds_t n = 0;
    if (want_out && !out_eof) fds[n++] = pollfd{out, POLLIN, 0};
    const nfds_t err_index = n;
    if (!err_eof) fds[n++] = pollfd{err, POLLIN, 0};
    if (n == 0) {
      ::usleep(10000);
      return;
    }
    const int ready = ::poll(fds, n, std::min(remaining_ms(deadline), 100));
    if (ready <= 0) return;
    if (want_out && !out_eof && fds[0].revents != 0) out_eof = !drain(out, out_buffer);
    if (!err_eof && fds[err_index].revents != 0) {
      err_eof = !drain(err, err_buffer);
      forward_stderr(sink, err_eof);
    }
  }

  bool try_reap() {
    if (reaped) return true;
    int s = 0;
    const pid_t r = ::waitpid(pid, &s, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) {
      reaped = true;
      status = s;
    }
    return reaped;
  }

  void kill_and_reap(const StderrSink& sink) {
    if (!reaped) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      int s = 0;
      while (::waitpid(pid, &s, 0) < 0 && errno == EINTR) {
      }
      reaped = true;
      status = s;
    }
    // The group is dead: what it wrote to stderr is there to read, briefly.
    const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(200);
    while (!err_eof && Clock::now() < deadline) poll_once(sink, false, deadline);
    forward_stderr(sink, true);
  }
};

PlannerProcess::PlannerProcess(std::string command, std::string planner_name, std::chrono::milliseconds timeout,
                               StderrSink sink)
    : command_(std::move(command)), name_(std::move(planner_name)), timeout_(timeout), sink_(std::move(sink)) {
  if (!sink_) sink_ = default_sink;
}

PlannerProcess::~PlannerProcess() { shutdown(); }

std::uint64_t PlannerProcess::starts() const {
  std::lock_guard lock(mutex_);
  return starts_;
}

std::string PlannerProcess::identity() const {
  std::lock_guard lock(mutex_);
  return identity_;
}

void PlannerProcess::restart() {
  std::lock_guard lock(mutex_);
  kill_locked();
}

void PlannerProcess::shutdown() {
  std::lock_guard lock(mutex_);
  close_locked(kCloseGrace);
}

std::optional<ir::Diagnostic> PlannerProcess::ensure_started() {
  std::lock_guard lock(mutex_);
  if (child_) return std::nullopt;
  return start_locked("");
}

ir::Result<std::string> PlannerProcess::exchange(std::string_view request, std::string_view case_name) {
  std::lock_guard lock(mutex_);
  if (!child_)
    if (auto error = start_locked(case_name)) return *error;
  return exchange_locked(request, case_name, false);
}

void PlannerProcess::kill_locked() {
  if (!child_) return;
  child_->kill_and_reap(sink_);
  child_.reset();
}

void PlannerProcess::close_locked(std::chrono::milliseconds grace) {
  if (!child_) return;
  Child& c = *child_;
  if (c.in >= 0) {
    ::close(c.in);
    c.in = -1;
  }
  const Clock::time_point deadline = Clock::now() + grace;
  while (!c.try_reap() && Clock::now() < deadline) {
    c.poll_once(sink_, true, deadline);
    c.out_buffer.clear();  // answers nobody asked for
    if (c.out_eof && c.err_eof) ::usleep(5000);
  }
  kill_locked();
}

std::optional<ir::Diagnostic> PlannerProcess::start_locked(std::string_view case_name) {
  const plan_protocol::Subject subject{name_, case_name};
  auto cannot_start = [&](std::string why) {
    return split_error::planner_process(
        "S300", fmt::format("{}: the planner command `{}` cannot be started: {}", plan_protocol::describe(subject),
                            command_, why));
  };
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return cannot_start(std::strerror(errno));
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return cannot_start(std::strerror(errno));
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
    return cannot_start(std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group: a kill reaches the shell's children too
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::string sh = "sh", dash_c = "-c", cmd = command_;
  char* argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  for (int fd : {in[0], out[1], err[1]}) ::close(fd);
  if (spawned != 0) {
    for (int fd : {in[1], out[0], err[0]}) ::close(fd);
    return cannot_start(std::strerror(spawned));
  }
  auto child = std::make_unique<Child>();
  child->pid = pid;
  child->in = in[1];
  child->out = out[0];
  child->err = err[0];
  for (int fd : {child->in, child->out, child->err}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  child_ = std::move(child);
  ++starts_;
  identity_.clear();

  ir::Result<std::string> answer = exchange_locked(plan_protocol::hello_request(), case_name, true);
  if (!answer) return answer.diagnostics().all().front();
  ir::Result<plan_protocol::Hello> hello = plan_protocol::decode_hello(*answer, subject);
  if (!hello) {
    kill_locked();
    return hello.diagnostics().all().front();
  }
  identity_ = hello->planner.empty() ? "" : hello->planner + (hello->version.empty() ? "" : " " + hello->version);
  return std::nullopt;
}

ir::Result<std::string> PlannerProcess::exchange_locked(std::string_view request, std::string_view case_name,
                                                        bool handshake) {
  GC_ASSERT(child_ != nullptr);
  Child& c = *child_;
  const plan_protocol::Subject subject{name_, case_name};
  const Clock::time_point deadline = Clock::now() + timeout_;
  const std::string what = handshake ? "the handshake" : "the plan request";

  // The planner is gone: wait briefly for its status (stderr drained on the way), then S301 (S300
  // when the shell could not run the command at all).
  auto exited = [&](std::string how) -> ir::Diagnostic {
    const Clock::time_point wait_until = Clock::now() + std::chrono::milliseconds(2000);
    while (!c.try_reap() && Clock::now() < wait_until) c.poll_once(sink_, false, wait_until);
    const bool reaped = c.reaped;
    const int status = c.status;
    kill_locked();
    if (!reaped)
      return split_error::planner_process(
          "S301", fmt::format("{}: the planner {} during {}", plan_protocol::describe(subject), how, what));
    if (handshake && WIFEXITED(status) && (WEXITSTATUS(status) == 126 || WEXITSTATUS(status) == 127))
      return split_error::planner_process(
          "S300", fmt::format("{}: the planner command `{}` cannot be started: /bin/sh {}",
                              plan_protocol::describe(subject), command_, describe_status(status)));
    return split_error::planner_process(
        "S301", fmt::format("{}: the planner {} during {}", plan_protocol::describe(subject), describe_status(status), what));
  };

  // Write the request line.
  std::string line(request);
  line += '\n';
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = write_no_sigpipe(c.in, line.data() + written, line.size() - written);
    if (n > 0) {
      written += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) return exited("closed its stdin");
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return exited(fmt::format("stdin failed ({})", std::strerror(errno)));
    if (Clock::now() >= deadline) {
      kill_locked();
      return split_error::planner_process(
          "S302", fmt::format("{}: the planner read no request within {} ms ({})", plan_protocol::describe(subject),
                              timeout_.count(), what));
    }
    pollfd p{c.in, POLLOUT, 0};
    ::poll(&p, 1, std::min(remaining_ms(deadline), 100));
    if (!c.err_eof) c.poll_once(sink_, false, Clock::now());
  }

  // Read one response line.
  for (;;) {
    if (const std::size_t nl = c.out_buffer.find('\n'); nl != std::string::npos) {
      std::string answer = c.out_buffer.substr(0, nl);
      c.out_buffer.erase(0, nl + 1);
      if (!answer.empty() && answer.back() == '\r') answer.pop_back();
      return answer;
    }
    if (c.out_buffer.size() > kMaxLine) {
      kill_locked();
      return split_error::planner_process(
          "S303", fmt::format("{}: the response line is longer than {} MiB", plan_protocol::describe(subject),
                              kMaxLine >> 20));
    }
    if (c.out_eof) return exited(c.out_buffer.empty() ? "closed its stdout" : "closed its stdout mid-line");
    if (Clock::now() >= deadline) {
      kill_locked();
      return split_error::planner_process(
          "S302", fmt::format("{}: no answer within {} ms to {}", plan_protocol::describe(subject), timeout_.count(),
                              what));
    }
    c.poll_once(sink_, true, deadline);
  }
}

}  // namespace gridcheck::planner
