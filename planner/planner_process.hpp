#pragma once
// The external planner's child process (docs/plan-protocol.md "Transport"): `/bin/sh -c COMMAND`
// with its stdin and stdout as the request and response lines and its stderr forwarded line by
// line with the prefix `[planner] `.
//
// Contract:
// - The process is started (and the handshake done, plan_protocol::decode_hello) on the first
//   exchange, and again on the exchange after any failure: a failed exchange kills it.
// - exchange() writes one request line and waits at most `timeout` for one response line. Errors:
//   S300 the command cannot be started (spawn failed, or the shell exits 126/127 before its
//   handshake), S301 it exited or was killed (status or signal), S302 no line within the timeout,
//   S303/S304 a bad handshake. The process is then killed (its whole process group) and reaped.
// - Thread-safe: one exchange at a time under a mutex. Writing to a dead planner never raises
//   SIGPIPE in the caller. No zombie is left: every child is reaped.
// - shutdown() (and the destructor) closes stdin, lets the planner exit for up to 2 s, then kills it.

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "ir/diagnostic.hpp"

namespace gridcheck::planner {

class PlannerProcess {
 public:
  /// Receives every stderr line of the planner, without its newline (default: written to this
  /// process's stderr as "[planner] LINE").
  using StderrSink = std::function<void(std::string_view line)>;

  PlannerProcess(std::string command, std::string planner_name, std::chrono::milliseconds timeout,
                 StderrSink sink = {});
  ~PlannerProcess();
  PlannerProcess(const PlannerProcess&) = delete;
  PlannerProcess& operator=(const PlannerProcess&) = delete;

  /// Sends `request` (one line, no newline) and returns the response line (without its newline).
  /// `case_name` only labels diagnostics.
  ir::Result<std::string> exchange(std::string_view request, std::string_view case_name);

  /// Kills the running process (the next exchange starts a fresh one): for an answer that breaks
  /// the stream (plan_protocol::decode_plan_response's `stream_broken`).
  void restart();

  /// Starts the process and does the handshake now, if it is not running (a command checks the
  /// planner before its first case; S300/S301/S302/S303/S304 as for exchange).
  std::optional<ir::Diagnostic> ensure_started();

  /// Closes stdin, waits up to 2 s for the planner to exit, then kills it; reaps it. Idempotent.
  void shutdown();

  /// Starts so far (1 after the first exchange; one more after each restart).
  std::uint64_t starts() const;
  /// The handshake's `planner` and `version` fields of the running process ("" when none).
  std::string identity() const;

  const std::string& command() const { return command_; }
  const std::string& name() const { return name_; }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  struct Child;
  std::optional<ir::Diagnostic> start_locked(std::string_view case_name);
  void kill_locked();
  void close_locked(std::chrono::milliseconds grace);
  ir::Result<std::string> exchange_locked(std::string_view request, std::string_view case_name, bool handshake);

  std::string command_;
  std::string name_;
  std::chrono::milliseconds timeout_;
  StderrSink sink_;
  mutable std::mutex mutex_;
  std::unique_ptr<Child> child_;
  std::uint64_t starts_ = 0;
  std::string identity_;
};

}  // namespace gridcheck::planner
