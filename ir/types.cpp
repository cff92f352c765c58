#include "ir/types.hpp"

#include <array>

namespace gridcheck::ir {
namespace {

constexpr std::array<std::string_view, kScalarTypeCount> kScalarNames = {"u32", "i32", "bool", "f32"};
constexpr std::array<std::string_view, kBufferAccessCount> kAccessNames = {
    "read", "read_write", "write_only", "uniform", "workgroup"};
constexpr std::array<std::string_view, kMemoryKindCount> kKindNames = {
    "global", "shared", "uniform", "local", "readonly", "persistent", "push"};
constexpr std::array<std::string_view, kMemoryOrderingCount> kOrderingNames = {
    "relaxed", "acquire", "release", "acq_rel", "seq_cst", "grid_sync"};
constexpr std::array<std::string_view, kBarrierMemoryCount> kBarrierMemoryNames = {"all", "workgroup", "storage"};

template <typename Enum, std::size_t N>
std::optional<Enum> lookup(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return std::nullopt;
}

}  // namespace

std::string_view name_of(ScalarType type) { return kScalarNames[static_cast<int>(type)]; }
std::string_view name_of(BufferAccess access) { return kAccessNames[static_cast<int>(access)]; }
std::string_view name_of(MemoryKind kind) { return kKindNames[static_cast<int>(kind)]; }
std::string_view name_of(MemoryOrdering ordering) { return kOrderingNames[static_cast<int>(ordering)]; }
std::string_view name_of(BarrierMemory memory) { return kBarrierMemoryNames[static_cast<int>(memory)]; }

std::optional<ScalarType> scalar_type_from_name(std::string_view name) {
  return lookup<ScalarType>(kScalarNames, name);
}
std::optional<BufferAccess> buffer_access_from_name(std::string_view name) {
  return lookup<BufferAccess>(kAccessNames, name);
}
std::optional<MemoryKind> memory_kind_from_name(std::string_view name) {
  return lookup<MemoryKind>(kKindNames, name);
}
std::optional<MemoryOrdering> memory_ordering_from_name(std::string_view name) {
  return lookup<MemoryOrdering>(kOrderingNames, name);
}
std::optional<BarrierMemory> barrier_memory_from_name(std::string_view name) {
  return lookup<BarrierMemory>(kBarrierMemoryNames, name);
}

MemoryKind derived_kind(BufferAccess access) {
  switch (access) {
    case BufferAccess::ReadOnly: return MemoryKind::Readonly;
    case BufferAccess::Uniform: return MemoryKind::Uniform;
    case BufferAccess::Workgroup: return MemoryKind::Shared;
    case BufferAccess::ReadWrite:
    case BufferAccess::WriteOnly: return MemoryKind::Global;
  }
  return MemoryKind::Global;
}

}  // namespace gridcheck::ir
