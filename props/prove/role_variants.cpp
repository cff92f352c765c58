#include "props/prove/role_variants.hpp"

#include "planner/sound_role_rule.hpp"

namespace gridcheck::props {

using planner::FirstWriter;
using planner::RoleDecision;
using planner::RoleFacts;

RoleDecision vyre_0_6_1_role(const RoleFacts& f) {
  // Without the accumulator row: hide "an earlier segment wrote it" from vyre's rule, the only row
  // that looks at first_writer.
  RoleFacts g = f;
  if (g.writes && g.first_writer == FirstWriter::Earlier) g.first_writer = FirstWriter::This;
  RoleDecision d = planner::vyre_0_7_2_role(g);
  if (d.disposition == planner::Disposition::Rewrite) d.is_output = f.is_output && f.writes && f.last_segment;
  return d;
}

planner::Profile with_role_rule(const planner::Profile& base, std::string name, planner::RoleRule rule) {
  planner::Profile p = base;
  p.name = std::move(name);
  p.description = base.description + " (role rule replaced)";
  p.table.role = std::move(rule);
  return p;
}

std::optional<planner::RoleRule> role_rule_by_name(std::string_view name) {
  if (name == "vyre-0.7.2") return planner::RoleRule(planner::vyre_0_7_2_role);
  if (name == "0.6.1") return planner::RoleRule(vyre_0_6_1_role);
  if (name == "sound") return planner::RoleRule(planner::sound_role);
  return std::nullopt;
}

std::vector<std::string_view> role_rule_names() { return {"vyre-0.7.2", "0.6.1", "sound"}; }

const planner::Profile* profile_by_name(std::string_view name) {
  if (const planner::Profile* p = planner::find_profile(name)) return p;
  if (name == planner::sound_roles_profile().name) return &planner::sound_roles_profile();
  return nullptr;
}

std::vector<std::string> known_profile_names() {
  std::vector<std::string> names;
  for (std::string_view n : planner::profile_names()) names.emplace_back(n);
  bool has_sound_roles = false;
  for (const std::string& n : names) has_sound_roles = has_sound_roles || n == planner::sound_roles_profile().name;
  if (!has_sound_roles) names.push_back(planner::sound_roles_profile().name);
  return names;
}

std::uint32_t facts_key(const RoleFacts& f) {
  std::uint32_t key = static_cast<std::uint32_t>(f.access);
  key = key * 2 + (f.is_output ? 1 : 0);
  key = key * 2 + (f.live_out ? 1 : 0);
  key = key * 2 + (f.reads ? 1 : 0);
  key = key * 2 + (f.writes ? 1 : 0);
  key = key * 4 + static_cast<std::uint32_t>(f.first_writer);
  key = key * 2 + (f.last_segment ? 1 : 0);
  key = key * 2 + (f.read_later ? 1 : 0);
  key = key * 2 + (f.written_later ? 1 : 0);
  return key;
}

planner::RoleRule rule_from_table(std::map<std::uint32_t, RoleDecision> table, planner::RoleRule fallback) {
  return [table = std::move(table), fallback = std::move(fallback)](const RoleFacts& f) {
    if (const auto it = table.find(facts_key(f)); it != table.end()) return it->second;
    return fallback(f);
  };
}

}  // namespace gridcheck::props
