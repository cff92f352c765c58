#include "props/gen/stmt_generator.hpp"

#include <string>
#include <utility>

namespace gridcheck::props::casegen {

using ir::BinOp;
using ir::E;
using ir::S;
using ir::ScalarType;

std::vector<S> StmtGenerator::nested_body(const Context& ctx) {
  s_.scopes.emplace_back();
  std::vector<S> body;
  for (std::uint32_t i = 0, n = 1 + c_.below(3); i < n; ++i) generate_op(ctx, body);
  s_.scopes.pop_back();
  return body;
}

S StmtGenerator::uniform_if(const Context& ctx) {
  Context inner = ctx;
  inner.depth++;
  const E cond = ex_.uniform_condition(/*grid_uniform=*/false);
  std::vector<S> then_body = nested_body(inner);
  std::vector<S> else_body = on(Feature::FencedElse) || c_.chance(1, 3) ? nested_body(inner) : std::vector<S>{};
  return b_.if_(cond, then_body, else_body);
}

S StmtGenerator::invocation_if(const Context& ctx) {
  Context inner = ctx;
  inner.depth++;
  inner.divergent = true;
  const E cond = ex_.invocation_condition(ctx);
  std::vector<S> then_body = nested_body(inner);
  return b_.if_(cond, then_body);
}

S StmtGenerator::uniform_loop(const Context& ctx) {
  Context inner = ctx;
  inner.depth++;
  inner.in_loop = true;
  const std::string var = s_.fresh("i");
  const std::uint32_t count = c_.below(4);
  const std::uint32_t start = on(Feature::LoopStart) ? c_.below(4) : 0;  // iterations first, then the start
  s_.scopes.emplace_back();
  s_.scopes.back().push_back(LocalInfo{var, ScalarType::U32, s_.segment, false, false, true});
  std::vector<S> body = nested_body(inner);
  s_.scopes.pop_back();
  return b_.loop(var, b_.u32(start), b_.u32(start + count), body);
}

S StmtGenerator::invocation_loop(const Context& ctx) {
  Context inner = ctx;
  inner.depth++;
  inner.in_loop = true;
  inner.divergent = true;
  const std::string var = s_.fresh("i");
  const E count = b_.bin(BinOp::Mod, ex_.expr(ScalarType::U32, ctx, 1).e, b_.u32(4));
  const std::uint32_t start = on(Feature::LoopStart) ? c_.below(4) : 0;
  s_.scopes.emplace_back();
  s_.scopes.back().push_back(LocalInfo{var, ScalarType::U32, s_.segment, false, false, true});
  std::vector<S> body = nested_body(inner);
  s_.scopes.pop_back();
  if (start == 0) return b_.loop(var, b_.u32(0), count, body);
  return b_.loop(var, b_.u32(start), b_.u32(start) + count, body);
}

std::vector<S> StmtGenerator::fenced_body(const Context& ctx, std::uint32_t fences) {
  std::vector<S> body = nested_body(ctx);
  for (std::uint32_t f = 0; f < fences; ++f) {
    body.push_back(b_.grid_sync());
    std::vector<S> tail = nested_body(ctx);
    body.insert(body.end(), tail.begin(), tail.end());
  }
  return body;
}

S StmtGenerator::fenced_construct() {
  const bool as_loop = c_.chance(1, 2);
  Context inner;
  inner.depth = 1;
  inner.in_loop = as_loop;
  if (as_loop && on(Feature::LoopStart)) {
    // loop i in start..start+n { body; grid_sync; let v = in[i + own]; tail }: literal bounds (sound unrolls
    // them), the loop variable read after the fence as an index term, and as a value through scopes.
    const std::string var = s_.fresh("i");
    const std::uint32_t start = 1 + c_.below(3);
    const std::uint32_t iterations = 1 + c_.below(2);
    s_.scopes.emplace_back();
    s_.scopes.back().push_back(LocalInfo{var, ScalarType::U32, s_.segment, false, false, true});
    std::vector<S> body = nested_body(inner);
    body.push_back(b_.grid_sync());
    const BufferInfo& in = s_.buffers[s_.index_of_role(Role::Input)];
    s_.loaded[s_.index_of_role(Role::Input)] = true;
    LocalInfo read{s_.fresh("v"), in.element, s_.segment, false, false, false};
    body.push_back(b_.let(read.name, b_.load(in.buf, b_.var(var) + ex_.own_slot(0))));
    s_.scopes.back().push_back(read);
    std::vector<S> tail = nested_body(inner);
    body.insert(body.end(), tail.begin(), tail.end());
    s_.scopes.pop_back();
    return b_.loop(var, b_.u32(start), b_.u32(start + iterations), body);
  }
  if (!as_loop && on(Feature::FencedElse)) {
    // if c { ..n fences.. } else { ..m fences.. } with n ≠ m, n in 1..2, m in 0..2; c grid-uniform and
    // often false (literals, workgroup counts, buffer lengths).
    const std::uint32_t then_fences = 1 + c_.below(2);
    const std::uint32_t pick = c_.below(2);
    const std::uint32_t else_fences = pick >= then_fences ? pick + 1 : pick;
    std::vector<S> then_body = fenced_body(inner, then_fences);
    std::vector<S> else_body = fenced_body(inner, else_fences);
    if (c_.chance(1, 2)) std::swap(then_body, else_body);  // the fence-free branch may be the taken one
    return b_.if_(ex_.uniform_condition(/*grid_uniform=*/true), then_body, else_body);
  }
  std::vector<S> body = fenced_body(inner, 1);
  if (!as_loop) return b_.if_(ex_.uniform_condition(/*grid_uniform=*/true), body);
  return b_.loop(s_.fresh("i"), b_.u32(0), b_.u32(1 + c_.below(2)), body);
}
}  // namespace gridcheck::props::casegen
