#pragma once
// Which choices generate case `index` of a program campaign (docs/campaigns.md#inputs-per-program).

#include <cstdint>

#include "props/gen/case_generator.hpp"
#include "props/gen/choice_source.hpp"

namespace gridcheck::props {

/// The choices that generate case `index` of a campaign with seed `campaign_seed`: fresh ones from
/// case_seed(campaign_seed, index); with `inputs_per_program` K > 1, the program of case
/// index - index % K (its choices up to its inputs, replayed) followed by fresh choices for the inputs,
/// so that K consecutive cases share one program, and with it every compiled shader, and differ in their
/// input bytes. Case index - index % K itself, and every case when K = 1, is the plain campaign's case.
ChoiceSource campaign_case_choices(std::uint64_t campaign_seed, std::uint64_t index, std::uint32_t inputs_per_program,
                                   const GeneratorConfig& generator);

}  // namespace gridcheck::props
