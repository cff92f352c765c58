#pragma once
// RapidCheck generator for wave DAGs (header-only: only tests link RapidCheck), shrinking through
// the choice stream (choice_rapidcheck.hpp). Every candidate decodes to a valid, acyclic,
// race-free DAG (props/gen/dag_generator.hpp), so shrinking never leaves the domain.
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
#include "props/gen/choice_rapidcheck.hpp"
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
     << ir::print(*g.dag.base);
}

inline rc::Gen<GeneratedDag> gen_dag(DagConfig config = {}) {
  return gen_from_choices([config](ChoiceSource& source, const std::vector<std::uint32_t>& choices) {
    return GeneratedDag{choices, generate_dag(source, config)};
  });
}

}  // namespace gridcheck::props
