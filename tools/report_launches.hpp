#pragma once
// `diff --dump-launches DIR` (docs/reports.md "Launch dumps"): every buffer after every step, one
// raw little-endian file per buffer per step, and index.json (gridcheck/launches/1) naming them:
//
//   R-phase<k>-<buffer>.bin           R's memory at the end of grid phase k (0-based over every
//                                     fixpoint iteration: k = iteration · phases + phase)
//   <profile>-launch<k>-<buffer>.bin  the H-cpu split's live buffer after launch k (0-based over
//                                     the run) and its refresh
//
// <profile> is the profile's name with every character outside [A-Za-z0-9._-] replaced by `_`
// (`external:fake` -> `external_fake`).

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/case.hpp"
#include "ir/diagnostic.hpp"
#include "props/oracle/case_report.hpp"
#include "props/oracle/launch_trace.hpp"

namespace gridcheck::tools {

/// Before any work: `dir` must be an empty directory, or not exist with an existing parent. The
/// P008 diagnostic (the directory as the file) otherwise.
std::optional<ir::Diagnostic> check_dump_dir(const std::string& dir);

/// `name` as it appears in a dump's file names.
std::string file_name_part(std::string_view name);

/// The index document (without its "schema" key; dump_document adds it).
nlohmann::json launch_index(const ir::Case& c, const std::string& file, const props::CaseReport& report,
                            const props::LaunchTrace& trace, int exit_code);

/// Creates `dir` when missing and writes every file and index.json (last). A P008 diagnostic when
/// something cannot be written.
std::optional<ir::Diagnostic> write_launch_dump(const std::string& dir, const ir::Case& c, const std::string& file,
                                                const props::CaseReport& report, const props::LaunchTrace& trace,
                                                int exit_code);

}  // namespace gridcheck::tools
