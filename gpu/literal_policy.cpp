#include "gpu/literal_policy.hpp"

#include "ir/ice.hpp"

namespace gridcheck::gpu {

std::string_view name_of(LiteralPolicy policy) {
  switch (policy) {
    case LiteralPolicy::HiddenValues: return "hidden";
    case LiteralPolicy::HiddenAll: return "all-hidden";
    case LiteralPolicy::Visible: return "visible";
  }
  GC_ICE("unknown literal policy");
}

std::optional<LiteralPolicy> literal_policy_named(std::string_view name) {
  for (LiteralPolicy p : {LiteralPolicy::HiddenValues, LiteralPolicy::HiddenAll, LiteralPolicy::Visible})
    if (name_of(p) == name) return p;
  return std::nullopt;
}

}  // namespace gridcheck::gpu
