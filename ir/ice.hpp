#pragma once
// Internal compiler errors: our own invariant breaks. They are never caused by user input, so they
// abort loudly with the source location of the check (docs/engineering.md#lesson-2: two error channels).

#include <string_view>

namespace gridcheck {

[[noreturn]] void internal_error(std::string_view file, int line, std::string_view message);

}  // namespace gridcheck

/// Aborts with "gridcheck internal error (file:line): message".
#define GC_ICE(message) ::gridcheck::internal_error(__FILE__, __LINE__, (message))
/// Aborts when `condition` does not hold. Always on, also in release builds.
#define GC_ASSERT(condition)                                                      \
  do {                                                                            \
    if (!(condition)) ::gridcheck::internal_error(__FILE__, __LINE__, #condition); \
  } while (false)
