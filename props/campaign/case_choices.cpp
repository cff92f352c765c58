#include "props/campaign/case_choices.hpp"

#include <vector>

#include "props/campaign/campaign.hpp"

namespace gridcheck::props {

ChoiceSource campaign_case_choices(std::uint64_t campaign_seed, std::uint64_t index, std::uint32_t inputs_per_program,
                                   const GeneratorConfig& generator) {
  const std::uint64_t seed = case_seed(campaign_seed, index);
  const std::uint64_t variant = inputs_per_program > 1 ? index % inputs_per_program : 0;
  if (variant == 0) return ChoiceSource::random(seed);
  ChoiceSource base = ChoiceSource::random(case_seed(campaign_seed, index - variant));
  const GeneratedCase program = generate_case(base, generator);
  const std::vector<std::uint32_t>& recorded = base.recorded();
  return ChoiceSource::replay_then_random(
      std::vector<std::uint32_t>(recorded.begin(), recorded.begin() + static_cast<std::ptrdiff_t>(program.program_draws)),
      seed);
}

}  // namespace gridcheck::props
