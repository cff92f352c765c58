// Table-driven edge values: every operator of ir/ops.hpp, every cast, fma, select and every atomic,
// over every operand type the table allows and edge-value operands, run on the Vulkan device and
// compared with ir/scalar_semantics (the reference's definition): bit for bit, or within the table's
// ULP bound for the f32 operations Vulkan does not define exactly.
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpu/gpu_test_support.hpp"
#include "gpu/vulkan_executor.hpp"
#include "gpu/word_compare.hpp"
#include "ir/builder.hpp"
#include "ir/case.hpp"
#include "ir/scalar_semantics.hpp"

namespace gridcheck::gpu {
namespace {

using namespace ir;
using planner::Bytes;

std::vector<std::uint32_t> edge_values(ScalarType t) {
  switch (t) {
    case ScalarType::U32:
    case ScalarType::I32:
      return {0u,          1u,          2u,          3u,          5u,          31u,         32u,
              33u,         64u,         1000u,       65535u,      65536u,      0x12345678u, 0x7FFFFFFEu,
              0x7FFFFFFFu, 0x80000000u, 0x80000001u, 0xFFFFFFDFu, 0xFFFFFFE0u, 0xFFFFFFFDu, 0xFFFFFFFEu,
              0xFFFFFFFFu, 0xDEADBEEFu};
    case ScalarType::Bool: return {0u, 1u, 2u, 0xFFFFFFFFu};  // memory words: any non-zero word is true
    case ScalarType::F32:
      return {0x00000000u, 0x80000000u,                            // ±0
              0x3F800000u, 0xBF800000u, 0x3F000000u, 0xBF000000u,  // ±1, ±0.5
              0x3FC00000u, 0x40200000u, 0xC0200000u, 0x40400000u,  // 1.5, 2.5, -2.5, 3
              0x3DCCCCCDu, 0xBDCCCCCDu, 0x42C9671Au, 0x40490FDBu,  // ±0.1, 100.7, pi
              0x3FC90FDBu, 0x4B000000u, 0x4AFFFFFFu, 0x4B800001u,  // pi/2, 2^23, 2^23-0.5, 2^24+2
              0x4F000000u, 0x4F800000u, 0xCF000000u, 0xCF000001u,  // 2^31, 2^32, -2^31, below -2^31
              0x501502F9u, 0x7F7FFFFFu, 0xFF7FFFFFu,               // 1e10, ±max
              0x00800000u, 0x80800000u, 0x00800001u,               // ±min normal
              0x00000001u, 0x007FFFFFu, 0x80000001u,               // subnormals (load as ±0)
              0x7F800000u, 0xFF800000u,                            // ±inf
              0x7FC00000u, 0x7F800001u, 0xFFC00000u, 0x7FFFFFFFu,  // NaNs with payloads and signs
              0x41200000u, 0xC2B40000u, 0x42B20000u};              // 10, -90, 89
  }
  return {};
}

std::vector<std::uint32_t> small_f32_values() {
  return {0x00000000u, 0x80000000u, 0x3F800000u, 0xBF800000u, 0x3FC00000u, 0x40400000u, 0x3DCCCCCDu, 0x33800000u,
          0x4B000000u, 0x7F7FFFFFu, 0x00800000u, 0x00000001u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xCB000001u};
}

Bytes to_bytes(const std::vector<std::uint32_t>& words) {
  Bytes b(words.size() * 4);
  if (!words.empty()) std::memcpy(b.data(), words.data(), b.size());
  return b;
}
std::vector<std::uint32_t> to_words(const Bytes& bytes) {
  std::vector<std::uint32_t> w(bytes.size() / 4);
  if (!w.empty()) std::memcpy(w.data(), bytes.data(), w.size() * 4);
  return w;
}

class Gpu_OperatorEdges : public testing::GpuTest {
 protected:
  /// Runs `p` (workgroup 64) over `n` invocations with the given inputs; returns the outputs.
  std::vector<std::vector<std::uint32_t>> run(const Program& p, std::size_t n, const std::vector<std::vector<std::uint32_t>>& inputs) {
    VulkanExecutor exec(ctx());
    std::vector<Bytes> in;
    for (const auto& words : inputs) in.push_back(to_bytes(words));
    std::vector<const Bytes*> ptrs;
    for (const Bytes& b : in) ptrs.push_back(&b);
    planner::LaunchConfig config;
    config.grid_override = std::array<std::uint32_t, 3>{static_cast<std::uint32_t>((n + 63) / 64), 1, 1};
    std::vector<Bytes> out;
    std::optional<planner::LaunchError> e = exec.launch(p, ptrs, config, out);
    EXPECT_FALSE(e.has_value()) << (e ? e->message : "");
    std::vector<std::vector<std::uint32_t>> words;
    for (const Bytes& b : out) words.push_back(to_words(b));
    return words;
  }

