#include "props/reduce/reduce_signature.hpp"

#include <gtest/gtest.h>

namespace gridcheck::props {
namespace {

OracleOutcome outcome(std::string oracle, std::string profile, ir::Verdict verdict, std::string detail = "") {
  OracleOutcome o;
  o.oracle = std::move(oracle);
  o.profile = std::move(profile);
  o.verdict = verdict;
  o.detail = std::move(detail);
  return o;
}

TEST(Props_ReduceSignature, NamesRAndEveryOutcomeVerdictAndDetailNotMessages) {
  CaseReport r;
  r.outcomes.push_back(outcome("H-cpu", "sound", ir::Verdict::Match));
  r.outcomes.push_back(outcome("H-gpu", "sound", ir::Verdict::Diverge, "lowering/driver"));
  r.outcomes.back().message = "1 values differed at byte 0";
  EXPECT_EQ(reduce_signature(r), "R:ok|H-cpu/sound:match:|H-gpu/sound:diverge:lowering/driver");
  CaseReport moved = r;
  moved.outcomes.back().message = "3 values differed at byte 8";
  EXPECT_EQ(reduce_signature(moved), reduce_signature(r));
  CaseReport planner = r;
  planner.outcomes.back().detail = "planner";
  EXPECT_NE(reduce_signature(planner), reduce_signature(r));
}

TEST(Props_ReduceSignature, GpuOnlyDivergenceNeedsHCpuToMatchUnderTheSameProfile) {
  CaseReport r;
  r.outcomes.push_back(outcome("H-cpu", "sound", ir::Verdict::Match));
  r.outcomes.push_back(outcome("H-gpu", "sound", ir::Verdict::Diverge, "lowering/driver"));
  EXPECT_TRUE(has_gpu_only_divergence(r));
}

TEST(Props_ReduceSignature, NoGpuOnlyDivergenceWhenHGpuMatchesOrHCpuDivergesToo) {
  CaseReport agree;
  agree.outcomes.push_back(outcome("H-cpu", "sound", ir::Verdict::Match));
  agree.outcomes.push_back(outcome("H-gpu", "sound", ir::Verdict::Match));
  EXPECT_FALSE(has_gpu_only_divergence(agree));
  CaseReport planner_bug;
  planner_bug.outcomes.push_back(outcome("H-cpu", "vyre-0.7.2", ir::Verdict::Diverge, "planner"));
  planner_bug.outcomes.push_back(outcome("H-gpu", "vyre-0.7.2", ir::Verdict::Diverge, "planner"));
  EXPECT_FALSE(has_gpu_only_divergence(planner_bug));
  // H-cpu matches under another profile only: not the same split, so not GPU-only.
  CaseReport crossed;
  crossed.outcomes.push_back(outcome("H-cpu", "sound", ir::Verdict::Match));
  crossed.outcomes.push_back(outcome("H-cpu", "vyre-0.7.2", ir::Verdict::Diverge, "planner"));
  crossed.outcomes.push_back(outcome("H-gpu", "vyre-0.7.2", ir::Verdict::Diverge, "planner"));
  EXPECT_FALSE(has_gpu_only_divergence(crossed));
  CaseReport backend_error;
  backend_error.outcomes.push_back(outcome("H-cpu", "sound", ir::Verdict::Match));
  backend_error.outcomes.push_back(outcome("H-gpu", "sound", ir::Verdict::Error, "backend"));
  EXPECT_FALSE(has_gpu_only_divergence(backend_error));
}

}  // namespace
}  // namespace gridcheck::props
