#pragma once
// GitHub Actions annotations (`--github`, docs/reports.md): one workflow command per finding,
// `::error file=F,line=L,col=C,title=T::MESSAGE`, which GitHub shows on the line of the file.

#include <string>
#include <string_view>

#include "ir/diagnostic.hpp"

namespace gridcheck::tools {

/// One line (ending in '\n'): ::error for an error, ::warning for a warning, ::notice for a note;
/// file, line and col only when known; title "gridcheck CODE"; the message followed by its notes,
/// one per line. Values are escaped as GitHub's runner reads them (github_escape_*).
std::string github_annotation(const ir::Diagnostic& d);

/// The message of a workflow command: % -> %25, CR -> %0D, LF -> %0A.
std::string github_escape_data(std::string_view text);
/// A property value: as data, and also : -> %3A and , -> %2C.
std::string github_escape_property(std::string_view text);

}  // namespace gridcheck::tools
