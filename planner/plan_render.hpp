#pragma once
// A split plan for people and for tools: text (one block per segment: inputs, outputs, let prefix,
// the buffer table with the rule that decided each row, the omitted buffers, optionally the IR) and
// JSON (the same, plus every row's facts and decision).
//
// The planner does not depend on the IR printer (ir/text); a caller that wants the segment IR
// passes a printer, e.g. `RenderOptions{[](const ir::Program& p) { return ir::print(p); }}`.

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/program.hpp"
#include "planner/split_plan.hpp"

namespace gridcheck::planner {

struct RenderOptions {
  /// Renders a segment program as IR text; empty: the IR is left out.
  std::function<std::string(const ir::Program&)> print_program;
};

std::string render_plan_text(const SplitPlan& plan, const RenderOptions& options = {});

/// Schema: {profile, scratch[{name, element, words_per_invocation, words_per_workgroup, purpose}],
/// contains_fence, fence_count, caller_inputs[], final_outputs[], segments[{index,
/// inputs[], outputs[], let_prefix[], buffers[{name, binding, access, kind, element, count,
/// is_output, pipeline_live_out, output_byte_range: [begin, end] | null, consumes_input,
/// produces_output, rule}], roles[{name, facts{...}, decision{disposition, access?, kind?,
/// is_output?, live_out?, rule}}], ir?}]}.
nlohmann::json plan_to_json(const SplitPlan& plan, const RenderOptions& options = {});

}  // namespace gridcheck::planner
