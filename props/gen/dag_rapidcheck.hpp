#pragma once
// RapidCheck generator for wave DAGs (header-only: only tests link RapidCheck). A DAG is drawn
// from ChoiceSource::random with a RapidCheck-supplied seed; the recorded choice vector is what
// RapidCheck shrinks (remove chunks, lower single choices towards 0, as props/choice_shrinker
// does), each candidate decoded again through ChoiceSource::replay. Every candidate decodes to a
// valid, acyclic, race-free DAG (props/dag_generator.hpp), so shrinking never leaves the domain.
//
//   RC_GTEST_PROP(Props_Dag, Something, ()) {
//     const props::GeneratedDag g = *props::gen_dag();
//     ... g.dag ...
//   }

#include <rapidcheck.h>

#include <cstdint>
#include <ostream>
#include <vector>

#include "ir/text/printer.hpp"
#include "props/gen/dag_generator.hpp"

namespace gridcheck::props {

/// A DAG with the choices that decode to it (replay: ChoiceSource::replay(choices)).
struct GeneratedDag {
  std::vector<std::uint32_t> choices;
  WaveDag dag;
};

/// How RapidCheck prints a counterexample: choices, edges, and the waves as a program.
inline void showValue(const GeneratedDag& g, std::ostream& os) {
  os << g.choices.size() << " choices, " << g.dag.wave_count() << " waves, edges \"" << format_edges(g.dag.edges)
     << "\" (" << g.dag.shape << ")\n"
     << ir::print(g.dag.base);
}

inline rc::Gen<GeneratedDag> gen_dag(DagConfig config = {}) {
  return rc::Gen<GeneratedDag>([config](const rc::Random& random, int) {
    rc::Random r = random;
    ChoiceSource source = ChoiceSource::random(r.next());
    (void)generate_dag(source, config);
    auto shrinks = [](const std::vector<std::uint32_t>& v) {
      return rc::seq::concat(rc::shrink::removeChunks(v), rc::shrink::eachElement(v, [](std::uint32_t x) {
                               return rc::shrink::towards<std::uint32_t>(x, 0);
                             }));
    };
    return rc::shrinkable::map(rc::shrinkable::shrinkRecur(source.recorded(), shrinks),
                               [config](const std::vector<std::uint32_t>& choices) {
                                 ChoiceSource replay = ChoiceSource::replay(choices);
                                 return GeneratedDag{choices, generate_dag(replay, config)};
                               });
  });
}

}  // namespace gridcheck::props
