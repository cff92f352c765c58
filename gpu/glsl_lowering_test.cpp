// Lowering: golden GLSL for small programs (text out), the refusals, names, and every helper compiles.
#include <gtest/gtest.h>

#include "gpu/glsl_compiler.hpp"
#include "gpu/glsl_helpers.hpp"
#include "gpu/glsl_lowering.hpp"
#include "ir/builder.hpp"

namespace gridcheck::gpu {
namespace {

using namespace ir;

/// Lowers `p`, checks that glslang + spirv-val accept the GLSL, and returns it.
LoweredShader lowered(const Program& p, LoweringOptions o = {}) {
  Result<LoweredShader> s = lower_to_glsl(p, o);
  if (!s) {
    ADD_FAILURE() << render(s.diagnostics());
    return {};
  }
  Result<Spirv> spirv = compile_glsl(s->glsl, "golden");
  EXPECT_TRUE(spirv.ok()) << (spirv.ok() ? "" : render(spirv.diagnostics())) << "\n" << s->glsl;
  return std::move(s).value();
}

std::string code_of(const Result<LoweredShader>& r) {
  return r.ok() ? std::string("ok") : r.diagnostics().all().front().code;
}

TEST(Gpu_Lowering, MapWithBoundsCheckedLoadStoreAndLiteralDivision) {
  Builder b({64, 1, 1});
  auto a = b.read("a", 0, ScalarType::U32, 1024);
  auto out = b.output("out", 1, ScalarType::U32, 1024);
  Program p = b.wrapped({
      b.let("v", b.load(a, b.gid()) + b.u32(1)),
      b.store(out, b.gid(), b.var("v") / b.u32(3)),
  });
  const LoweredShader s = lowered(p);
  EXPECT_EQ(s.glsl, R"glsl(#version 450
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

// a: read u32[1024]
layout(std430, set = 0, binding = 0) readonly buffer B0_a { uint data[]; } b_a;
// out: read_write u32[1024]
layout(std430, set = 0, binding = 1) buffer B1_out { uint data[]; } b_out;
layout(push_constant) uniform GcPush { uint zero; } gc;  // zero: always 0 (hides literals from the driver); then element counts of runtime-sized buffers

void main() {
  {
    uint t0 = 0u;
    if (gl_GlobalInvocationID.x < 1024u) t0 = b_a.data[gl_GlobalInvocationID.x];
    uint t1 = t0 + (1u ^ gc.zero);
    uint v_v = t1;
    uint t2 = v_v / (3u ^ gc.zero);
    if (gl_GlobalInvocationID.x < 1024u) b_out.data[gl_GlobalInvocationID.x] = t2;
  }
}
)glsl");
  ASSERT_EQ(s.buffers.size(), 2u);
  EXPECT_EQ(s.buffers[1].binding, 1u);
  EXPECT_FALSE(s.trap_binding.has_value());
  EXPECT_EQ(s.push_constant_words, 1u);  // gc.zero
}

TEST(Gpu_Lowering, VisibleLiteralsAreConstantsAndNeedNoZeroWord) {
  Builder b({64, 1, 1});
  auto a = b.read("a", 0, ScalarType::U32, 1024);
  auto out = b.output("out", 1, ScalarType::U32, 1024);
  auto tile = b.workgroup("tile", 4, ScalarType::U32);
  Program p = b.wrapped({
      b.let("v", b.load(a, b.gid()) + b.u32(1)),
      b.store(tile, b.u32(9), b.var("v")),  // a literal index past the array still goes through a temporary
      b.store(out, b.gid(), b.var("v") / b.u32(3)),
  });
  LoweringOptions visible;
  visible.literals = LiteralPolicy::Visible;
  const LoweredShader s = lowered(p, visible);
  EXPECT_EQ(s.glsl.find("gc.zero"), std::string::npos) << s.glsl;
  EXPECT_EQ(s.glsl.find("GcPush"), std::string::npos) << s.glsl;
  EXPECT_NE(s.glsl.find("uint t1 = t0 + 1u;"), std::string::npos) << s.glsl;
  EXPECT_NE(s.glsl.find("uint t3 = v_v / 3u;"), std::string::npos) << s.glsl;
  EXPECT_NE(s.glsl.find("uint t2 = 9u;"), std::string::npos) << s.glsl;
  EXPECT_EQ(s.push_constant_words, 0u);
  // The twin: the same program with the default options hides every literal that becomes a value behind
  // gc.zero; the index 9 only addresses, so it stays a constant.
  const LoweredShader hidden = lowered(p);
  EXPECT_NE(hidden.glsl.find("uint t1 = t0 + (1u ^ gc.zero);"), std::string::npos) << hidden.glsl;
  EXPECT_NE(hidden.glsl.find("v_v / (3u ^ gc.zero)"), std::string::npos) << hidden.glsl;
  EXPECT_NE(hidden.glsl.find("uint t2 = 9u;"), std::string::npos) << hidden.glsl;
  EXPECT_EQ(hidden.push_constant_words, 1u);
  // All hidden: the index too.
  LoweringOptions all_hidden;
  all_hidden.literals = LiteralPolicy::HiddenAll;
  const LoweredShader all = lowered(p, all_hidden);
  EXPECT_NE(all.glsl.find("uint t2 = (9u ^ gc.zero);"), std::string::npos) << all.glsl;
  EXPECT_NE(all.glsl.find("uint t1 = t0 + (1u ^ gc.zero);"), std::string::npos) << all.glsl;
}

TEST(Gpu_Lowering, HiddenLiteralsStayHiddenWhereTheyBecomeValuesAndAreConstantsWhereTheyOnlySteer) {
  Builder b({8, 1, 1});
  auto in = b.read("in", 0, ScalarType::U32, 64);
  auto out = b.output("out", 1, ScalarType::U32, 64);
  Program p = b.wrapped({
      b.let("base", b.gid() * b.u32(4)),                                      // only ever an index
      b.loop("k", b.u32(0), b.u32(4), {                                       // k only indexes
          b.if_(b.lid() < b.u32(6), {                                         // a condition
              b.store(out, b.var("base") + b.var("k"),                        // an index of locals
                      b.select(b.load(in, b.var("k") + b.u32(32)) > b.u32(7),  // index 32; condition 7
                               b.u32(0x3F800000u), b.u32(0x80000000u))),       // select arms: values
          }),
      }),
  });
  const LoweredShader s = lowered(p);
  EXPECT_EQ(s.glsl.substr(s.glsl.find("void main() {")), R"glsl(void main() {
  {
    uint t0 = gl_GlobalInvocationID.x * 4u;
    uint v_base = t0;
    for (uint v_k = 0u; v_k < 4u; v_k++) {
      uint t1 = uint(gl_LocalInvocationID.x < 6u);
      if (t1 != 0u) {
        uint t2 = v_base + v_k;
        uint t3 = v_k + 32u;
        uint t4 = 0u;
        if (t3 < 64u) t4 = b_in.data[t3];
        uint t5 = uint(7u < t4);
        uint t6 = mix((2147483648u ^ gc.zero), (1065353216u ^ gc.zero), t5 != 0u);
        if (t2 < 64u) b_out.data[t2] = t6;
      }
    }
  }
}
)glsl");
  // The twin: all hidden, no literal of the program reaches the driver as a constant.
  LoweringOptions all_hidden;
  all_hidden.literals = LiteralPolicy::HiddenAll;
  const LoweredShader all = lowered(p, all_hidden);
  for (std::string_view plain : {"* 4u;", "v_k = 0u;", "v_k < 4u;", "x < 6u)", "v_k + 32u;"})
    EXPECT_EQ(all.glsl.find(plain), std::string::npos) << plain << "\n" << all.glsl;
}

TEST(Gpu_Lowering, ReturnBeforeABarrierKeepsTheInvocationAtBarriersAndI32TrapsAreRecorded) {
  Builder b({4, 1, 1});
  auto in = b.read("in", 0, ScalarType::I32);
  auto tile = b.workgroup("tile", 4, ScalarType::I32);
  auto out = b.output("out", 2, ScalarType::I32, 16);
  Program p = b.wrapped({
      b.if_(b.lid() == b.u32(3), {b.ret()}),
      b.store(tile, b.lid(), b.load(in, b.gid()) / b.i32(-2)),
      b.barrier(),
      b.loop("i", b.u32(0), b.buf_len(in), {b.store(out, b.gid(), b.load(tile, b.u32(0)) % b.load(in, b.var("i")))}),
  });
  const LoweredShader s = lowered(p);
  EXPECT_EQ(s.glsl, R"glsl(#version 450
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 4, local_size_y = 1, local_size_z = 1) in;

// in: read i32[]
layout(std430, set = 0, binding = 0) readonly buffer B0_in { uint data[]; } b_in;
// out: read_write i32[16]
layout(std430, set = 0, binding = 2) buffer B2_out { uint data[]; } b_out;
layout(push_constant) uniform GcPush { uint zero; uint b_in; } gc;  // zero: always 0 (hides literals from the driver); then element counts of runtime-sized buffers
shared uint w_tile[4];  // tile: workgroup i32[4]
bool gc_live = true;  // false once this invocation returned (it still meets every barrier)
layout(std430, set = 0, binding = 3) coherent buffer GcTrapRecord { uint64_t key; } gc_trap_record;
bool gc_trapped = false;
// the first trap of this invocation; the smallest (workgroup, invocation) key wins
void gc_trap(uint site, uint kind) {
  if (gc_trapped || !gc_live) return;
  gc_trapped = true;
  uint wg = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
  atomicMin(gc_trap_record.key, (uint64_t(wg) << 32) | uint64_t((gl_LocalInvocationIndex << 20u) | (site << 4u) | kind));
}

uint gc_i32_div(uint a, uint b, uint site) {
  bool overflow = a == 0x80000000u && b == 0xFFFFFFFFu;
  if (b == 0u) gc_trap(site, 1u);
  if (overflow) gc_trap(site, 3u);
  uint ua = mix(a, 0u - a, int(a) < 0);
  uint ub = mix(b, 0u - b, int(b) < 0);
  uint q = ua / max(ub, 1u);
  q = mix(q, 0u - q, ((a ^ b) & 0x80000000u) != 0u);
  return mix(q, 0u, b == 0u || overflow);
}

uint gc_i32_mod(uint a, uint b, uint site) {
  bool overflow = a == 0x80000000u && b == 0xFFFFFFFFu;
  if (b == 0u) gc_trap(site, 2u);
  if (overflow) gc_trap(site, 4u);
  uint ua = mix(a, 0u - a, int(a) < 0);
  uint ub = mix(b, 0u - b, int(b) < 0);
  uint r = ua % max(ub, 1u);
  r = mix(r, 0u - r, int(a) < 0);
  return mix(r, 0u, b == 0u || overflow);
}

void main() {
  for (uint gc_i = gl_LocalInvocationIndex; gc_i < 4u; gc_i += 4u) w_tile[gc_i] = 0u;
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
  {
    uint t0 = uint(gl_LocalInvocationID.x == 3u);
    if (t0 != 0u) {
      gc_live = false;
    }
    uint t1 = 0u;
    if (gl_GlobalInvocationID.x < gc.b_in) t1 = b_in.data[gl_GlobalInvocationID.x];
    uint t2 = gc_i32_div(t1, (uint(-2) ^ gc.zero), 0u);
    if (gc_live && gl_LocalInvocationID.x < 4u) w_tile[gl_LocalInvocationID.x] = t2;
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
    for (uint v_i = 0u; v_i < gc.b_in; v_i++) {
      if (!gc_live || gc_trap_record.key != 0xFFFFFFFFFFFFFFFFul) break;
      uint t3 = 0u;
      if (0u < 4u) t3 = w_tile[0u];
      uint t4 = 0u;
      if (v_i < gc.b_in) t4 = b_in.data[v_i];
      uint t5 = gc_i32_mod(t3, t4, 1u);
      if (gc_live && gl_GlobalInvocationID.x < 16u) b_out.data[gl_GlobalInvocationID.x] = t5;
    }
  }
}
)glsl");
  EXPECT_EQ(s.trap_binding, 3u);
  EXPECT_EQ(s.trap_sites.size(), 2u);
  EXPECT_EQ(s.push_constant_words, 2u);  // gc.zero, then the length of `in`
  ASSERT_EQ(s.buffers.size(), 2u);
  EXPECT_EQ(s.buffers[0].length_push_word, 1u);
  EXPECT_EQ(s.shared_memory_bytes, 16u);
  EXPECT_TRUE(s.needs_int64_atomics);
}

