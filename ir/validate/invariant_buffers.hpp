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
  /// Walks nothing yet: the program's statements are walked on the first question about a buffer
  /// declared `read` or `uniform` (the only ones that can be invariant), so a program that loads
  /// from none costs no walk. `p` must outlive this and stay unchanged.
  explicit InvariantBuffers(const Program& p) : p_(p) {}

  /// Whether loads from buffer `name` read launch-invariant contents.
  bool contains(NameId name) const {
    const BufferDecl* first = p_.find_buffer(name);  // the first declaration counts (V107 rejects the rest)
    if (first == nullptr || (first->access != BufferAccess::ReadOnly && first->access != BufferAccess::Uniform))
      return false;
    if (!walked_) walk();
    return index_of(name) < invariant_.size() && invariant_[index_of(name)];
  }

 private:
  void walk() const;

  const Program& p_;
  mutable bool walked_ = false;
  mutable std::vector<bool> invariant_;  ///< by name index
};

}  // namespace gridcheck::ir::validation
