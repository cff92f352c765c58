// GpuBackend shared by worker threads (`fuzz -j N` with H-gpu, docs/campaigns.md "Several jobs"), on
// lavapipe: several threads evaluating cases through one backend get, case by case, the verdicts one
// thread gets, also while the caches are started over under them (a small max_pipelines), and the
// start-over happens although the other workers stay busy. On lavapipe, which compiles on its queue's one
// thread, a backend for several workers opens a device per worker and each worker keeps its device.

#include "props/oracle/gpu_backend.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "gpu/compute_pipeline.hpp"
#include "gpu/vulkan_context.hpp"
#include "ir/diagnostic.hpp"
#include "props/gen/case_generator.hpp"
#include "props/gen/choice_source.hpp"
#include "props/gen/features.hpp"
#include "props/oracle/case_report.hpp"
#include "props/oracle/evaluate_case.hpp"

namespace gridcheck::props {
namespace {

constexpr std::size_t kCases = 16;
constexpr unsigned kThreads = 4;

std::vector<ir::Case> cases() {
  GeneratorConfig config;
  config.allowed = kAllFeatures;
  config.max_divergence_features = 0;
  std::vector<ir::Case> out;
  for (std::size_t i = 0; i < kCases; ++i) {
    ChoiceSource choices = ChoiceSource::random(1000 + i);
    out.push_back(generate_case(choices, config).test_case);
  }
  return out;
}

/// Every outcome of a case as one line: oracle, profile, verdict, detail.
std::string verdicts(const CaseReport& r) {
  std::string out = std::string(ir::name_of(r.reference_verdict));
  for (const OracleOutcome& o : r.outcomes)
    out += " | " + o.oracle + " " + o.profile + " " + std::string(ir::name_of(o.verdict)) + " " + o.detail;
  return out;
}

std::unique_ptr<GpuBackend> open_backend(std::size_t max_pipelines, unsigned concurrency = 1) {
  GpuBackendOptions options;
  options.pipeline_cache = false;
  options.max_pipelines = max_pipelines;
  options.concurrency = concurrency;
  auto backend = GpuBackend::open(options);
  EXPECT_TRUE(backend) << ir::render(backend.diagnostics());
  return backend ? std::move(backend).value() : nullptr;
}

/// The verdict lines of `cs` evaluated through `backend` by `threads` workers (case i on worker i % threads).
std::vector<std::string> evaluate(GpuBackend& backend, const std::vector<ir::Case>& cs, unsigned threads) {
  OracleOptions options;
  backend.attach(options);
  std::vector<std::string> out(cs.size());
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (std::size_t i = t; i < cs.size(); i += threads) out[i] = verdicts(evaluate_case(cs[i], options));
    });
  for (std::thread& w : workers) w.join();
  return out;
}

TEST(Gpu_Backend, WorkersOnOneDeviceGetOneWorkersVerdictsAlsoWhileTheCachesStartOver) {
  const std::vector<ir::Case> cs = cases();
  const std::unique_ptr<GpuBackend> one = open_backend(GpuBackend::kMaxPipelines);
  const std::unique_ptr<GpuBackend> many = open_backend(3, kThreads);
  ASSERT_TRUE(one && many);
  const std::vector<std::string> alone = evaluate(*one, cs, 1);
  const std::vector<std::string> together = evaluate(*many, cs, kThreads);
  for (std::size_t i = 0; i < cs.size(); ++i) {
    EXPECT_EQ(alone[i], together[i]) << "case " << i;
    EXPECT_NE(alone[i].find("H-gpu"), std::string::npos) << "case " << i << " did not run on H-gpu: " << alone[i];
    EXPECT_EQ(alone[i].find(" error "), std::string::npos) << "case " << i << ": " << alone[i];
  }
  EXPECT_GT(many->trims(), 0u);  // the caches were started over while other workers ran
  EXPECT_LE(many->lanes(), kThreads);
  EXPECT_EQ(one->trims(), 0u);  // the twin: under the default cap nothing is started over
  EXPECT_EQ(one->lanes(), 1u);
}

/// Evaluates `c` on a thread of its own and returns its verdict line.
std::string evaluate_on_new_thread(const ir::Case& c, const OracleOptions& options) {
  std::string out;
  std::thread([&] { out = verdicts(evaluate_case(c, options)); }).join();
  return out;
}

TEST(Gpu_Backend, WhereTheDriverCompilesOnItsQueueThreadEachWorkerGetsADeviceOfItsOwnAndKeepsIt) {
  const ir::Case c = cases().front();
  const std::unique_ptr<GpuBackend> backend = open_backend(GpuBackend::kMaxPipelines, 2);
  ASSERT_TRUE(backend);
  OracleOptions options;
  backend->attach(options);
  const bool per_worker = gpu::compiles_on_queue_thread(backend->context().info());
  EXPECT_EQ(backend->devices(), per_worker ? 2u : 1u);
  const std::string first = verdicts(evaluate_case(c, options));  // host and resident mode, this thread
  const std::uint64_t made = backend->cache_stats().pipelines;
  ASSERT_GT(made, 0u);
  EXPECT_EQ(backend->context().pipelines().misses(), made);  // both modes on this thread's device, the first
  EXPECT_EQ(evaluate_on_new_thread(c, options), first);
  // Another worker: on lavapipe its own device, which makes the pipelines again; elsewhere the same device's.
  EXPECT_EQ(backend->cache_stats().pipelines, per_worker ? 2 * made : made);
  EXPECT_EQ(backend->context().pipelines().misses(), made);
  EXPECT_EQ(verdicts(evaluate_case(c, options)), first);  // this thread again: its device has them all
  EXPECT_EQ(backend->cache_stats().pipelines, per_worker ? 2 * made : made);
}

TEST(Gpu_Backend, ABackendForOneWorkerOpensOneDevice) {
  const ir::Case c = cases().front();
  const std::unique_ptr<GpuBackend> backend = open_backend(GpuBackend::kMaxPipelines, 1);
  ASSERT_TRUE(backend);
  OracleOptions options;
  backend->attach(options);
  EXPECT_EQ(backend->devices(), 1u);
  const std::string first = verdicts(evaluate_case(c, options));
  const std::uint64_t made = backend->cache_stats().pipelines;
  EXPECT_EQ(evaluate_on_new_thread(c, options), first);
  EXPECT_EQ(backend->cache_stats().pipelines, made);  // the other thread found them all
}

}  // namespace
}  // namespace gridcheck::props