TEST(Gpu_Lowering, UniformIsAReadonlyStd430StorageBufferAndF32GoesThroughExactHelpers) {
  Builder b({8, 1, 1});
  auto u = b.uniform("params", 0, ScalarType::F32, 4);
  auto x = b.read("x", 1, ScalarType::F32, 8);
  auto y = b.write_only("y", 2, ScalarType::F32, 8);
  Program p = b.wrapped({
      b.store(y, b.gid(), b.select(b.load(x, b.gid()) < b.f32(0.0f), b.un(UnOp::Sqrt, b.load(x, b.gid())),
                                   b.load(x, b.gid()) * b.load(u, b.u32(1)) + b.f32(1.5f))),
  });
  const LoweredShader s = lowered(p);
  EXPECT_NE(s.glsl.find("// params: uniform f32[4] (uniform lowered as a readonly std430 storage buffer)\n"
                        "layout(std430, set = 0, binding = 0) readonly buffer B0_params { uint data[]; } b_params;"),
            std::string::npos);
  EXPECT_NE(s.glsl.find("layout(std430, set = 0, binding = 2) writeonly buffer B2_y"), std::string::npos);
  EXPECT_EQ(s.glsl.substr(s.glsl.find("void main() {")), R"glsl(void main() {
  {
    uint t0 = 0u;
    if (gl_GlobalInvocationID.x < 8u) t0 = gc_canon(b_x.data[gl_GlobalInvocationID.x]);
    uint t1 = gc_f32_lt(t0, (0x00000000u ^ gc.zero));
    uint t2 = 0u;
    if (gl_GlobalInvocationID.x < 8u) t2 = gc_canon(b_x.data[gl_GlobalInvocationID.x]);
    uint t3 = gc_f32_sqrt(t2);
    uint t4 = 0u;
    if (gl_GlobalInvocationID.x < 8u) t4 = gc_canon(b_x.data[gl_GlobalInvocationID.x]);
    uint t5 = 0u;
    if (1u < 4u) t5 = gc_canon(b_params.data[1u]);
    uint t6 = gc_f32_mul(t4, t5);
    uint t7 = gc_f32_add(t6, (0x3FC00000u ^ gc.zero));
    uint t8 = mix(t7, t3, t1 != 0u);
    if (gl_GlobalInvocationID.x < 8u) b_y.data[gl_GlobalInvocationID.x] = t8;
  }
}
)glsl");
  EXPECT_EQ(s.helpers, (std::vector<std::string>{"gc_canon", "gc_f32_to_f64", "gc_f64_to_f32", "gc_f32_add",
                                                 "gc_f32_mul", "gc_f32_sqrt", "gc_f32_key", "gc_f32_lt"}));
  EXPECT_TRUE(s.needs_float64);
}

