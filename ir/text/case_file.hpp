#pragma once
// Loading case files from disk, with the file-size limit checked before anything is read.

#include <string>

#include "ir/case.hpp"
#include "ir/diagnostic.hpp"

namespace gridcheck::ir {

/// The bytes of a case file. Fails with P008 when it cannot be read and P007 when it is larger than
/// text_limits::kMaxFileBytes (checked before reading, so a huge file is never loaded).
Result<std::string> read_case_text(const std::string& path);

/// read_case_text + parse_case, with `path` as the file name in diagnostics.
Result<Case> load_case_file(const std::string& path);

}  // namespace gridcheck::ir
