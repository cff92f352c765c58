#include "props/reduce/case_reducer.hpp"

#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/typecheck.hpp"
#include "ir/walk.hpp"
#include "props/gen/case_generator.hpp"

namespace gridcheck::props {
namespace {

using ir::ScalarType;

/// True when the program stores the literal `value` into some buffer (a synthetic "bug").
bool stores_literal(const ir::Program& p, std::uint32_t value) {
  bool found = false;
  ir::for_each_stmt(p, p.entry(), [&](ir::StmtId id) {
    const ir::Stmt& s = p.stmt(id);
    if (s.kind != ir::StmtKind::Store) return;
    const ir::Expr& v = p.expr(s.exprs[1]);
    if (v.kind == ir::ExprKind::LitU32 && v.payload == value) found = true;
  });
  return found;
}

TEST(Props_Reducer, ShrinksToTheOneInterestingStatement) {
  ir::Builder b({4, 1, 1});
  auto in = b.read("in", 0, ScalarType::U32, 16);
  auto out = b.output("out", 1, ScalarType::U32, 16);
  auto unused = b.read("unused", 2, ScalarType::U32, 4);
  (void)unused;
  ir::Case c;
  c.program = b.wrapped({
      b.let("a", b.load(in, b.gid()) + b.u32(3)),
      b.if_(b.gid() < b.u32(2), {b.store(out, b.gid(), b.var("a")), b.store(out, b.u32(1), b.u32(7))}),
      b.grid_sync(),
      b.loop("i", b.u32(0), b.u32(4), {b.store(out, b.var("i"), b.var("a") * b.u32(2))}),
  });
  c.grid = std::array<std::uint32_t, 3>{4, 1, 1};
  c.fixpoint = 3;
  auto interesting = [](const ir::Case& k) { return ir::typecheck(k.program).ok() && stores_literal(k.program, 7); };
  ASSERT_TRUE(interesting(c));
  ReduceStats stats;
  const ir::Case reduced = reduce_case(c, interesting, {}, &stats);
  EXPECT_TRUE(interesting(reduced));
  EXPECT_EQ(statement_count(reduced.program), 2u);  // the root region and the store
  EXPECT_EQ(reduced.fixpoint, 1u);
  EXPECT_EQ(*reduced.grid, (std::array<std::uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(reduced.program.workgroup_size()[0], 1u);
  EXPECT_EQ(reduced.program.find_buffer("unused"), nullptr);
  EXPECT_GT(stats.accepted, 3u);
}

TEST(Props_Reducer, NeverReturnsAnUninterestingCase) {
  GeneratorConfig config;
  config.allowed = kAllFeatures;
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    ChoiceSource random = ChoiceSource::random(seed);
    const ir::Case c = generate_case(random, config).test_case;
    // "Interesting": still typechecks and still has at least 3 statements.
    auto interesting = [](const ir::Case& k) {
      return ir::typecheck(k.program).ok() && statement_count(k.program) >= 3;
    };
    if (!interesting(c)) continue;
    const ir::Case reduced = reduce_case(c, interesting);
    EXPECT_TRUE(interesting(reduced)) << seed;
    EXPECT_EQ(statement_count(reduced.program), 3u) << seed;
  }
}

TEST(Props_Reducer, RespectsTheAttemptBudget) {
  ir::Builder b;
  auto out = b.output("out", 0, ScalarType::U32, 4);
  ir::Case c;
  c.program = b.wrapped({b.store(out, b.u32(0), b.u32(1)), b.store(out, b.u32(1), b.u32(2))});
  int calls = 0;
  auto interesting = [&](const ir::Case&) {
    ++calls;
    return false;
  };
  ReduceOptions options;
  options.max_attempts = 5;
  ReduceStats stats;
  reduce_case(c, interesting, options, &stats);
  EXPECT_EQ(calls, 5);
  EXPECT_TRUE(stats.budget_exhausted);
}

}  // namespace
}  // namespace gridcheck::props
