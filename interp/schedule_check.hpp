#pragma once
// R's verdict over two schedules, the one `run`, `diff`, `replay` and every oracle give a case
// (docs/semantics.md §3.6). A race-free program gives the same bytes under every schedule, so
// after a run under `options.schedule` that is ok, R runs the case again under the counterpart
// schedule (reversed for in-order, in-order for any other) and compares every output byte.
// Different bytes mean the case has no single reference result:
//   - with the race detector on and silent, the order of atomics decided them: status
//     `nondeterministic` (R044);
//   - with the detector off, the likeliest cause is a race: status `race` (R044 as well).
// When the detector is on, finished (no R041) and is silent, and every atomic of the program
// commutes (atomics_commute), the second run is skipped: such a program gives the same bytes under
// every schedule (docs/semantics.md §3.6).

#include "interp/interpreter.hpp"
#include "ir/case.hpp"

namespace gridcheck::interp {

/// run_case under `options.schedule`, then the schedule comparison above.
RunResult run_case_on_two_schedules(const ir::Case& c, const RunOptions& options);

/// The two halves of run_case_on_two_schedules after `first = run_case(c, options)`: whether the
/// second run happens (first is ok and not proven schedule-independent), and the second run with
/// the comparison, which returns `first` or `first` made nondeterministic / race (R044).
bool needs_second_schedule(const ir::Case& c, const RunOptions& options, const RunResult& first);
RunResult compare_with_counterpart(const ir::Case& c, const RunOptions& options, RunResult first);

/// The schedule `run_case_on_two_schedules` compares `s` with.
Schedule counterpart_of(const Schedule& s);

/// True when no order of the program's atomics can change its bytes in a run that the race
/// detector finds race-free: every atomic is an add, or, and, xor, min or max on a u32 buffer
/// (commutative and associative), its old value is bound by a `let` to a local that no expression
/// reads, and the atomics that may reach one element use one operator (all atomics of a buffer,
/// or, where every index is a u32 literal, all atomics of that index). A program without atomics
/// qualifies. (A silent detector means no plain access meets an atomic write of the same element
/// unordered, so only the atomics' order could differ between schedules, and it changes nothing.)
bool atomics_commute(const ir::Program& program);

}  // namespace gridcheck::interp
