#include "props/gen/stmt_generator.hpp"

#include <array>
#include <string>

namespace gridcheck::props::casegen {

using ir::BinOp;
using ir::E;
using ir::S;
using ir::ScalarType;

StmtGenerator::StmtGenerator(GeneratorState& s, ExprGenerator& ex)
    : s_(s), c_(s.c), b_(s.b), config_(s.config), ex_(ex) {}

StmtGenerator::OpKinds StmtGenerator::available(const Context& ctx) const {
  OpKinds kinds;  // every kind below at most once
  if (any_written()) kinds.push_back(OpKind::Store);
  if (on(Feature::Locals)) kinds.push_back(OpKind::Let);
  if (on(Feature::Locals) && assign_target(ctx).has_value()) kinds.push_back(OpKind::Assign);
  if (any_atomic()) kinds.push_back(OpKind::Atomic);
  const bool nest = ctx.depth < config_.max_nesting;
  if (!ctx.divergent && !ctx.in_exchange && s_.has_role(Role::Workgroup) && on(Feature::WorkgroupMemory))
    kinds.push_back(OpKind::Exchange);
  if (nest && on(Feature::UniformControlFlow)) {
    kinds.push_back(OpKind::UniformIf);
    kinds.push_back(OpKind::UniformLoop);
  }
  if (nest && (on(Feature::InvocationControlFlow) || on(Feature::PartialWrites))) kinds.push_back(OpKind::InvocationIf);
  if (nest && on(Feature::InvocationControlFlow)) kinds.push_back(OpKind::InvocationLoop);
  if (returns_allowed(ctx)) kinds.push_back(OpKind::ReturnIf);
  if (!ctx.divergent && !ctx.in_exchange && on(Feature::UniformControlFlow)) kinds.push_back(OpKind::Barrier);
  return kinds;
}

bool StmtGenerator::returns_allowed(const Context& ctx) const {
  if (ctx.in_loop || ctx.in_exchange) return false;
  if (on(Feature::ReturnBeforeFence)) return true;
  return on(Feature::Returns) && s_.segment == s_.segments - 1;
}

bool StmtGenerator::plainly_writable(std::size_t i) const {
  return s_.written[s_.segment][i] && s_.buffers[i].role != Role::Converging;
}

bool StmtGenerator::any_written() const {
  for (std::size_t i = 0; i < s_.buffers.size(); ++i)
    if (plainly_writable(i)) return true;
  return false;
}
bool StmtGenerator::any_atomic() const {
  for (std::size_t i = 0; i < s_.buffers.size(); ++i)
    if (s_.atomic[s_.segment][i]) return true;
  return false;
}

void StmtGenerator::generate_op(const Context& ctx, std::vector<S>& out) {
  const OpKinds kinds = available(ctx);
  if (kinds.count == 0) {
    out.push_back(b_.let(s_.fresh("v"), b_.u32(c_.below(4))));
    return;
  }
  switch (kinds.kinds[c_.below(kinds.count)]) {
    case OpKind::Store: out.push_back(store_op(pick_written(), ctx)); return;
    case OpKind::Let: out.push_back(let_op(ctx)); return;
    case OpKind::Assign: out.push_back(assign_op(ctx)); return;
    case OpKind::Atomic: out.push_back(atomic_op(pick_atomic())); return;
    case OpKind::Exchange: exchange_op(ctx, out); return;
    case OpKind::UniformIf: out.push_back(uniform_if(ctx)); return;
    case OpKind::InvocationIf: out.push_back(invocation_if(ctx)); return;
    case OpKind::UniformLoop: out.push_back(uniform_loop(ctx)); return;
    case OpKind::InvocationLoop: out.push_back(invocation_loop(ctx)); return;
    case OpKind::ReturnIf: out.push_back(b_.if_(ex_.invocation_condition(ctx), {b_.ret()})); return;
    case OpKind::Barrier: out.push_back(b_.barrier()); return;
  }
  GC_ICE("unhandled op kind");
}

// The candidates are counted, one is drawn by its rank, and the buffers are walked again to find it:
// the same draw and the same buffer as indexing a list of them, without building the list.
template <typename Candidate>
std::size_t StmtGenerator::pick_buffer(Candidate candidate, const char* none) {
  std::uint32_t count = 0;
  for (std::size_t i = 0; i < s_.buffers.size(); ++i) count += candidate(i) ? 1 : 0;
  std::uint32_t rank = c_.below(count);
  for (std::size_t i = 0; i < s_.buffers.size(); ++i)
    if (candidate(i) && rank-- == 0) return i;
  GC_ICE(none);
}
std::size_t StmtGenerator::pick_written() {
  return pick_buffer([this](std::size_t i) { return plainly_writable(i); }, "pick_written without a plainly writable buffer");
}
std::size_t StmtGenerator::pick_atomic() {
  return pick_buffer([this](std::size_t i) -> bool { return s_.atomic[s_.segment][i]; }, "pick_atomic without an atomic buffer");
}

S StmtGenerator::store_op(std::size_t i, const Context& ctx) {
  const BufferInfo& info = s_.buffers[i];
  s_.stored[i] = true;
  const E index = ex_.own_slot(c_.below(info.slots));
  const E value = ex_.expr(info.element, ctx, 0).e;
  return b_.store(info.buf, index, value);
}

S StmtGenerator::atomic_op(std::size_t i) {
  static constexpr std::array<ir::AtomicOp, 6> kCommutative = {ir::AtomicOp::Add, ir::AtomicOp::Or,
                                                               ir::AtomicOp::And, ir::AtomicOp::Xor,
                                                               ir::AtomicOp::Min, ir::AtomicOp::Max};
  const BufferInfo& info = s_.buffers[i];
  s_.stored[i] = true;
  // Different operators on one element do not commute with each other (add then and != and then
  // add), so each element has one fixed operator.
  const std::uint32_t element = c_.below(s_.invocations * info.slots + 1);  // may be out of bounds: a no-op
  const ir::AtomicOp op = kCommutative[element % kCommutative.size()];
  const E index = b_.u32(element);
  const E value = ex_.expr(ScalarType::U32, Context{}, 1).e;
  // The old value is bound to a local that is never read: its value depends on the schedule.
  return b_.let(s_.fresh("old"), b_.atomic(op, info.buf, index, value));
}

S StmtGenerator::let_op(const Context& ctx) {
  const ScalarType type = ex_.draw_value_type();
  Typed value = ex_.expr(type, ctx, 0);
  LocalInfo local;
  local.name = s_.fresh("v");
  local.type = type;
  local.segment = s_.segment;
  local.pure = value.pure;
  local.assignable = c_.chance(1, 3);
  S s = b_.let(local.name, value.e);
  s_.scopes.back().push_back(local);
  return s;
}

std::optional<LocalInfo> StmtGenerator::assign_target(const Context& ctx) const {
  (void)ctx;
  for (auto scope = s_.scopes.rbegin(); scope != s_.scopes.rend(); ++scope)
    for (const LocalInfo& l : *scope)
      if (l.assignable && !l.loop_var) return l;
  if (on(Feature::LocalsAcrossFence))
    for (const LocalInfo& l : s_.root_locals)
      if (l.assignable) return l;
  return std::nullopt;
}

S StmtGenerator::assign_op(const Context& ctx) {
  std::vector<LocalInfo> targets;
  for (const auto& scope : s_.scopes)
    for (const LocalInfo& l : scope)
      if (l.assignable && !l.loop_var) targets.push_back(l);
  if (on(Feature::LocalsAcrossFence))
    for (const LocalInfo& l : s_.root_locals)
      if (l.assignable) targets.push_back(l);
  const LocalInfo target = targets[c_.below(static_cast<std::uint32_t>(targets.size()))];
  return b_.assign(target.name, ex_.expr(target.type, ctx, 0).e);
}

void StmtGenerator::exchange_op(const Context& ctx, std::vector<S>& out) {
  const BufferInfo& sh = s_.buffers[s_.index_of_role(Role::Workgroup)];
  LocalInfo result;
  result.name = s_.fresh("x");
  result.type = sh.element;
  result.segment = s_.segment;
  result.assignable = true;  // assigned below, so never re-executable across a fence
  out.push_back(b_.let(result.name, ex_.zero(sh.element)));
  const E value = ex_.expr(sh.element, ctx, 1).e;  // the value is drawn before the slot
  out.push_back(workgroup_store(sh, c_.below(sh.slots), value));
  s_.workgroup_written = true;
  out.push_back(b_.barrier());
  Context inner = ctx;
  inner.in_exchange = true;
  const E any_lane = b_.bin(BinOp::Mod, ex_.expr(ScalarType::U32, inner, 1).e, b_.u32(sh.count));
  out.push_back(b_.assign(result.name, b_.load(sh.buf, any_lane)));
  out.push_back(b_.barrier());
  s_.scopes.back().push_back(result);
}

S StmtGenerator::workgroup_store(const BufferInfo& sh, std::uint32_t k, E value) {
  const S store = b_.store(sh.buf, ex_.own_workgroup_slot(k), value);
  if ((k + 1) * s_.wg <= sh.count) return store;  // every lane's slot exists
  return b_.if_(ex_.own_workgroup_slot(k) < b_.u32(sh.count), {store});  // the tail: lid + k·wg < count
}
}  // namespace gridcheck::props::casegen
