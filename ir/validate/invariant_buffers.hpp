#pragma once
// The buffers whose contents no invocation of a launch can change (docs/semantics.md, V010): declared
// `read` or `uniform` and written by no statement of the program. Every invocation that loads one of
// them at the same index reads the same value. Not a public header.
//
// Contract: a buffer written anywhere reachable from the entry (store, atomic, collective output,
// async destination, an assignment naming it) is not invariant, and neither is any buffer of a
// program with an `opaque` statement (it may write anything).

#include <vector>

#include "ir/program.hpp"

namespace gridcheck::ir::validation {

class InvariantBuffers {
 public:
  explicit InvariantBuffers(const Program& p);

  /// Whether loads from buffer `name` read launch-invariant contents.
  bool contains(NameId name) const {
    return index_of(name) < invariant_.size() && invariant_[index_of(name)];
  }

 private:
  std::vector<bool> invariant_;  ///< by name index
};

}  // namespace gridcheck::ir::validation
