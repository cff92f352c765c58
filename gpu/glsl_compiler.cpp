#include "gpu/glsl_compiler.hpp"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include <fmt/format.h>
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <spirv-tools/libspirv.hpp>

#include "gpu/gpu_diagnostics.hpp"

namespace gridcheck::gpu {
namespace {

void glslang_init_once() {
  static std::once_flag flag;
  std::call_once(flag, [] { glslang::InitializeProcess(); });  // never finalized (docs/building.md §3)
}

std::uint64_t text_hash(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string sanitize(std::string_view label) {
  std::string out;
  for (char c : label) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out.empty() ? "shader" : out;
}

/// The first line of a log that says "ERROR" (else the first non-empty line), trimmed.
std::string first_error_line(const std::string& log) {
  std::istringstream in(log);
  std::string line;
  std::string first;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (first.empty()) first = line;
    if (line.find("ERROR") != std::string::npos || line.find("error") != std::string::npos) return line;
  }
  return first;
}

/// Writes the failing GLSL (and SPIR-V, if any) next to each other; returns the GLSL path or a note.
std::string save_failure(const std::filesystem::path& dir, std::string_view label, std::string_view glsl, const Spirv* spirv,
                         const std::string& log) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string stem = fmt::format("{}-{:016x}", sanitize(label), text_hash(glsl));
  const std::filesystem::path glsl_path = dir / (stem + ".comp");
  {
    std::ofstream out(glsl_path, std::ios::binary);
    out << glsl;
    if (!out) return fmt::format("<could not write {}>", glsl_path.string());
  }
  std::ofstream(dir / (stem + ".log"), std::ios::binary) << log;
  if (spirv != nullptr && !spirv->empty()) {
    std::ofstream out(dir / (stem + ".spv"), std::ios::binary);
    out.write(reinterpret_cast<const char*>(spirv->data()), static_cast<std::streamsize>(spirv->size() * 4));
  }
  return glsl_path.string();
}

}  // namespace

std::filesystem::path default_failure_dir() {
  if (const char* env = std::getenv("GRIDCHECK_GLSL_DUMP_DIR"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  return tmp / "gridcheck-glsl";
}

std::optional<std::string> validate_spirv(const Spirv& spirv) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& pos, const char* message) {
    messages += fmt::format("spirv-val: word {}: {}\n", pos.index, message);
  });
  if (tools.Validate(spirv)) return std::nullopt;
  return messages.empty() ? std::string("spirv-val rejected the module") : messages;
}

ir::Result<Spirv> compile_glsl(std::string_view glsl, std::string_view label, const std::filesystem::path& failure_dir) {
  glslang_init_once();
  glslang::TShader shader(EShLangCompute);
  const char* strings[] = {glsl.data()};
  const int lengths[] = {static_cast<int>(glsl.size())};
  const char* names[] = {"lowered.comp"};
  shader.setStringsWithLengthsAndNames(strings, lengths, names, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 450, false, messages)) {
    const std::string log = std::string(shader.getInfoLog()) + shader.getInfoDebugLog();
    const std::string path = save_failure(failure_dir, label, glsl, nullptr, log);
    return make_error(Code::GlslCompileFailed, fmt::format("glslang rejected the lowered GLSL of {} (saved to {}): {}", label,
                                                           path, first_error_line(log)));
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) {
    const std::string log = std::string(program.getInfoLog()) + program.getInfoDebugLog();
    const std::string path = save_failure(failure_dir, label, glsl, nullptr, log);
    return make_error(Code::GlslCompileFailed, fmt::format("glslang could not link the lowered GLSL of {} (saved to {}): {}",
                                                           label, path, first_error_line(log)));
  }
  Spirv spirv;
  spv::SpvBuildLogger logger;
  glslang::SpvOptions options;
  options.validate = false;
  options.disableOptimizer = true;
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), spirv, &logger, &options);
  if (std::optional<std::string> invalid = validate_spirv(spirv)) {
    const std::string path = save_failure(failure_dir, label, glsl, &spirv, *invalid + logger.getAllMessages());
    return make_error(Code::SpirvInvalid, fmt::format("spirv-val rejected the SPIR-V of {} (GLSL saved to {}): {}", label, path,
                                                      first_error_line(*invalid)));
  }
  return spirv;
}

namespace {
thread_local std::uint64_t t_compile_ns = 0;
}  // namespace

