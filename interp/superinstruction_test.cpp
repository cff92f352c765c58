// The threaded code's superinstructions (engine.cpp, kFusedPairs): a pair of adjacent instructions
// run by one handler computes what the two compute one after the other, costs their two steps, and
// leaves every report at the instruction it belongs to; a jump to the second one runs it alone.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "interp/compiled_program.hpp"
#include "interp/engine.hpp"
#include "interp/interpreter.hpp"
#include "interp/test_support.hpp"
#include "ir/builder.hpp"
#include "ir/scalar_semantics.hpp"

namespace gridcheck::interp {
namespace {

using namespace testing;
using ir::Buf;
using ir::Builder;
using ir::ScalarType;

CompiledProgram compiled(const ir::Program& p, const RunOptions& options = {}) {
  auto prepared = prepare(p, options);
  if (!prepared) {
    ADD_FAILURE() << ir::render(prepared.diagnostics());
    return {};
  }
  return std::move(prepared->compiled);
}

/// Positions i where code[i], code[i + 1] is a fused pair.
std::vector<std::uint32_t> fused_positions(const CompiledProgram& c) {
  std::vector<std::uint32_t> at;
  for (std::size_t i = 0; i + 1 < c.code.size(); ++i)
    if (is_fused_pair(c.code[i].op, c.code[i + 1].op)) at.push_back(static_cast<std::uint32_t>(i));
  return at;
}

bool is_compare_jump(Op op) {
  return op == Op::JnEq || op == Op::JnNe || op == Op::JnLtU || op == Op::JnLtS || op == Op::JnLeU || op == Op::JnLeS;
}

constexpr std::uint32_t kLanes = 8;  // workgroups of 4, grid 2

Words inputs_of_pairs() {
  Words in(16);
  for (std::uint32_t i = 0; i < 16; ++i) in[i] = i * 2654435761u + (i % 3 == 0 ? 0u : 5u);
  in[3] = 0;  // a zero divisor and modulus
  in[11] = 0;
  return in;
}

// Straight-line code (every invocation runs every instruction once) made of the pairs the generated
// programs run most: index arithmetic into loads and stores, multiply-add chains, modulus and
// division, min, xor, select, a cast to bool.
ir::Program pairs_program() {
  Builder b({4, 1, 1});
  Buf in = b.read("in", 0, ScalarType::U32, 16);
  Buf out = b.output("out", 1, ScalarType::U32, 6 * kLanes);
  const auto a = [&] { return b.var("a"); };
  const auto c = [&] { return b.var("c"); };
  return b.wrapped({
      b.let("a", b.load(in, b.gid())),
      b.let("c", b.load(in, b.gid() + b.u32(kLanes))),
      b.store(out, b.gid() * b.u32(6) + b.u32(0), a() * c() + c() * b.u32(3) + a() * b.u32(7) + b.u32(1)),
      b.store(out, b.gid() * b.u32(6) + b.u32(1), b.load(in, a() % b.u32(16)) ^ (c() / (a() % b.u32(5)))),
      b.store(out, b.gid() * b.u32(6) + b.u32(2), b.bin(ir::BinOp::Min, a() + c(), c() * c() - a())),
      b.store(out, b.gid() * b.u32(6) + b.u32(3), b.select(a() % b.u32(3) == b.u32(0), c() % a(), a() * c())),
      b.store(out, b.gid() * b.u32(6) + b.u32(4), b.cast(ScalarType::U32, b.cast(ScalarType::Bool, a() < c())) ^ a()),
      b.let("e", b.load(in, b.lid())),
      b.store(out, b.gid() * b.u32(6) + b.u32(5), b.load(in, b.var("e") % b.u32(16)) + b.var("e")),
  });
}

TEST(Interp_Superinstructions, PairsComputeTheSameValuesAsTheirInstructionsOneAfterTheOther) {
  const ir::Program p = pairs_program();
  const CompiledProgram code = compiled(p);
  EXPECT_GE(fused_positions(code).size(), 8u) << disassemble(code);
  const Words in = inputs_of_pairs();
  const RunResult r = run_reference(p, std::vector<Bytes>{to_bytes(in)}, Grid{2, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  namespace s = ir::scalar;
  Words want(6 * kLanes);
  for (std::uint32_t g = 0; g < kLanes; ++g) {
    const std::uint32_t a = in[g], c = in[g + kLanes];
    want[g * 6 + 0] = a * c + c * 3u + a * 7u + 1u;
    want[g * 6 + 1] = in[s::u32_mod(a, 16)] ^ s::u32_div(c, s::u32_mod(a, 5));
    want[g * 6 + 2] = std::min(a + c, c * c - a);
    want[g * 6 + 3] = s::u32_mod(a, 3) == 0 ? s::u32_mod(c, a) : a * c;
    want[g * 6 + 4] = (a < c ? 1u : 0u) ^ a;
    const std::uint32_t e = in[g % 4];
    want[g * 6 + 5] = in[e % 16] + e;
  }
  EXPECT_EQ(output(r, "out"), want);
}

TEST(Interp_Superinstructions, APairCostsTheStepsOfItsTwoInstructions) {
  const ir::Program p = pairs_program();
  const CompiledProgram code = compiled(p);
  ASSERT_FALSE(fused_positions(code).empty());
  // Straight-line code: each invocation runs every instruction once (a compare-and-jump counts two)
  // after its start (4 steps, engine.cpp's kInvocationSwitchSteps).
  std::uint64_t per_invocation = 4;
  for (const Instr& in : code.code) {
    ASSERT_TRUE(in.op != Op::Jmp && in.op != Op::Jz && in.op != Op::JgeU && in.op != Op::LoopNext && !is_compare_jump(in.op))
        << disassemble(code);
    per_invocation += 1;
  }
  const RunResult r = run_reference(p, std::vector<Bytes>{to_bytes(inputs_of_pairs())}, Grid{2, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(r.steps, per_invocation * kLanes);
}

TEST(Interp_Superinstructions, PairsRunTheSameUnderTheRaceDetectorWithWatchedAndUnwatchedLoads) {
  // The detector's direct path has its own handler for loads of a buffer it does not watch (`in`,
  // never written) and its own pairs with them; `out` is written, so its loads are watched.
  Builder b({4, 1, 1});
  Buf in = b.read("in", 0, ScalarType::U32, 16);
  Buf out = b.output("out", 1, ScalarType::U32, 2 * kLanes);
  const ir::Program p = b.wrapped({
      b.store(out, b.gid(), b.load(in, b.gid() * b.u32(2) % b.u32(16)) + b.u32(1)),
      b.store(out, b.gid() + b.u32(kLanes), b.load(out, b.gid()) * b.load(in, b.gid() + b.u32(1)) + b.load(out, b.gid())),
  });
  const CompiledProgram code = compiled(p);
  EXPECT_GE(fused_positions(code).size(), 3u) << disassemble(code);
  const Words words = inputs_of_pairs();
  const std::vector<Bytes> inputs = {to_bytes(words)};
  RunOptions races;
  races.detect_races = true;
  const RunResult plain = run_reference(p, inputs, Grid{2, 1, 1});
  const RunResult checked = run_reference(p, inputs, Grid{2, 1, 1}, 1, races);
  ASSERT_TRUE(plain.ok()) << explain(plain);
  ASSERT_TRUE(checked.ok()) << explain(checked);
  Words want(2 * kLanes);
  for (std::uint32_t g = 0; g < kLanes; ++g) {
    want[g] = words[g * 2 % 16] + 1;
    want[g + kLanes] = want[g] * words[g + 1] + want[g];
  }
  EXPECT_EQ(output(plain, "out"), want);
  EXPECT_EQ(output(checked, "out"), want);
  EXPECT_EQ(checked.steps, plain.steps);
}

TEST(Interp_Superinstructions, AJumpToTheSecondInstructionOfAPairRunsItAlone) {
  // `v = a * 7` ends the then-branch; the if's jump lands on the multiply-add after it.
  Builder b({4, 1, 1});
  Buf in = b.read("in", 0, ScalarType::U32, 16);
  Buf out = b.output("out", 1, ScalarType::U32, kLanes);
  const ir::Program p = b.wrapped({
      b.let("a", b.load(in, b.gid())),
      b.let("v", b.u32(1)),
      b.if_(b.var("a") % b.u32(2) == b.u32(0), {b.assign("v", b.var("a") * b.u32(7))}),
      b.store(out, b.gid(), b.var("v") * b.u32(3) + b.var("a")),
  });
  const CompiledProgram code = compiled(p);
  bool target_is_second = false;
  for (const Instr& in : code.code)
    if (is_compare_jump(in.op) && in.c > 0 && in.c < code.code.size())
      target_is_second = target_is_second || is_fused_pair(code.code[in.c - 1].op, code.code[in.c].op);
  ASSERT_TRUE(target_is_second) << disassemble(code);
  const Words words = inputs_of_pairs();
  const RunResult r = run_reference(p, std::vector<Bytes>{to_bytes(words)}, Grid{2, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  Words want(kLanes);
  for (std::uint32_t g = 0; g < kLanes; ++g) want[g] = (words[g] % 2 == 0 ? words[g] * 7u : 1u) * 3u + words[g];
  EXPECT_EQ(output(r, "out"), want);
}

/// The index of the only instruction with opcode `op`.
std::uint32_t only(const CompiledProgram& c, Op op) {
  std::uint32_t at = 0, n = 0;
  for (std::uint32_t i = 0; i < c.code.size(); ++i)
    if (c.code[i].op == op) at = i, ++n;
  EXPECT_EQ(n, 1u) << disassemble(c);
  return at;
}

/// Whether some instruction with opcode `first` is followed by one with `second`, as a fused pair.
bool has_pair(const CompiledProgram& c, Op first, Op second) {
  for (std::size_t i = 0; i + 1 < c.code.size(); ++i)
    if (c.code[i].op == first && c.code[i + 1].op == second) return is_fused_pair(first, second);
  return false;
}

TEST(Interp_Superinstructions, AConditionalJumpPairedWithItsFallThroughJumpsOrFallsThrough) {
  // `if a < c` (a compare-and-jump) falls through to the multiply-add of the store's index or
  // jumps past it; a loop's entry test falls through to its body's multiply or skips it.
  Builder b({4, 1, 1});
  Buf in = b.read("in", 0, ScalarType::U32, 16);
  Buf out = b.output("out", 1, ScalarType::U32, 2 * kLanes);
  const ir::Program p = b.wrapped({
      b.let("a", b.load(in, b.gid())),
      b.let("c", b.load(in, b.gid() + b.u32(kLanes))),
      b.let("v", b.u32(1)),
      b.if_(b.var("a") < b.var("c"), {b.store(out, b.gid() * b.u32(2) + b.u32(0), b.var("a") + b.u32(1))}),
      b.loop("i", b.u32(0), b.var("a") % b.u32(4), {b.assign("v", b.var("v") * b.u32(3))}),
      b.store(out, b.gid() * b.u32(2) + b.u32(1), b.var("v")),
  });
  const CompiledProgram code = compiled(p);
  EXPECT_TRUE(has_pair(code, Op::JnLtU, Op::MulAdd)) << disassemble(code);
  EXPECT_TRUE(has_pair(code, Op::JgeU, Op::Mul)) << disassemble(code);
  const Words words = inputs_of_pairs();
  const RunResult r = run_reference(p, std::vector<Bytes>{to_bytes(words)}, Grid{2, 1, 1});
  ASSERT_TRUE(r.ok()) << explain(r);
  Words want(2 * kLanes);
  bool taken = false, fell_through = false;
  for (std::uint32_t g = 0; g < kLanes; ++g) {
    const std::uint32_t a = words[g], c = words[g + kLanes];
    (a < c ? fell_through : taken) = true;
    want[g * 2] = a < c ? a + 1 : 0;
    std::uint32_t v = 1;
    for (std::uint32_t i = 0; i < a % 4; ++i) v = v * 3;
    want[g * 2 + 1] = v;
  }
  ASSERT_TRUE(taken && fell_through);  // the inputs take both ways
  EXPECT_EQ(output(r, "out"), want);
  // The steps: each invocation's walk of the code, one step per instruction (two for a
  // compare-and-jump) after its start's 4, by a walk of the few opcodes this program has.
  std::uint64_t steps = 0;
  for (std::uint32_t g = 0; g < kLanes; ++g) {
    std::vector<std::uint32_t> reg(code.frame_words, 0);
    for (std::size_t k = 0; k < code.literal_values.size(); ++k) reg[kFirstConstSlot + k] = code.literal_values[k];
    reg[kSlotGlobalId] = g;
    steps += 4;
    for (std::uint32_t pc = 0;;) {
      const Instr& in = code.code[pc];
      ++steps;
      if (in.op == Op::Return) break;
      std::uint32_t next = pc + 1;
      switch (in.op) {
        case Op::Load: reg[in.d] = words[reg[in.b]]; break;
        case Op::Store: break;
        case Op::Mov: reg[in.d] = reg[in.a]; break;
        case Op::Add: reg[in.d] = reg[in.a] + reg[in.b]; break;
        case Op::Mul: reg[in.d] = reg[in.a] * reg[in.b]; break;
        case Op::MulAdd: reg[in.d] = reg[in.a] * reg[in.b] + reg[in.c]; break;
        case Op::ModU: reg[in.d] = reg[in.a] % reg[in.b]; break;
        case Op::JnLtU: ++steps, next = reg[in.a] < reg[in.b] ? pc + 1 : in.c; break;
        case Op::JgeU: next = reg[in.a] >= reg[in.b] ? in.c : pc + 1; break;
        case Op::LoopNext: next = ++reg[in.d] < reg[in.a] ? in.b : pc + 1; break;
        default: FAIL() << "the walk does not know " << name_of(in.op) << "\n" << disassemble(code);
      }
      pc = next;
    }
  }
  EXPECT_EQ(r.steps, steps);
}

ir::Program barrier_under_if(bool divergent) {
  Builder b({4, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, kLanes);
  ir::E cond = divergent ? b.lid() < b.u32(2) : b.wgid() < b.u32(5);
  return b.wrapped({b.if_(cond, {b.barrier()}), b.store(out, b.gid(), b.u32(7))});
}

TEST(Interp_Superinstructions, ADivergenceRecordPairedWithItsBranchStopsAtTheIf) {
  const ir::Program p = barrier_under_if(true);
  RunOptions o;
  o.validate = false;
  const CompiledProgram code = compiled(p, o);
  ASSERT_TRUE(has_pair(code, Op::RecordIf, Op::Jz)) << disassemble(code);
  const RunResult r = run_reference(p, {}, Grid{2, 1, 1}, 1, o);
  ASSERT_EQ(r.status, RunStatus::Divergence) << explain(r);
  ASSERT_TRUE(r.divergence.has_value());
  EXPECT_EQ(r.divergence->kind, DivergenceKind::BranchMismatch);
  EXPECT_EQ(r.divergence->first_site.what, "if");
  EXPECT_EQ(r.divergence->second_site.what, "barrier seq_cst");
  EXPECT_EQ(r.divergence->first_site, code.site(only(code, Op::RecordIf)));
}

TEST(Interp_Superinstructions, AnAgreeingDivergenceRecordPairedWithItsBranchGoesOn) {  // the silent twin
  const ir::Program p = barrier_under_if(false);
  RunOptions o;
  o.validate = false;
  ASSERT_TRUE(has_pair(compiled(p, o), Op::RecordIf, Op::Jz));
  const RunResult r = run_reference(p, {}, Grid{2, 1, 1}, 1, o);
  ASSERT_TRUE(r.ok()) << explain(r);
  EXPECT_EQ(output(r, "out"), fill(kLanes, 7));
}

TEST(Interp_Superinstructions, AnOutOfBoundsLoadAfterItsIndexArithmeticIsReportedAtTheLoad) {
  Builder b({4, 1, 1});
  Buf in = b.read("in", 0, ScalarType::U32, 16);
  Buf out = b.output("out", 1, ScalarType::U32, kLanes);
  const ir::Program p = b.wrapped({b.store(out, b.gid(), b.load(in, b.gid() * b.u32(3) + b.u32(1)))});
  const CompiledProgram code = compiled(p);
  const std::uint32_t load = only(code, Op::Load);
  ASSERT_TRUE(load > 0 && is_fused_pair(code.code[load - 1].op, Op::Load)) << disassemble(code);
  RunOptions o;
  o.oob = ir::MemoryCheck::Warning;
  const RunResult r = run_reference(p, std::vector<Bytes>{to_bytes(inputs_of_pairs())}, Grid{2, 1, 1}, 1, o);
  ASSERT_TRUE(r.ok()) << explain(r);
  ASSERT_EQ(r.oob.size(), 1u) << explain(r);
  EXPECT_EQ(r.oob[0].buffer, "in");
  EXPECT_EQ(r.oob[0].loads, 3u);  // gid 5, 6, 7
  EXPECT_EQ(r.oob[0].first_index, 16u);
  EXPECT_EQ(r.oob[0].first_site, code.site(load));
}

TEST(Interp_Superinstructions, ARacyStoreAfterItsIndexArithmeticIsReportedAtTheStore) {
  Builder b({4, 1, 1});
  Buf out = b.output("out", 0, ScalarType::U32, kLanes);
  const ir::Program p = b.wrapped({b.store(out, b.lid() * b.u32(0) + b.u32(1), b.gid())});
  const CompiledProgram code = compiled(p);
  const std::uint32_t store = only(code, Op::Store);
  ASSERT_TRUE(store > 0 && is_fused_pair(code.code[store - 1].op, Op::Store)) << disassemble(code);
  RunOptions o;
  o.detect_races = true;
  const RunResult r = run_reference(p, {}, Grid{1, 1, 1}, 1, o);
  EXPECT_EQ(r.status, RunStatus::Race) << explain(r);
  ASSERT_EQ(r.races.size(), 1u) << explain(r);
  EXPECT_EQ(r.races[0].element, 1u);
  EXPECT_EQ(r.races[0].first.site, code.site(store));
  EXPECT_EQ(r.races[0].second.site, code.site(store));
}

}  // namespace
}  // namespace gridcheck::interp
