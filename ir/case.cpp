#include "ir/case.hpp"

#include <array>
#include <bit>

namespace gridcheck::ir {
namespace {

constexpr std::array<std::string_view, 5> kOracleNames = {"R", "H-cpu", "H-gpu", "W-gpu", "R-waves"};
constexpr std::array<std::string_view, 8> kVerdictNames = {"ok",      "match", "diverge",     "refused",
                                                           "invalid", "trap",  "out_of_fuel", "error"};
constexpr std::array<std::string_view, 3> kMemoryCheckNames = {"error", "warning", "defined"};

}  // namespace

std::string_view name_of(Oracle oracle) { return kOracleNames[static_cast<int>(oracle)]; }
std::string_view name_of(Verdict verdict) { return kVerdictNames[static_cast<int>(verdict)]; }

std::optional<Oracle> oracle_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kOracleNames.size(); ++i)
    if (kOracleNames[i] == name) return static_cast<Oracle>(i);
  return std::nullopt;
}

std::optional<Verdict> verdict_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kVerdictNames.size(); ++i)
    if (kVerdictNames[i] == name) return static_cast<Verdict>(i);
  return std::nullopt;
}

std::string_view name_of(MemoryCheck check) { return kMemoryCheckNames[static_cast<int>(check)]; }

std::optional<MemoryCheck> memory_check_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kMemoryCheckNames.size(); ++i)
    if (kMemoryCheckNames[i] == name) return static_cast<MemoryCheck>(i);
  return std::nullopt;
}

std::vector<std::uint32_t> splitmix64_words(std::uint64_t seed, std::size_t count) {
  std::vector<std::uint32_t> out;
  out.reserve(count);
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < count; ++i) {
    state += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    out.push_back(static_cast<std::uint32_t>(z));
  }
  return out;
}

std::vector<std::uint32_t> materialize(const InputData& input, ScalarType element, std::uint32_t declared_count) {
  if (input.kind == InputData::Kind::Values) return input.values;
  const std::uint32_t n = input.length != 0 ? input.length : declared_count;
  std::vector<std::uint32_t> out;
  switch (input.kind) {
    case InputData::Kind::Values: break;
    case InputData::Kind::Fill: out.assign(n, input.first); break;
    case InputData::Kind::Series: {
      out.reserve(n);
      if (element == ScalarType::F32) {
        const float start = std::bit_cast<float>(input.first);
        const float step = std::bit_cast<float>(input.step);
        for (std::uint32_t i = 0; i < n; ++i)
          out.push_back(std::bit_cast<std::uint32_t>(start + static_cast<float>(i) * step));
      } else {
        for (std::uint32_t i = 0; i < n; ++i) out.push_back(input.first + i * input.step);
      }
      break;
    }
    case InputData::Kind::Random: {
      out = splitmix64_words(input.seed, n);
      if (element == ScalarType::Bool)
        for (std::uint32_t& w : out) w &= 1u;
      break;
    }
  }
  return out;
}

}  // namespace gridcheck::ir
