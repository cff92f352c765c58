// Oracles are plug-ins: evaluate_case runs R, then exactly the oracles it is given, in order, each
// seeing R's result; the built-in list is the split oracle then R-waves.
#include "props/oracle/oracle_plugin.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/builder.hpp"
#include "props/oracle/evaluate_case.hpp"

namespace gridcheck::props {
namespace {

using ir::ScalarType;

/// Appends one outcome named `name` that records what it saw of R.
class RecordingOracle final : public Oracle {
 public:
  explicit RecordingOracle(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  void evaluate(const ir::Case&, const OracleOptions&, CaseReport& report) const override {
    OracleOutcome o;
    o.oracle = name_;
    o.verdict = ir::Verdict::Match;
    o.message = std::string(ir::name_of(report.reference_verdict)) + " " +
                std::to_string(report.reference.outputs.size()) + " after " + std::to_string(report.outcomes.size());
    report.outcomes.push_back(std::move(o));
  }

 private:
  std::string name_;
};

ir::Case one_fence_case() {
  ir::Builder b;
  auto out = b.output("out", 0, ScalarType::U32, 4);
  ir::Case c;
  c.program = b.wrapped({b.store(out, b.gid(), b.u32(7)), b.grid_sync(), b.store(out, b.gid(), b.u32(8))});
  c.grid = {4, 1, 1};
  return c;
}

TEST(Props_OraclePlugins, TheBuiltinsAreTheSplitOracleThenConvergenceThenRWaves) {
  std::vector<std::string_view> names;
  for (const Oracle* o : builtin_oracles()) names.push_back(o->name());
  EXPECT_EQ(names, (std::vector<std::string_view>{"H-cpu", "convergence", "R-waves"}));
}

TEST(Props_OraclePlugins, GivenOraclesReplaceTheBuiltinsAndRunInOrderAfterR) {
  const RecordingOracle first("first"), second("second");
  OracleOptions options;
  options.oracles = {&first, &second};
  const CaseReport report = evaluate_case(one_fence_case(), options);
  EXPECT_EQ(report.reference_verdict, ir::Verdict::Ok);
  ASSERT_EQ(report.outcomes.size(), 2u);  // no H-cpu: only the given oracles ran
  EXPECT_EQ(report.outcomes[0].oracle, "first");
  EXPECT_EQ(report.outcomes[0].message, "ok 1 after 0");  // R had run, with its one output
  EXPECT_EQ(report.outcomes[1].oracle, "second");
  EXPECT_EQ(report.outcomes[1].message, "ok 1 after 1");  // and it sees the first oracle's outcome
}

TEST(Props_OraclePlugins, WithoutGivenOraclesTheBuiltinsRun) {
  const CaseReport report = evaluate_case(one_fence_case(), OracleOptions{});
  ASSERT_EQ(report.outcomes.size(), 1u);  // H-cpu under the default profile; R-waves skips a non-DAG case
  EXPECT_EQ(report.outcomes[0].oracle, "H-cpu");
  EXPECT_EQ(report.outcomes[0].verdict, ir::Verdict::Match) << report.outcomes[0].message;
}

}  // namespace
}  // namespace gridcheck::props
