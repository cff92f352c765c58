// The SPIR-V cache file (spirv_cache_file.hpp, GlslCompiler::attach_file): a second compiler reads what
// the first saved and compiles nothing; a damaged, truncated, foreign or hostile file is ignored as a
// whole (and replaced by the next save); the cap keeps the newest entries; saving merges with the file
// on disk; a compiler without a file writes nothing. No Vulkan device is needed.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpu/glsl_compiler.hpp"
#include "gpu/spirv_cache_file.hpp"

namespace gridcheck::gpu {
namespace {

std::string shader(unsigned value) {
  return fmt::format(R"(#version 450
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer Out {{ uint data[]; }} dst;
void main() {{ dst.data[0] = {}u; }}
)",
                     value);
}

class Gpu_SpirvCacheFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           fmt::format("gridcheck-spirv-cache-{}-{}", ::testing::UnitTest::GetInstance()->current_test_info()->name(), ::getpid());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    file_ = dir_ / "spirv.bin";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// The SPIR-V of shader(v) for v in `values`, compiled by a compiler that saves to file_ when it ends.
  std::vector<Spirv> compile_and_save(std::initializer_list<unsigned> values) {
    GlslCompiler compiler;
    compiler.attach_file(file_);
    std::vector<Spirv> out;
    for (unsigned v : values) out.push_back(**compiler.compile(shader(v), "spirv_cache_test"));
    return out;
  }
  std::vector<char> file_bytes() const {
    std::ifstream in(file_, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void write_file(const std::vector<char>& bytes) const {
    std::ofstream out(file_, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  /// A fresh compiler on file_: what it read, and whether shader(v) was compiled again.
  struct Reread {
    SpirvCacheLoad load;
    std::uint64_t compiles;
    std::uint64_t file_hits;
    Spirv spirv;
  };
  Reread reread(unsigned v) const {
    GlslCompiler compiler;
    const SpirvCacheLoad load = compiler.attach_file(file_);
    Spirv spirv = **compiler.compile(shader(v), "spirv_cache_test");
    return {load, compiler.compiles(), compiler.file_hits(), std::move(spirv)};
  }

  std::filesystem::path dir_;
  std::filesystem::path file_;
};

TEST_F(Gpu_SpirvCacheFile, ASecondCompilerReadsWhatTheFirstSavedAndCompilesNothing) {
  const std::vector<Spirv> made = compile_and_save({1, 2});
  ASSERT_TRUE(std::filesystem::exists(file_));
  GlslCompiler compiler;
  EXPECT_EQ(compiler.attach_file(file_), SpirvCacheLoad::Loaded);
  EXPECT_EQ(compiler.file_entries(), 2u);
  EXPECT_EQ(**compiler.compile(shader(2), "t"), made[1]);
  EXPECT_EQ(**compiler.compile(shader(1), "t"), made[0]);
  EXPECT_EQ(**compiler.compile(shader(1), "t"), made[0]);
  EXPECT_EQ(compiler.compiles(), 0u);
  EXPECT_EQ(compiler.file_hits(), 2u);
  EXPECT_EQ(compiler.hits(), 1u);
  // A text that is not in the file is compiled (the twin: the file answers only for its own texts).
  EXPECT_NE(**compiler.compile(shader(3), "t"), made[0]);
  EXPECT_EQ(compiler.compiles(), 1u);
}

TEST_F(Gpu_SpirvCacheFile, DamagedTruncatedForeignAndHostileFilesAreIgnoredAndReplaced) {
  compile_and_save({1});
  const std::vector<char> good = file_bytes();
  ASSERT_GT(good.size(), 100u);
  const std::string id = spirv_toolchain_id();
  const auto id_at = static_cast<std::size_t>(std::search(good.begin(), good.end(), id.begin(), id.end()) - good.begin());
  ASSERT_LT(id_at, good.size());

  std::vector<std::pair<std::string, std::vector<char>>> bad;
  bad.push_back({"empty", {}});
  bad.push_back({"truncated", std::vector<char>(good.begin(), good.end() - 7)});
  std::vector<char> flipped = good;
  flipped[good.size() - 40] ^= 0x10;
  bad.push_back({"a flipped body byte", flipped});
  std::vector<char> foreign = good;
  foreign[id_at] ^= 0x01;  // another glslang
  bad.push_back({"another toolchain", foreign});
  std::vector<char> magic = good;
  magic[0] = 'X';
  bad.push_back({"another magic", magic});
  // A header that is intact and a body whose hash matches, but whose entry claims 4 GiB of GLSL.
  std::vector<char> hostile(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(id_at + id.size()));
  const std::uint32_t huge[2] = {0xFFFFFFF0u, 0xFFFFFFF0u};
  std::vector<char> body(reinterpret_cast<const char*>(huge), reinterpret_cast<const char*>(huge) + sizeof huge);
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : body) hash = (hash ^ static_cast<std::uint8_t>(c)) * 0x100000001b3ull;
  const std::uint64_t fields[3] = {1, body.size(), hash};
  hostile.insert(hostile.end(), reinterpret_cast<const char*>(fields), reinterpret_cast<const char*>(fields) + sizeof fields);
  hostile.insert(hostile.end(), body.begin(), body.end());
  bad.push_back({"an entry longer than the file", hostile});

  for (const auto& [what, bytes] : bad) {
    SCOPED_TRACE(what);
    write_file(bytes);
    const Reread r = reread(1);
    EXPECT_EQ(r.load, SpirvCacheLoad::Ignored);
    EXPECT_EQ(r.compiles, 1u);
    EXPECT_EQ(r.file_hits, 0u);
    // That compiler saved a good file over the bad one.
    EXPECT_EQ(reread(1).load, SpirvCacheLoad::Loaded);
  }
  // The twin: the intact file is used.
  write_file(good);
  const Reread r = reread(1);
  EXPECT_EQ(r.load, SpirvCacheLoad::Loaded);
  EXPECT_EQ(r.compiles, 0u);
  EXPECT_EQ(r.file_hits, 1u);
}

TEST_F(Gpu_SpirvCacheFile, SavingPutsThisRunsEntriesBeforeTheFilesOthers) {
  const std::vector<Spirv> first = compile_and_save({1});
  const std::vector<Spirv> second = compile_and_save({2});  // attached after the first saved: sees 1, adds 2
  std::vector<SpirvCacheEntry> entries;
  ASSERT_EQ(read_spirv_cache(file_, entries), SpirvCacheLoad::Loaded);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].glsl, shader(2));
  EXPECT_EQ(entries[0].spirv, second[0]);
  EXPECT_EQ(entries[1].glsl, shader(1));
  EXPECT_EQ(entries[1].spirv, first[0]);
}

TEST_F(Gpu_SpirvCacheFile, EntriesTheRunUsedComeFirstInTheOrderItMetThemAndOutliveClear) {
  compile_and_save({1, 2, 3});  // the file: 1, 2, 3
  {
    GlslCompiler compiler;
    compiler.attach_file(file_);
    ASSERT_TRUE(compiler.compile(shader(3), "t"));  // from the file
    compiler.clear();                                // a trim: the file's entries stay known
    ASSERT_TRUE(compiler.compile(shader(4), "t"));  // new
    ASSERT_TRUE(compiler.compile(shader(2), "t"));  // from the file, after clear()
    EXPECT_EQ(compiler.compiles(), 1u);
    EXPECT_EQ(compiler.file_hits(), 2u);
  }
  std::vector<SpirvCacheEntry> entries;
  ASSERT_EQ(read_spirv_cache(file_, entries), SpirvCacheLoad::Loaded);
  std::vector<std::string> order;
  for (const SpirvCacheEntry& e : entries) order.push_back(e.glsl);
  EXPECT_EQ(order, (std::vector<std::string>{shader(3), shader(4), shader(2), shader(1)}));
}

TEST_F(Gpu_SpirvCacheFile, ACompilerKeepsTheFirstTextsItMetWhenTheyDoNotAllFit) {
  compile_and_save({1});
  const std::uintmax_t one = std::filesystem::file_size(file_);  // the header and one entry
  std::filesystem::remove(file_);
  {
    GlslCompiler compiler;  // room for the header and two (equal-sized) entries, not three
    compiler.attach_file(file_, 2 * one - 1);
    for (unsigned v : {1u, 2u, 3u, 4u}) ASSERT_TRUE(compiler.compile(shader(v), "t"));
  }
  std::vector<SpirvCacheEntry> entries;
  ASSERT_EQ(read_spirv_cache(file_, entries), SpirvCacheLoad::Loaded);
  ASSERT_EQ(entries.size(), 2u);  // header + 2 entries < 2 * (header + 1 entry), a third does not fit
  EXPECT_EQ(entries[0].glsl, shader(1));
  EXPECT_EQ(entries[1].glsl, shader(2));
}

TEST_F(Gpu_SpirvCacheFile, TheCapKeepsTheFirstEntriesThatFit) {
  GlslCompiler compiler;
  std::vector<SpirvCacheEntry> made;
  for (unsigned v : {1u, 2u, 3u}) made.push_back({shader(v), **compiler.compile(shader(v), "t")});
  const SpirvCacheEntry* all[] = {&made[0], &made[1], &made[2]};
  ASSERT_EQ(write_spirv_cache(file_, all, 1u << 20), SpirvCacheSave::Written);
  const std::uintmax_t whole = std::filesystem::file_size(file_);
  std::filesystem::remove(file_);

  // The three entries have the same size E and the header is far smaller, so whole - whole/6 leaves room
  // for the header and two entries (whole - E) but not for the third.
  const std::uint64_t cap = whole - whole / 6;
  const SpirvCacheEntry* newest_first[] = {&made[2], &made[1], &made[0]};
  ASSERT_EQ(write_spirv_cache(file_, newest_first, cap), SpirvCacheSave::Trimmed);
  EXPECT_LE(std::filesystem::file_size(file_), cap);
  std::vector<SpirvCacheEntry> kept;
  ASSERT_EQ(read_spirv_cache(file_, kept), SpirvCacheLoad::Loaded);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].glsl, shader(3));
  EXPECT_EQ(kept[1].glsl, shader(2));
}

