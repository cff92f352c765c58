#pragma once
// Text in, text out for the planner's transformation tests: programs parsed from the text format
// (docs/format.md), results printed back (the kernel block only, without the declarations).

#include <string>
#include <string_view>

#include "ir/program.hpp"
#include "planner/split_plan.hpp"

namespace gridcheck::planner::testing {

/// Parses `workgroup_size ... buffer ... kernel { }`; a parse error fails the calling test (ADD_FAILURE)
/// and returns an empty program.
ir::Program parse(std::string_view text);

/// The `kernel { ... }` / `entry { ... }` block of print(p), with its final newline.
std::string kernel_text(const ir::Program& p);

/// Every segment's kernel block, each preceded by "-- segment k\n".
std::string segments_text(const SplitPlan& plan);

}  // namespace gridcheck::planner::testing
