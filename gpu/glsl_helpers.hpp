#pragma once
// The GLSL helper functions the lowering calls: each implements one rule of ir/scalar_semantics.hpp on
// 32-bit words (`uint`), independently of the device's float controls where the rule is exact:
//  - f32 comparisons, min/max, floor/ceil/trunc/round, sign, casts and fmod work on the bit pattern;
//  - f32 add/sub/mul/div/fma/sqrt/inverse_sqrt/reciprocal widen the (canonical, so never subnormal)
//    operands to double with the device's conversion, which is exact for them, compute in double
//    (exact for mul; correctly rounded otherwise, and the double rounding to binary32 is innocuous
//    for + - * / sqrt), and round back to binary32 with integer code
//    (round to nearest even, tininess after rounding, then flush-to-zero and canonical NaN). IEEE
//    special cases (NaN, infinities, signed zeros) are decided on the bits and their word is selected
//    over the double result, which is then unused, so neither denormal flushing nor missing
//    SignedZeroInfNanPreserve can change a result;
//  - transcendentals call the GLSL built-in for finite in-domain operands only (Vulkan does not define
//    their precision exactly; the comparison uses the operator table's ULP bound) and decide NaN,
//    infinities and domain errors on the bits.
// Every helper assumes canonical f32 operands (the lowering canonicalises loads and literals, and
// every f32 result is canonical), so no subnormal ever reaches a float instruction whose result is used.
// The arithmetic, comparison, rounding and cast helpers have no branches: every special case is a
// `mix(…, bool)` (OpSelect), because a driver that compiles control flow as masked vector code (lavapipe)
// pays for each branch; only a trap stays under an `if`.

#include <string>
#include <string_view>
#include <vector>

namespace gridcheck::gpu {

/// The set of helpers a shader needs; `need` pulls in dependencies.
class HelperSet {
 public:
  /// Marks `name` (a helper from the library; unknown names are our bug) and everything it calls.
  void need(std::string_view name);
  bool has(std::string_view name) const;
  bool empty() const { return used_.empty(); }
  /// The GLSL text of every needed helper in dependency order.
  std::string text() const;
  /// Names in emission order.
  std::vector<std::string_view> names() const;

 private:
  std::vector<bool> used_;
};

/// Every helper name the library defines (tests compile them all).
std::vector<std::string_view> all_helper_names();

}  // namespace gridcheck::gpu