TEST(Gpu_Lowering, ABarrierOrdersOnlyTheMemoryOfItsScope) {
  Builder b({4, 1, 1});
  auto tile = b.workgroup("tile", 4, ScalarType::U32);
  auto out = b.output("out", 0, ScalarType::U32, 4);
  Program p = b.wrapped({
      b.store(tile, b.lid(), b.lid()),
      b.barrier(MemoryOrdering::SeqCst, BarrierMemory::Workgroup),
      b.store(out, b.lid(), b.load(tile, b.u32(3) - b.lid())),
      b.barrier(MemoryOrdering::AcqRel, BarrierMemory::Storage),
      b.barrier(MemoryOrdering::SeqCst, BarrierMemory::All),
  });
  const LoweredShader s = lowered(p);
  const std::string workgroup =
      "    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);\n";
  const std::string storage =
      "    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);\n";
  const std::string all =
      "    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, "
      "gl_SemanticsAcquireRelease);\n";
  const std::size_t at_workgroup = s.glsl.find(workgroup);
  const std::size_t at_storage = s.glsl.find(storage);
  const std::size_t at_all = s.glsl.find(all);
  ASSERT_NE(at_workgroup, std::string::npos) << s.glsl;
  ASSERT_NE(at_storage, std::string::npos) << s.glsl;
  ASSERT_NE(at_all, std::string::npos) << s.glsl;
  EXPECT_LT(at_workgroup, at_storage);
  EXPECT_LT(at_storage, at_all);
  // Each form once (the zeroing barrier of the shared array is at the outer indent, full scope).
  EXPECT_EQ(s.glsl.find(workgroup, at_workgroup + 1), std::string::npos);
  EXPECT_EQ(s.glsl.find(storage, at_storage + 1), std::string::npos);
  EXPECT_EQ(s.glsl.find(all, at_all + 1), std::string::npos);
  EXPECT_NE(s.glsl.find("#extension GL_KHR_memory_scope_semantics : require\n"), std::string::npos);
}

