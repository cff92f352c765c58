// The validator stays linear in the number of statements (issue 20, item 3). Not a timed test of
// absolute speed: each shape is validated at N and 8N statements, best of five runs each, and the
// ratio of their CPU times must stay under 16 (linear gives about 8, quadratic about 64). Builder-made IR.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <malloc.h>

#include "ir/builder.hpp"
#include "ir/validate/test_support.hpp"

namespace gridcheck::ir {
namespace {

using testing::codes_of;

constexpr std::size_t kSmall = 6000;  ///< statements of the smaller program; the larger has 8x
constexpr double kMaxRatio = 16.0;

using Make = std::function<Program(std::size_t statements)>;

/// CPU seconds of one validation: unlike wall time, not inflated when the scheduler preempts the
/// longer run on a loaded machine.
double cpu_seconds(const Program& p, const ValidateOptions& options) {
  const std::clock_t start = std::clock();
  const Diagnostics ds = validate(p, {}, options);
  return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

::testing::AssertionResult scales_linearly(const Make& make, const ValidateOptions& options = {}) {
  // The allocator keeps what a run freed, so that the best of five is not paying the kernel's page faults
  // for memory handed back after the previous run: on a busy machine (`ctest -j2` beside the GPU tests)
  // those made 48,000 statements cost 160-190 ms against 4 ms for 6,000.
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  const Program small_program = make(kSmall);
  const Program large_program = make(8 * kSmall);
  // Best of five, the sizes interleaved so that a busy spell of the machine slows both.
  double small = std::numeric_limits<double>::infinity();
  double large = small;
  for (int run = 0; run < 5; ++run) {
    small = std::min(small, cpu_seconds(small_program, options));
    large = std::min(large, cpu_seconds(large_program, options));
  }
  const double ratio = large / std::max(small, 1e-6);
  if (ratio < kMaxRatio) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << fmt::format(
             "{} statements took {:.4f} s, {} took {:.4f} s: ratio {:.1f}, linear is about 8 (limit {})", kSmall,
             small, 8 * kSmall, large, ratio, kMaxRatio);
}

std::string nth(std::string_view prefix, std::size_t i) { return fmt::format("{}{}", prefix, i); }

/// let v0 = gid; let v[i] = v[i-1] + v[i/2]: every use reaches far back in one long scope.
Program let_chain(std::size_t n) {
  Builder b({64, 1, 1});
  Buf out = b.read_write("out", 0, ScalarType::U32, 1);
  std::vector<S> body{b.let("v0", b.gid())};
  for (std::size_t i = 1; i + 1 < n; ++i)
    body.push_back(b.let(nth("v", i), b.var(nth("v", i - 1)) + b.var(nth("v", i / 2))));
  body.push_back(b.store(out, b.u32(0), b.var(nth("v", n - 2))));
  return b.wrapped(body);
}

/// Groups of 11 statements: lets, assignments, stores, an if with its own let, and a loop with a
/// barrier and a uniform early return (vyre's V055 proof runs for each loop) in an ever longer scope.
Program mixed(std::size_t n) {
  Builder b({64, 1, 1});
  Buf out = b.read_write("out", 0, ScalarType::U32, 64);
  Buf in = b.read("in", 1, ScalarType::U32, 64);
  std::vector<S> body{b.let("c", b.u32(5)), b.let("a0", b.gid())};
  for (std::size_t i = 1; 11 * i < n; ++i) {
    const std::string a = nth("a", i);
    body.push_back(b.let(a, b.var(nth("a", i - 1)) + b.var("c")));
    body.push_back(b.assign(a, b.var(a) + b.var("a0")));
    body.push_back(b.store(out, b.var(a) % b.u32(64), b.var(a)));
    body.push_back(b.if_(b.var(a) > b.u32(3), {b.let(nth("t", i), b.var(a) + b.load(in, b.u32(0))),
                                               b.store(out, b.u32(0), b.var(nth("t", i)))}));
    const std::string j = nth("j", i);
    body.push_back(b.loop(j, b.u32(0), b.u32(4),
                          {b.barrier(), b.let(nth("u", i), b.var(j) + b.var("c")),
                           b.if_(b.var("c") > b.u32(1), {b.ret()})}));
  }
  return b.wrapped(body);
}

/// One loop whose body is a barrier, then lets and if/else pairs, then a uniform return: vyre's
/// proof walks one long body with many branches.
Program long_loop_body(std::size_t n) {
  Builder b({64, 1, 1});
  Buf out = b.read_write("out", 0, ScalarType::U32, 1);
  std::vector<S> loop_body{b.barrier()};
  for (std::size_t i = 0; 5 * i + 4 < n; ++i) {
    const std::string v = nth("b", i);
    loop_body.push_back(b.let(v, b.var("c") + b.u32(static_cast<std::uint32_t>(i))));
    loop_body.push_back(b.if_(b.var(v) > b.u32(3), {b.assign("c", b.var("c") + b.u32(1))},
                              {b.store(out, b.u32(0), b.var(v))}));
  }
  loop_body.push_back(b.if_(b.var("c") > b.u32(3), {b.ret()}));
  return b.wrapped({b.let("c", b.u32(5)), b.loop("j", b.u32(0), b.u32(4), loop_body)});
}

/// The same let over and over: one V032 error per statement, each with a note.
Program duplicate_lets(std::size_t n) {
  Builder b;
  std::vector<S> body;
  for (std::size_t i = 0; i + 1 < n; ++i) body.push_back(b.let("d", b.u32(1)));
  return b.wrapped(body);
}

/// A buffer per store: buffer look-ups in a long declaration list.
Program many_buffers(std::size_t n) {
  Builder b;
  std::vector<S> body;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    Buf buf = b.read_write(nth("buf", i), static_cast<std::uint32_t>(i), ScalarType::U32, 1);
    body.push_back(b.store(buf, b.u32(0), b.load(buf, b.u32(0)) + b.u32(1)));
  }
  return b.wrapped(body);
}

TEST(Validate_Scaling, ShapesExerciseTheRulesTheyAreMeantTo) {
  EXPECT_TRUE(testing::silent(let_chain(100)));
  EXPECT_TRUE(testing::silent(mixed(100)));
  EXPECT_TRUE(testing::silent(long_loop_body(100)));
  EXPECT_TRUE(testing::silent(many_buffers(100)));
  const std::vector<std::string> codes = codes_of(validate(duplicate_lets(100)));
  EXPECT_EQ(codes, std::vector<std::string>(98, "V032"));
}

TEST(Validate_Scaling, LongLetChainIsLinear) { EXPECT_TRUE(scales_linearly(let_chain)); }

TEST(Validate_Scaling, LetChainWithShadowingAllowedIsLinear) {
  ValidateOptions options;
  options.allow_shadowing = true;
  EXPECT_TRUE(scales_linearly(let_chain, options));
}

TEST(Validate_Scaling, MixedControlFlowIsLinear) { EXPECT_TRUE(scales_linearly(mixed)); }

TEST(Validate_Scaling, LongLoopBodyIsLinear) { EXPECT_TRUE(scales_linearly(long_loop_body)); }

TEST(Validate_Scaling, ManyDiagnosticsAreLinear) { EXPECT_TRUE(scales_linearly(duplicate_lets)); }

TEST(Validate_Scaling, ManyBuffersAreLinear) { EXPECT_TRUE(scales_linearly(many_buffers)); }

}  // namespace
}  // namespace gridcheck::ir
