#include "gpu/glsl_helpers.hpp"

#include <array>

#include "ir/ice.hpp"

namespace gridcheck::gpu {
namespace {

struct HelperDef {
  std::string_view name;
  std::array<std::string_view, 4> deps;
  std::string_view text;
};

// Rows are in dependency order: a helper only calls helpers above it. Trapping helpers call
// gc_trap(site, kind), which the lowering defines before the library when the shader has trap sites.
// clang-format off
constexpr std::array kHelpers = {
HelperDef{"gc_canon", {}, R"(// f32 canonical form: any NaN -> 0x7FC00000, subnormal -> zero of the same sign
uint gc_canon(uint x) {
  uint e = x & 0x7F800000u;
  uint special = mix(x, 0x7FC00000u, (x & 0x007FFFFFu) != 0u);
  return mix(mix(x, x & 0x80000000u, e == 0u), special, e == 0x7F800000u);
}
)"},
HelperDef{"gc_f32_is_nan", {}, R"(bool gc_f32_is_nan(uint x) { return (x & 0x7FFFFFFFu) > 0x7F800000u; }
)"},
HelperDef{"gc_f32_to_f64", {}, R"(// widening of canonical f32 bits to double: exact for every finite operand, whatever the denormal
// mode (a canonical operand is never subnormal); NaN and infinity widen to whatever the device gives,
// and every caller selects its own word over such a result
double gc_f32_to_f64(uint x) { return double(uintBitsToFloat(x)); }
)"},
HelperDef{"gc_f64_to_f32", {}, R"(// double -> canonical f32 bits: round to nearest even, tininess after rounding, flush-to-zero
uint gc_f64_to_f32(double d) {
  uvec2 w = unpackDouble2x32(d);
  uint s = w.y & 0x80000000u;
  int e = int((w.y >> 20u) & 0x7FFu);
  uint m = ((w.y & 0x000FFFFFu) << 3u) | (w.x >> 29u);
  uint rest = w.x & 0x1FFFFFFFu;
  int ef = e - 896;
  uint up = (uint(rest > 0x10000000u) | (uint(rest == 0x10000000u) & m)) & 1u;
  uint r = (s | (uint(ef) << 23u) | m) + up;
  uint tiny = mix(s, s | 0x00800000u, ef == 0 && m == 0x007FFFFFu);
  uint special = mix(s | 0x7F800000u, 0x7FC00000u, (m | rest) != 0u);
  r = mix(r, tiny, ef <= 0);
  r = mix(r, s | 0x7F800000u, ef >= 255);
  return mix(r, special, e == 0x7FF);
}
)"},
HelperDef{"gc_f32_add", {"gc_f32_to_f64", "gc_f64_to_f32"}, R"(uint gc_f32_add(uint a, uint b) {
  uint ma = a & 0x7FFFFFFFu;
  uint mb = b & 0x7FFFFFFFu;
  precise double r = gc_f32_to_f64(a) + gc_f32_to_f64(b);
  uint v = mix(gc_f64_to_f32(r), 0u, r == 0.0);
  v = mix(v, a & b, ma == 0u && mb == 0u);
  v = mix(v, b, mb == 0x7F800000u);
  v = mix(v, mix(a, 0x7FC00000u, mb == 0x7F800000u && a != b), ma == 0x7F800000u);
  return mix(v, 0x7FC00000u, ma > 0x7F800000u || mb > 0x7F800000u);
}
)"},
HelperDef{"gc_f32_sub", {"gc_f32_add"}, R"(uint gc_f32_sub(uint a, uint b) { return gc_f32_add(a, b ^ 0x80000000u); }
)"},
HelperDef{"gc_f32_mul", {"gc_f32_to_f64", "gc_f64_to_f32"}, R"(uint gc_f32_mul(uint a, uint b) {
  uint s = (a ^ b) & 0x80000000u;
  uint ma = a & 0x7FFFFFFFu;
  uint mb = b & 0x7FFFFFFFu;
  bool zero = ma == 0u || mb == 0u;
  precise double r = gc_f32_to_f64(a) * gc_f32_to_f64(b);
  uint v = mix(gc_f64_to_f32(r), s, zero);
  v = mix(v, mix(s | 0x7F800000u, 0x7FC00000u, zero), ma == 0x7F800000u || mb == 0x7F800000u);
  return mix(v, 0x7FC00000u, ma > 0x7F800000u || mb > 0x7F800000u);
}
)"},
HelperDef{"gc_f32_div", {"gc_f32_to_f64", "gc_f64_to_f32"}, R"(uint gc_f32_div(uint a, uint b) {
  uint s = (a ^ b) & 0x80000000u;
  uint ma = a & 0x7FFFFFFFu;
  uint mb = b & 0x7FFFFFFFu;
  precise double r = gc_f32_to_f64(a) / gc_f32_to_f64(b);
  uint v = mix(gc_f64_to_f32(r), s, ma == 0u);
  v = mix(v, mix(s | 0x7F800000u, 0x7FC00000u, ma == 0u), mb == 0u);
  v = mix(v, s, mb == 0x7F800000u);
  v = mix(v, mix(s | 0x7F800000u, 0x7FC00000u, mb == 0x7F800000u), ma == 0x7F800000u);
  return mix(v, 0x7FC00000u, ma > 0x7F800000u || mb > 0x7F800000u);
}
)"},
HelperDef{"gc_f32_fma", {"gc_f32_to_f64", "gc_f64_to_f32"}, R"(// fused multiply-add with one rounding: the product is exact in double; TwoSum recovers the error of
// the double sum, which decides the binary32 rounding when the sum sits on a binary32 midpoint
uint gc_f32_fma(uint a, uint b, uint c) {
  uint ma = a & 0x7FFFFFFFu;
  uint mb = b & 0x7FFFFFFFu;
  uint mc = c & 0x7FFFFFFFu;
  uint ps = (a ^ b) & 0x80000000u;
  uint cs = c & 0x80000000u;
  precise double p = gc_f32_to_f64(a) * gc_f32_to_f64(b);
  double dc = gc_f32_to_f64(c);
  precise double s = p + dc;
  precise double bb = s - p;
  precise double err = (p - (s - bb)) + (dc - bb);
  uvec2 w = unpackDouble2x32(s);
  uint rest = w.x & 0x1FFFFFFFu;
  int ef = int((w.y >> 20u) & 0x7FFu) - 896;
  uint midpoint = uint(rest == 0x10000000u) | (uint(ef == 0) & uint(rest == 0u) &
                  uint((w.y & 0x000FFFFFu) == 0x000FFFFFu) & uint((w.x >> 29u) == 7u));
  uint nudge = mix(0xFFFFFFFFu, 1u, (err > 0.0) == (s > 0.0));
  w.x += mix(0u, nudge, midpoint != 0u && err != 0.0);
  uint v = mix(gc_f64_to_f32(packDouble2x32(w)), 0u, s == 0.0);
  bool ab_zero = ma == 0u || mb == 0u;
  bool ab_inf = ma == 0x7F800000u || mb == 0x7F800000u;
  bool c_inf_opposite = mc == 0x7F800000u && cs != ps;
  v = mix(v, mix(c, ps & c, mc == 0u), ab_zero);
  v = mix(v, c, mc == 0x7F800000u);
  v = mix(v, mix(ps | 0x7F800000u, 0x7FC00000u, ab_zero || c_inf_opposite), ab_inf);
  return mix(v, 0x7FC00000u, ma > 0x7F800000u || mb > 0x7F800000u || mc > 0x7F800000u);
}
)"},
HelperDef{"gc_f32_sqrt", {"gc_f32_to_f64", "gc_f64_to_f32"}, R"(uint gc_f32_sqrt(uint a) {
  uint v = mix(gc_f64_to_f32(sqrt(gc_f32_to_f64(a))), 0x7FC00000u, a > 0x7F800000u);
  return mix(v, a, a == 0u || a == 0x80000000u || a == 0x7F800000u);
}
)"},
HelperDef{"gc_f32_inverse_sqrt", {"gc_f32_to_f64", "gc_f64_to_f32"}, R"(uint gc_f32_inverse_sqrt(uint a) {
  precise double r = 1.0 / sqrt(gc_f32_to_f64(a));
  uint v = mix(gc_f64_to_f32(r), 0x7FC00000u, a > 0x7F800000u);
  v = mix(v, 0u, a == 0x7F800000u);
  v = mix(v, 0xFF800000u, a == 0x80000000u);
  return mix(v, 0x7F800000u, a == 0u);
}
)"},
HelperDef{"gc_f32_mod", {"gc_f32_is_nan", "gc_canon"}, R"(// fmod on the bits (musl's fmodf): exact, truncated, the result has the dividend's sign
uint gc_f32_mod(uint x, uint y) {
  int ex = int((x >> 23u) & 0xFFu);
  int ey = int((y >> 23u) & 0xFFu);
  uint sx = x & 0x80000000u;
  uint ux = x;
  uint uy = y;
  uint i;
  if ((uy << 1u) == 0u || gc_f32_is_nan(uy) || ex == 0xFF) return 0x7FC00000u;
  if ((ux << 1u) <= (uy << 1u)) return (ux << 1u) == (uy << 1u) ? sx : x;
  if (ex == 0) {
    for (i = ux << 9u; (i >> 31u) == 0u; i <<= 1u) ex--;
    ux <<= uint(1 - ex);
  } else {
    ux = (ux & 0x007FFFFFu) | 0x00800000u;
  }
  if (ey == 0) {
    for (i = uy << 9u; (i >> 31u) == 0u; i <<= 1u) ey--;
    uy <<= uint(1 - ey);
  } else {
    uy = (uy & 0x007FFFFFu) | 0x00800000u;
  }
  for (; ex > ey; ex--) {
    i = ux - uy;
    if ((i >> 31u) == 0u) {
      if (i == 0u) return sx;
      ux = i;
    }
    ux <<= 1u;
  }
  i = ux - uy;
  if ((i >> 31u) == 0u) {
    if (i == 0u) return sx;
    ux = i;
  }
  for (; (ux >> 23u) == 0u; ux <<= 1u) ex--;
  if (ex > 0) {
    ux = (ux - 0x00800000u) | (uint(ex) << 23u);
  } else {
    ux >>= uint(1 - ex);
  }
  return gc_canon(ux | sx);
}
)"},
HelperDef{"gc_f32_key", {}, R"(// a total-order key of a non-NaN f32 in which -0 and +0 are equal
uint gc_f32_key(uint x) {
  uint k = mix(x | 0x80000000u, ~x, (x & 0x80000000u) != 0u);
  return mix(k, 0x80000000u, (x & 0x7FFFFFFFu) == 0u);
}
)"},
HelperDef{"gc_f32_eq", {}, R"(uint gc_f32_eq(uint a, uint b) {
  uint unordered = uint((a & 0x7FFFFFFFu) > 0x7F800000u) | uint((b & 0x7FFFFFFFu) > 0x7F800000u);
  uint eq = uint(a == b) | uint(((a | b) & 0x7FFFFFFFu) == 0u);
  return eq & (unordered ^ 1u);
}
)"},
HelperDef{"gc_f32_lt", {"gc_f32_key"}, R"(uint gc_f32_lt(uint a, uint b) {
  uint unordered = uint((a & 0x7FFFFFFFu) > 0x7F800000u) | uint((b & 0x7FFFFFFFu) > 0x7F800000u);
  return uint(gc_f32_key(a) < gc_f32_key(b)) & (unordered ^ 1u);
}
)"},
HelperDef{"gc_f32_le", {"gc_f32_key"}, R"(uint gc_f32_le(uint a, uint b) {
  uint unordered = uint((a & 0x7FFFFFFFu) > 0x7F800000u) | uint((b & 0x7FFFFFFFu) > 0x7F800000u);
  return uint(gc_f32_key(a) <= gc_f32_key(b)) & (unordered ^ 1u);
}
)"},
HelperDef{"gc_f32_min", {"gc_f32_key"}, R"(// a NaN operand yields the other operand; -0 < +0
uint gc_f32_min(uint a, uint b) {
  bool a_nan = (a & 0x7FFFFFFFu) > 0x7F800000u;
  bool b_nan = (b & 0x7FFFFFFFu) > 0x7F800000u;
  uint ka = gc_f32_key(a);
  uint kb = gc_f32_key(b);
  uint v = mix(mix(b, a, ka < kb), a | b, ka == kb);
  v = mix(v, a, b_nan);
  return mix(v, mix(b, 0x7FC00000u, b_nan), a_nan);
}
)"},
HelperDef{"gc_f32_max", {"gc_f32_key"}, R"(uint gc_f32_max(uint a, uint b) {
  bool a_nan = (a & 0x7FFFFFFFu) > 0x7F800000u;
  bool b_nan = (b & 0x7FFFFFFFu) > 0x7F800000u;
  uint ka = gc_f32_key(a);
  uint kb = gc_f32_key(b);
  uint v = mix(mix(b, a, ka > kb), a & b, ka == kb);
  v = mix(v, a, b_nan);
  return mix(v, mix(b, 0x7FC00000u, b_nan), a_nan);
}
)"},
HelperDef{"gc_f32_trunc", {"gc_canon"}, R"(uint gc_f32_trunc(uint x) {
  uint e = (x >> 23u) & 0xFFu;
  uint v = x & ~(0x007FFFFFu >> (clamp(e, 127u, 150u) - 127u));
  v = mix(v, x & 0x80000000u, e < 127u);
  return mix(v, gc_canon(x), e >= 150u);
}
)"},
HelperDef{"gc_f32_floor", {"gc_f32_trunc"}, R"(uint gc_f32_floor(uint x) {
  uint t = gc_f32_trunc(x);
  bool exact = t == x || (x & 0x80000000u) == 0u;
  return mix(floatBitsToUint(uintBitsToFloat(t) - 1.0), t, exact);
}
)"},
HelperDef{"gc_f32_ceil", {"gc_f32_trunc"}, R"(uint gc_f32_ceil(uint x) {
  uint t = gc_f32_trunc(x);
  bool exact = t == x || (x & 0x80000000u) != 0u;
  return mix(floatBitsToUint(uintBitsToFloat(t) + 1.0), t, exact);
}
)"},
HelperDef{"gc_f32_round", {"gc_canon"}, R"(// half-way cases away from zero
uint gc_f32_round(uint x) {
  uint e = (x >> 23u) & 0xFFu;
  uint sh = clamp(e, 127u, 149u) - 127u;
  uint v = (x + (0x00400000u >> sh)) & ~(0x007FFFFFu >> sh);
  v = mix(v, (x & 0x80000000u) | 0x3F800000u, e == 126u);
  v = mix(v, x & 0x80000000u, e < 126u);
  return mix(v, gc_canon(x), e >= 150u);
}
)"},
HelperDef{"gc_f32_sign", {}, R"(// NaN -> NaN, ±0 -> +0, else ±1
uint gc_f32_sign(uint x) {
  uint v = mix((x & 0x80000000u) | 0x3F800000u, 0u, (x & 0x7FFFFFFFu) == 0u);
  return mix(v, 0x7FC00000u, (x & 0x7FFFFFFFu) > 0x7F800000u);
}
)"},
HelperDef{"gc_f32_to_u32", {}, R"(// truncate toward zero, saturate, NaN -> 0
uint gc_f32_to_u32(uint x) {
  uint e = x >> 23u;
  uint m = (x & 0x007FFFFFu) | 0x00800000u;
  uint v = mix(m >> (150u - clamp(e, 127u, 150u)), m << (clamp(e, 150u, 158u) - 150u), e >= 150u);
  v = mix(v, 0u, e < 127u);
  v = mix(v, 0xFFFFFFFFu, x >= 0x4F800000u);
  return mix(v, 0u, (x & 0x7FFFFFFFu) > 0x7F800000u || (x & 0x80000000u) != 0u);
}
)"},
HelperDef{"gc_f32_to_i32", {}, R"(uint gc_f32_to_i32(uint x) {
  uint mag = x & 0x7FFFFFFFu;
  bool neg = (x & 0x80000000u) != 0u;
  uint e = mag >> 23u;
  uint m = (mag & 0x007FFFFFu) | 0x00800000u;
  uint v = mix(m >> (150u - clamp(e, 127u, 150u)), m << (clamp(e, 150u, 157u) - 150u), e >= 150u);
  v = mix(v, 0u, e < 127u);
  v = mix(v, 0u - v, neg);
  v = mix(v, mix(0x7FFFFFFFu, 0x80000000u, neg), mag >= 0x4F000000u);
  return mix(v, 0u, mag > 0x7F800000u);
}
)"},
HelperDef{"gc_u32_to_f32", {}, R"(// round to nearest even
uint gc_u32_to_f32(uint v) {
  int msb = findMSB(v);
  uint e = uint(msb + 127) << 23u;
  uint exact = e | ((v << uint(clamp(23 - msb, 0, 31))) & 0x007FFFFFu);
  uint sh = uint(clamp(msb - 23, 1, 8));
  uint m = v >> sh;
  uint rest = v & ((1u << sh) - 1u);
  uint half_ = 1u << (sh - 1u);
  uint up = (uint(rest > half_) | (uint(rest == half_) & m)) & 1u;
  uint r = mix(e + (m & 0x007FFFFFu) + up, exact, msb <= 23);
  return mix(r, 0u, v == 0u);
}
)"},
HelperDef{"gc_i32_to_f32", {"gc_u32_to_f32"}, R"(uint gc_i32_to_f32(uint v) {
  bool neg = int(v) < 0;
  return mix(0u, 0x80000000u, neg) | gc_u32_to_f32(mix(v, 0u - v, neg));
}
)"},
// ---- transcendentals: specials decided on the bits; the value computed in double by argument
// reduction and polynomials (no device built-in, whose Vulkan precision is loose or undefined), then
// rounded once to binary32. Operands are canonical, so never subnormal.
HelperDef{"gc_d_trig_reduce", {"gc_f32_to_f64"}, R"(// |x| = (n + r / (pi/2)) * pi/2 with r in about [-pi/4, pi/4]: Cody-Waite below 2^25 (27-bit splits
// of pi/2, so k * P1 and k * P2 are exact), Payne-Hanek above (96 bits of 2/pi from the right offset)
const uint gc_two_over_pi[8] = uint[8](0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u,
                                       0xDB629599u, 0x3C439041u, 0xFE5163ABu, 0xDEBBC561u);
double gc_d_trig_reduce(uint ax, out uint n) {
  int e = int(ax >> 23u) - 150;
  if (e < 2) {
    double d = gc_f32_to_f64(ax);
    precise double k = floor(d * 0.63661977236758134lf + 0.5lf);
    n = uint(k) & 3u;
    precise double r = ((d - k * 1.570796325802803lf) - k * 9.920935739593517e-10lf) - k * 5.721188726109832e-18lf;
    return r;
  }
  uint m = (ax & 0x007FFFFFu) | 0x00800000u;
  int k0 = e - 1;
  int j = (k0 - 1) / 32;
  uint sh = uint((k0 - 1) % 32);
  uint w[3];
  for (int i = 0; i < 3; ++i) {
    uint hi_ = gc_two_over_pi[j + i];
    uint lo_ = gc_two_over_pi[j + i + 1];
    w[i] = sh == 0u ? hi_ : ((hi_ << sh) | (lo_ >> (32u - sh)));
  }
  uint h0, l0, h1, l1, h2, l2;
  umulExtended(m, w[0], h0, l0);
  umulExtended(m, w[1], h1, l1);
  umulExtended(m, w[2], h2, l2);
  uint c1;
  uint p1 = uaddCarry(h2, l1, c1);
  uint c2a;
  uint c2b;
  uint p2 = uaddCarry(uaddCarry(h1, l0, c2a), c1, c2b);
  n = p2 >> 30u;
  precise double f = double(p2 & 0x3FFFFFFFu) * 9.313225746154785e-10lf + double(p1) * 2.168404344971009e-19lf +
                     double(l2) * 5.048709793414476e-29lf;
  if (f >= 0.5lf) {
    f -= 1.0lf;
    n = (n + 1u) & 3u;
  }
  precise double r = f * 1.5707963267948966lf;
  return r;
}
)"},
HelperDef{"gc_d_sin_poly", {}, R"(double gc_d_sin_poly(double r) {
  precise double z = r * r;
  precise double p = -1.0lf / 1307674368000.0lf;
  p = p * z + 1.0lf / 6227020800.0lf;
  p = p * z - 1.0lf / 39916800.0lf;
  p = p * z + 1.0lf / 362880.0lf;
  p = p * z - 1.0lf / 5040.0lf;
  p = p * z + 1.0lf / 120.0lf;
  p = p * z - 1.0lf / 6.0lf;
  precise double s = r + r * z * p;
  return s;
}
)"},
HelperDef{"gc_d_cos_poly", {}, R"(double gc_d_cos_poly(double r) {
  precise double z = r * r;
  precise double p = 1.0lf / 20922789888000.0lf;
  p = p * z - 1.0lf / 87178291200.0lf;
  p = p * z + 1.0lf / 479001600.0lf;
  p = p * z - 1.0lf / 3628800.0lf;
  p = p * z + 1.0lf / 40320.0lf;
  p = p * z - 1.0lf / 720.0lf;
  p = p * z + 1.0lf / 24.0lf;
  p = p * z - 0.5lf;
  precise double c = 1.0lf + z * p;
  return c;
}
)"},
HelperDef{"gc_f32_sin", {"gc_d_trig_reduce", "gc_d_sin_poly", "gc_d_cos_poly", "gc_f64_to_f32"}, R"(uint gc_f32_sin(uint x) {
  if ((x & 0x7F800000u) == 0x7F800000u) return 0x7FC00000u;
  if ((x & 0x7FFFFFFFu) < 0x39800000u) return x;  // |x| < 2^-12: sin x rounds to x
  uint n;
  double r = gc_d_trig_reduce(x & 0x7FFFFFFFu, n);
  double v = (n & 1u) == 0u ? gc_d_sin_poly(r) : gc_d_cos_poly(r);
  if (n >= 2u) v = -v;
  return gc_f64_to_f32(v) ^ (x & 0x80000000u);
}
)"},
HelperDef{"gc_f32_cos", {"gc_d_trig_reduce", "gc_d_sin_poly", "gc_d_cos_poly", "gc_f64_to_f32"}, R"(uint gc_f32_cos(uint x) {
  if ((x & 0x7F800000u) == 0x7F800000u) return 0x7FC00000u;
  uint n;
  double r = gc_d_trig_reduce(x & 0x7FFFFFFFu, n);
  double v = (n & 1u) == 0u ? gc_d_cos_poly(r) : gc_d_sin_poly(r);
  if (n == 1u || n == 2u) v = -v;
  return gc_f64_to_f32(v);
}
)"},
HelperDef{"gc_f32_tan", {"gc_d_trig_reduce", "gc_d_sin_poly", "gc_d_cos_poly", "gc_f64_to_f32"}, R"(uint gc_f32_tan(uint x) {
  if ((x & 0x7F800000u) == 0x7F800000u) return 0x7FC00000u;
  if ((x & 0x7FFFFFFFu) < 0x39800000u) return x;
  uint n;
  double r = gc_d_trig_reduce(x & 0x7FFFFFFFu, n);
  double s = gc_d_sin_poly(r);
  double c = gc_d_cos_poly(r);
  precise double v = (n & 1u) == 0u ? s / c : -c / s;
  return gc_f64_to_f32(v) ^ (x & 0x80000000u);
}
)"},
HelperDef{"gc_d_atan", {}, R"(// atan of a finite double: reduce to |t| <= tan(pi/12), then the odd series
double gc_d_atan(double t) {
  double a = abs(t);
  bool inverted = a > 1.0lf;
  if (inverted) a = 1.0lf / a;
  double offset = 0.0lf;
  if (a > 0.2679491924311227lf) {
    precise double q = (a * 1.7320508075688772lf - 1.0lf) / (a + 1.7320508075688772lf);
    a = q;
    offset = 0.5235987755982989lf;
  }
  precise double z = a * a;
  precise double p = 0.0lf;
  for (int k = 31; k >= 3; k -= 2) p = (p + ((k & 2) != 0 ? -1.0lf : 1.0lf) / double(k)) * z;
  precise double res = offset + (a + a * p);
  if (inverted) res = 1.5707963267948966lf - res;
  return t < 0.0lf ? -res : res;
}
)"},
HelperDef{"gc_f32_atan", {"gc_f32_is_nan", "gc_f32_to_f64", "gc_f64_to_f32", "gc_d_atan"}, R"(uint gc_f32_atan(uint x) {
  if (gc_f32_is_nan(x)) return 0x7FC00000u;
  if ((x & 0x7FFFFFFFu) == 0x7F800000u) return (x & 0x80000000u) | 0x3FC90FDBu;
  if ((x & 0x7FFFFFFFu) < 0x39800000u) return x;
  return gc_f64_to_f32(gc_d_atan(gc_f32_to_f64(x)));
}
)"},
HelperDef{"gc_f32_asin", {"gc_f32_to_f64", "gc_f64_to_f32", "gc_d_atan"}, R"(uint gc_f32_asin(uint x) {
  uint ax = x & 0x7FFFFFFFu;
  if (ax > 0x3F800000u) return 0x7FC00000u;
  if (ax == 0x3F800000u) return (x & 0x80000000u) | 0x3FC90FDBu;
  if (ax < 0x39800000u) return x;
  double d = gc_f32_to_f64(x);
  precise double q = d / sqrt(1.0lf - d * d);
  return gc_f64_to_f32(gc_d_atan(q));
}
)"},
HelperDef{"gc_f32_acos", {"gc_f32_to_f64", "gc_f64_to_f32", "gc_d_atan"}, R"(uint gc_f32_acos(uint x) {
  if ((x & 0x7FFFFFFFu) > 0x3F800000u) return 0x7FC00000u;
  if (x == 0xBF800000u) return 0x40490FDBu;  // acos(-1) = pi
  double d = gc_f32_to_f64(x);
  precise double q = sqrt((1.0lf - d) / (1.0lf + d));
  precise double v = 2.0lf * gc_d_atan(q);
  return gc_f64_to_f32(v);
}
)"},
HelperDef{"gc_d_exp", {}, R"(// e^d for |d| <= 300: d = k ln2 + r (two-part ln2, k * L1 exact), Taylor series of e^r, times 2^k
double gc_d_exp(double d) {
  precise double k = floor(d * 1.4426950408889634lf + 0.5lf);
  precise double r = (d - k * 0.6931471806019545lf) - k * -4.2009150726810846e-11lf;
  precise double e = 1.0lf;
  for (int i = 14; i >= 1; --i) e = 1.0lf + e * r / double(i);
  return ldexp(e, int(k));
}
)"},
HelperDef{"gc_f32_exp", {"gc_f32_is_nan", "gc_f32_to_f64", "gc_f64_to_f32", "gc_d_exp"}, R"(uint gc_f32_exp(uint x) {
  if (gc_f32_is_nan(x)) return 0x7FC00000u;
  if (x >= 0x42C80000u && x <= 0x7F800000u) return 0x7F800000u;  // x >= 100, +inf: overflows
  if (x > 0xC2DC0000u) return 0u;                                  // x < -110, -inf: flushes
  double d = gc_f32_to_f64(x);
  return gc_f64_to_f32(gc_d_exp(d));
}
)"},
HelperDef{"gc_f32_exp2", {"gc_f32_is_nan", "gc_f32_to_f64", "gc_f64_to_f32", "gc_d_exp"}, R"(uint gc_f32_exp2(uint x) {
  if (gc_f32_is_nan(x)) return 0x7FC00000u;
  if (x >= 0x43020000u && x <= 0x7F800000u) return 0x7F800000u;  // x >= 130, +inf: overflows
  if (x > 0xC3200000u) return 0u;                                  // x < -160, -inf: flushes
  double d = gc_f32_to_f64(x);
  double k = floor(d);
  precise double r = (d - k) * 0.6931471805599453lf;
  return gc_f64_to_f32(ldexp(gc_d_exp(r), int(k)));
}
)"},
HelperDef{"gc_d_log_parts", {}, R"(// ln of a positive normal f32 as (exponent e, ln m) with m in [sqrt(1/2), sqrt(2)):
// ln m = 2 atanh(s), s = (m - 1) / (m + 1), an odd series in s
double gc_d_log_m(uint x, out int e) {
  e = int(x >> 23u) - 127;
  uint mb = (x & 0x007FFFFFu) | 0x3F800000u;
  if (mb > 0x3FB504F3u) {
    mb -= 0x00800000u;
    e += 1;
  }
  double m = double(uintBitsToFloat(mb));
  precise double s = (m - 1.0lf) / (m + 1.0lf);
  precise double z = s * s;
  precise double p = 0.0lf;
  for (int k = 23; k >= 3; k -= 2) p = (p + 1.0lf / double(k)) * z;
  precise double l = 2.0lf * (s + s * p);
  return l;
}
)"},
HelperDef{"gc_f32_log", {"gc_f64_to_f32", "gc_d_log_parts"}, R"(uint gc_f32_log(uint x) {
  if ((x & 0x7FFFFFFFu) == 0u) return 0xFF800000u;
  if (x >= 0x7F800000u) return x == 0x7F800000u ? x : 0x7FC00000u;
  int e;
  double lm = gc_d_log_m(x, e);
  precise double v = double(e) * 0.6931471805599453lf + lm;
  return gc_f64_to_f32(v);
}
)"},
HelperDef{"gc_f32_log2", {"gc_f64_to_f32", "gc_d_log_parts"}, R"(uint gc_f32_log2(uint x) {
  if ((x & 0x7FFFFFFFu) == 0u) return 0xFF800000u;
  if (x >= 0x7F800000u) return x == 0x7F800000u ? x : 0x7FC00000u;
  int e;
  double lm = gc_d_log_m(x, e);
  precise double v = double(e) + lm * 1.4426950408889634lf;
  return gc_f64_to_f32(v);
}
)"},
HelperDef{"gc_f32_sinh", {"gc_f32_is_nan", "gc_f32_to_f64", "gc_f64_to_f32", "gc_d_exp"}, R"(uint gc_f32_sinh(uint x) {
  if (gc_f32_is_nan(x)) return 0x7FC00000u;
  uint ax = x & 0x7FFFFFFFu;
  if (ax < 0x39800000u) return x;
  if (ax >= 0x42C80000u) return (x & 0x80000000u) | 0x7F800000u;  // |x| >= 100 overflows
  double e = gc_d_exp(gc_f32_to_f64(ax));
  precise double v = 0.5lf * (e - 1.0lf / e);
  return gc_f64_to_f32(v) | (x & 0x80000000u);
}
)"},
HelperDef{"gc_f32_cosh", {"gc_f32_is_nan", "gc_f32_to_f64", "gc_f64_to_f32", "gc_d_exp"}, R"(uint gc_f32_cosh(uint x) {
  if (gc_f32_is_nan(x)) return 0x7FC00000u;
  uint ax = x & 0x7FFFFFFFu;
  if (ax >= 0x42C80000u) return 0x7F800000u;
  double e = gc_d_exp(gc_f32_to_f64(ax));
  precise double v = 0.5lf * (e + 1.0lf / e);
  return gc_f64_to_f32(v);
}
)"},
HelperDef{"gc_f32_tanh", {"gc_f32_is_nan", "gc_f32_to_f64", "gc_f64_to_f32", "gc_d_exp"}, R"(uint gc_f32_tanh(uint x) {
  if (gc_f32_is_nan(x)) return 0x7FC00000u;
  uint ax = x & 0x7FFFFFFFu;
  if (ax < 0x39800000u) return x;
  if (ax >= 0x41200000u) return (x & 0x80000000u) | 0x3F800000u;  // |x| >= 10: ±1 in binary32
  double e2 = gc_d_exp(2.0lf * gc_f32_to_f64(ax));
  precise double v = (e2 - 1.0lf) / (e2 + 1.0lf);
  return gc_f64_to_f32(v) | (x & 0x80000000u);
}
)"},
// ---- integers
HelperDef{"gc_i32_div", {}, R"(uint gc_i32_div(uint a, uint b, uint site) {
  bool overflow = a == 0x80000000u && b == 0xFFFFFFFFu;
  if (b == 0u) gc_trap(site, 1u);
  if (overflow) gc_trap(site, 3u);
  uint ua = mix(a, 0u - a, int(a) < 0);
  uint ub = mix(b, 0u - b, int(b) < 0);
  uint q = ua / max(ub, 1u);
  q = mix(q, 0u - q, ((a ^ b) & 0x80000000u) != 0u);
  return mix(q, 0u, b == 0u || overflow);
}
)"},
HelperDef{"gc_i32_mod", {}, R"(uint gc_i32_mod(uint a, uint b, uint site) {
  bool overflow = a == 0x80000000u && b == 0xFFFFFFFFu;
  if (b == 0u) gc_trap(site, 2u);
  if (overflow) gc_trap(site, 4u);
  uint ua = mix(a, 0u - a, int(a) < 0);
  uint ub = mix(b, 0u - b, int(b) < 0);
  uint r = ua % max(ub, 1u);
  r = mix(r, 0u - r, int(a) < 0);
  return mix(r, 0u, b == 0u || overflow);
}
)"},
HelperDef{"gc_i32_saturating_add", {}, R"(uint gc_i32_saturating_add(uint a, uint b) {
  uint r = a + b;
  return mix(r, mix(0x7FFFFFFFu, 0x80000000u, int(a) < 0), ((a ^ r) & (b ^ r) & 0x80000000u) != 0u);
}
)"},
HelperDef{"gc_i32_saturating_sub", {}, R"(uint gc_i32_saturating_sub(uint a, uint b) {
  uint r = a - b;
  return mix(r, mix(0x7FFFFFFFu, 0x80000000u, int(a) < 0), ((a ^ b) & (a ^ r) & 0x80000000u) != 0u);
}
)"},
HelperDef{"gc_u32_saturating_mul", {}, R"(uint gc_u32_saturating_mul(uint a, uint b) {
  uint hi;
  uint lo;
  umulExtended(a, b, hi, lo);
  return mix(lo, 0xFFFFFFFFu, hi != 0u);
}
)"},
HelperDef{"gc_i32_saturating_mul", {}, R"(uint gc_i32_saturating_mul(uint a, uint b) {
  int hi;
  int lo;
  imulExtended(int(a), int(b), hi, lo);
  return mix(uint(lo), mix(0x7FFFFFFFu, 0x80000000u, ((a ^ b) & 0x80000000u) != 0u), hi != (lo >> 31));
}
)"},
HelperDef{"gc_mul_high", {}, R"(uint gc_mul_high(uint a, uint b) {
  uint hi;
  uint lo;
  umulExtended(a, b, hi, lo);
  return hi;
}
)"},
};
// clang-format on