TEST(Gpu_Lowering, WithoutBarriersAReturnEndsTheInvocationDirectly) {
  Builder b({4, 1, 1});
  auto out = b.output("out", 0, ScalarType::U32, 4);
  Program p = b.wrapped({b.loop("i", b.u32(0), b.u32(10), {b.if_(b.var("i") == b.u32(2), {b.ret()})}),
                         b.store(out, b.gid(), b.u32(7))});
  const LoweredShader s = lowered(p);
  EXPECT_NE(s.glsl.find("      return;\n"), std::string::npos) << s.glsl;
  EXPECT_EQ(s.glsl.find("gc_live"), std::string::npos);
}

TEST(Gpu_Lowering, LoopBoundsAreEvaluatedOnce) {
  Builder b({1, 1, 1});
  auto out = b.output("out", 0, ScalarType::U32, 1);
  Program p = b.wrapped({b.let("n", b.u32(3)),
                         b.loop("i", b.u32(0), b.var("n"), {b.assign("n", b.var("n") + b.u32(1))}),
                         b.store(out, b.u32(0), b.var("n"))});
  const LoweredShader s = lowered(p);
  EXPECT_NE(s.glsl.find("uint t0 = v_n;\n    for (uint v_i = 0u; v_i < t0; v_i++) {"), std::string::npos) << s.glsl;
}

