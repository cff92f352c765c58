#include "interp/schedule_check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ir/grid_inference.hpp"

namespace gridcheck::interp {
namespace {

constexpr const char* kScheduleDependent = "R044";

/// The first word where two runs' outputs differ, as a sentence, or empty when they are equal.
std::string first_difference(const RunResult& a, const RunResult& b, const Schedule& sa, const Schedule& sb) {
  if (!b.ok()) return fmt::format("the run under the {} schedule ends {} instead", sb.to_string(), name_of(b.status));
  for (std::size_t i = 0; i < a.outputs.size() && i < b.outputs.size(); ++i) {
    const Bytes& x = a.outputs[i].bytes;
    const Bytes& y = b.outputs[i].bytes;
    if (x == y) continue;
    std::size_t w = 0;
    while ((w + 1) * 4 <= x.size() && (w + 1) * 4 <= y.size() &&
           std::equal(x.begin() + w * 4, x.begin() + w * 4 + 4, y.begin() + w * 4))
      ++w;
    auto word = [w](const Bytes& v) -> std::string {
      if ((w + 1) * 4 > v.size()) return "absent";
      std::uint32_t u = 0;
      for (int k = 0; k < 4; ++k) u |= std::uint32_t{v[w * 4 + k]} << (8 * k);
      return fmt::format("0x{:08x}", u);
    };
    return fmt::format("'{}'[{}] is {} under the {} schedule and {} under the {} schedule", a.outputs[i].name, w,
                       word(x), sa.to_string(), word(y), sb.to_string());
  }
  return {};
}

}  // namespace

Schedule counterpart_of(const Schedule& s) {
  return s.kind == Schedule::Kind::InOrder ? Schedule::reversed() : Schedule::in_order();
}

RunResult run_case_on_two_schedules(const ir::Case& c, const RunOptions& options) {
  RunResult first = run_case(c, options);
  if (!first.ok()) return first;
  const bool detector_complete =
      std::none_of(first.diagnostics.begin(), first.diagnostics.end(), [](const ir::Diagnostic& d) { return d.code == "R041"; });
  if (options.detect_races && detector_complete && !ir::has_atomics(c.program)) return first;
  RunOptions again = options;
  again.schedule = counterpart_of(options.schedule);
  again.detect_races = false;  // the first run already looked for races
  again.observers.clear();     // the caller's observers watch the run whose result is returned
  const RunResult second = run_case(c, again);
  const std::string difference = first_difference(first, second, options.schedule, again.schedule);
  if (difference.empty()) return first;
  first.status = options.detect_races ? RunStatus::Nondeterministic : RunStatus::Race;
  first.diagnostics.error(
      kScheduleDependent, options.file.empty() ? c.file : options.file, {},
      fmt::format("R's outputs depend on the schedule: {}; {}", difference,
                  options.detect_races ? "the race detector found no data race, so the order of atomics decides "
                                         "them and the case has no single reference result"
                                       : "the race detector was off; the likeliest cause is a data race"));
  return first;
}

}  // namespace gridcheck::interp
