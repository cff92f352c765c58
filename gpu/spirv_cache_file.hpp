#pragma once
// The SPIR-V cache file: the validated SPIR-V that glslang made for each lowered GLSL text, kept across
// runs so that a shader compiled (and passed by spirv-val) once is not compiled again by a later run
// (docs/gpu.md "SPIR-V cache file"). One file, <dir>/spirv.bin, next to the pipeline cache file:
//
//   header  magic "GCSPV001", the toolchain id's length (u32) and bytes, the entry count (u64), the
//           body's size (u64) and its FNV-1a-64 (u64)
//   body    per entry: the GLSL's length in bytes (u32), the SPIR-V's length in words (u32), the GLSL
//           text, the SPIR-V words
//
// All little-endian as the host writes them (the file never leaves the host). A file whose magic,
// toolchain id (glslang's and SPIRV-Tools' versions and the compile options), sizes or hash do not
// match is ignored as a whole. An entry is used only for a GLSL text equal to its own, so a hash
// collision can never return another shader's SPIR-V. The file is checked for damage, not for malice:
// it is trusted as the driver's own caches in the same directory are.
//
// Saving merges: the entries given come first, then the entries of the file on disk that are not among
// them, as long as the file stays within the cap; the rest are dropped. It writes a temporary file and
// renames it over the old one, so concurrent processes never read half a file and the last writer's
// merge wins (ir::write_file_atomically).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gridcheck::gpu {

struct SpirvCacheEntry {
  std::string glsl;
  std::vector<std::uint32_t> spirv;
};

/// What reading a SPIR-V cache file found.
enum class SpirvCacheLoad : std::uint8_t {
  NoFile,   ///< no file there (yet)
  Loaded,   ///< its entries were read
  Ignored,  ///< unreadable, damaged, or made by another toolchain: nothing read
};

/// What writing it did.
enum class SpirvCacheSave : std::uint8_t {
  NotYet,   ///< nothing saved yet (nothing new to save)
  Written,  ///< the file was replaced, every entry kept
  Trimmed,  ///< the file was replaced; the oldest entries did not fit under the cap and were dropped
  Failed,   ///< the file system failed
};

/// glslang's and SPIRV-Tools' versions and the options gpu::compile_glsl uses: a file made with any
/// other toolchain id is ignored.
const std::string& spirv_toolchain_id();

/// Reads `file`; `entries` gets its entries (in the file's order) when it returns Loaded.
SpirvCacheLoad read_spirv_cache(const std::filesystem::path& file, std::vector<SpirvCacheEntry>& entries);

/// Writes `first` then the file's own entries not among them, within `max_bytes` (header included);
/// `error` gets the reason when it returns Failed.
SpirvCacheSave write_spirv_cache(const std::filesystem::path& file, std::span<const SpirvCacheEntry* const> first,
                                 std::uint64_t max_bytes, std::string* error = nullptr);

}  // namespace gridcheck::gpu
