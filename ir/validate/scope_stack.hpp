#pragma once
// Lexically scoped bindings keyed by name, shared by the validator's walks (typecheck, semantics,
// uniformity). Not a public header.
//
// Contract: `find` returns the binding pushed last among those of that name still open, which is
// what a search from the innermost binding outwards returns; `push`, `find` and `innermost` take
// constant time, and `pop_to` time proportional to the bindings it closes. Any NameId may be used,
// also one outside the program's name table (malformed IR reaching the public `typecheck`).

#include <cstddef>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "ir/ice.hpp"
#include "ir/program.hpp"

namespace gridcheck::ir::validation {

template <typename T>
class ScopeStack {
 public:
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

  /// `name_count` sizes the direct table; names at or above it are found through a hash map.
  explicit ScopeStack(std::size_t name_count) : innermost_(name_count, kNone) {
    entries_.reserve(16);  // most programs open a few bindings: one allocation instead of a growth series
  }

  /// The number of open bindings: a mark for `pop_to`, and the index the next `push` gets.
  std::size_t size() const { return entries_.size(); }

  void push(NameId name, T value) {
    std::uint32_t& slot = slot_of(name);
    entries_.push_back(Entry{name, slot, std::move(value)});
    slot = static_cast<std::uint32_t>(entries_.size() - 1);
  }

  /// Closes every binding opened since `size()` was `mark`, innermost first.
  void pop_to(std::size_t mark) {
    GC_ASSERT(mark <= entries_.size());
    while (entries_.size() > mark) {
      const Entry& e = entries_.back();
      slot_of(e.name) = e.shadowed;
      entries_.pop_back();
    }
  }

  /// The index of the innermost open binding of `name`, or npos.
  std::size_t innermost(NameId name) const {
    const std::uint32_t i = index_of(name);
    std::uint32_t slot = kNone;
    if (i < innermost_.size()) {
      slot = innermost_[i];
    } else if (auto it = overflow_.find(i); it != overflow_.end()) {
      slot = it->second;
    }
    return slot == kNone ? npos : slot;
  }

  T* find(NameId name) {
    const std::size_t i = innermost(name);
    return i == npos ? nullptr : &entries_[i].value;
  }
  const T* find(NameId name) const {
    const std::size_t i = innermost(name);
    return i == npos ? nullptr : &entries_[i].value;
  }

  /// The binding at `index` (below `size()`).
  T& operator[](std::size_t index) { return entries_[index].value; }
  const T& operator[](std::size_t index) const { return entries_[index].value; }

 private:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  struct Entry {
    NameId name;
    std::uint32_t shadowed;  ///< the binding of the same name this one hides, or kNone
    T value;
  };

  std::uint32_t& slot_of(NameId name) {
    const std::uint32_t i = index_of(name);
    if (i < innermost_.size()) return innermost_[i];
    return overflow_.try_emplace(i, kNone).first->second;
  }

  std::vector<Entry> entries_;
  std::vector<std::uint32_t> innermost_;                     ///< by name index: innermost binding or kNone
  std::unordered_map<std::uint32_t, std::uint32_t> overflow_;  ///< the same, for names outside the table
};

}  // namespace gridcheck::ir::validation
