#include "gpu/spirv_cache_file.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>
#include <glslang/build_info.h>
#include <spirv-tools/libspirv.h>

#include "ir/text/case_file.hpp"

namespace gridcheck::gpu {
namespace {

constexpr char kMagic[8] = {'G', 'C', 'S', 'P', 'V', '0', '0', '1'};

std::uint64_t fnv1a(const char* data, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ static_cast<std::uint8_t>(data[i])) * 0x100000001b3ull;
  return h;
}

/// Reads fixed-size values and byte runs from a buffer; any read past the end fails the whole parse.
class Reader {
 public:
  Reader(const char* data, std::size_t size) : data_(data), size_(size) {}
  template <typename T>
  bool get(T& value) {
    if (size_ - pos_ < sizeof value) return false;
    std::memcpy(&value, data_ + pos_, sizeof value);
    pos_ += sizeof value;
    return true;
  }
  bool bytes(void* out, std::uint64_t n) {
    if (size_ - pos_ < n) return false;
    std::memcpy(out, data_ + pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return true;
  }
  std::size_t pos() const { return pos_; }
  std::size_t left() const { return size_ - pos_; }

 private:
  const char* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

std::uint64_t header_bytes() { return sizeof kMagic + 4 + spirv_toolchain_id().size() + 3 * 8; }
std::uint64_t entry_bytes(const SpirvCacheEntry& e) { return 8 + e.glsl.size() + 4 * e.spirv.size(); }

}  // namespace

const std::string& spirv_toolchain_id() {
  static const std::string id = fmt::format("glslang {}.{}.{}{}; {}; vulkan1.2 spv1.5 no-optimizer spirv-val", GLSLANG_VERSION_MAJOR,
                                            GLSLANG_VERSION_MINOR, GLSLANG_VERSION_PATCH, GLSLANG_VERSION_FLAVOR,
                                            spvSoftwareVersionDetailsString());
  return id;
}

SpirvCacheLoad read_spirv_cache(const std::filesystem::path& file, std::vector<SpirvCacheEntry>& entries) {
  entries.clear();
  std::ifstream in(file, std::ios::binary);
  if (!in) return SpirvCacheLoad::NoFile;
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Reader r(bytes.data(), bytes.size());
  char magic[sizeof kMagic];
  std::uint32_t id_bytes = 0;
  if (!r.bytes(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0 || !r.get(id_bytes) ||
      id_bytes != spirv_toolchain_id().size())
    return SpirvCacheLoad::Ignored;
  std::string id(id_bytes, '\0');
  std::uint64_t count = 0, body_bytes = 0, body_hash = 0;
  if (!r.bytes(id.data(), id_bytes) || id != spirv_toolchain_id() || !r.get(count) || !r.get(body_bytes) || !r.get(body_hash) ||
      body_bytes != r.left() || fnv1a(bytes.data() + r.pos(), r.left()) != body_hash || count > body_bytes / 8)
    return SpirvCacheLoad::Ignored;
  std::vector<SpirvCacheEntry> read(static_cast<std::size_t>(count));
  for (SpirvCacheEntry& e : read) {
    std::uint32_t glsl_bytes = 0, words = 0;
    if (!r.get(glsl_bytes) || !r.get(words) || glsl_bytes > r.left() || words > (r.left() - glsl_bytes) / 4)
      return SpirvCacheLoad::Ignored;
    e.glsl.resize(glsl_bytes);
    e.spirv.resize(words);
    r.bytes(e.glsl.data(), glsl_bytes);
    r.bytes(e.spirv.data(), 4ull * words);
    if (words < 5 || e.spirv[0] != 0x07230203u) return SpirvCacheLoad::Ignored;  // not a SPIR-V module
  }
  if (r.left() != 0) return SpirvCacheLoad::Ignored;
  entries = std::move(read);
  return SpirvCacheLoad::Loaded;
}

SpirvCacheSave write_spirv_cache(const std::filesystem::path& file, std::span<const SpirvCacheEntry* const> first,
                                 std::uint64_t max_bytes, std::string* error) {
  std::vector<SpirvCacheEntry> on_disk;
  read_spirv_cache(file, on_disk);  // whatever is there and readable; a damaged file is replaced
  std::unordered_set<std::string_view> kept;
  std::vector<const SpirvCacheEntry*> order;
  std::uint64_t size = header_bytes();
  bool dropped = false;
  auto take = [&](const SpirvCacheEntry& e) {
    if (!kept.insert(e.glsl).second) return;
    if (size + entry_bytes(e) > max_bytes) {
      dropped = true;
      return;
    }
    size += entry_bytes(e);
    order.push_back(&e);
  };
  for (const SpirvCacheEntry* e : first) take(*e);
  for (const SpirvCacheEntry& e : on_disk) take(e);

  std::string body;
  body.reserve(static_cast<std::size_t>(size - header_bytes()));
  for (const SpirvCacheEntry* e : order) {
    put(body, static_cast<std::uint32_t>(e->glsl.size()));
    put(body, static_cast<std::uint32_t>(e->spirv.size()));
    body += e->glsl;
    body.append(reinterpret_cast<const char*>(e->spirv.data()), 4 * e->spirv.size());
  }
  std::string head(kMagic, sizeof kMagic);
  put(head, static_cast<std::uint32_t>(spirv_toolchain_id().size()));
  head += spirv_toolchain_id();
  put(head, static_cast<std::uint64_t>(order.size()));
  put(head, static_cast<std::uint64_t>(body.size()));
  put(head, fnv1a(body.data(), body.size()));

  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (!ir::write_file_atomically(file.string(), head + body)) {
    if (error) *error = fmt::format("cannot write {}", file.string());
    return SpirvCacheSave::Failed;
  }
  return dropped ? SpirvCacheSave::Trimmed : SpirvCacheSave::Written;
}

}  // namespace gridcheck::gpu
