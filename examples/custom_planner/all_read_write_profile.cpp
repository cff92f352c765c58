#include "all_read_write_profile.hpp"

#include <stdexcept>
#include <string>

#include "ir/diagnostic.hpp"
#include "planner/sound_role_rule.hpp"

namespace custom_planner {

namespace planner = gridcheck::planner;
namespace ir = gridcheck::ir;

planner::RoleDecision all_read_write_role(const planner::RoleFacts& facts) {
  if (facts.access == ir::BufferAccess::Workgroup) return planner::sound_role(facts);
  planner::RoleDecision d;
  d.disposition = planner::Disposition::Rewrite;
  d.access = ir::BufferAccess::ReadWrite;
  d.kind = planner::rederived_kind(ir::BufferAccess::ReadWrite);
  d.is_output = false;  // final outputs are reassembled by name, as in every built-in profile
  d.live_out = false;
  d.reason = "example: every buffer read_write";
  return d;
}

planner::Profile all_read_write_profile() {
  planner::Profile p = planner::sound();  // copy a built-in, replace one rule, rename
  p.name = std::string(kProfileName);
  p.description = "sound with every storage buffer read_write in every segment (examples/custom_planner)";
  p.table.role = all_read_write_role;
  return p;
}

const planner::Profile& register_all_read_write_profile() {
  static const planner::Profile* registered = [] {
    ir::Result<const planner::Profile*> r = planner::register_profile(all_read_write_profile());
    if (!r.ok()) throw std::runtime_error(ir::render(r.diagnostics()));
    return r.value();
  }();
  return *registered;
}

}  // namespace custom_planner
