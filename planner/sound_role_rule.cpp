#include "planner/sound_role_rule.hpp"

#include "ir/abi.hpp"

namespace gridcheck::planner {

namespace {

RoleDecision rewrite_as(ir::BufferAccess access, std::string_view reason) {
  RoleDecision d;
  d.disposition = Disposition::Rewrite;
  d.access = access;
  d.kind = rederived_kind(access);
  d.is_output = false;
  d.live_out = false;
  d.reason = reason;
  return d;
}

bool is_final_output(const RoleFacts& f) {
  ir::BufferDecl source;
  source.access = f.access;
  source.is_output = f.is_output;
  source.pipeline_live_out = f.live_out;
  return ir::is_dispatch_output(source);
}

}  // namespace

RoleDecision sound_role(const RoleFacts& f) {
  if (f.access == ir::BufferAccess::Workgroup) return vyre_0_7_2_role(f);
  if (f.writes) return rewrite_as(ir::BufferAccess::ReadWrite, "written: consumes the live value");
  if (f.reads)
    return rewrite_as(f.access == ir::BufferAccess::Uniform ? ir::BufferAccess::Uniform : ir::BufferAccess::ReadOnly,
                      "read only");
  if (f.last_segment && is_final_output(f))
    return rewrite_as(ir::BufferAccess::ReadWrite, "final output kept live in the last segment");
  return RoleDecision{Disposition::Omit, {}, {}, false, false, "not referenced"};
}

const Profile& sound_roles_profile() {
  static const Profile profile = [] {
    Profile p = vyre_0_7_2();
    p.name = "sound-roles";
    p.description = "vyre-0.7.2 with the proved sound buffer-role rule (planner/sound_role_rule.hpp)";
    p.table.role = sound_role;
    return p;
  }();
  return profile;
}

}  // namespace gridcheck::planner
