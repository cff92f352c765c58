#include "ir/text/case_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/text/limits.hpp"
#include "ir/text/parse_codes.hpp"
#include "ir/text/parser.hpp"

namespace gridcheck::ir {

Result<std::string> read_case_text(const std::string& path) {
  auto fail = [&](std::string_view code, std::string message) {
    return Diagnostic{Severity::Error, std::string(code), path, SourceLoc{}, std::move(message), {}};
  };
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return fail(parse_code::kCannotReadFile, "cannot open the file: it does not exist");
  if (std::filesystem::is_directory(status)) return fail(parse_code::kCannotReadFile, "cannot read the file: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(parse_code::kCannotReadFile, fmt::format("cannot open the file: {}", std::strerror(errno)));
  // Read at most one byte past the limit, so that neither a huge regular file nor an endless pipe is
  // loaded into memory.
  std::string text;
  constexpr std::size_t kChunk = 1 << 16;
  char buffer[kChunk];
  while (in) {
    in.read(buffer, kChunk);
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > text_limits::kMaxFileBytes)
      return fail(parse_code::kFileTooLarge,
                  fmt::format("file is larger than the limit of {} bytes", text_limits::kMaxFileBytes));
  }
  if (in.bad()) return fail(parse_code::kCannotReadFile, "cannot read the file: read error");
  return text;
}

Result<Case> load_case_file(const std::string& path) {
  Result<std::string> text = read_case_text(path);
  if (!text) return text.diagnostics();
  return parse_case(*text, path);
}

bool write_file_atomically(const std::string& path, const std::string& text) {
  // A temporary of our own in the target's directory (mkstemp: writers of one path never share it),
  // flushed to disk before the rename replaces the old file.
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string tmp = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return false;
  bool ok = true;
  for (std::size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  ok = ok && ::fchmod(fd, 0644) == 0 && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (ok) ok = ::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) ::unlink(tmp.c_str());
  return ok;
}

}  // namespace gridcheck::ir
