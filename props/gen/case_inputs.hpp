#pragma once
// Inputs of a generated case. Internal to the case generator.
//
// Rule enforced here: every buffer that starts from caller bytes (input, read_write, uniform,
// runtime-sized) gets one random input, in declaration order, with a 64-bit seed drawn as two
// words; a runtime-sized buffer gets N (invocations) elements. Other buffers get no input.

#include "ir/case.hpp"
#include "props/gen/generator_state.hpp"

namespace gridcheck::props::casegen {

/// Appends the inputs of s.buffers to tc.inputs (the last draws of every case).
void add_inputs(GeneratorState& s, ir::Case& tc);

}  // namespace gridcheck::props::casegen
