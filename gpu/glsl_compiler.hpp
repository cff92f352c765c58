#pragma once
// GLSL 450 compute -> SPIR-V 1.5 for Vulkan 1.2, in process (glslang's C++ API, docs/building.md §3),
// followed by SPIRV-Tools validation (SPV_ENV_VULKAN_1_2) before anything reaches a driver.
//
// Generated GLSL that glslang rejects, or SPIR-V that spirv-val rejects, is *our* bug: the compiler
// writes the GLSL (and the SPIR-V, when there is one) into `dump_dir` and returns an internal-error
// diagnostic (K090 / K091) whose message names the file. It never aborts and never throws.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpu/spirv_cache_file.hpp"
#include "ir/diagnostic.hpp"

namespace gridcheck::gpu {

using Spirv = std::vector<std::uint32_t>;

/// Where failing GLSL is written: $GRIDCHECK_GLSL_DUMP_DIR if set, else <temp>/gridcheck-glsl.
std::filesystem::path default_failure_dir();

/// Compiles and validates one compute shader. `label` names the shader in messages and file names.
ir::Result<Spirv> compile_glsl(std::string_view glsl, std::string_view label = "shader",
                               const std::filesystem::path& failure_dir = default_failure_dir());

/// Runs spirv-val (Vulkan 1.2 rules) on a module; the first message on failure.
std::optional<std::string> validate_spirv(const Spirv& spirv);

/// A cache in front of compile_glsl keyed by the GLSL text (hash, confirmed by comparing the text), so
/// glslang and spirv-val run once per distinct shader. Thread-safe: compiles run outside the cache's
/// lock, in parallel for different texts; a second caller of a text being compiled waits for that
/// compile. Failures are not kept (each call compiles again and saves the failing GLSL again).
class GlslCompiler {
 public:
  /// The largest SPIR-V cache file save() writes (header included).
  static constexpr std::uint64_t kDefaultMaxFileBytes = 256ull << 20;

  explicit GlslCompiler(std::filesystem::path failure_dir = default_failure_dir()) : failure_dir_(std::move(failure_dir)) {}
  /// Saves the SPIR-V cache file, if one is attached (best effort: a file that cannot be written only
  /// costs compile time next run).
  ~GlslCompiler();
  GlslCompiler(const GlslCompiler&) = delete;
  GlslCompiler& operator=(const GlslCompiler&) = delete;

  /// The SPIR-V of `glsl`; compiled once per distinct text. The pointer stays valid for the compiler's life.
  ir::Result<const Spirv*> compile(std::string_view glsl, std::string_view label = "shader");

  /// Keeps the SPIR-V this compiler makes in `file` across runs (spirv_cache_file.hpp): reads the file's
  /// entries now, so that compile() of a text found there neither compiles nor validates it (also after
  /// clear()), and writes on save() and on destruction: first the file's entries this run used and the
  /// texts it compiled, in the order it met them, as many as fit under `max_bytes`, then the file's other
  /// entries while they fit. So a campaign run again meets its first shaders in the file even when the
  /// file cannot hold them all, and entries no run uses give way to new ones. Call before the first compile().
  SpirvCacheLoad attach_file(std::filesystem::path file, std::uint64_t max_bytes = kDefaultMaxFileBytes);
  /// Writes the attached file when texts were compiled since the last save; an error text on failure.
  std::optional<std::string> save();
  const std::optional<std::filesystem::path>& file() const { return file_; }
  SpirvCacheLoad file_load() const { return file_load_; }
  SpirvCacheSave last_save() const { return last_save_; }
  std::size_t file_entries() const { return file_entries_; }  ///< entries read from the file
  std::uint64_t max_file_bytes() const { return max_file_bytes_; }

  std::uint64_t compiles() const { return compiles_.load(); }
  std::uint64_t hits() const { return hits_.load(); }
  /// Texts found in the attached file (each counted once; later requests for it are hits()).
  std::uint64_t file_hits() const { return file_hits_.load(); }
  std::uint64_t compile_ns() const { return compile_ns_.load(); }  ///< total time spent in glslang + spirv-val
  /// The calling thread's time in glslang + spirv-val so far, over every GlslCompiler (a thread's own
  /// share of compile_ns(), for per-thread phase timing while other threads compile too).
  static std::uint64_t thread_compile_ns();
  const std::filesystem::path& failure_dir() const { return failure_dir_; }
  std::size_t size();
  /// Forgets every SPIR-V compiled so far (the attached file's entries stay): only while no other thread
  /// compiles and no pointer compile() gave is used.
  void clear();

 private:
  struct Entry {
    std::mutex compiling;  ///< held by the compiling thread until `spirv` or `error` is set
    std::string glsl;
    Spirv spirv;
    std::optional<ir::Diagnostics> error;
    std::atomic<bool> from_file_unused{false};  ///< read from the file and not asked for yet
  };
  std::filesystem::path failure_dir_;
  std::mutex mutex_;
  std::unordered_multimap<std::uint64_t, std::shared_ptr<Entry>> entries_;
  /// Notes `entry` for save() (under mutex_) unless what is noted already fills the file; false then.
  bool keep(const std::shared_ptr<Entry>& entry);

  /// The attached file's entries (never cleared).
  std::unordered_multimap<std::uint64_t, std::shared_ptr<Entry>> from_file_;
  /// Entries compiled or first found in the file this run, in that order, up to the file's cap: what
  /// save() writes first.
  std::vector<std::shared_ptr<Entry>> kept_;
  std::uint64_t kept_bytes_ = 0;
  std::optional<std::filesystem::path> file_;
  std::uint64_t max_file_bytes_ = kDefaultMaxFileBytes;
  SpirvCacheLoad file_load_ = SpirvCacheLoad::NoFile;
  SpirvCacheSave last_save_ = SpirvCacheSave::NotYet;
  std::size_t file_entries_ = 0;
  std::atomic<std::uint64_t> unsaved_{0};  ///< texts compiled and kept since the last save
  std::atomic<std::uint64_t> compiles_{0};
  std::atomic<std::uint64_t> hits_{0};
  std::atomic<std::uint64_t> file_hits_{0};
  std::atomic<std::uint64_t> compile_ns_{0};
};

}  // namespace gridcheck::gpu
