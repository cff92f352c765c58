#pragma once
// H-cpu's executor: each launch is one run of the reference interpreter (true grid sync inside the
// launch, a fresh launch per call), behind the planner's Executor seam. It models a GPU backend's
// dispatch ABI (docs/semantics.md §5): inputs positionally by ir::is_dispatch_input, exact static input lengths,
// zero-filled backend-allocated outputs (a runtime-sized one without a byte range cannot be
// allocated: docs/vyre-0.7.2.md#a5), outputs sliced to output_byte_range, and — without a grid override —
// the LaunchPlan grid inferred from the launched program itself (docs/semantics.md §5.7, docs/vyre-0.7.2.md#g1).

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "interp/interpreter.hpp"
#include "planner/executor.hpp"

namespace gridcheck::props {

/// How an InterpExecutor recognises a program it prepared before (it prepares each once).
enum class ProgramIdentity : std::uint8_t {
  Content,  ///< by content hash: any program, however long it lives
  /// By address: cheaper, for a caller that guarantees every launched program outlives the
  /// executor and is not modified while it lives (the programs of a plan the caller holds).
  Address,
};

class InterpExecutor final : public planner::Executor {
 public:
  /// `options.validate` false: launched programs are only type-checked (they were validated before).
  explicit InterpExecutor(interp::RunOptions options = {}, ProgramIdentity identity = ProgramIdentity::Content);

  std::string name() const override { return "interp"; }
  std::optional<planner::LaunchError> launch(const ir::Program& program, std::span<const planner::Bytes* const> inputs,
                                             const planner::LaunchConfig& config,
                                             std::vector<planner::Bytes>& outputs) override;

  /// Records `types`, ir::typecheck's table of `program` from a validation the caller ran
  /// (PlannedSegment::types): a launch of that very object (by address, unresized) compiles with it
  /// instead of type-checking again. Only with ProgramIdentity::Address and options.validate off
  /// (else it is ignored). Both must outlive the executor, unmodified.
  void adopt_checked(const ir::Program& program, const ir::TypeTable& types);

  /// Launches so far, and their interpreter steps.
  std::uint64_t launches() const { return launches_; }
  std::uint64_t steps() const { return steps_; }

 private:
  /// `borrowed`: `program` is the caller's (not a copy made for one launch).
  const interp::PreparedProgram* prepared(const ir::Program& program, bool borrowed, ir::Diagnostics& diagnostics);

  interp::RunOptions options_;
  ProgramIdentity identity_;
  /// Segments are launched once per pass; validation and compilation happen once per program.
  std::unordered_map<std::uint64_t, std::unique_ptr<interp::PreparedProgram>> cache_;  ///< by content hash
  std::unordered_map<const ir::Program*, std::unique_ptr<interp::PreparedProgram>> by_address_;
  std::unordered_map<const ir::Program*, const ir::TypeTable*> checked_;  ///< adopt_checked's tables
  std::uint64_t launches_ = 0;
  std::uint64_t steps_ = 0;
};

}  // namespace gridcheck::props
