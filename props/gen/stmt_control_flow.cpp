#include "props/gen/stmt_generator.hpp"

#include <string>

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
  std::vector<S> else_body = c_.chance(1, 3) ? nested_body(inner) : std::vector<S>{};
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
  const E to = b_.u32(c_.below(4));
  s_.scopes.emplace_back();
  s_.scopes.back().push_back(LocalInfo{var, ScalarType::U32, s_.segment, false, false, true});
  std::vector<S> body = nested_body(inner);
  s_.scopes.pop_back();
  return b_.loop(var, b_.u32(0), to, body);
}

S StmtGenerator::invocation_loop(const Context& ctx) {
  Context inner = ctx;
  inner.depth++;
  inner.in_loop = true;
  inner.divergent = true;
  const std::string var = s_.fresh("i");
  const E to = b_.bin(BinOp::Mod, ex_.expr(ScalarType::U32, ctx, 1).e, b_.u32(4));
  s_.scopes.emplace_back();
  s_.scopes.back().push_back(LocalInfo{var, ScalarType::U32, s_.segment, false, false, true});
  std::vector<S> body = nested_body(inner);
  s_.scopes.pop_back();
  return b_.loop(var, b_.u32(0), to, body);
}

S StmtGenerator::fenced_construct() {
  const bool as_loop = c_.chance(1, 2);
  Context inner;
  inner.depth = 1;
  inner.in_loop = as_loop;
  std::vector<S> body = nested_body(inner);
  body.push_back(b_.grid_sync());
  std::vector<S> tail = nested_body(inner);
  body.insert(body.end(), tail.begin(), tail.end());
  if (!as_loop) return b_.if_(ex_.uniform_condition(/*grid_uniform=*/true), body);
  return b_.loop(s_.fresh("i"), b_.u32(0), b_.u32(1 + c_.below(2)), body);
}
}  // namespace gridcheck::props::casegen
