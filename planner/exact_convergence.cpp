#include "planner/exact_convergence.hpp"

namespace gridcheck::planner {

void ExactConvergence::set_pass_local(std::span<const ScratchBuffer> scratch) {
  pass_local_.clear();
  for (const ScratchBuffer& s : scratch) pass_local_.insert(s.name);
}

bool ExactConvergence::converged(const LiveMap& live) {
  bool same = previous_.has_value();
  if (same) {
    auto it = previous_->begin();
    for (const auto& [name, buffer] : live) {
      if (!counts(name)) continue;
      if (it == previous_->end() || it->first != name || it->second != buffer.bytes()) {
        same = false;
        break;
      }
      ++it;
    }
    same = same && it == previous_->end();
  }
  if (same) return true;
  // From the second pass on the live map usually holds the same names as the snapshot: then the
  // snapshot's nodes and byte buffers are overwritten in place (no allocation), else rebuilt.
  if (previous_) {
    auto it = previous_->begin();
    bool same_names = true;
    for (const auto& [name, buffer] : live) {
      if (!counts(name)) continue;
      if (it == previous_->end() || it->first != name) {
        same_names = false;
        break;
      }
      ++it;
    }
    if (same_names && it == previous_->end()) {
      it = previous_->begin();
      for (const auto& [name, buffer] : live) {
        if (!counts(name)) continue;
        it->second.assign(buffer.bytes().begin(), buffer.bytes().end());
        ++it;
      }
      return false;
    }
  }
  std::map<std::string, Bytes, std::less<>> snapshot;
  for (const auto& [name, buffer] : live)
    if (counts(name)) snapshot.emplace(name, buffer.bytes());
  previous_ = std::move(snapshot);
  return false;
}

}  // namespace gridcheck::planner
