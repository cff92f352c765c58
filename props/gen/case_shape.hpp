#pragma once
// The shape of a generated case: which features are switched on, the workgroup size, how many
// workgroups, how many fence segments and fixpoint passes. Internal to the case generator.
//
// Rules enforced here:
// - Every allowed feature is on with chance 1/2, forced ones always; with a divergence limit the
//   generator draws how many divergence features (0..limit), then which, distinct and uniformly.
// - The workgroup size is a power of two up to max_workgroup_size (x only: {wg, 1, 1}); several
//   workgroups only with SeveralWorkgroups (or grid y / z > 1 with MultiDimGrid).
// - MultiDimGrid (ignored under GridAuto, which needs a one-dimensional workgroup, G121): the same
//   2^k lanes spread over x, y and z, a grid of up to 2 × 2 in y and z, x shrunk so that there are
//   at most max(max_workgroups, 2) workgroups: the invocation count stays within today's bound.
// - Features that need a fence (locals / workgroup memory across a fence, return before a fence,
//   write-only multi-segment, rw written unread) get at least two segments.
// - A fixpoint (2 or 3 passes) only with Fixpoint or FixpointPartialOutputs; 4..8 with LongFixpoint.

#include "props/gen/generator_state.hpp"

namespace gridcheck::props::casegen {

/// Draws s.features from s.config (the first draws of every case).
void draw_features(GeneratorState& s);

/// Draws wg, groups, segments and fixpoint (needs s.features) and sets the workgroup size.
void draw_shape(GeneratorState& s);

}  // namespace gridcheck::props::casegen
