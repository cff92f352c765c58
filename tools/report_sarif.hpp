#pragma once
// The SARIF 2.1.0 log of `--sarif FILE` (validate, replay, diff; docs/reports.md): one run of the
// tool `gridcheck`, one result per finding, and a rule for every ruleId its results use.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostic.hpp"

namespace gridcheck::tools {

/// The rule ids of findings that are not diagnostics of the IR (ir::Diagnostic codes P/V/G/R/S/...).
namespace finding_rule {
inline constexpr std::string_view kExpectationFailed = "expectation-failed";  ///< replay: a recorded expectation is contradicted
inline constexpr std::string_view kNoExpectations = "no-expectations";        ///< replay: the case records none
inline constexpr std::string_view kDivergence = "divergence";                 ///< a split's bytes differ from R's
inline constexpr std::string_view kSplitError = "split-error";                ///< a split failed without a code of its own
inline constexpr std::string_view kGpuUnavailable = "gpu-unavailable";        ///< H-gpu was needed, no Vulkan device opened
}  // namespace finding_rule

/// The log for one invocation of `command` ("validate", "replay", "diff"): each finding (severity,
/// code, file, line:col, message; its notes as related locations) a result with that ruleId, level
/// error/warning/note and a physical location when it has a file; a finding without a code has
/// ruleId "gridcheck". `successful`: the command itself worked (exit 0 or 1).
nlohmann::json sarif_log(std::string_view command, const std::vector<ir::Diagnostic>& findings, bool successful);

/// A file name as a SARIF artifact URI: an absolute path as a `file://` URI, a relative one as a
/// relative reference (percent-encoded outside RFC 3986's unreserved characters and `/`).
std::string artifact_uri(std::string_view path);

}  // namespace gridcheck::tools
