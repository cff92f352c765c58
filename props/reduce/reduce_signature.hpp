#pragma once
// What `gridcheck reduce` keeps while it shrinks a case (docs/reduce.md#signature): the case's
// failure signature over the executions the report holds, and the precondition of
// `reduce --backend gpu` (a GPU-only divergence).

#include <string>
#include <string_view>

#include "props/oracle/case_report.hpp"

namespace gridcheck::props {

/// "R:VERDICT" followed by "|ORACLE/PROFILE:VERDICT:DETAIL" for every outcome in report order, for
/// example "R:ok|H-cpu/sound:match:|H-gpu/sound:diverge:lowering/driver". DETAIL is the blame of a
/// divergence ("planner", "lowering/driver") or a code; messages, bytes and locations are not part
/// of it, so a reduction may move a divergence to another element or buffer.
std::string reduce_signature(const CaseReport& report);

/// True when, under some profile, the GPU oracle `gpu_name` diverges from R while H-cpu matches R
/// (both outcomes present; a divergence between H-gpu's host and resident modes counts when H-cpu
/// matches). This is a lowering or driver fault, never the planner's.
bool has_gpu_only_divergence(const CaseReport& report, std::string_view gpu_name = "H-gpu");

}  // namespace gridcheck::props
