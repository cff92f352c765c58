#pragma once
// `diff --html FILE` (docs/reports.md "HTML page"): one self-contained page (inline CSS and
// JavaScript, no external asset, no network) for a person:
//   - the verdict of every split and the first divergence (table#first-divergence, its data-*
//     attributes name the profile, launch, buffer and element);
//   - the program with line numbers, its segments (bands between the top-level grid_syncs) and the
//     divergent statement marked (#divergent-statement: R's last writer of the first divergent
//     element, else R's stores to that buffer in that phase, else the buffer's declaration);
//   - each profile's segments with their buffer roles (the plan);
//   - every buffer after every R phase and H-cpu launch as a grid of elements drawn on a <canvas>,
//     coloured by R vs the split, with the first divergent element marked by a DOM element
//     (.divergent-element, #divergent-element on the first) and an inspector of its neighbourhood.
// The bytes are embedded once each (identical images shared) as base64 or word runs
// (encode_blob) inside a JSON block that cannot end its <script> early; steps past kHtmlByteBudget raw bytes are left out, and the page
// says how many.

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/case.hpp"
#include "props/oracle/case_report.hpp"
#include "props/oracle/launch_trace.hpp"

namespace gridcheck::tools {

/// Raw bytes of buffer images a page embeds at most (base64 makes the page about 4/3 of it).
inline constexpr std::size_t kHtmlByteBudget = std::size_t{64} << 20;

struct HtmlPageInput {
  const ir::Case* test_case = nullptr;
  std::string text;  ///< the case file's text
  std::string file;
  const props::CaseReport* report = nullptr;
  const props::LaunchTrace* trace = nullptr;
  int exit_code = 0;
};

std::string diff_html_page(const HtmlPageInput& input);

/// `text` with & < > " ' replaced by entity references.
std::string html_escape(std::string_view text);

/// A JSON text made safe inside <script type="application/json">: every `<` becomes `\u003c`
/// (JSON syntax has no `<` outside strings, so the value is unchanged and `</script>` cannot occur).
std::string script_safe_json(std::string json);

/// One embedded image: the base64 string, or, when shorter and the size is whole words,
/// {"runs": [[first, step, count], ...]}: count words first, first+step, first+2·step, ... (u32,
/// wrapping), run after run (constant and counting buffers of a million elements stay small).
nlohmann::json encode_blob(const planner::Bytes& bytes);

/// Standard base64 (RFC 4648, with padding).
std::string base64(const std::uint8_t* data, std::size_t size);

/// The page's stylesheet and script (report_html_assets.cpp).
std::string_view html_page_style();
std::string_view html_page_script();

}  // namespace gridcheck::tools
