// The driver of the case generator: draws the case shape and storage plan, generates the segments
// separated by grid syncs, then the inputs, and names the case. The pieces (all internal):
// - case_shape: features, workgroup / grid shape, segments, fixpoint;
// - case_storage: buffer declarations with roles, per-segment write sets and read obligations;
// - stmt_generator (+ stmt_control_flow, stmt_segment): operations, nesting, segments;
// - expr_generator: literals, leaves, loads, typed expressions, conditions, own-slot indexing;
// - case_inputs: caller bytes for the buffers that need them.
// The order of the steps below is the order of draws from the ChoiceSource; keep it.

#include "props/gen/case_generator.hpp"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "ir/builder.hpp"
#include "ir/equality.hpp"
#include "props/gen/case_inputs.hpp"
#include "props/gen/case_shape.hpp"
#include "props/gen/case_storage.hpp"
#include "props/gen/expr_generator.hpp"
#include "props/gen/generator_state.hpp"
#include "props/gen/stmt_generator.hpp"

namespace gridcheck::props {

GeneratedCase generate_case(ChoiceSource& choices, const GeneratorConfig& config) {
  casegen::GeneratorState s(choices, config);
  casegen::draw_features(s);
  casegen::draw_shape(s);
  casegen::declare_buffers(s);
  casegen::draw_write_sets(s);
  casegen::ExprGenerator exprs(s);
  casegen::StmtGenerator stmts(s, exprs);
  std::vector<ir::S> entry;
  for (s.segment = 0; s.segment < s.segments; ++s.segment) {
    if (s.segment > 0) entry.push_back(s.b.grid_sync());
    std::vector<ir::S> ops = stmts.generate_segment();
    entry.insert(entry.end(), ops.begin(), ops.end());
  }
  GeneratedCase out;
  out.features = s.features;
  ir::Case& tc = out.test_case;
  tc.program = s.b.take_wrapped(entry);  // the builder is not used again
  if (!s.on(Feature::GridAuto)) tc.grid = s.grid;
  tc.fixpoint = s.fixpoint;
  // The generator indexes out of bounds and reads workgroup memory it has not written on purpose:
  // both are defined in the IR (docs/semantics.md §3.4) and the split must keep that behaviour.
  tc.oob = ir::MemoryCheck::Defined;
  tc.uninit = ir::MemoryCheck::Defined;
  out.program_draws = s.c.draws();
  casegen::add_inputs(s, tc);
  tc.name = fmt::format("gen-{:016x}", ir::content_hash(tc.program));
  tc.description = "generated";
  tc.meta.emplace_back("features", describe(s.features));
  return out;
}

}  // namespace gridcheck::props
