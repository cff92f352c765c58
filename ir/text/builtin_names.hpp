#pragma once
// Spelling of the builtin id expressions (`gid.x`, `num_wg.z`, ...), shared by parser and printer.

#include <array>
#include <optional>
#include <string_view>

#include "ir/program.hpp"

namespace gridcheck::ir::text {

struct BuiltinName {
  std::string_view name;
  ExprKind kind;
};

inline constexpr std::array<BuiltinName, 5> kBuiltinNames = {{
    {"gid", ExprKind::InvocationId},
    {"lid", ExprKind::LocalId},
    {"wgid", ExprKind::WorkgroupId},
    {"num_wg", ExprKind::NumWorkgroups},
    {"wg_size", ExprKind::WorkgroupSize},
}};

/// Axis letters by axis index.
inline constexpr std::string_view kAxisLetters = "xyz";

constexpr std::optional<ExprKind> builtin_from_name(std::string_view name) {
  for (const BuiltinName& b : kBuiltinNames)
    if (b.name == name) return b.kind;
  return std::nullopt;
}

constexpr std::string_view builtin_name(ExprKind kind) {
  for (const BuiltinName& b : kBuiltinNames)
    if (b.kind == kind) return b.name;
  return {};
}

}  // namespace gridcheck::ir::text