TEST_F(Gpu_SpirvCacheFile, ACompilerWithoutAFileOrWithNothingNewWritesNothing) {
  {
    GlslCompiler compiler;
    ASSERT_TRUE(compiler.compile(shader(1), "t"));
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
  compile_and_save({1});
  const auto written = std::filesystem::last_write_time(file_);
  const std::vector<char> before = file_bytes();
  {
    GlslCompiler compiler;  // only file hits: the file is not rewritten
    compiler.attach_file(file_);
    ASSERT_TRUE(compiler.compile(shader(1), "t"));
    EXPECT_EQ(compiler.save(), std::nullopt);
    EXPECT_EQ(compiler.last_save(), SpirvCacheSave::NotYet);
  }
  EXPECT_EQ(std::filesystem::last_write_time(file_), written);
  EXPECT_EQ(file_bytes(), before);
}

TEST_F(Gpu_SpirvCacheFile, AFileThatCannotBeWrittenIsReportedNotFatal) {
  GlslCompiler compiler;
  compiler.attach_file(dir_ / "not-a-dir" / "spirv.bin");
  std::ofstream(dir_ / "not-a-dir") << "a file where the directory should be";
  ASSERT_TRUE(compiler.compile(shader(1), "t"));
  const std::optional<std::string> error = compiler.save();
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("not-a-dir"), std::string::npos) << *error;
  EXPECT_EQ(compiler.last_save(), SpirvCacheSave::Failed);
}

}  // namespace
}  // namespace gridcheck::gpu
