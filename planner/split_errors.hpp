#pragma once
// The host split's error catalogue (docs/vyre-0.7.2.md §6.13) as user diagnostics. Codes are stable:
//
//   S001  a reservation (allocation) failed              S007  a segment input has no bytes
//   S002  split accounting overflowed (unreachable)      S008  the executor returned the wrong output count
//   S003  the split produced no segments                 S009  a final output was never produced
//   S004  caller input count mismatch                    S010  fixpoint_iterations == 0
//   S005  a seeded segment input is not declared         S011  a segment launch failed (executor error)
//   S006  a seeded backend-allocated buffer has no size   S012  a segment still holds a fence (G5)
//   S013  the launch grid cannot be resolved (sound: the reference grid of the whole program)
//   S101..S105  megakernel planner errors (megakernel_barrier.hpp)
//   S200        profile registration (profile.hpp register_profile)
//   S300..S310  an external planner process and its plans (docs/plan-protocol.md, plan_protocol.hpp)
//
// Each message is one lower-case sentence; the "Fix: ..." advice of vyre's message is a note.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "ir/diagnostic.hpp"
#include "planner/executor.hpp"

namespace gridcheck::planner::split_error {

ir::Diagnostic reservation_failed(std::string_view what, std::string_view error);
ir::Diagnostic accounting_overflow(std::string_view what);
ir::Diagnostic no_segments();
ir::Diagnostic input_count(std::size_t given, std::span<const std::string> expected_names);
ir::Diagnostic seed_undeclared(std::string_view name);
ir::Diagnostic seed_without_size(std::string_view name);
ir::Diagnostic input_without_bytes(std::size_t segment, std::size_t segment_count, std::string_view name);
ir::Diagnostic output_count(std::size_t segment, std::size_t segment_count, std::size_t produced, std::size_t expected);
ir::Diagnostic final_output_missing(std::string_view name);
ir::Diagnostic zero_fixpoint();
/// S011. An InvalidProgram error gets the prefix "grid-sync split segment i of n dispatch failed: ";
/// other errors pass their message through unchanged (docs/vyre-0.7.2.md §6.8 b). Segment indices are 0-based.
ir::Diagnostic launch_failed(std::size_t segment, std::size_t segment_count, const LaunchError& error);
/// S012: a segment still contains a grid_sync (nested under if/loop, never hoisted). vyre 0.7.2's
/// wgpu backend routes such a segment to the split again without bound (docs/vyre-0.7.2.md §6.2, docs/vyre-0.7.2.md#g5); we
/// model that as this error instead of a stack overflow.
ir::Diagnostic segment_still_has_fence(std::size_t segment, std::size_t segment_count);
/// S013: the whole program's grid (docs/semantics.md §3.1 steps 4-6) could not be computed for the launches.
ir::Diagnostic grid_unresolved(const ir::Diagnostic& cause);
/// S011 for the unsplit dispatch of a fence-free program (the error passes through unchanged).
ir::Diagnostic unsplit_launch_failed(const LaunchError& error);

/// S300..S310 (docs/plan-protocol.md "What gridcheck checks in a plan"): an external planner failed
/// or answered with a plan that does not hold. `code` must be one of them; `message` names the
/// case, the planner and the segment.
ir::Diagnostic planner_process(std::string_view code, std::string message);

}  // namespace gridcheck::planner::split_error

namespace gridcheck::planner {

/// True for S300..S310: the external planner process failed on a case (verdict `error`, detail
/// `planner-process`; never a divergence blamed on the split).
bool is_planner_process_error(const ir::Diagnostic& d);

/// True when `d` refuses a program before anything runs (verdict `refused`, not a divergence):
/// S000, the sound profile's SR codes, and an external planner's `refused` answer (its own code,
/// marked by a note with code S000, see refused_by_planner).
bool is_refusal(const ir::Diagnostic& d);

/// An external planner's `refused` answer as a diagnostic: the planner's `code` and `message`, with
/// a note (code S000) naming the planner, so that is_refusal recognises it.
ir::Diagnostic refused_by_planner(std::string code, std::string message, std::string_view planner);

}  // namespace gridcheck::planner

namespace gridcheck::planner::split_error {

}  // namespace gridcheck::planner::split_error
