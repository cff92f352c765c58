#pragma once
// A value or a typed error (std::expected is C++23). Used where the error is a typed planner error
// rather than user diagnostics (the megakernel planner's MegakernelError, docs/vyre-0.7.2.md §7.1).

#include <utility>
#include <variant>

#include "ir/ice.hpp"

namespace gridcheck::planner {

template <typename T, typename E>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Expected(E error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { GC_ASSERT(ok()); return std::get<0>(state_); }
  T& value() & { GC_ASSERT(ok()); return std::get<0>(state_); }
  T&& value() && { GC_ASSERT(ok()); return std::get<0>(std::move(state_)); }
  const E& error() const& { GC_ASSERT(!ok()); return std::get<1>(state_); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, E> state_;
};

}  // namespace gridcheck::planner
