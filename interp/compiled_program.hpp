#pragma once
// The interpreter's compiled form (docs/engineering.md#lesson-10): a pre-pass turns the IR into a flat register
// code. Every invocation owns a frame of 32-bit slots:
//
//   [0, 9)     global, local and workgroup id (x, y, z each), written when the invocation starts
//   [9, 15)    number of workgroups and workgroup size (x, y, z), written per launch
//   [15, ...)  literals (deduplicated, canonical), then one slot per buf_len, written per launch
//   then       one slot per `let` and two per `loop` (variable and end bound)
//   then       expression temporaries, reused by every statement
//
// Constants live in every frame, so an operand is always a slot index and the execution loop never
// asks where a value comes from. Control flow is compiled to jumps; a loop evaluates its bounds
// once into its two slots. Buffers are resolved to indices; names and builtins never reach the loop.
// `origins[pc]` maps every instruction back to the IR for reports and observers; its source site is
// spelled out only when asked for (site(pc)): compiling formats no text.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "interp/result.hpp"
#include "ir/diagnostic.hpp"
#include "ir/program.hpp"
#include "ir/typecheck.hpp"

namespace gridcheck::interp {

enum class Op : std::uint8_t {
  // moves and control flow
  Mov,       ///< d = a
  Jmp,       ///< goto a
  Jz,        ///< if r[a] == 0 goto b
  JgeU,      ///< if r[a] >= r[b] (unsigned) goto c
  LoopNext,  ///< ++r[d]; if r[d] < r[a] goto b
  // an `if` on a comparison (the comparison and the Jz fused; each costs 2 steps, as the pair did):
  // goto c unless the comparison of r[a] and r[b] holds
  JnEq, JnNe, JnLtU, JnLtS, JnLeU, JnLeS,
  // integer and bool fast paths (u32 and i32 share the wrapping ones)
  Add, Sub, Mul, And, Or, Xor, Shl, ShrU, ShrS,
  Eq, Ne, LtU, LtS, LeU, LeS,
  DivU, ModU, DivS, ModS, MinU, MaxU, MinS, MaxS,
  LogAnd, LogOr, LogNot,
  MulAdd,  ///< d = r[a] * r[b] + r[c], wrapping (an integer `x * y + z` fused by the compiler)
  Inc,     ///< ++r[d] (the variable of an unrolled loop)
  // the unary operators, casts and other binary operators the generated programs use most, without
  // ir::eval_unary / eval_cast / eval_binary's table check and switch (the same values)
  Neg,       ///< d = 0 - r[a] (u32 and i32 negate, wrapping)
  BitNot,    ///< d = ~r[a]
  Popcount,  ///< d = popcount(r[a])
  Clz,       ///< d = count of leading zero bits of r[a]
  Ctz,       ///< d = count of trailing zero bits of r[a]
  ReverseBits,  ///< d = r[a] with its 32 bits in reverse order
  AbsS,      ///< d = |r[a]| as i32, wrapping (abs(i32::MIN) = i32::MIN)
  NeZero,    ///< d = r[a] != 0 ? 1 : 0 (casts from u32 / i32 / bool to bool, and from bool to u32 / i32)
  SatAddU,   ///< d = r[a] + r[b] saturated to u32
  SatSubS,   ///< d = r[a] - r[b] saturated to i32
  RotlU,     ///< d = r[a] rotated left by r[b] % 32
  MulHiU,    ///< d = the high 32 bits of the u32 product r[a] * r[b]
  AddF32, SubF32, MulF32,  ///< f32 d = r[a] op r[b], canonical (round to nearest)
  // everything else through ir/scalar_semantics (sub = operator, type = operand type)
  Binary,     ///< d = eval_binary(sub, type, a, b)
  Unary,      ///< d = eval_unary(sub, type, a)
  Cast,       ///< d = eval_cast(sub, type, a)
  Fma,        ///< d = eval_fma(a, b, c)
  Select,     ///< d = r[a] != 0 ? r[b] : r[c]   (both arms already evaluated)
  TruthyF32,  ///< d = truthy(f32, a)
  CheckU32,   ///< trap NegativeToU32 when the i32 in a is negative (sub = what it is used for)
  // memory (a = buffer index, b = element index)
  Load,       ///< d = word (u32, i32)
  LoadBool,   ///< d = word != 0
  LoadF32,    ///< d = canonical(word)
  Store,      ///< buffer a [b] = c
  Atomic,     ///< d = old; sub = AtomicOp; c = value, e = expected
  // synchronisation and ends
  RecordIf,    ///< divergence record: the branch r[a] != 0 taken by an if that holds a barrier (sub = scope)
  RecordLoop,  ///< divergence record: the trip count of a loop from r[a] to r[b] that holds a barrier
  Barrier,     ///< workgroup barrier
  Fence,       ///< grid_sync
  Return,      ///< the invocation finishes
  Trap,        ///< the IR trap statement
};
inline constexpr int kOpCount = static_cast<int>(Op::Trap) + 1;

/// What a CheckU32 guards.
enum class U32Use : std::uint8_t { Index, AtomicOperand, LoopBound };
/// The scope of a divergence record.
enum class RecordScope : std::uint8_t { Workgroup, Grid };

struct Instr {
  Op op = Op::Return;
  std::uint8_t sub = 0;
  std::uint8_t type = 0;
  std::uint8_t unused = 0;
  std::uint32_t d = 0, a = 0, b = 0, c = 0, e = 0;
};

/// For Op::Barrier, `sub` is the mask of memory classes the barrier orders (docs/semantics.md §2.7):
/// a release orders earlier and later accesses of these classes only. 0 reads as every class.
inline constexpr std::uint8_t kOrdersWorkgroupMemory = 1;
inline constexpr std::uint8_t kOrdersStorageMemory = 2;
inline constexpr std::uint8_t kOrdersAllMemory = kOrdersWorkgroupMemory | kOrdersStorageMemory;
inline std::uint8_t barrier_memory_mask(const Instr& barrier) {
  return barrier.sub == 0 ? kOrdersAllMemory : barrier.sub;
}

/// A statement's path from the entry, one node per step: `field[index]` below `parent`
/// ("entry[0].body[2].then[0]"); a root has no parent, and a node without index is its field alone.
struct PathNode {
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  std::uint32_t parent = kNone;
  const char* field = "";  ///< a string literal
  std::uint32_t index = kNone;
};

/// The parts of a Site (result.hpp): its description is prefix + arg + suffix.
struct SiteRecipe {
  ir::SourceLoc loc;
  std::uint32_t path = 0;  ///< index into CompiledProgram::paths
  const char* prefix = "";  ///< a string literal
  std::string arg;
  const char* suffix = "";  ///< a string literal
};

/// The IR node an instruction comes from.
struct Origin {
  std::uint32_t site = 0;  ///< index into CompiledProgram::sites
  bool is_stmt = true;
  std::uint32_t node = 0;  ///< StmtId or ExprId index
  /// For RecordIf/RecordLoop: the first barrier inside the guarded body (the second divergence site).
  std::uint32_t guarded_barrier_pc = 0;
};

struct CompiledBuffer {
  std::string name;
  ir::ScalarType element = ir::ScalarType::U32;
  ir::BufferAccess access = ir::BufferAccess::ReadOnly;
  bool workgroup = false;
  std::uint32_t declared_count = 0;
  /// Workgroup buffers: word offset in the workgroup's memory block.
  std::uint32_t workgroup_offset = 0;
  /// Non-workgroup buffers: position among the program's non-workgroup buffers (the caller's order).
  std::uint32_t storage_index = 0;
};

// Fixed frame slots.
inline constexpr std::uint32_t kSlotGlobalId = 0;
inline constexpr std::uint32_t kSlotLocalId = 3;
inline constexpr std::uint32_t kSlotWorkgroupId = 6;
inline constexpr std::uint32_t kSlotNumWorkgroups = 9;
inline constexpr std::uint32_t kSlotWorkgroupSize = 12;
inline constexpr std::uint32_t kFirstConstSlot = 15;

/// What the race detector needs of a program, computed once by compile (index_race_sites,
/// race_detector.hpp) instead of per run.
struct RaceSites {
  /// Per instruction: the site of an access (loads, stores, atomics; the copies of an unrolled
  /// loop body share their IR node's), 0xFFFF for other instructions or past 0xFFFE sites.
  std::vector<std::uint16_t> site_of_pc;
  std::vector<std::uint32_t> pc_of_site;  ///< each site's first instruction
  std::vector<bool> written;              ///< per buffer: stored to or updated atomically
};

struct CompiledProgram {
  std::vector<Instr> code;
  std::vector<Origin> origins;                ///< parallel to `code`
  std::vector<SiteRecipe> sites;
  std::vector<PathNode> paths;
  std::vector<CompiledBuffer> buffers;        ///< declaration order (workgroup buffers included)
  std::array<std::uint32_t, 3> workgroup_size = {1, 1, 1};
  std::uint32_t frame_words = kFirstConstSlot;
  std::vector<std::uint32_t> literal_values;  ///< slots [kFirstConstSlot, kFirstConstSlot + size)
  struct BufLenSlot {
    std::uint32_t slot;
    std::uint32_t buffer;
  };
  std::vector<BufLenSlot> buf_len_slots;
  std::uint32_t workgroup_words = 0;  ///< words of workgroup memory per workgroup
  std::uint32_t storage_buffer_count = 0;
  bool has_fence = false;
  bool has_barrier = false;
  /// Filled by compile; a program assembled otherwise leaves it empty and the detector indexes it.
  RaceSites race_sites;

  std::uint32_t invocations_per_workgroup() const {
    return workgroup_size[0] * workgroup_size[1] * workgroup_size[2];
  }
  /// The source site of instruction `pc`.
  Site site(std::uint32_t pc) const;
  /// "entry[0].body[2]" of path node `path`.
  std::string path_string(std::uint32_t path) const;
};

/// Compiles a type-checked program. Refuses (codes R001-R009) what the reference does not run:
/// unsupported statements (docs/semantics.md §3.7), stores to read-only buffers, atomics outside u32 read_write
/// storage, f32 indices or loop bounds, assignments to loop variables, relaxed barriers.
ir::Result<CompiledProgram> compile(const ir::Program& program, const ir::TypeTable& types,
                                    std::string_view file = {});

}  // namespace gridcheck::interp

namespace gridcheck::interp {

/// One line per instruction ("12: add r20, r3, r15   ; entry[0].body[1] (let x)"), for debugging
/// and for tests of the compiler.
std::string disassemble(const CompiledProgram& program);
std::string_view name_of(Op op);

}  // namespace gridcheck::interp
