#pragma once
// Resource limits of the text format. Every limit is checked with a diagnostic (never an assert), so
// that no input file can crash the parser, hang it, or make it allocate without bound. The numbers
// are documented in docs/format.md; tests and the fuzz driver refer to these names.

#include <cstddef>
#include <cstdint>

namespace gridcheck::ir::text_limits {

inline constexpr std::size_t kMaxFileBytes = std::size_t{16} << 20;  ///< 16 MiB per case file
inline constexpr std::uint32_t kMaxBlockNesting = 200;             ///< nested `{ }` of statements
inline constexpr std::uint32_t kMaxExprDepth = 200;                ///< depth of one expression tree
inline constexpr std::size_t kMaxIdentifierBytes = 256;
inline constexpr std::size_t kMaxStringBytes = 4096;                ///< decoded bytes of one string
inline constexpr std::uint32_t kMaxBufferElements = 1u << 28;       ///< declared count of one buffer
inline constexpr std::uint32_t kMaxWorkgroupInvocations = 1024;     ///< each component and the product
inline constexpr std::uint32_t kMaxGridComponent = 65535;           ///< workgroups per grid axis
inline constexpr std::uint32_t kMaxFixpoint = 1'000'000;
inline constexpr std::uint32_t kMaxInputCount = 1u << 28;           ///< `count N` and list lengths
inline constexpr std::size_t kMaxErrors = 50;                       ///< parsing stops after this many

}  // namespace gridcheck::ir::text_limits
