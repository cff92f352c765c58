#pragma once
// Fixpoint early exit by exact byte comparison (docs/vyre-0.7.2.md#f3; vyre 0.7.2 compares an XOR-combined
// FNV-1a-64 fingerprint, which can collide and stop early). Stops after a pass whose live map
// (every entry, borrowed or owned, byte for byte) equals the previous pass's: every segment is a
// deterministic function of the live map, so all further passes would change nothing. Like vyre,
// the first pass is never compared with the initial state.

#include <map>
#include <optional>
#include <string>

#include "planner/dispatch_types.hpp"

namespace gridcheck::planner {

class ExactConvergence final : public Convergence {
 public:
  void start(const LiveMap&) override { previous_.reset(); }
  bool converged(const LiveMap& live) override;

 private:
  std::optional<std::map<std::string, Bytes, std::less<>>> previous_;
};

}  // namespace gridcheck::planner
