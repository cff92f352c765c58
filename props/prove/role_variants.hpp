#pragma once
// Buffer-role rules the proof (props/role_proof.hpp) is run on, each a RoleRule value derived from
// production code rather than a copy of it:
//   vyre-0.7.2  planner::vyre_0_7_2_role (the system under test)
//   0.6.1       docs/vyre-0.7.2.md#h1: vyre's rule with the accumulator row removed and `is_output` kept on the
//               last segment when it writes the buffer (`is_output = src.is_output && w && k == n-1`),
//               built by wrapping vyre_0_7_2_role (the H2 "recall = 0" bug)
//   sound       planner::sound_role
// plus rules made from an explicit table (mutated tables in the cross-validation test).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "planner/profile.hpp"
#include "planner/role_rule.hpp"

namespace gridcheck::props {

/// The 0.6.1 (H1) rule, from the vyre 0.7.2 rule by replacing the one member that H2 changed.
planner::RoleDecision vyre_0_6_1_role(const planner::RoleFacts& facts);

/// The profile `base` with its role rule replaced and renamed (a rule variant, not a source patch).
planner::Profile with_role_rule(const planner::Profile& base, std::string name, planner::RoleRule rule);

/// "vyre-0.7.2", "0.6.1", "sound"; nullopt when unknown.
std::optional<planner::RoleRule> role_rule_by_name(std::string_view name);
std::vector<std::string_view> role_rule_names();

/// A profile by name: the registered ones (planner::find_profile) plus "sound-roles"; nullptr when
/// unknown.
const planner::Profile* profile_by_name(std::string_view name);
std::vector<std::string> known_profile_names();

/// Key of a RoleFacts value (all fields), for tables indexed by facts.
std::uint32_t facts_key(const planner::RoleFacts& facts);

/// A rule that looks its decision up in `table` (facts_key -> decision); facts missing from the
/// table fall back to `fallback`. The table's decisions keep their `reason` strings alive only if
/// they point at static storage (use the reasons the production rules return, or literals).
planner::RoleRule rule_from_table(std::map<std::uint32_t, planner::RoleDecision> table, planner::RoleRule fallback);

}  // namespace gridcheck::props