std::size_t index_of(std::string_view name) {
  for (std::size_t i = 0; i < kHelpers.size(); ++i)
    if (kHelpers[i].name == name) return i;
  GC_ICE(std::string("unknown GLSL helper ") + std::string(name));
}

}  // namespace

void HelperSet::need(std::string_view name) {
  const std::size_t i = index_of(name);
  if (used_.size() < kHelpers.size()) used_.resize(kHelpers.size(), false);
  if (used_[i]) return;
  used_[i] = true;
  for (std::string_view dep : kHelpers[i].deps) {
    if (dep.empty()) break;
    GC_ASSERT(index_of(dep) < i);  // rows are in dependency order
    need(dep);
  }
}

bool HelperSet::has(std::string_view name) const {
  const std::size_t i = index_of(name);
  return i < used_.size() && used_[i];
}

std::string HelperSet::text() const {
  std::string out;
  for (std::size_t i = 0; i < used_.size(); ++i)
    if (used_[i]) out += std::string(kHelpers[i].text) + "\n";
  return out;
}

std::vector<std::string_view> HelperSet::names() const {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < used_.size(); ++i)
    if (used_[i]) out.push_back(kHelpers[i].name);
  return out;
}

std::vector<std::string_view> all_helper_names() {
  std::vector<std::string_view> out;
  for (const HelperDef& h : kHelpers) out.push_back(h.name);
  return out;
}

}  // namespace gridcheck::gpu
