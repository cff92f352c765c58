#pragma once
// Random test cases that are valid and race-free by construction (docs/DESIGN.md §6).
//
// Every decision is drawn from a ChoiceSource, and *any* sequence of choices decodes to a valid,
// race-free case, so shrinking the recorded choices keeps cases valid. The construction rules:
// - Storage: per segment (fence interval) the generator first fixes which buffers are written
//   plainly and which are updated atomically. A plainly written buffer is written and read only at
//   the invocation's own slots (gid + k·N, N = invocations in the grid, gid linearised over x, y, z
//   with MultiDimGrid); other buffers are read at
//   any index. Atomic buffers use commutative operators whose old value is unused and are not read
//   in that interval.
// - Workgroup memory: written at own slots (lid + k·wg, guarded by `< count` where WorkgroupTail
//   leaves a tail); cross-lane reads happen only between a
//   pair of workgroup barriers in workgroup-uniform control flow.
// - Barriers appear only in workgroup-uniform control flow; fences only at the top level, or under
//   grid-uniform control flow with FenceUnderControlFlow.
// - With only benign features, no construct of docs/vyre-0.7.2.md §10 is generated (see features.hpp), so the
//   vyre-0.7.2 split must equal the reference on these cases.
//
// Each rule is enforced, and spelled out in detail, in the header of one internal piece (all in
// props/gen/, sharing the per-case state of generator_state.hpp): case_shape.hpp (features, shape,
// segments), case_storage.hpp (buffers, write sets, read obligations), expr_generator.hpp (loads,
// own slots, locals, conditions), stmt_generator.hpp (stores, atomics, exchanges, barriers,
// returns, fences, nesting, obligations) and case_inputs.hpp (inputs). case_generator.cpp wires
// them in the order in which they draw choices.

#include <cstdint>

#include "ir/case.hpp"
#include "props/gen/choice_source.hpp"
#include "props/gen/features.hpp"

namespace gridcheck::props {

struct GeneratorConfig {
  FeatureMask allowed = kBenignFeatures;  ///< features that may be switched on (each with chance 1/2)
  FeatureMask forced = 0;                 ///< features switched on in every case (subset of allowed)
  /// At most this many divergence features (kDivergenceFeatures) per case, chosen uniformly among
  /// the allowed ones (0 = no limit: each is on with chance 1/2). Small values keep failures to one
  /// or two docs/vyre-0.7.2.md §10 classes, which makes shrinking and deduplication faster.
  std::uint32_t max_divergence_features = 2;
  std::uint32_t max_segments = 4;
  std::uint32_t max_ops_per_segment = 6;
  std::uint32_t max_nesting = 2;
  std::uint32_t max_expr_depth = 3;
  std::uint32_t max_workgroups = 4;
  std::uint32_t max_workgroup_size = 64;  ///< a power of two
};

struct GeneratedCase {
  ir::Case test_case;
  FeatureMask features = 0;  ///< the features switched on for this case
  /// How many choices decided the program; the ones after them decide only its inputs (the last draws).
  std::size_t program_draws = 0;
};

GeneratedCase generate_case(ChoiceSource& choices, const GeneratorConfig& config);

}  // namespace gridcheck::props
