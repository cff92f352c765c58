#pragma once
// Helpers shared by the interp tests: word vectors <-> little-endian bytes, reading outputs.

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string_view>
#include <vector>

#include "interp/interpreter.hpp"
#include "ir/builder.hpp"

namespace gridcheck::interp::testing {

using Words = std::vector<std::uint32_t>;

inline Bytes to_bytes(const Words& words) {
  Bytes b(words.size() * 4);
  for (std::size_t i = 0; i < words.size(); ++i)
    for (int k = 0; k < 4; ++k) b[i * 4 + k] = static_cast<std::uint8_t>(words[i] >> (8 * k));
  return b;
}

inline Words to_words(const Bytes& bytes) {
  Words w(bytes.size() / 4);
  for (std::size_t i = 0; i < w.size(); ++i)
    for (int k = 0; k < 4; ++k) w[i] |= std::uint32_t{bytes[i * 4 + k]} << (8 * k);
  return w;
}

inline Words fill(std::size_t n, std::uint32_t v) { return Words(n, v); }
inline Words iota(std::size_t n, std::uint32_t start = 0) {
  Words w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = start + static_cast<std::uint32_t>(i);
  return w;
}

/// The words of output `name`, or an empty vector (with a test failure) when there is none.
inline Words output(const RunResult& r, std::string_view name) {
  const OutputBuffer* o = r.output(name);
  if (o == nullptr) {
    ADD_FAILURE() << "no output named " << name << " (status " << name_of(r.status) << ")";
    return {};
  }
  return to_words(o->bytes);
}

/// Every diagnostic rendered, for failure messages.
inline std::string explain(const RunResult& r) {
  return std::string(name_of(r.status)) + "\n" + ir::render(r.diagnostics);
}

/// Options under which out-of-bounds accesses and uninitialised workgroup reads are the defined
/// behaviour of docs/semantics.md §3.4, for the tests of that behaviour itself.
inline RunOptions memory_defined(RunOptions o = {}) {
  o.oob = ir::MemoryCheck::Defined;
  o.uninit = ir::MemoryCheck::Defined;
  return o;
}

inline std::uint32_t f32(float v) { return std::bit_cast<std::uint32_t>(v); }

/// Grid 2 of workgroups of 4: each invocation stores its id to workgroup memory and reads its
/// neighbour's, with or without a barrier between (a race without); `out` gets what it read.
inline ir::Program neighbour_exchange(bool with_barrier) {
  ir::Builder b({4, 1, 1});
  ir::Buf sh = b.workgroup("sh", 4, ir::ScalarType::U32);
  ir::Buf out = b.output("out", 0, ir::ScalarType::U32, 8);
  std::vector<ir::S> body = {b.store(sh, b.lid(), b.gid()), b.let("v", b.load(sh, (b.lid() + b.u32(1)) % b.u32(4)))};
  if (with_barrier) body.insert(body.begin() + 1, b.barrier());
  body.push_back(b.store(out, b.gid(), b.var("v")));
  return b.wrapped(body);
}

}  // namespace gridcheck::interp::testing
