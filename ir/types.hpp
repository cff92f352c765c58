#pragma once
// Scalar types, buffer access modes, memory kinds and orderings of the IR subset (docs/semantics.md §2.2–§2.7).

#include <cstdint>
#include <optional>
#include <string_view>

namespace gridcheck::ir {

/// Every scalar is one 32-bit word; Bool is 0 or 1 in registers, any non-zero word is true in memory.
enum class ScalarType : std::uint8_t { U32, I32, Bool, F32 };
inline constexpr int kScalarTypeCount = 4;

enum class BufferAccess : std::uint8_t { ReadOnly, ReadWrite, WriteOnly, Uniform, Workgroup };
inline constexpr int kBufferAccessCount = 5;

/// vyre's MemoryKind. Constructors derive it from the access (docs/semantics.md §2.2); the split re-derives it.
enum class MemoryKind : std::uint8_t { Global, Shared, Uniform, Local, Readonly, Persistent, Push };
inline constexpr int kMemoryKindCount = 7;

enum class MemoryOrdering : std::uint8_t { Relaxed, Acquire, Release, AcqRel, SeqCst, GridSync };
inline constexpr int kMemoryOrderingCount = 6;

/// The memory a barrier orders (docs/semantics.md §2.7): All (the default, 0) orders storage and
/// workgroup memory, Workgroup only workgroup buffers, Storage only storage buffers. A grid_sync
/// always orders all memory (G014).
enum class BarrierMemory : std::uint8_t { All = 0, Workgroup = 1, Storage = 2 };
inline constexpr int kBarrierMemoryCount = 3;

std::string_view name_of(ScalarType type);
std::string_view name_of(BufferAccess access);
std::string_view name_of(MemoryKind kind);
std::string_view name_of(MemoryOrdering ordering);
std::string_view name_of(BarrierMemory memory);

std::optional<ScalarType> scalar_type_from_name(std::string_view name);
std::optional<BufferAccess> buffer_access_from_name(std::string_view name);
std::optional<MemoryKind> memory_kind_from_name(std::string_view name);
std::optional<MemoryOrdering> memory_ordering_from_name(std::string_view name);
std::optional<BarrierMemory> barrier_memory_from_name(std::string_view name);

/// The kind vyre's constructors derive from an access: RO→Readonly, Uniform→Uniform,
/// Workgroup→Shared, anything else→Global.
MemoryKind derived_kind(BufferAccess access);

/// docs/semantics.md §2.7: Relaxed is not a valid barrier ordering (V043).
constexpr bool is_valid_for_barrier(MemoryOrdering o) { return o != MemoryOrdering::Relaxed; }
/// docs/semantics.md §2.7: GridSync is not a valid read-modify-write ordering (V042).
constexpr bool is_valid_for_rmw(MemoryOrdering o) { return o != MemoryOrdering::GridSync; }

}  // namespace gridcheck::ir
