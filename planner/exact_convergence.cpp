#include "planner/exact_convergence.hpp"

namespace gridcheck::planner {

bool ExactConvergence::converged(const LiveMap& live) {
  bool same = previous_.has_value() && previous_->size() == live.size();
  if (same) {
    auto it = previous_->begin();
    for (const auto& [name, buffer] : live) {
      if (it->first != name || it->second != buffer.bytes()) {
        same = false;
        break;
      }
      ++it;
    }
  }
  if (same) return true;
  std::map<std::string, Bytes, std::less<>> snapshot;
  for (const auto& [name, buffer] : live) snapshot.emplace(name, buffer.bytes());
  previous_ = std::move(snapshot);
  return false;
}

}  // namespace gridcheck::planner
