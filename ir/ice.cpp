#include "ir/ice.hpp"

#include <cstdio>
#include <cstdlib>

namespace gridcheck {

void internal_error(std::string_view file, int line, std::string_view message) {
  std::fprintf(stderr, "gridcheck internal error (%.*s:%d): %.*s\n", static_cast<int>(file.size()),
               file.data(), line, static_cast<int>(message.size()), message.data());
  std::fflush(stderr);
  std::abort();
}

}  // namespace gridcheck
