#pragma once
// A planner profile defined outside gridcheck: gridcheck's `sound` profile with one rule replaced. Every
// storage buffer a segment could see is declared read_write in every segment (never omitted, never
// read-only or write-only), so each segment consumes and returns every live value; workgroup memory
// keeps sound's rule. On valid race-free programs this is sound: a read_write binding holds exactly the
// live bytes, and a segment that does not write a buffer hands the same bytes back.

#include <string_view>

#include "planner/profile.hpp"
#include "planner/role_rule.hpp"

namespace custom_planner {

inline constexpr std::string_view kProfileName = "example-all-read-write";

/// The replaced rule: workgroup memory as `sound`, everything else rewritten as read_write.
gridcheck::planner::RoleDecision all_read_write_role(const gridcheck::planner::RoleFacts& facts);

/// sound() with table.role = all_read_write_role, named kProfileName (not registered).
gridcheck::planner::Profile all_read_write_profile();

/// Registers the profile once (later calls return the same pointer), so that gridcheck's commands and
/// oracles can find it by name. Throws std::runtime_error with the S200 diagnostic when refused.
const gridcheck::planner::Profile& register_all_read_write_profile();

}  // namespace custom_planner
