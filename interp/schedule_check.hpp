#pragma once
// R's verdict over two schedules, the one `run`, `diff`, `replay` and every oracle give a case
// (docs/semantics.md §3.6). A race-free program gives the same bytes under every schedule, so
// after a run under `options.schedule` that is ok, R runs the case again under the counterpart
// schedule (reversed for in-order, in-order for any other) and compares every output byte.
// Different bytes mean the case has no single reference result:
//   - with the race detector on and silent, the order of atomics decided them: status
//     `nondeterministic` (R044);
//   - with the detector off, the likeliest cause is a race: status `race` (R044 as well).
// When the detector is on, is silent and the program has no atomic, the second run is skipped: a
// program without data races and without atomics is deterministic.

#include "interp/interpreter.hpp"
#include "ir/case.hpp"

namespace gridcheck::interp {

/// run_case under `options.schedule`, then the schedule comparison above.
RunResult run_case_on_two_schedules(const ir::Case& c, const RunOptions& options);

/// The schedule `run_case_on_two_schedules` compares `s` with.
Schedule counterpart_of(const Schedule& s);

}  // namespace gridcheck::interp