std::uint64_t GlslCompiler::thread_compile_ns() { return t_compile_ns; }

ir::Result<const Spirv*> GlslCompiler::compile(std::string_view glsl, std::string_view label) {
  const std::uint64_t key = text_hash(glsl);
  std::shared_ptr<Entry> entry;
  std::unique_lock<std::mutex> compiling;
  {
    std::lock_guard lock(mutex_);
    const auto [first, last] = entries_.equal_range(key);
    for (auto it = first; it != last && !entry; ++it)
      if (it->second->glsl == glsl) entry = it->second;
    if (!entry) {  // the attached file's entries outlive clear(): found there, it is known again
      const auto [file_first, file_last] = from_file_.equal_range(key);
      for (auto it = file_first; it != file_last && !entry; ++it)
        if (it->second->glsl == glsl) entry = it->second;
      if (entry) entries_.emplace(key, entry);
    }
    if (!entry) {
      entry = std::make_shared<Entry>();
      entry->glsl = std::string(glsl);
      compiling = std::unique_lock(entry->compiling);  // before anyone else can find the entry
      entries_.emplace(key, entry);
    }
  }
  if (!compiling.owns_lock()) {
    std::lock_guard wait(entry->compiling);
    if (entry->error) return *entry->error;
    if (entry->from_file_unused.exchange(false)) {
      ++file_hits_;
      std::lock_guard lock(mutex_);
      keep(entry);
    } else {
      ++hits_;
    }
    return &entry->spirv;
  }
  const auto start = std::chrono::steady_clock::now();
  ir::Result<Spirv> spirv = compile_glsl(glsl, label, failure_dir_);
  const auto took = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  compile_ns_ += took;
  t_compile_ns += took;
  ++compiles_;
  if (!spirv) {
    entry->error = spirv.diagnostics();
    std::lock_guard lock(mutex_);  // not kept: the next call compiles again
    const auto [first, last] = entries_.equal_range(key);
    for (auto it = first; it != last; ++it)
      if (it->second == entry) {
        entries_.erase(it);
        break;
      }
    return spirv.diagnostics();
  }
  entry->spirv = std::move(spirv).value();
  if (file_) {
    std::lock_guard lock(mutex_);
    if (keep(entry)) ++unsaved_;
  }
  return &entry->spirv;
}

bool GlslCompiler::keep(const std::shared_ptr<Entry>& entry) {
  const std::uint64_t bytes = 8 + entry->glsl.size() + 4 * entry->spirv.size();
  if (kept_bytes_ + bytes > max_file_bytes_) return false;
  kept_bytes_ += bytes;
  kept_.push_back(entry);
  return true;
}

std::size_t GlslCompiler::size() {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

void GlslCompiler::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
}

GlslCompiler::~GlslCompiler() { save(); }

SpirvCacheLoad GlslCompiler::attach_file(std::filesystem::path file, std::uint64_t max_bytes) {
  std::vector<SpirvCacheEntry> read;
  file_load_ = read_spirv_cache(file, read);
  file_ = std::move(file);
  max_file_bytes_ = max_bytes;
  file_entries_ = read.size();
  std::lock_guard lock(mutex_);
  for (SpirvCacheEntry& e : read) {
    auto entry = std::make_shared<Entry>();
    const std::uint64_t key = text_hash(e.glsl);
    entry->glsl = std::move(e.glsl);
    entry->spirv = std::move(e.spirv);
    entry->from_file_unused = true;
    from_file_.emplace(key, std::move(entry));
  }
  return file_load_;
}

std::optional<std::string> GlslCompiler::save() {
  if (!file_ || unsaved_.load() == 0) return std::nullopt;
  unsaved_.store(0);
  std::vector<std::shared_ptr<Entry>> kept;
  {
    std::lock_guard lock(mutex_);
    kept = kept_;
  }
  std::vector<SpirvCacheEntry> first;
  first.reserve(kept.size());
  for (const std::shared_ptr<Entry>& e : kept) first.push_back({e->glsl, e->spirv});
  std::vector<const SpirvCacheEntry*> order;
  for (const SpirvCacheEntry& e : first) order.push_back(&e);
  std::string error;
  last_save_ = write_spirv_cache(*file_, order, max_file_bytes_, &error);
  if (last_save_ == SpirvCacheSave::Failed) return error;
  return std::nullopt;
}

}  // namespace gridcheck::gpu
