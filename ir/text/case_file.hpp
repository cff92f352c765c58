#pragma once
// Loading case files from disk, with the file-size limit checked before anything is read, and
// writing them back without ever leaving half a file.

#include <string>

#include "ir/case.hpp"
#include "ir/diagnostic.hpp"

namespace gridcheck::ir {

/// The bytes of a case file. Fails with P008 when it cannot be read and P007 when it is larger than
/// text_limits::kMaxFileBytes (checked before reading, so a huge file is never loaded).
Result<std::string> read_case_text(const std::string& path);

/// read_case_text + parse_case, with `path` as the file name in diagnostics.
Result<Case> load_case_file(const std::string& path);

/// Writes `text` to `path` through a temporary file of its own in the same directory (mkstemp),
/// synced and renamed over `path`, so a crash, Ctrl-C or a concurrent writer leaves the old file or
/// one whole new one, never half of one. The file is mode 0644. False when it cannot be written.
bool write_file_atomically(const std::string& path, const std::string& text);

}  // namespace gridcheck::ir
