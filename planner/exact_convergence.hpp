#pragma once
// Fixpoint early exit by exact byte comparison (docs/vyre-0.7.2.md#f3; vyre 0.7.2 compares an XOR-combined
// FNV-1a-64 fingerprint, which can collide and stop early). Stops after a pass whose live map
// (every entry, borrowed or owned, byte for byte, except the pass-local scratch) equals the previous
// pass's: every pass is a deterministic function of that state, so all further passes would change
// nothing, and it stops at the first pass whose state repeats (the convergence oracle's rule). Like
// vyre, the first pass is never compared with the initial state.

#include <map>
#include <set>
#include <span>
#include <string>
#include <optional>

#include "planner/dispatch_types.hpp"

namespace gridcheck::planner {

class ExactConvergence final : public Convergence {
 public:
  void set_pass_local(std::span<const ScratchBuffer> scratch) override;
  void start(const LiveMap&) override { previous_.reset(); }
  bool converged(const LiveMap& live) override;

 private:
  bool counts(const std::string& name) const { return !pass_local_.contains(name); }
  std::set<std::string, std::less<>> pass_local_;
  std::optional<std::map<std::string, Bytes, std::less<>>> previous_;
};

}  // namespace gridcheck::planner
