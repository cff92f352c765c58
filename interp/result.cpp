#include "interp/result.hpp"

#include <fmt/format.h>

#include <array>

#include "ir/resource_limits.hpp"

namespace gridcheck::interp {
namespace {

constexpr std::array<std::string_view, 9> kStatusNames = {"ok",   "trap", "out_of_fuel", "invalid",         "divergence",
                                                          "race", "oob",  "uninit",      "nondeterministic"};
constexpr std::array<std::string_view, 4> kDivergenceNames = {"branch_mismatch", "trip_count_mismatch",
                                                              "different_barriers", "barrier_and_fence"};
constexpr std::array<std::string_view, 3> kAccessNames = {"load", "store", "atomic"};

}  // namespace

std::string_view name_of(RunStatus status) { return kStatusNames[static_cast<std::size_t>(status)]; }
std::string_view name_of(DivergenceKind kind) { return kDivergenceNames[static_cast<std::size_t>(kind)]; }
std::string_view name_of(AccessKind kind) { return kAccessNames[static_cast<std::size_t>(kind)]; }

std::string to_string(const InvocationIds& ids) {
  return fmt::format("gid ({},{},{}) lid ({},{},{}) wg ({},{},{})", ids.global[0], ids.global[1], ids.global[2],
                     ids.local[0], ids.local[1], ids.local[2], ids.workgroup[0], ids.workgroup[1], ids.workgroup[2]);
}

std::string to_string(const Site& site) {
  if (site.loc.known()) return fmt::format("{}:{} ({})", site.loc.line, site.loc.col, site.what);
  return fmt::format("{} ({})", site.path, site.what);
}

ir::Verdict RunResult::verdict() const {
  switch (status) {
    case RunStatus::Ok: return ir::Verdict::Ok;
    case RunStatus::Trap: return ir::Verdict::Trap;
    case RunStatus::OutOfFuel:  // a resource limit (docs/semantics.md §3.9), not a result of the program
    case RunStatus::Invalid:
    case RunStatus::Divergence:
    case RunStatus::Race:
    case RunStatus::OutOfBounds:
    case RunStatus::Uninitialized:
    case RunStatus::Nondeterministic: return ir::Verdict::Invalid;
  }
  return ir::Verdict::Error;
}

std::string RunResult::detail() const {
  switch (status) {
    case RunStatus::Ok: return {};
    case RunStatus::Trap: return trap ? std::string(ir::name_of(trap->kind)) : std::string();
    case RunStatus::OutOfFuel: return "limit";
    case RunStatus::Invalid:
      for (const ir::Diagnostic& d : diagnostics)
        if (d.severity == ir::Severity::Error) return ir::is_limit_code(d.code) ? "limit" : d.code;
      return {};
    case RunStatus::Divergence: return "divergence";
    case RunStatus::Race: return "race";
    case RunStatus::OutOfBounds: return "oob";
    case RunStatus::Uninitialized: return "uninit";
    case RunStatus::Nondeterministic: return "nondeterministic";
  }
  return {};
}

const OutputBuffer* RunResult::output(std::string_view name) const {
  for (const OutputBuffer& o : outputs)
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace gridcheck::interp
