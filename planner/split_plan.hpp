#pragma once
// The result of planning a host split (spec §6.5–§6.7): the segment programs with their rewritten
// buffer tables, the input and output names that thread the live buffers between them, and for
// every source buffer the facts and the role decision that produced its segment declaration.

#include <cstddef>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "planner/role_rule.hpp"

namespace gridcheck::planner {

/// One source buffer in one segment: what the scan found and what the role rule decided.
struct BufferRoleRow {
  std::string name;
  RoleFacts facts;
  RoleDecision decision;
};

struct PlannedSegment {
  ir::Program program;                    ///< the launched program (rewritten buffer table)
  std::vector<std::string> input_names;   ///< gathered from the live map, in this order
  std::vector<std::string> output_names;  ///< the executor's output slots, in this order
  std::vector<std::string> let_prefix;    ///< propagated Lets (names), in prepend order
  std::vector<BufferRoleRow> roles;       ///< one row per source buffer, declaration order
};

struct SplitPlan {
  std::string profile;
  bool contains_fence = false;     ///< spec §6.2: whether a dispatch routes through the split at all
  std::size_t fence_count = 0;     ///< top-level fences after hoisting (segments - 1, or 0)
  std::vector<PlannedSegment> segments;
  std::vector<std::string> caller_inputs;  ///< the caller's input buffers, in the order passed
  std::vector<std::string> final_outputs;  ///< the final outputs, in the order returned
};

}  // namespace gridcheck::planner
