#include "props/mutants/mutant_catalogue.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "ir/ice.hpp"
#include "props/mutants/catalogue_builders.hpp"

namespace gridcheck::props {

using planner::Profile;

std::string_view name_of(MutantKind kind) {
  switch (kind) {
    case MutantKind::RoleRule: return "role";
    case MutantKind::Split: return "split";
    case MutantKind::Table: return "table";
    case MutantKind::Dispatch: return "dispatch";
    case MutantKind::Megakernel: return "megakernel";
  }
  GC_ICE("unknown MutantKind");
}

namespace {

std::vector<Mutant> build_catalogue() {
  std::vector<Mutant> all;
  catalogue_builders::add_historic_mutants(all);
  catalogue_builders::add_own_mutants(all);
  catalogue_builders::add_shape_mutants(all);
  catalogue_builders::add_megakernel_mutants(all);
  return all;
}

}  // namespace

const std::vector<Mutant>& mutant_catalogue() {
  static const std::vector<Mutant> catalogue = build_catalogue();
  return catalogue;
}

const Mutant* find_mutant(std::string_view name) {
  for (const Mutant& m : mutant_catalogue())
    if (m.name == name) return &m;
  return nullptr;
}

const Profile& mutant_base(const Mutant& mutant) {
  if (mutant.base == MutantBase::SoundOrVyre)
    if (const Profile* sound = planner::find_profile("sound")) return *sound;
  return planner::vyre_0_7_2();
}

Profile make_mutant(const Mutant& mutant, const Profile& base) {
  Profile p = mutant.apply(base);
  p.name = mutant.name;
  p.description = fmt::format("mutant of {}: {}", base.name, mutant.description);
  return p;
}

Profile renamed(const Profile& profile, std::string name) {
  Profile p = profile;
  p.name = std::move(name);
  return p;
}

}  // namespace gridcheck::props
