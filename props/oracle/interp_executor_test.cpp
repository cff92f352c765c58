#include "props/oracle/interp_executor.hpp"

#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/typecheck.hpp"

namespace gridcheck::props {
namespace {

using ir::ScalarType;

// H-cpu's executor as the split oracle makes it for a profile whose plans validated their segments:
// launched programs only type-checked, recognised by address.
InterpExecutor typecheck_only() {
  interp::RunOptions options;
  options.validate = false;
  return InterpExecutor(options, ProgramIdentity::Address);
}

planner::LaunchConfig one_workgroup() {
  planner::LaunchConfig config;
  config.grid_override = std::array<std::uint32_t, 3>{1, 1, 1};
  return config;
}

ir::Program stores_seven() {
  ir::Builder b;
  auto out = b.output("out", 0, ScalarType::U32, 4);
  return b.wrapped({b.store(out, b.u32(0), b.u32(7))});
}

ir::Program type_error() {  // u32 + i32: ir::typecheck refuses it
  ir::Builder b;
  auto out = b.output("out", 0, ScalarType::U32, 4);
  return b.wrapped({b.let("x", b.u32(1) + b.i32(1)), b.store(out, b.u32(0), b.u32(7))});
}

TEST(Props_InterpExecutor, AnAdoptedTypeTableRunsTheProgramAsTypeCheckingDoes) {
  const ir::Program p = stores_seven();
  const ir::TypeTable types = ir::typecheck(p).value();
  InterpExecutor adopted = typecheck_only();
  adopted.adopt_checked(p, types);
  InterpExecutor plain = typecheck_only();
  std::vector<planner::Bytes> with_table, without;
  ASSERT_FALSE(adopted.launch(p, {}, one_workgroup(), with_table).has_value());
  ASSERT_FALSE(plain.launch(p, {}, one_workgroup(), without).has_value());
  ASSERT_EQ(with_table.size(), 1u);
  EXPECT_EQ(with_table, without);
  EXPECT_EQ(with_table[0][0], 7u);
}

TEST(Props_InterpExecutor, AProgramWithoutAnAdoptedTableIsStillTypeChecked) {
  // The table of one program says nothing about another: the launch of the second type-checks it
  // (and refuses it), whether or not the executor adopted tables for other programs.
  const ir::Program valid = stores_seven();
  const ir::TypeTable types = ir::typecheck(valid).value();
  const ir::Program invalid = type_error();
  InterpExecutor executor = typecheck_only();
  executor.adopt_checked(valid, types);
  std::vector<planner::Bytes> outputs;
  const auto error = executor.launch(invalid, {}, one_workgroup(), outputs);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind, planner::LaunchErrorKind::InvalidProgram);
  EXPECT_FALSE(executor.launch(valid, {}, one_workgroup(), outputs).has_value()) << "the twin: the adopted one runs";
}

}  // namespace
}  // namespace gridcheck::props
