#include "props/mutants/killing_case.hpp"

#include <fmt/format.h>

#include <vector>

#include "planner/profile.hpp"
#include "props/mutants/megakernel_contract.hpp"
#include "props/mutants/mutant_catalogue.hpp"
#include "props/mutants/mutant_pair.hpp"
#include "props/oracle/expectations.hpp"

namespace gridcheck::props {

KillingCaseCheck check_killing_case(const ir::Case& c, const ir::ResourceLimits& limits) {
  KillingCaseCheck check;
  const Mutant* mutant = find_mutant(meta_value(c, "mutant"));
  const planner::Profile* base = planner::find_profile(meta_value(c, "base"));
  if (mutant == nullptr || base == nullptr) {
    check.message = fmt::format("meta mutant '{}' / base '{}' is not a known mutant and profile",
                                meta_value(c, "mutant"), meta_value(c, "base"));
    return check;
  }
  check.usable = true;
  const planner::Profile profile = make_mutant(*mutant, *base);
  if (const std::string edges = meta_value(c, "contract_edges");
      !edges.empty() || !meta_value(c, "contract_waves").empty()) {
    const auto waves = parse_size(meta_value(c, "contract_waves"));
    const auto parsed = parse_edges(edges);
    if (!waves || !parsed) {
      check.usable = false;
      check.message = "meta contract_waves / contract_edges do not parse";
      return check;
    }
    const DagCase d{*waves, *parsed};
    const auto base_bad = dag_violation(*base, d);
    const auto mutant_bad = dag_violation(profile, d);
    check.base_passes = !base_bad;
    check.mutant_fails = mutant_bad.has_value();
    check.message = base_bad ? "base: " + *base_bad : mutant_bad ? *mutant_bad : "the mutant keeps every docs/vyre-0.7.2.md §7.1 guarantee";
    return check;
  }
  const PairReport pair = evaluate_pair(c, *base, profile, limits);
  std::vector<std::string> base_failures;
  for (const ExpectationFailure& f : check_expectations(c, pair.base)) base_failures.push_back(f.message);
  const std::size_t live_launches = split_launches(pair.base, base->name);
  const auto recorded = parse_size(meta_value(c, "base_launches"));
  if (recorded && *recorded != live_launches)
    base_failures.push_back(fmt::format("the base makes {} launches, {} recorded", live_launches, *recorded));
  if (!plan_is_deterministic(*base, c.program)) base_failures.push_back("the base's plan is not deterministic");
  check.base_passes = base_failures.empty();
  const auto why = tell_apart(c, pair, recorded.value_or(live_launches), profile);
  check.mutant_fails = why.has_value();
  if (!check.base_passes)
    check.message = "base: " + base_failures.front();
  else
    check.message = why ? *why : "the mutant passes the base's expectations";
  return check;
}

}  // namespace gridcheck::props
