#pragma once
// Lowers one fence-free program (one launch) to a GLSL 450 compute shader whose results equal the
// reference interpreter's byte for byte (ir/scalar_semantics.hpp is the definition), except for the
// f32 operations the operator table marks inexact, which stay within the table's ULP bound.
//
// Shape of the output (docs/gpu.md has the full rule list):
//  - every value is a `uint` word (f32 as bits, i32 two's complement, bool 0/1), so no float register
//    move can disturb a NaN or a signed zero; every operator is a helper or an integer expression;
//  - each compound expression is evaluated into its own temporary in the reference's evaluation order
//    (operands left to right, both `select` arms, atomics exactly once), then used by name;
//  - storage buffers are std430 `uint data[]` blocks at the IR binding numbers, `readonly`/`writeonly`
//    as the access says (`uniform` access is lowered as a readonly std430 *storage* buffer: std140
//    would give a uint array a 16-byte stride), `coherent` where written and read; workgroup buffers
//    are `shared` arrays zeroed at the start of every workgroup;
//  - loads, stores and atomics are bounds-checked explicitly (typed zero / no-op / returns 0); the
//    element count of a runtime-sized buffer comes from a push constant, since a descriptor range
//    cannot express zero elements; no robustness feature is relied on;
//  - every program literal is `(literal ^ gc.zero)` with a push-constant word that is always 0: drivers
//    optimise typeless constants with float rules (Mesa 22.3 rewrites `c ? 0x3F800000u : 0x80000000u`
//    as a bool-to-float conversion and loses -0.0), and a word the compiler cannot know keeps its bits;
//  - i32 traps (division/remainder by zero, MIN/-1, MIN%-1, a negative i32 index) record the first trap
//    of each invocation in a trap buffer; the trap that wins is the one with the smallest
//    (workgroup, local invocation) key, with its site;
//  - `return` from main where no barrier can follow; otherwise (a program with workgroup barriers and
//    returns) an invocation that returned keeps running with its stores, atomics and traps disabled,
//    so that it still arrives at every barrier the others reach (the reference releases a barrier when
//    every non-finished invocation waits; GLSL needs every invocation there).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/literal_policy.hpp"
#include "ir/diagnostic.hpp"
#include "ir/program.hpp"
#include "ir/scalar_semantics.hpp"
#include "ir/typecheck.hpp"

namespace gridcheck::gpu {

/// A deliberate lowering bug, for tests only: it makes H-gpu diverge from R while H-cpu agrees, so
/// that the GPU-only paths (`reduce --backend gpu`, blame "lowering/driver") can be tested without a
/// buggy driver. Reached from the CLI only through $GRIDCHECK_TEST_GPU_FAULT (docs/reduce.md#test-fault).
enum class LoweringFault : std::uint8_t {
  None,
  /// A `store` whose value is a bitwise xor (`buf[i] = a ^ b`, any type) stores that value plus one.
  StoreXorPlusOne,
};
/// The name $GRIDCHECK_TEST_GPU_FAULT uses ("none", "store-xor-plus-one"); nullopt for any other.
std::optional<LoweringFault> lowering_fault_named(std::string_view name);

struct LoweringOptions {
  /// The workgroup size the shader declares (the program's, or LaunchConfig::workgroup_override).
  std::optional<std::array<std::uint32_t, 3>> workgroup_size;
  /// A comment naming the shader ("segment 2 of 3").
  std::string label;
  /// Which program literals reach the driver as `(literal ^ gc.zero)`, a word it cannot fold, and which
  /// as constants (the driver's constant folding runs on those, and compiles are cheaper; Mesa folds some
  /// words wrongly). docs/gpu.md, "Program literals".
  LiteralPolicy literals = LiteralPolicy::HiddenValues;
  LoweringFault fault = LoweringFault::None;  ///< tests only
};

/// One non-workgroup buffer of the program and how the shader binds it.
struct BufferBinding {
  std::size_t decl_index = 0;  ///< index into Program::buffers()
  std::uint32_t binding = 0;   ///< descriptor binding in set 0
  /// Runtime-sized (count 0): the push-constant word that carries its element count (word 0 is always
  /// the zero word that hides program literals from the driver's constant folding).
  std::optional<std::uint32_t> length_push_word;
};

/// A place where the shader may trap; the site id is the index in LoweredShader::trap_sites.
struct TrapSite {
  ir::ExprId expr = ir::kNoExpr;
  ir::SourceLoc loc;
};

struct LoweredShader {
  std::string glsl;
  std::array<std::uint32_t, 3> workgroup_size{1, 1, 1};
  std::vector<BufferBinding> buffers;  ///< ascending binding
  std::optional<std::uint32_t> trap_binding;  ///< set when trap_sites is non-empty
  std::vector<TrapSite> trap_sites;
  std::uint32_t push_constant_words = 0;
  std::uint32_t shared_memory_bytes = 0;
  bool needs_float64 = false;       ///< shaderFloat64 (f32 arithmetic through double)
  bool needs_int64_atomics = false;  ///< shaderInt64 + shaderBufferInt64Atomics (the trap record)
  std::vector<std::string> helpers;  ///< helper functions used, in emission order
};

/// The trap-record word layout: key = workgroup linear id << 32 | local index << 20 | site << 4 | kind.
inline constexpr std::uint32_t kMaxTrapSites = 1u << 16;
inline constexpr std::uint32_t kMaxTrapLocalInvocations = 1u << 12;
inline constexpr std::uint64_t kNoTrap = ~std::uint64_t{0};
struct DecodedTrap {
  std::uint32_t workgroup_linear = 0;
  std::uint32_t local_index = 0;
  std::uint32_t site = 0;
  ir::TrapKind kind = ir::TrapKind::None;
};
DecodedTrap decode_trap(std::uint64_t key);

/// Lowers `program` with the given expression types. Errors: K030 (a grid_sync fence), K031 (a node the
/// lowering cannot express: collectives, async copies, trap/indirect/opaque statements, an f32 index,
/// duplicate bindings, too many trap sites), K022 (a workgroup too large for the trap record).
ir::Result<LoweredShader> lower_to_glsl(const ir::Program& program, const ir::TypeTable& types,
                                        const LoweringOptions& options = {});
/// Same, type-checking first (K034 with the type errors as notes).
ir::Result<LoweredShader> lower_to_glsl(const ir::Program& program, const LoweringOptions& options = {});

}  // namespace gridcheck::gpu
