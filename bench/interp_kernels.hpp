#pragma once
// The two benchmark kernels of the interpreter issue, in IR and as native C++ loops:
//   lcg     8 LCG steps + 2 global loads + 1 store per work-item, workgroup 64 (bench/README.md)
//   reduce  local-memory tree reduction, workgroup 64, 7 barriers per workgroup (bench/README.md)
// bench/oclgrind/{lcg,reduce}.cl are the same kernels in OpenCL C for Oclgrind.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "interp/interpreter.hpp"
#include "ir/builder.hpp"

namespace gridcheck::bench {

inline constexpr std::uint32_t kWorkgroup = 64;
inline constexpr std::uint32_t kLcgMul = 1664525u;
inline constexpr std::uint32_t kLcgAdd = 1013904223u;

/// out[i] = lcg^8(a[i] ^ b[i])
inline ir::Program lcg_program(std::uint32_t n) {
  using namespace ir;
  Builder b({kWorkgroup, 1, 1});
  Buf a = b.read("a", 0, ScalarType::U32, n);
  Buf c = b.read("b", 1, ScalarType::U32, n);
  Buf out = b.output("out", 2, ScalarType::U32, n);
  return b.wrapped({b.let("x", b.load(a, b.gid()) ^ b.load(c, b.gid())),
                    b.loop("k", b.u32(0), b.u32(8), {b.assign("x", b.var("x") * b.u32(kLcgMul) + b.u32(kLcgAdd))}),
                    b.store(out, b.gid(), b.var("x"))});
}

/// out[wg] = sum of in[wg*64 .. wg*64+63], by a tree in workgroup memory.
inline ir::Program reduce_program(std::uint32_t n) {
  using namespace ir;
  Builder b({kWorkgroup, 1, 1});
  Buf in = b.read("in", 0, ScalarType::U32, n);
  Buf out = b.output("out", 1, ScalarType::U32, n / kWorkgroup);
  Buf sh = b.workgroup("sh", kWorkgroup, ScalarType::U32);
  return b.wrapped({b.store(sh, b.lid(), b.load(in, b.gid())), b.barrier(),
                    b.loop("k", b.u32(0), b.u32(6),
                           {b.let("s", b.u32(32) >> b.var("k")),
                            b.if_(b.lid() < b.var("s"),
                                  {b.store(sh, b.lid(), b.load(sh, b.lid()) + b.load(sh, b.lid() + b.var("s")))}),
                            b.barrier()}),
                    b.if_(b.lid() == b.u32(0), {b.store(out, b.wgid(), b.load(sh, b.u32(0)))})});
}

/// The LCG kernel as a C++ loop. The multiplier and increment are run-time values (pass
/// lcg_constants()): with literal constants the compiler composes the eight steps into one
/// multiply-add, which is no longer the same kernel.
inline void native_lcg(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* out, std::size_t n,
                       std::uint32_t mul, std::uint32_t add) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t x = a[i] ^ b[i];
    for (int k = 0; k < 8; ++k) x = x * mul + add;
    out[i] = x;
  }
}

/// The same loop with auto-vectorisation off: one work-item at a time, as an interpreter runs it.
[[gnu::optimize("no-tree-vectorize")]] inline void native_lcg_scalar(const std::uint32_t* a, const std::uint32_t* b,
                                                                       std::uint32_t* out, std::size_t n,
                                                                       std::uint32_t mul, std::uint32_t add) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t x = a[i] ^ b[i];
    for (int k = 0; k < 8; ++k) x = x * mul + add;
    out[i] = x;
  }
}

/// kLcgMul and kLcgAdd, read through a volatile so that the optimiser cannot fold them.
inline std::pair<std::uint32_t, std::uint32_t> lcg_constants() {
  static volatile std::uint32_t mul = kLcgMul, add = kLcgAdd;
  return {mul, add};
}

inline void native_reduce(const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  std::uint32_t sh[kWorkgroup];
  for (std::size_t g = 0; g < n / kWorkgroup; ++g) {
    for (std::uint32_t l = 0; l < kWorkgroup; ++l) sh[l] = in[g * kWorkgroup + l];
    for (std::uint32_t s = kWorkgroup / 2; s > 0; s >>= 1)
      for (std::uint32_t l = 0; l < s; ++l) sh[l] += sh[l + s];
    out[g] = sh[0];
  }
}

inline interp::Bytes words_to_bytes(const std::vector<std::uint32_t>& w) {
  interp::Bytes b(w.size() * 4);
  for (std::size_t i = 0; i < w.size(); ++i)
    for (int k = 0; k < 4; ++k) b[i * 4 + k] = static_cast<std::uint8_t>(w[i] >> (8 * k));
  return b;
}

inline std::vector<std::uint32_t> bytes_to_words(const interp::Bytes& b) {
  std::vector<std::uint32_t> w(b.size() / 4, 0);
  for (std::size_t i = 0; i < w.size(); ++i)
    for (int k = 0; k < 4; ++k) w[i] |= std::uint32_t{b[i * 4 + k]} << (8 * k);
  return w;
}

/// The interpreter's buffers for one kernel (every non-workgroup buffer, declaration order), with
/// the inputs of the .sim files: a/in = 0, 1, 2, ...; b = 7; outputs zero.
inline std::vector<interp::Bytes> kernel_buffers(std::string_view kernel, std::uint32_t n) {
  interp::Bytes series(std::size_t{n} * 4);
  for (std::uint32_t i = 0; i < n; ++i)
    for (int k = 0; k < 4; ++k) series[std::size_t{i} * 4 + k] = static_cast<std::uint8_t>(i >> (8 * k));
  std::vector<interp::Bytes> buffers;
  buffers.push_back(std::move(series));
  if (kernel == "lcg") {
    interp::Bytes sevens(std::size_t{n} * 4, 0);
    for (std::uint32_t i = 0; i < n; ++i) sevens[std::size_t{i} * 4] = 7;
    buffers.push_back(std::move(sevens));
    buffers.emplace_back(std::size_t{n} * 4, 0);
  } else {
    buffers.emplace_back(std::size_t{n / kWorkgroup} * 4, 0);
  }
  return buffers;
}

}  // namespace gridcheck::bench