TEST(Gpu_Lowering, NamesAreSanitisedWithoutDoubleUnderscoresAndStayDistinct) {
  Builder b({1, 1, 1});
  auto weird = b.output("__my buf__", 0, ScalarType::U32, 1);
  auto clash = b.output("my_buf", 1, ScalarType::U32, 1);
  Program p = b.wrapped({b.let("__forever__", b.u32(1)), b.store(weird, b.u32(0), b.var("__forever__")),
                         b.store(clash, b.u32(0), b.u32(2))});
  const LoweredShader s = lowered(p);
  EXPECT_NE(s.glsl.find("} b_my_buf;"), std::string::npos) << s.glsl;
  EXPECT_NE(s.glsl.find("} b_my_buf_2;"), std::string::npos);
  EXPECT_NE(s.glsl.find("uint v_forever = (1u ^ gc.zero);"), std::string::npos);
  std::string code;  // GLSL reserves identifiers with "__"; comments may quote the IR names
  for (std::size_t at = 0; at < s.glsl.size();) {
    const std::size_t end = s.glsl.find('\n', at);
    const std::string l = s.glsl.substr(at, end - at);
    code += l.substr(0, l.find("//")) + "\n";
    at = end == std::string::npos ? s.glsl.size() : end + 1;
  }
  EXPECT_EQ(code.find("__"), std::string::npos) << code;
  EXPECT_NE(s.glsl.find("// __my buf__: read_write u32[1]"), std::string::npos);
}

