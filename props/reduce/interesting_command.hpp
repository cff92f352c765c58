#pragma once
// `gridcheck reduce --interesting CMD` (docs/reduce.md#interesting): a user's interestingness test in
// the creduce / spirv-reduce convention. Each candidate is written to a fresh temporary file
// (mkstemps, `$TMPDIR` or /tmp, `gridcheck-reduce-XXXXXX.gc`, removed after the call) and CMD runs
// as `/bin/sh -c TEXT gridcheck-interesting PATH`, where TEXT is CMD with every `{}` replaced by
// `"$1"`, or CMD followed by ` "$1"` when it has no `{}`: the path reaches the command as the
// shell's first positional parameter and is never pasted into the command text. Exit status 0 means
// interesting; any other status, a signal, or running past the timeout means not interesting. The
// command runs in its own process group (a timeout kills the whole group), with stdin from
// /dev/null, stdout/stderr discarded unless `show_output` (then both go to our stderr), and no other
// descriptor of this process inherited. While it
// runs, a SIGINT, SIGTERM or SIGHUP to this process kills the command's group first and then takes
// its previous course (handler or default action), so an interrupted reduce leaves nothing running.
// One call at a time per process (the signal forwarding is process-wide).
// Errors are never thrown; a command that cannot be started is a CannotRun call.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace gridcheck::props {

struct InterestingCommandOptions {
  std::string command;  ///< shell text (see above); must not be empty
  std::chrono::milliseconds timeout{60000};
  bool show_output = false;  ///< the command's stdout and stderr to our stderr (default: /dev/null)
};

enum class InterestingStatus : std::uint8_t {
  Interesting,     ///< exit status 0
  NotInteresting,  ///< another exit status, or killed by a signal
  TimedOut,        ///< still running at the timeout; its process group was killed
  CannotRun,       ///< no temporary file, or /bin/sh could not be spawned (detail says why)
};

struct InterestingCall {
  InterestingStatus status = InterestingStatus::NotInteresting;
  std::string detail;  ///< "exited with status 1", "was killed by SIGSEGV (11)", "timed out after 2 s"
  int exit_status = -1;  ///< the exit status when the command exited, else -1 (127: sh found no command)
};

class InterestingCommand {
 public:
  explicit InterestingCommand(InterestingCommandOptions options);

  /// Writes `case_text` to a temporary file, runs the command on it, removes the file.
  InterestingCall check(std::string_view case_text);

  /// The text /bin/sh -c runs for `command` ({} -> "$1", else "$1" appended).
  static std::string shell_text(std::string_view command);

  std::uint64_t calls() const { return calls_; }
  std::chrono::nanoseconds total_time() const { return total_; }  ///< spent in check(), all calls

 private:
  InterestingCall run(const std::string& path);

  InterestingCommandOptions options_;
  std::string shell_text_;
  std::uint64_t calls_ = 0;
  std::chrono::nanoseconds total_{0};
};

}  // namespace gridcheck::props
