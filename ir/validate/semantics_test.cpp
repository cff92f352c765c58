// Phase 2 node rules (scoping, stores, types, atomics, collectives) and our warnings, each with a
// silent twin. Builder-made IR.
#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/validate/test_support.hpp"

namespace gridcheck::ir {
namespace {

using testing::reports;
using testing::silent;

TEST(Validate_Scoping, LetShadowingAnEnclosingLetIsV008) {
  Builder b;
  Program p = b.wrapped({b.let("x", b.u32(1)), b.block({b.let("x", b.u32(2))})});
  EXPECT_TRUE(reports(p, {"V008"}));
  ValidateOptions shadowing;
  shadowing.allow_shadowing = true;
  EXPECT_TRUE(silent(p, shadowing));
}

TEST(Validate_Scoping, LoopVariableShadowingIsV008) {
  Builder b;
  Program p = b.wrapped({b.let("i", b.u32(1)), b.loop("i", b.u32(0), b.u32(4), {})});
  EXPECT_TRUE(reports(p, {"V008"}));
}

TEST(Validate_Scoping, SameNameInSiblingScopesIsSilent) {
  Builder b;
  EXPECT_TRUE(silent(b.wrapped({b.block({b.let("x", b.u32(1))}), b.block({b.let("x", b.u32(2))}),
                                b.loop("i", b.u32(0), b.u32(2), {}), b.loop("i", b.u32(0), b.u32(2), {})})));
}

TEST(Validate_Scoping, DuplicateSiblingLetIsV032EvenWithShadowingAllowed) {
  Builder b;
  Program p = b.wrapped({b.let("x", b.u32(1)), b.let("x", b.u32(2))});
  ValidateOptions shadowing;
  shadowing.allow_shadowing = true;
  EXPECT_TRUE(reports(p, {"V032"}));
  EXPECT_TRUE(reports(p, {"V032"}, shadowing));
}

TEST(Validate_Scoping, RegionsScopeTheirLets) {
  // Spec docs/semantics.md §3.2: `Region a[let x] ; Region b[use x]` is invalid.
  Builder b;
  Buf out = b.read_write("out", 0, ScalarType::U32, 4);
  Program p = b.raw({b.region("a", {b.let("x", b.u32(1))}), b.region("b", {b.store(out, b.u32(0), b.var("x"))})});
  EXPECT_TRUE(reports(p, {"G100"}));
}

TEST(Validate_Scoping, AssignToLoopVariableIsV011) {
  Builder b;
  EXPECT_TRUE(reports(b.wrapped({b.loop("i", b.u32(0), b.u32(4), {b.assign("i", b.u32(1))})}), {"V011"}));
  Builder twin;
  EXPECT_TRUE(silent(twin.wrapped({twin.let("acc", twin.u32(0)),
                                   twin.loop("i", twin.u32(0), twin.u32(4),
                                             {twin.assign("acc", twin.var("acc") + twin.var("i"))})})));
}

TEST(Validate_Scoping, AssignToUndeclaredNameIsV120) {
  Builder b;
  EXPECT_TRUE(reports(b.wrapped({b.assign("x", b.u32(5))}), {"V120"}));
  Builder scoped;  // declared in a block that has ended
  EXPECT_TRUE(reports(scoped.wrapped({scoped.block({scoped.let("x", scoped.u32(1))}), scoped.assign("x", scoped.u32(5))}),
                      {"V120"}));
}

TEST(Validate_Scoping, AssignToABufferNameIsV119OrG009) {
  Builder b;
  b.read("a", 0, ScalarType::U32, 4);
  b.read_write("rw", 1, ScalarType::U32, 4);
  EXPECT_TRUE(reports(b.wrapped({b.assign("a", b.u32(1)), b.assign("rw", b.u32(1))}), {"V119", "G009"}));
}

TEST(Validate_Sequences, ReturnBeforeTheEndOfItsSequenceIsV112) {
  Builder b;
  Buf out = b.read_write("out", 0, ScalarType::U32, 4);
  EXPECT_TRUE(reports(b.wrapped({b.ret(), b.store(out, b.u32(0), b.u32(1))}), {"V112"}));
  Builder nested;
  Buf o2 = nested.read_write("out", 0, ScalarType::U32, 4);
  EXPECT_TRUE(reports(nested.wrapped({nested.if_(nested.gid() == nested.u32(0),
                                                 {nested.ret(), nested.store(o2, nested.u32(0), nested.u32(1))})}),
                      {"V112"}));
  Builder twin;
  Buf o3 = twin.read_write("out", 0, ScalarType::U32, 4);
  EXPECT_TRUE(silent(twin.wrapped({twin.if_(twin.gid() == twin.u32(0), {twin.ret()}),
                                   twin.store(o3, twin.u32(0), twin.u32(1)), twin.ret()})));
}

TEST(Validate_Stores, StoreIntoReadOrUniformBufferIsV063) {
  Builder b;
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Buf u = b.uniform("u", 1, ScalarType::U32, 4);
  EXPECT_TRUE(reports(b.wrapped({b.store(a, b.u32(0), b.u32(1)), b.store(u, b.u32(0), b.u32(1))}), {"V063", "V063"}));
  Builder twin;
  Buf w = twin.write_only("w", 0, ScalarType::U32, 4);
  Buf s = twin.workgroup("s", 4, ScalarType::U32);
  Buf o = twin.output("o", 1, ScalarType::U32, 4);
  EXPECT_TRUE(silent(twin.wrapped({twin.store(w, twin.u32(0), twin.u32(1)), twin.store(s, twin.u32(0), twin.u32(1)),
                                   twin.store(o, twin.u32(3), twin.u32(1))})));
}

TEST(Validate_Stores, LiteralStoreIndexOutOfBoundsIsV036) {
  Builder b;
  Buf out = b.read_write("out", 0, ScalarType::U32, 4);
  EXPECT_TRUE(reports(b.wrapped({b.store(out, b.u32(4), b.u32(1))}), {"V036"}));
  Builder negative;
  Buf o2 = negative.read_write("out", 0, ScalarType::U32, 4);
  EXPECT_TRUE(reports(negative.wrapped({negative.store(o2, negative.i32(-1), negative.u32(1))}), {"V122", "V036"}));
  Builder runtime_sized;  // count 0: any literal is fine (docs/semantics.md §4)
  Buf o3 = runtime_sized.read_write("out", 0, ScalarType::U32);
  EXPECT_TRUE(silent(runtime_sized.wrapped({runtime_sized.store(o3, runtime_sized.u32(999), runtime_sized.u32(1))})));
}

TEST(Validate_Stores, StoreValueOfIncompatibleTypeIsV121) {
  Builder b;
  Buf out = b.read_write("out", 0, ScalarType::U32, 4);
  EXPECT_TRUE(reports(b.wrapped({b.store(out, b.u32(0), b.f32(1.5f))}), {"V121"}));
  Builder twin;  // bool flags and same-width signedness reinterpretation are allowed
  Buf u = twin.read_write("u", 0, ScalarType::U32, 4);
  Buf i = twin.read_write("i", 1, ScalarType::I32, 4);
  EXPECT_TRUE(silent(twin.wrapped({twin.store(u, twin.u32(0), twin.u32(1) < twin.u32(2)),
                                   twin.store(u, twin.u32(1), twin.i32(-1)), twin.store(i, twin.u32(0), twin.u32(7))})));
}

TEST(Validate_Stores, StoreIndexMustBeU32V122) {
  Builder b;
  Buf out = b.read_write("out", 0, ScalarType::U32, 4);
  EXPECT_TRUE(reports(b.wrapped({b.let("k", b.i32(1)), b.store(out, b.var("k"), b.u32(1))}), {"V122"}));
}

TEST(Validate_ControlFlow, IfConditionMustBeU32OrBoolV123) {
  Builder b;
  EXPECT_TRUE(reports(b.wrapped({b.if_(b.f32(1.0f), {})}), {"V123"}));
  EXPECT_TRUE(reports(b.wrapped({b.if_(b.i32(1), {})}), {"V123"}));
  Builder twin;
  EXPECT_TRUE(silent(twin.wrapped({twin.if_(twin.u32(1), {}), twin.if_(twin.boolean(true), {})})));
}

TEST(Validate_ControlFlow, LoopBoundsMustBeU32V124V125) {
  Builder b;
  EXPECT_TRUE(reports(b.wrapped({b.loop("i", b.i32(0), b.u32(4), {})}), {"V124"}));
  EXPECT_TRUE(reports(b.wrapped({b.loop("j", b.u32(0), b.i32(4), {})}), {"V125"}));
}

TEST(Validate_Atomics, AtomicsNeedReadWriteStorageV009V025) {
  Builder b;
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Buf w = b.write_only("w", 1, ScalarType::U32, 4);
  Buf s = b.workgroup("s", 4, ScalarType::U32);
  EXPECT_TRUE(reports(b.wrapped({b.let("x", b.atomic_add(a, b.u32(0), b.u32(1))),
                                 b.let("y", b.atomic_add(w, b.u32(0), b.u32(1))),
                                 b.let("z", b.atomic_add(s, b.u32(0), b.u32(1)))}),
                      {"V009", "V009", "V025"}));
}

TEST(Validate_Atomics, AtomicsNeedU32ElementsAndOperandsV014V027V057V058) {
  Builder b;
  Buf f = b.read_write("f", 0, ScalarType::F32, 4);
  Buf c = b.read_write("c", 1, ScalarType::U32, 4);
  EXPECT_TRUE(reports(b.wrapped({b.let("x", b.atomic_add(f, b.u32(0), b.u32(1))),
                                 b.let("y", b.atomic_add(c, b.i32(0), b.u32(1))),
                                 b.let("z", b.atomic_add(c, b.u32(0), b.i32(1))),
                                 b.let("w", b.compare_exchange(c, b.u32(0), b.i32(0), b.u32(1)))}),
                      {"V014", "V027", "V057", "V058"}));
}

TEST(Validate_Atomics, GridSyncOrderingOnAnAtomicIsV042) {
  Builder b;
  Buf c = b.read_write("c", 0, ScalarType::U32, 1);
  EXPECT_TRUE(reports(b.wrapped({b.let("x", b.atomic(AtomicOp::Add, c, b.u32(0), b.u32(1), MemoryOrdering::GridSync))}),
                      {"V042"}));
  Builder twin;  // relaxed is a valid read-modify-write ordering
  Buf c2 = twin.read_write("c", 0, ScalarType::U32, 1);
  EXPECT_TRUE(silent(twin.wrapped({twin.let(
      "x", twin.atomic(AtomicOp::Max, c2, twin.u32(0), twin.u32(1), MemoryOrdering::Relaxed))})));
}

TEST(Validate_Collectives, CollectivesAreV046UnlessAllowed) {
  Builder b;
  Buf x = b.read_write("x", 0, ScalarType::U32, 4);
  Buf y = b.read_write("y", 1, ScalarType::F32, 4);
  Program p = b.wrapped({b.all_reduce(x, CollectiveOp::Sum)});
  EXPECT_TRUE(reports(p, {"V046"}));
  ValidateOptions allow;
  allow.allow_collectives = true;
  EXPECT_TRUE(silent(p, allow));
  Program mismatch = b.wrapped({b.all_gather(x, y)});
  EXPECT_TRUE(reports(mismatch, {"V046"}, allow));
}

TEST(Validate_Async, TransferIntoReadOnlyBufferIsV134AndUnknownEndpointsWarnG010) {
  Builder b;
  Buf src = b.read("src", 0, ScalarType::U32, 4);
  Buf dst = b.read("dst", 1, ScalarType::U32, 4);
  Buf tier{b.program().intern("global_dma_pool")};
  EXPECT_TRUE(reports(b.wrapped({b.async_load(src, dst, b.u32(0), b.u32(16), "t")}), {"V134"}));
  Program p = b.wrapped({b.async_load(tier, src, b.u32(0), b.u32(16), "t")});
  EXPECT_TRUE(reports(p, {"G010", "V134"}));
  Builder twin;
  Buf s2 = twin.read("src", 0, ScalarType::U32, 4);
  Buf d2 = twin.read_write("dst", 1, ScalarType::U32, 4);
  EXPECT_TRUE(silent(twin.wrapped({twin.async_load(s2, d2, twin.u32(0), twin.u32(16), "t"), twin.async_wait("t")})));
}

TEST(Validate_Warnings, LoadFromWriteOnlyBufferIsG004) {
  Builder b;
  Buf w = b.write_only("w", 0, ScalarType::U32, 4);
  Program p = b.wrapped({b.store(w, b.u32(0), b.load(w, b.u32(1)))});
  EXPECT_TRUE(reports(p, {"G004"}));
  EXPECT_TRUE(is_valid(p));
}

TEST(Validate_Warnings, LiteralLoadOrAtomicIndexOutOfBoundsIsG005) {
  Builder b;
  Buf a = b.read("a", 0, ScalarType::U32, 4);
  Buf c = b.read_write("c", 1, ScalarType::U32, 1);
  Program p = b.wrapped({b.let("x", b.load(a, b.u32(4))), b.let("y", b.atomic_add(c, b.u32(1), b.u32(1))),
                         b.let("z", b.load(a, b.i32(-2)))});
  EXPECT_TRUE(reports(p, {"G005", "G005", "G005"}));
  EXPECT_TRUE(is_valid(p));
  Builder twin;
  Buf a2 = twin.read("a", 0, ScalarType::U32, 4);
  EXPECT_TRUE(silent(twin.wrapped({twin.let("x", twin.load(a2, twin.u32(3)))})));
}

TEST(Validate_Warnings, I32DivisionByLiteralZeroIsG006) {
  Builder b;
  Program p = b.wrapped({b.let("x", b.i32(7) / b.i32(0)), b.let("y", b.i32(7) % b.i32(0))});
  EXPECT_TRUE(reports(p, {"G006", "G006"}));
  Builder twin;  // u32 division by zero is defined (docs/semantics.md §3.5)
  EXPECT_TRUE(silent(twin.wrapped({twin.let("x", twin.u32(7) / twin.u32(0)), twin.let("y", twin.i32(7) / twin.i32(2))})));
}

TEST(Validate_Types, TypeInferenceErrorsAreReportedByTheValidator) {
  Builder b;
  Buf out = b.read_write("out", 0, ScalarType::U32, 4);
  Program p = b.wrapped({b.let("x", b.u32(1) + b.i32(2)), b.store(out, b.u32(0), b.var("nope")),
                         b.let("f", b.fma(b.u32(1), b.u32(2), b.u32(3)))});
  EXPECT_TRUE(reports(p, {"G102", "G100", "V028"}));
}

TEST(Validate_Types, OneTypeErrorDoesNotHideUnrelatedTypeRules) {
  Builder b;
  Buf out = b.read_write("out", 0, ScalarType::U32, 4);
  Program p = b.wrapped({b.let("x", b.u32(1) + b.i32(2)), b.if_(b.f32(1.0f), {b.store(out, b.u32(0), b.u32(1))})});
  EXPECT_TRUE(reports(p, {"G102", "V123"}));
}

}  // namespace
}  // namespace gridcheck::ir
