#pragma once
// Which program literals the lowered shaders show to the driver's compiler (docs/gpu.md#literals). No IR and
// no Vulkan here: the Vulkan context carries the policy and the lowering applies it.

#include <cstdint>
#include <optional>
#include <string_view>

namespace gridcheck::gpu {

/// How program literals reach the driver's compiler (docs/gpu.md#literals; `--gpu-literals`).
enum class LiteralPolicy : std::uint8_t {
  /// "hidden" (the default): a literal that can become a value is `(literal ^ gc.zero)`, a word the driver
  /// cannot fold; one that only steers (an index, a branch condition, a loop bound: gpu/foldable_literals.hpp)
  /// is a constant.
  HiddenValues,
  /// "all-hidden": every literal is `(literal ^ gc.zero)`, index arithmetic and loop bounds too.
  HiddenAll,
  /// "visible": every literal is a constant, so the driver's constant folding runs on all of them.
  Visible,
};
/// "hidden", "all-hidden", "visible".
std::string_view name_of(LiteralPolicy policy);
/// The policy with that name; nullopt for any other.
std::optional<LiteralPolicy> literal_policy_named(std::string_view name);

}  // namespace gridcheck::gpu
