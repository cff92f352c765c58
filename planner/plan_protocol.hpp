#pragma once
// The wire format of the external planner protocol `gridcheck-plan/1` (docs/plan-protocol.md,
// docs/plan-protocol.schema.json): requests encoded as one JSON line each, responses decoded and
// checked into a SplitPlan before anything runs.
//
// Every problem is an ir::Diagnostic with a code of the protocol's table (S303..S310, built by
// split_error::planner_process) whose message names the planner and the case (and the segment,
// 0-based, as every split message); a `refused` answer becomes refused_by_planner (is_refusal).
// Nothing here throws (JSON errors are caught inside) and nothing here runs a process
// (planner_process.hpp does).

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/diagnostic.hpp"
#include "ir/program.hpp"
#include "planner/split_plan.hpp"

namespace gridcheck::planner::plan_protocol {

inline constexpr std::string_view kProtocol = "gridcheck-plan/1";

/// Whom a diagnostic is about: the planner's profile name ("external:mine") and the case.
struct Subject {
  std::string_view planner;
  std::string_view case_name;
};

/// `planner `NAME`, case `CASE`` — the common head of every message.
std::string describe(const Subject& subject);

/// The handshake request line (no trailing newline).
std::string hello_request();

/// The plan request line for `source` (printed with ir::print; no trailing newline).
std::string plan_request(std::uint64_t id, std::string_view case_name, const ir::Program& source);

/// What the planner says of itself in its handshake answer (empty when it says nothing).
struct Hello {
  std::string planner;
  std::string version;
};

/// Decodes the handshake answer: S303 when it is not a JSON object, S304 when `type` is not
/// "hello" or `protocol` is not kProtocol.
ir::Result<Hello> decode_hello(std::string_view line, const Subject& subject);

/// Decodes and checks a plan response to request `id` about `source` (see the file comment and the
/// doc's table). `stream_broken` is set when the answer cannot belong to this request (S303, or
/// S304 for the `type` or `id`): the caller must then restart the process.
/// The plan: one PlannedSegment per segment (program parsed, input/output names and lets as sent,
/// one BufferRoleRow per source buffer: Omit when undeclared, KeepUnchanged when declared exactly as
/// in the source, else Rewrite with the declared access, kind and flags), caller_inputs,
/// final_outputs, convergence and grid from `dispatch`, fence_count = segments - 1,
/// contains_fence = true, profile = subject.planner.
ir::Result<SplitPlan> decode_plan_response(std::string_view line, std::uint64_t id, const ir::Program& source,
                                           const Subject& subject, bool& stream_broken);

}  // namespace gridcheck::planner::plan_protocol
