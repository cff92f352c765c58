#include "ir/resource_limits.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <vector>

#include "ir/abi.hpp"

namespace gridcheck::ir {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
constexpr const char* kCaseTooLarge = "R023";

std::uint64_t add_sat(std::uint64_t a, std::uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

}  // namespace

std::uint64_t default_max_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 4 * kGiB;
  const std::uint64_t physical = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
  return std::min<std::uint64_t>(4 * kGiB, physical / 2);
}

Deadline deadline_after(const ResourceLimits& limits) {
  if (!(limits.timeout_seconds > 0)) return std::nullopt;
  // Beyond a year is no limit in practice; keeps the duration cast in range.
  const double seconds = std::min(limits.timeout_seconds, 365.0 * 24 * 3600);
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

namespace {

/// Bytes of one copy of buffer `index` (0 for workgroup memory).
std::uint64_t buffer_bytes(const Case& c, std::size_t index, const std::vector<const InputData*>& data) {
  const BufferDecl& d = c.program.buffers()[index];
  if (d.access == BufferAccess::Workgroup) return 0;
  if (!is_reference_input(d)) return backend_allocation_bytes(d).value_or(d.static_byte_len());
  std::uint64_t bytes = d.static_byte_len();
  if (const InputData* in = data[index]) {
    const std::uint64_t words = in->kind == InputData::Kind::Values ? in->values.size()
                                                                    : (in->length != 0 ? in->length : d.count);
    bytes = std::max(bytes, words * BufferDecl::kElementBytes);
  }
  return bytes;
}

std::vector<const InputData*> input_data(const Case& c) {
  std::vector<const InputData*> data(c.program.buffers().size(), nullptr);
  for (const InputData& in : c.inputs) {
    const auto name = c.program.find_name(in.buffer);
    const auto index = name ? c.program.buffer_index(*name) : std::nullopt;
    if (index && data[*index] == nullptr) data[*index] = &in;
  }
  return data;
}

}  // namespace

std::uint64_t case_buffer_bytes(const Case& c) {
  const auto data = input_data(c);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < c.program.buffers().size(); ++i) total = add_sat(total, buffer_bytes(c, i, data));
  return total;
}

std::optional<Diagnostic> check_case_memory(const Case& c, double copies, const ResourceLimits& limits,
                                            std::string_view what, const std::string& file) {
  const auto data = input_data(c);
  std::uint64_t total = 0, largest = 0;
  std::size_t largest_index = 0;
  for (std::size_t i = 0; i < c.program.buffers().size(); ++i) {
    const std::uint64_t bytes = buffer_bytes(c, i, data);
    total = add_sat(total, bytes);
    if (bytes > largest) {
      largest = bytes;
      largest_index = i;
    }
  }
  const double needed = static_cast<double>(total) * copies;
  if (needed <= static_cast<double>(limits.max_memory)) return std::nullopt;
  const BufferDecl& d = c.program.buffers()[largest_index];
  Diagnostic diag;
  diag.code = kCaseTooLarge;
  diag.file = file.empty() ? c.file : file;
  diag.loc = d.loc;
  diag.message = fmt::format(
      "the case needs about {} ({} of buffers, the largest '{}' of {}, held {:g} times by {}), more than the memory "
      "limit of {} (--max-memory)",
      format_bytes(needed >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(needed)), format_bytes(total),
      c.program.name(d.name), format_bytes(largest), copies, what, format_bytes(limits.max_memory));
  return diag;
}

bool is_limit_code(std::string_view code) {
  static constexpr std::array<std::string_view, 6> kCodes = {"R011", "R012", "R013", "R021", "R022", "R023"};
  return std::find(kCodes.begin(), kCodes.end(), code) != kCodes.end();
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 5> kUnits = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  return value == std::floor(value) ? fmt::format("{:.0f} {}", value, kUnits[unit])
                                    : fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::optional<std::uint64_t> parse_byte_size(std::string_view text, std::string& error) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) != 0) ++digits;
  if (text.empty()) {
    error = "an empty value is not a size";
    return std::nullopt;
  }
  if (digits == 0) {
    error = fmt::format("'{}' is not a size (a whole number of bytes, or with K, M, G or T)", text);
    return std::nullopt;
  }
  std::string suffix;
  for (char ch : text.substr(digits)) suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  int shift = -1;
  static constexpr std::array<std::pair<std::string_view, int>, 14> kSuffixes = {{{"", 0},
                                                                                {"B", 0},
                                                                                {"K", 10},
                                                                                {"KB", 10},
                                                                                {"KIB", 10},
                                                                                {"M", 20},
                                                                                {"MB", 20},
                                                                                {"MIB", 20},
                                                                                {"G", 30},
                                                                                {"GB", 30},
                                                                                {"GIB", 30},
                                                                                {"T", 40},
                                                                                {"TB", 40},
                                                                                {"TIB", 40}}};
  for (const auto& [name, bits] : kSuffixes)
    if (suffix == name) shift = bits;
  if (shift < 0) {
    error = fmt::format("'{}' is not a size (a whole number of bytes, or with K, M, G or T)", text);
    return std::nullopt;
  }
  constexpr std::uint64_t kMax = std::uint64_t{1} << 62;
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (kMax - digit) / 10) {
      error = fmt::format("{} is out of range (at most 4 EiB)", text);
      return std::nullopt;
    }
    value = value * 10 + digit;
  }
  if (value > (kMax >> shift)) {
    error = fmt::format("{} is out of range (at most 4 EiB)", text);
    return std::nullopt;
  }
  value <<= shift;
  if (value == 0) {
    error = fmt::format("{} is not a memory limit (at least 1 byte)", text);
    return std::nullopt;
  }
  return value;
}

}  // namespace gridcheck::ir