TEST(Gpu_Lowering, TheWorkgroupOverrideIsTheDeclaredSize) {
  Builder b({64, 1, 1});
  auto out = b.output("out", 0, ScalarType::U32, 8);
  Program p = b.wrapped({b.store(out, b.gid(), b.workgroup_size(0))});
  LoweringOptions o;
  o.workgroup_size = std::array<std::uint32_t, 3>{8, 2, 1};
  const LoweredShader s = lowered(p, o);
  EXPECT_NE(s.glsl.find("layout(local_size_x = 8, local_size_y = 2, local_size_z = 1) in;"), std::string::npos);
  EXPECT_NE(s.glsl.find("= (8u ^ gc.zero);"), std::string::npos);
}

TEST(Gpu_Lowering, FencesCollectivesAndUntypedProgramsAreRefusedWithCodes) {
  {
    Builder b({1, 1, 1});
    auto out = b.output("out", 0, ScalarType::U32, 1);
    Program p = b.wrapped({b.store(out, b.u32(0), b.u32(1)), b.grid_sync(), b.store(out, b.u32(0), b.u32(2))});
    Result<LoweredShader> r = lower_to_glsl(p);
    EXPECT_EQ(code_of(r), "K030");
  }
  {
    Builder b({1, 1, 1});
    auto buf = b.read_write("buf", 0, ScalarType::U32, 4);
    Program p = b.wrapped({b.all_reduce(buf, CollectiveOp::Sum)});
    EXPECT_EQ(code_of(lower_to_glsl(p)), "K031");
  }
  {
    Builder b({1, 1, 1});
    auto out = b.output("out", 0, ScalarType::U32, 1);
    Program p = b.wrapped({b.store(out, b.u32(0), b.var("undeclared"))});
    Result<LoweredShader> r = lower_to_glsl(p);
    ASSERT_EQ(code_of(r), "K034");
    EXPECT_FALSE(r.diagnostics().all().front().notes.empty());
  }
  {
    Builder b({1, 1, 1});
    auto x = b.output("x", 3, ScalarType::U32, 1);
    auto y = b.output("y", 3, ScalarType::U32, 1);
    Program p = b.wrapped({b.store(x, b.u32(0), b.u32(1)), b.store(y, b.u32(0), b.u32(1))});
    EXPECT_EQ(code_of(lower_to_glsl(p)), "K031");
  }
}

TEST(Gpu_Lowering, EveryHelperOfTheLibraryCompiles) {
  HelperSet all;
  for (std::string_view name : all_helper_names()) all.need(name);
  const std::string glsl =
      "#version 450\nlayout(local_size_x = 1) in;\nvoid gc_trap(uint site, uint kind) {}\n" + all.text() + "void main() {}\n";
  Result<Spirv> spirv = compile_glsl(glsl, "helpers");
  EXPECT_TRUE(spirv.ok()) << (spirv.ok() ? "" : render(spirv.diagnostics()));
}

TEST(Gpu_Lowering, TrapKeysDecodeToWorkgroupInvocationSiteAndKind) {
  const DecodedTrap t = decode_trap((std::uint64_t{7} << 32) | (3u << 20) | (12u << 4) | 2u);
  EXPECT_EQ(t.workgroup_linear, 7u);
  EXPECT_EQ(t.local_index, 3u);
  EXPECT_EQ(t.site, 12u);
  EXPECT_EQ(t.kind, TrapKind::RemainderByZero);
}

}  // namespace
}  // namespace gridcheck::gpu