  void check(std::string_view what, std::uint32_t expected, std::uint32_t actual, bool f32, F32Precision precision) {
    ++checked_;
    const WordComparison c = compare_word(expected, actual, f32, precision);
    if (c.equal) {
      if (!precision.exact && f32) {
        const std::string op(what.substr(0, what.find(' ')));
        max_ulp_[op] = std::max(max_ulp_[op], f32_ulp_distance(expected, actual));
      }
      return;
    }
    if (failures_.size() < 40)
      failures_.push_back(fmt::format("{}: expected 0x{:08X}, got 0x{:08X} [{}]", what, expected, actual, c.rule));
    ++failed_;
  }

  /// `T(x)` for each word of `xs` (as type `from`) against the reference's cast, bit for bit.
  void check_cast(ScalarType from, ScalarType to, const std::vector<std::uint32_t>& xs) {
    Builder b({64, 1, 1});
    auto xb = b.read("x", 0, from);
    auto out = b.output("out", 1, to, static_cast<std::uint32_t>(xs.size()));
    Program p = b.wrapped({b.store(out, b.gid(), b.cast(to, b.load(xb, b.gid())))});
    const auto got = run(p, xs.size(), {xs});
    ASSERT_EQ(got.size(), 1u);
    for (std::size_t i = 0; i < xs.size(); ++i)
      check(fmt::format("cast<{}>({} 0x{:08X})", name_of(to), name_of(from), xs[i]),
            eval_cast(to, from, load_word(from, xs[i])), got[0][i], false, {});
  }

  void TearDown() override {
    if (IsSkipped()) return GpuTest::TearDown();  // nothing ran: nothing to check
    EXPECT_EQ(failed_, 0u) << fmt::format("{} of {} results differ; first ones:\n{}", failed_, checked_,
                                          fmt::join(failures_, "\n"));
    EXPECT_GT(checked_, 0u);
    // The observed distances of the ULP-rule operations (for the record; the bound is the assertion).
    std::string ulps;
    for (const auto& [op, d] : max_ulp_) ulps += fmt::format(" {}={}", op, d);
    if (!ulps.empty()) std::printf("max ulp distance by operation:%s\n", ulps.c_str());
    GpuTest::TearDown();
  }

