#pragma once
// The RapidCheck side of a choice-stream generator (header-only: only tests and users link
// RapidCheck). A value is drawn by `decode` from ChoiceSource::random with a RapidCheck-supplied
// seed; the recorded choice vector is what RapidCheck shrinks (remove chunks, then lower single
// choices towards 0, as props/reduce/choice_shrinker does), each candidate decoded again through
// ChoiceSource::replay. Any choice vector decodes to a valid value of the generator's domain, so
// shrinking never leaves it. gen_case (case_rapidcheck.hpp) and gen_dag (dag_rapidcheck.hpp) are
// this with their generators.

#include <rapidcheck.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "props/gen/choice_source.hpp"

namespace gridcheck::props {

/// `decode(ChoiceSource&, const std::vector<std::uint32_t>& choices)` builds a value from the
/// source; `choices` is the vector being replayed (empty on the first, random draw).
template <typename Decode>
auto gen_from_choices(Decode decode) {
  using Value = std::invoke_result_t<Decode&, ChoiceSource&, const std::vector<std::uint32_t>&>;
  return rc::Gen<Value>([decode](const rc::Random& random, int) {
    rc::Random r = random;
    ChoiceSource source = ChoiceSource::random(r.next());
    (void)decode(source, std::vector<std::uint32_t>{});
    auto shrinks = [](const std::vector<std::uint32_t>& v) {
      return rc::seq::concat(rc::shrink::removeChunks(v), rc::shrink::eachElement(v, [](std::uint32_t x) {
                               return rc::shrink::towards<std::uint32_t>(x, 0);
                             }));
    };
    return rc::shrinkable::map(rc::shrinkable::shrinkRecur(source.recorded(), shrinks),
                               [decode](const std::vector<std::uint32_t>& choices) {
                                 ChoiceSource replay = ChoiceSource::replay(choices);
                                 return decode(replay, choices);
                               });
  });
}

}  // namespace gridcheck::props
