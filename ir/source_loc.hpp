#pragma once

#include <cstdint>

namespace gridcheck::ir {

/// A 1-based line:column in a case file. Line 0 means "unknown" (for example IR built in C++).
struct SourceLoc {
  std::uint32_t line = 0;
  std::uint32_t col = 0;
  constexpr bool known() const { return line != 0; }
  friend constexpr bool operator==(SourceLoc, SourceLoc) = default;
};

}  // namespace gridcheck::ir
