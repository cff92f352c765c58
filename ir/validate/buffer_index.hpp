#pragma once
// Buffer declarations by name for the validator's passes. Not a public header.
//
// Contract: `find(name)` returns what `Program::find_buffer(name)` returns (the first declaration of
// that name, or nullptr), in constant time for names inside the program's name table. The program
// must outlive the index and keep its buffer list unchanged.

#include <vector>

#include "ir/program.hpp"

namespace gridcheck::ir::validation {

class BufferIndex {
 public:
  explicit BufferIndex(const Program& p) : p_(p), by_name_(p.name_count(), nullptr) {
    for (const BufferDecl& b : p.buffers()) {
      const std::uint32_t i = index_of(b.name);
      if (i < by_name_.size() && by_name_[i] == nullptr) by_name_[i] = &b;
    }
  }

  const BufferDecl* find(NameId name) const {
    // A name outside the table is malformed IR (G008); only the public typecheck can see one.
    if (index_of(name) >= by_name_.size()) return p_.find_buffer(name);
    return by_name_[index_of(name)];
  }

 private:
  const Program& p_;
  std::vector<const BufferDecl*> by_name_;
};

}  // namespace gridcheck::ir::validation
