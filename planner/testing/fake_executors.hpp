#pragma once
// Test-only executors for planner_tests (not part of gridcheck_planner).
//
// MiniExecutor interprets a tiny subset of the IR so the split's threading can be checked end to
// end without interp/: u32 scalars only; Let/Assign/Store/If/Loop/Block/Region/Return; workgroup
// barriers are no-ops (invocations run one after another to completion); Load/BufLen/ids/literals,
// the integer binary operators, Select and u32 atomics. A GridSync, any other node or a let that
// shadows is an InvalidProgram error. Inputs and outputs follow the Executor contract exactly.
//
// LambdaExecutor applies a function to the launch (the "adds 1" fakes of vyre's tests).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "planner/executor.hpp"

namespace gridcheck::planner::testing {

struct RecordedLaunch {
  ir::Program program;
  std::vector<Bytes> inputs;
  LaunchConfig config;
};

class MiniExecutor final : public Executor {
 public:
  std::string name() const override { return "mini"; }
  std::optional<LaunchError> launch(const ir::Program& program, std::span<const Bytes* const> inputs,
                                    const LaunchConfig& config, std::vector<Bytes>& outputs) override;
  /// Workgroups launched when the config has no grid_override.
  std::uint32_t default_workgroups = 1;
  std::vector<RecordedLaunch> launches;
};

using LaunchFn = std::function<std::optional<LaunchError>(const ir::Program&, std::span<const Bytes* const>,
                                                          const LaunchConfig&, std::vector<Bytes>&)>;

class LambdaExecutor final : public Executor {
 public:
  explicit LambdaExecutor(LaunchFn fn) : fn_(std::move(fn)) {}
  std::string name() const override { return "lambda"; }
  std::optional<LaunchError> launch(const ir::Program& program, std::span<const Bytes* const> inputs,
                                    const LaunchConfig& config, std::vector<Bytes>& outputs) override {
    ++launch_count;
    configs.push_back(config);
    return fn_(program, inputs, config, outputs);
  }
  int launch_count = 0;
  std::vector<LaunchConfig> configs;

 private:
  LaunchFn fn_;
};

/// Little-endian u32 words <-> bytes.
Bytes words(std::initializer_list<std::uint32_t> values);
Bytes words(const std::vector<std::uint32_t>& values);
std::vector<std::uint32_t> as_words(const Bytes& bytes);

}  // namespace gridcheck::planner::testing