  std::size_t checked_ = 0;
  std::size_t failed_ = 0;
  std::map<std::string, std::uint64_t> max_ulp_;
  std::vector<std::string> failures_;
};

TEST_F(Gpu_OperatorEdges, EveryBinaryOperatorOnEveryTypeMatchesTheReference) {
  for (const BinOpInfo& row : all_bin_ops()) {
    for (ScalarType t : {ScalarType::U32, ScalarType::I32, ScalarType::Bool, ScalarType::F32}) {
      const std::optional<ScalarType> result = result_type(row.op, t);
      if (!result) continue;
      const std::vector<std::uint32_t> values = edge_values(t);
      std::vector<std::uint32_t> ls, rs;
      for (std::uint32_t l : values)
        for (std::uint32_t r : values)
          if (eval_binary(row.op, t, load_word(t, l), load_word(t, r)).ok()) {  // traps have their own test
            ls.push_back(l);
            rs.push_back(r);
          }
      Builder b({64, 1, 1});
      auto lb = b.read("l", 0, t);
      auto rb = b.read("r", 1, t);
      auto out = b.output("out", 2, *result, static_cast<std::uint32_t>(ls.size()));
      // Padded invocations (gid >= n) must not run: their out-of-bounds loads read 0, and i32 0 / 0 traps.
      Program p = b.wrapped({b.if_(b.gid() < b.buf_len(lb),
                                   {b.store(out, b.gid(), b.bin(row.op, b.load(lb, b.gid()), b.load(rb, b.gid())))})});
      const auto got = run(p, ls.size(), {ls, rs});
      ASSERT_EQ(got.size(), 1u);
      for (std::size_t i = 0; i < ls.size(); ++i) {
        const ScalarResult want = eval_binary(row.op, t, load_word(t, ls[i]), load_word(t, rs[i]));
        check(fmt::format("{}({}) 0x{:08X}, 0x{:08X}", row.mnemonic, name_of(t), ls[i], rs[i]), want.bits, got[0][i],
              *result == ScalarType::F32, row.f32);
      }
    }
  }
}

TEST_F(Gpu_OperatorEdges, EveryUnaryOperatorOnEveryTypeMatchesTheReference) {
  for (const UnOpInfo& row : all_un_ops()) {
    for (ScalarType t : {ScalarType::U32, ScalarType::I32, ScalarType::Bool, ScalarType::F32}) {
      const std::optional<ScalarType> result = result_type(row.op, t);
      if (!result) continue;
      std::vector<std::uint32_t> xs = edge_values(t);
      if (t == ScalarType::F32)  // a denser sweep for the transcendentals and roundings
        for (int k = -40; k <= 40; ++k) xs.push_back(std::bit_cast<std::uint32_t>(static_cast<float>(k) * 0.37f));
      Builder b({64, 1, 1});
      auto xb = b.read("x", 0, t);
      auto out = b.output("out", 1, *result, static_cast<std::uint32_t>(xs.size()));
      Program p = b.wrapped({b.store(out, b.gid(), b.un(row.op, b.load(xb, b.gid())))});
      const auto got = run(p, xs.size(), {xs});
      ASSERT_EQ(got.size(), 1u);
      for (std::size_t i = 0; i < xs.size(); ++i) {
        const ScalarResult want = eval_unary(row.op, t, load_word(t, xs[i]));
        ASSERT_TRUE(want.ok());
        check(fmt::format("{}({}) 0x{:08X}", row.mnemonic, name_of(t), xs[i]), want.bits, got[0][i],
              *result == ScalarType::F32, row.f32);
      }
    }
  }
}

TEST_F(Gpu_OperatorEdges, F32UnaryOperatorsOnRandomWordsStayWithinTheTableBound) {
  const std::vector<std::uint32_t> words = splitmix64_words(0x6A09E667F3BCC909ull, 1u << 16);
  for (const UnOpInfo& row : all_un_ops()) {
    const std::optional<ScalarType> result = result_type(row.op, ScalarType::F32);
    if (!result) continue;
    std::vector<std::uint32_t> xs = words;
    for (std::size_t i = 0; i < xs.size(); i += 2) xs[i] = (xs[i] & 0x807FFFFFu) | ((118u + (xs[i] >> 27)) << 23);  // |x| in [2^-9, 2^23)
    Builder b({64, 1, 1});
    auto xb = b.read("x", 0, ScalarType::F32);
    auto out = b.output("out", 1, *result, static_cast<std::uint32_t>(xs.size()));
    Program p = b.wrapped({b.store(out, b.gid(), b.un(row.op, b.load(xb, b.gid())))});
    const auto got = run(p, xs.size(), {xs});
    ASSERT_EQ(got.size(), 1u);
    for (std::size_t i = 0; i < xs.size(); ++i)
      check(fmt::format("{}(f32) 0x{:08X}", row.mnemonic, xs[i]), eval_unary(row.op, ScalarType::F32, load_word(ScalarType::F32, xs[i])).bits,
            got[0][i], *result == ScalarType::F32, row.f32);
  }
}

/// `w` with its biased exponent replaced by `e` (1..254).
std::uint32_t with_exponent(std::uint32_t w, std::uint32_t e) { return (w & 0x807FFFFFu) | (e << 23); }

// The f32 helpers compute every special case and the rounded double result and select between them, so
// a wrong priority or a wrong rounding shows only on some operand pairs: pairs of random words, a
// quarter with exponents one apart (cancellation, midpoints), a quarter whose product or quotient lands
// near the subnormal range (tininess after rounding, flush), a quarter near overflow.
TEST_F(Gpu_OperatorEdges, F32BinaryOperatorsOnRandomWordPairsMatchTheReference) {
  const std::vector<std::uint32_t> a = splitmix64_words(0xBB67AE8584CAA73Bull, 1u << 15);
  const std::vector<std::uint32_t> c = splitmix64_words(0x3C6EF372FE94F82Bull, 1u << 15);
  std::vector<std::uint32_t> ls(a.size()), rs(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ls[i] = a[i];
    rs[i] = c[i];
    const std::uint32_t el = 1u + (a[i] >> 23 & 0xFFu) % 254u;
    switch (i % 4) {
      case 1: ls[i] = with_exponent(a[i], el); rs[i] = with_exponent(c[i], el == 254u ? 253u : el + (c[i] & 1u)); break;
      case 2: ls[i] = with_exponent(a[i], 40u + (a[i] >> 24) % 48u); rs[i] = with_exponent(c[i], 40u + (c[i] >> 24) % 48u); break;
      case 3: ls[i] = with_exponent(a[i], 200u + (a[i] >> 24) % 54u); rs[i] = with_exponent(c[i], 100u + (c[i] >> 24) % 54u); break;
      default: break;
    }
  }
  // Results at the bottom of the normal range: (1 - 2^-24) * 2^-126 is the midpoint that rounds up to
  // the smallest normal, (1 - 2^-23) * 2^-126 is subnormal (flushed), and a difference of 2^-149.
  for (auto [l, r] : {std::pair{0x3F7FFFFFu, 0x00800000u}, {0xBF7FFFFFu, 0x00800000u}, {0x3F7FFFFEu, 0x00800000u},
                      {0x00800001u, 0x80800000u}, {0x3F000001u, 0x00FFFFFFu}}) {
    ls.push_back(l);
    rs.push_back(r);
  }
  for (const BinOpInfo& row : all_bin_ops()) {
    const std::optional<ScalarType> result = result_type(row.op, ScalarType::F32);
    if (!result) continue;
    Builder b({64, 1, 1});
    auto lb = b.read("l", 0, ScalarType::F32);
    auto rb = b.read("r", 1, ScalarType::F32);
    auto out = b.output("out", 2, *result, static_cast<std::uint32_t>(ls.size()));
    Program p = b.wrapped({b.store(out, b.gid(), b.bin(row.op, b.load(lb, b.gid()), b.load(rb, b.gid())))});
    const auto got = run(p, ls.size(), {ls, rs});
    ASSERT_EQ(got.size(), 1u);
    for (std::size_t i = 0; i < ls.size(); ++i) {
      const ScalarResult want =
          eval_binary(row.op, ScalarType::F32, load_word(ScalarType::F32, ls[i]), load_word(ScalarType::F32, rs[i]));
      ASSERT_TRUE(want.ok());
      check(fmt::format("{}(f32) 0x{:08X}, 0x{:08X}", row.mnemonic, ls[i], rs[i]), want.bits, got[0][i],
            *result == ScalarType::F32, row.f32);
    }
  }
}

TEST_F(Gpu_OperatorEdges, CastsOfRandomWordsMatchTheReference) {
  std::vector<std::uint32_t> xs = splitmix64_words(0xA54FF53A5F1D36F1ull, 1u << 15);
  for (std::size_t i = 0; i < xs.size(); i += 2) xs[i] = with_exponent(xs[i], 120u + (xs[i] >> 26));  // |x| near 2^0..2^63
  const ScalarType types[] = {ScalarType::U32, ScalarType::I32, ScalarType::F32};
  for (ScalarType from : types) {
    for (ScalarType to : types) {
      if (from == to || (from != ScalarType::F32 && to != ScalarType::F32)) continue;
      check_cast(from, to, xs);
    }
  }
}

TEST_F(Gpu_OperatorEdges, EveryCastMatchesTheReference) {
  const ScalarType types[] = {ScalarType::U32, ScalarType::I32, ScalarType::Bool, ScalarType::F32};
  for (ScalarType from : types) {
    for (ScalarType to : types) {
      std::vector<std::uint32_t> xs = edge_values(from);
      if (from == ScalarType::U32 || from == ScalarType::I32)  // rounding of large integers to f32
        for (std::uint32_t v : {0x00FFFFFFu, 0x01000001u, 0x01000003u, 0x7FFFFFC0u, 0x7FFFFFBFu, 0xFFFFFF80u, 0xFFFFFF7Fu})
          xs.push_back(v);
      check_cast(from, to, xs);
    }
  }
}

TEST_F(Gpu_OperatorEdges, FmaRoundsOnceLikeTheReference) {
  const std::vector<std::uint32_t> v = small_f32_values();
  std::vector<std::uint32_t> as, bs, cs;
  for (std::uint32_t a : v)
    for (std::uint32_t b : v)
      for (std::uint32_t c : v) {
        as.push_back(a);
        bs.push_back(b);
        cs.push_back(c);
      }
  // Double-rounding traps: a*b+c lands on (or next to) a binary32 midpoint once rounded to double.
  const std::uint32_t one_plus_ulp = 0x3F800001u;  // 1 + 2^-23
  for (std::uint32_t c : {0xB3800000u, 0x33800000u, 0xA6800000u, 0x26800000u, 0x33000000u, 0xB3000000u}) {
    as.push_back(one_plus_ulp);
    bs.push_back(one_plus_ulp);
    cs.push_back(c);
  }
  // Random triples whose product and addend are within a few binades (cancellation, midpoints), and
  // some whose result is near the subnormal range.
  const std::vector<std::uint32_t> r = splitmix64_words(0x510E527FADE682D1ull, 3u << 13);
  for (std::size_t i = 0; i + 2 < r.size(); i += 3) {
    const std::uint32_t ea = 100u + (r[i] >> 24) % 54u, eb = 100u + (r[i + 1] >> 24) % 54u;
    const std::uint32_t ep = (i % 2 == 0) ? ea + eb - 127u : 1u + (r[i + 2] >> 25) % 8u;
    as.push_back(with_exponent(r[i], (i % 2 == 0) ? ea : 64u + (r[i] >> 29)));
    bs.push_back(with_exponent(r[i + 1], (i % 2 == 0) ? eb : 64u - (r[i + 1] >> 29)));
    cs.push_back(with_exponent(r[i + 2], ep + (r[i + 2] & 3u)));
  }
  Builder b({64, 1, 1});
  auto ab = b.read("a", 0, ScalarType::F32);
  auto bb = b.read("b", 1, ScalarType::F32);
  auto cb = b.read("c", 2, ScalarType::F32);
  auto out = b.output("out", 3, ScalarType::F32, static_cast<std::uint32_t>(as.size()));
  Program p = b.wrapped(
      {b.store(out, b.gid(), b.fma(b.load(ab, b.gid()), b.load(bb, b.gid()), b.load(cb, b.gid())))});
  const auto got = run(p, as.size(), {as, bs, cs});
  ASSERT_EQ(got.size(), 1u);
  for (std::size_t i = 0; i < as.size(); ++i)
    check(fmt::format("fma 0x{:08X} 0x{:08X} 0x{:08X}", as[i], bs[i], cs[i]),
          eval_fma(load_word(ScalarType::F32, as[i]), load_word(ScalarType::F32, bs[i]), load_word(ScalarType::F32, cs[i])),
          got[0][i], true, {});
}

TEST_F(Gpu_OperatorEdges, SelectEvaluatesBothArmsAndTestsTruthinessPerType) {
  for (ScalarType t : {ScalarType::U32, ScalarType::I32, ScalarType::Bool, ScalarType::F32}) {
    const std::vector<std::uint32_t> cs = edge_values(t);
    std::vector<std::uint32_t> a(cs.size()), c(cs.size());
    for (std::size_t i = 0; i < cs.size(); ++i) {
      a[i] = 1000 + static_cast<std::uint32_t>(i);
      c[i] = 2000 + static_cast<std::uint32_t>(i);
    }
    Builder b({64, 1, 1});
    auto cb = b.read("cond", 0, t);
    auto ab = b.read("a", 1, ScalarType::U32);
    auto bb = b.read("b", 2, ScalarType::U32);
    auto out = b.output("out", 3, ScalarType::U32, static_cast<std::uint32_t>(cs.size()));
    auto count = b.output("count", 4, ScalarType::U32, 1);
    // Both arms are atomics: both must run (docs/semantics.md §2.5), whichever is chosen.
    Program p = b.wrapped({b.if_(
        b.gid() < b.buf_len(cb),
        {b.store(out, b.gid(),
                 b.select(b.load(cb, b.gid()), b.load(ab, b.gid()) + b.atomic_add(count, b.u32(0), b.u32(1)) * b.u32(0),
                          b.load(bb, b.gid()) + b.atomic_add(count, b.u32(0), b.u32(1)) * b.u32(0)))})});
    const auto got = run(p, cs.size(), {cs, a, c});
    ASSERT_EQ(got.size(), 2u);
    for (std::size_t i = 0; i < cs.size(); ++i)
      check(fmt::format("select({} 0x{:08X})", name_of(t), cs[i]), scalar::truthy(t, load_word(t, cs[i])) ? a[i] : c[i],
            got[0][i], false, {});
    check("both arms evaluated", static_cast<std::uint32_t>(2 * cs.size()), got[1][0], false, {});
  }
}

TEST_F(Gpu_OperatorEdges, EveryAtomicReturnsTheOldWordAndStoresTheReferenceResult) {
  const std::vector<std::uint32_t> v = edge_values(ScalarType::U32);
  for (const AtomicOpInfo& row : all_atomic_ops()) {
    std::vector<std::uint32_t> olds, values, expecteds;
    for (std::uint32_t o : v)
      for (std::uint32_t x : v) {
        olds.push_back(o);
        values.push_back(x);
        expecteds.push_back(row.has_expected ? (olds.size() % 2 == 0 ? o : o ^ 1u) : 0u);
      }
    const auto n = static_cast<std::uint32_t>(olds.size());
    Builder b({64, 1, 1});
    auto buf = b.read_write("buf", 0, ScalarType::U32, n);
    auto vb = b.read("value", 1, ScalarType::U32);
    auto eb = b.read("expected", 2, ScalarType::U32);
    auto old = b.output("old", 3, ScalarType::U32, n);
    E rmw = row.has_expected ? b.compare_exchange(buf, b.gid(), b.load(eb, b.gid()), b.load(vb, b.gid()))
                             : b.atomic(row.op, buf, b.gid(), b.load(vb, b.gid()));
    Program p = b.wrapped({b.store(old, b.gid(), rmw)});
    const auto got = run(p, n, {olds, values, expecteds});
    ASSERT_EQ(got.size(), 2u);  // outputs: buf (read_write) then old
    for (std::size_t i = 0; i < n; ++i) {
      const AtomicResult want = eval_atomic(row.op, olds[i], values[i], expecteds[i]);
      const std::string what = fmt::format("{} old 0x{:08X} value 0x{:08X}", row.mnemonic, olds[i], values[i]);
      check(what + " (returned)", want.old, got[1][i], false, {});
      check(what + " (stored)", want.stored, got[0][i], false, {});
    }
  }
}

}  // namespace
}  // namespace gridcheck::gpu
