#include "props/mutants/case_meta.hpp"

#include <charconv>
#include <system_error>
#include <utility>

namespace gridcheck::props {

std::string meta_value(const ir::Case& c, std::string_view key) {
  for (const auto& [k, v] : c.meta)
    if (k == key) return v;
  return "";
}

void set_meta(ir::Case& c, const std::string& key, std::string value) {
  for (auto& [k, v] : c.meta)
    if (k == key) {
      v = std::move(value);
      return;
    }
  c.meta.emplace_back(key, std::move(value));
}

std::optional<std::size_t> parse_size(std::string_view text) {
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace gridcheck::props
