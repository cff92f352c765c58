#include "interp/schedule_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "ir/grid_inference.hpp"
#include "ir/walk.hpp"

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

bool commutes(ir::AtomicOp op) {
  switch (op) {
    case ir::AtomicOp::Add:
    case ir::AtomicOp::Or:
    case ir::AtomicOp::And:
    case ir::AtomicOp::Xor:
    case ir::AtomicOp::Min:
    case ir::AtomicOp::Max: return true;
    case ir::AtomicOp::Exchange:
    case ir::AtomicOp::CompareExchange: return false;
  }
  return false;
}

}  // namespace

bool atomics_commute(const ir::Program& p) {
  // No atomic anywhere in the arena (reachable or not): nothing can depend on their order. A flat scan,
  // much cheaper than the walks below; it only short-cuts their answer for such programs.
  bool arena_has_atomic = false;
  for (std::uint32_t i = 0; i < p.expr_count() && !arena_has_atomic; ++i)
    arena_has_atomic = p.expr(ir::ExprId{i}).kind == ir::ExprKind::Atomic;
  if (!arena_has_atomic) return true;
  // Atomics bound directly by a let (their old value goes to that local), and whether such a local is
  // read. Both lists are small (usually empty): sorted vectors, searched while walking the expressions.
  std::vector<std::uint32_t> bound;  // ExprId of such atomics
  std::vector<std::uint32_t> bound_locals;
  bool any_atomic = false, other_atomic = false, bound_local_read = false;
  ir::for_each_stmt(p, p.entry(), [&](ir::StmtId id) {
    const ir::Stmt& s = p.stmt(id);
    if (s.kind == ir::StmtKind::Let && s.exprs[0] != ir::kNoExpr && p.expr(s.exprs[0]).kind == ir::ExprKind::Atomic) {
      bound.push_back(ir::index_of(s.exprs[0]));
      bound_locals.push_back(ir::index_of(s.names[0]));
    }
  });
  std::sort(bound.begin(), bound.end());
  std::sort(bound_locals.begin(), bound_locals.end());
  // Per buffer: the operators at u32-literal indices and at any other index.
  struct Ops {
    std::map<std::uint32_t, std::set<ir::AtomicOp>> at_literal;
    std::set<ir::AtomicOp> all;
    bool other_index = false;
  };
  std::map<std::uint32_t, Ops> ops;
  ir::for_each_expr_in(p, p.entry(), [&](ir::ExprId id) {
    const ir::Expr& e = p.expr(id);
    if (e.kind == ir::ExprKind::Var && !bound_locals.empty() &&
        std::binary_search(bound_locals.begin(), bound_locals.end(), ir::index_of(e.var())))
      bound_local_read = true;
    if (e.kind != ir::ExprKind::Atomic) return;
    any_atomic = true;
    const ir::BufferDecl* decl = p.find_buffer(e.buffer());
    const bool is_bound = std::binary_search(bound.begin(), bound.end(), ir::index_of(id));
    if (!commutes(e.atomic_op()) || !is_bound || decl == nullptr || decl->element != ir::ScalarType::U32) {
      other_atomic = true;
      return;
    }
    Ops& o = ops[ir::index_of(e.buffer())];
    o.all.insert(e.atomic_op());
    const ir::Expr& index = p.expr(e.operands[0]);
    if (index.kind == ir::ExprKind::LitU32)
      o.at_literal[index.payload].insert(e.atomic_op());
    else
      o.other_index = true;
  });
  if (!any_atomic) return true;
  if (other_atomic) return false;
  if (bound_local_read) return false;
  for (const auto& [buffer, o] : ops) {
    if (o.all.size() == 1) continue;
    if (o.other_index) return false;
    for (const auto& [index, at] : o.at_literal)
      if (at.size() > 1) return false;
  }
  return true;
}

Schedule counterpart_of(const Schedule& s) {
  return s.kind == Schedule::Kind::InOrder ? Schedule::reversed() : Schedule::in_order();
}

bool needs_second_schedule(const ir::Case& c, const RunOptions& options, const RunResult& first) {
  if (!first.ok()) return false;
  const bool detector_complete =
      std::none_of(first.diagnostics.begin(), first.diagnostics.end(), [](const ir::Diagnostic& d) { return d.code == "R041"; });
  return !(options.detect_races && detector_complete && atomics_commute(c.program));
}

RunResult run_case_on_two_schedules(const ir::Case& c, const RunOptions& options) {
  RunResult first = run_case(c, options);
  if (!needs_second_schedule(c, options, first)) return first;
  return compare_with_counterpart(c, options, std::move(first));
}

RunResult compare_with_counterpart(const ir::Case& c, const RunOptions& options, RunResult first) {
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
