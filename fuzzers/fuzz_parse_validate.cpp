// libFuzzer target: the bytes are a `.gc` case file (docs/format.md). Every input must be either
// rejected with P-coded diagnostics, or accepted, validated, printed and parsed back to an equal
// case: the same program (ir::structurally_equal), the same printed text, the same validator codes.
// Anything else (a mismatch, a crash, a sanitizer report, an internal error) is a finding:
// __builtin_trap() after the evidence is printed. Inputs above kMaxInputBytes are skipped, so that
// one input stays in the milliseconds. docs/fuzzing.md shows how to build and run it.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostic.hpp"
#include "ir/equality.hpp"
#include "ir/text/parser.hpp"
#include "ir/text/printer.hpp"
#include "ir/validate/validator.hpp"

namespace {

using namespace gridcheck;

constexpr std::size_t kMaxInputBytes = 64 * 1024;

[[noreturn]] void finding(std::string_view what, std::string_view text) {
  std::fprintf(stderr, "fuzz_parse_validate: %.*s\n--- the text ---\n%.*s\n--- end ---\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(text.size()), text.data());
  __builtin_trap();
}

/// The codes of every error and warning, sorted: what a program means to the validator, without
/// the positions (which printing moves).
std::vector<std::string> codes_of(const ir::Diagnostics& diagnostics) {
  std::vector<std::string> codes;
  for (const ir::Diagnostic& d : diagnostics) codes.push_back(d.code);
  std::sort(codes.begin(), codes.end());
  return codes;
}

std::vector<std::string> validator_codes(const ir::Program& program, const ir::ValidateOptions& options) {
  return codes_of(ir::validate(program, "fuzz.gc", options));
}

void check_rejection(const ir::Diagnostics& diagnostics, std::string_view text) {
  if (!diagnostics.has_errors()) finding("parse_case failed without an error", text);
  for (const ir::Diagnostic& d : diagnostics)
    if (d.code.size() != 4 || d.code[0] != 'P') finding("a parse diagnostic without a P code: " + d.code, text);
  (void)ir::render(diagnostics, text);
}

void check_case(std::string_view text) {
  const ir::Result<ir::Case> parsed = ir::parse_case(text, "fuzz.gc");
  if (!parsed) return check_rejection(parsed.diagnostics(), text);

  // Both validator configurations: the default (collectives refused) and the planner's buffer scan.
  ir::ValidateOptions scan;
  scan.allow_collectives = true;
  const ir::Diagnostics diagnostics = ir::validate(parsed->program, "fuzz.gc");
  (void)ir::render(diagnostics, text);
  const std::vector<std::string> codes = codes_of(diagnostics);
  const std::vector<std::string> scan_codes = validator_codes(parsed->program, scan);

  const std::string printed = ir::print(*parsed);
  const ir::Result<ir::Case> again = ir::parse_case(printed, "fuzz-printed.gc");
  if (!again) finding("the printed case does not parse:\n" + ir::render(again.diagnostics(), printed), printed);
  if (!ir::structurally_equal(parsed->program, again->program)) finding("parse(print(c)) is another program", printed);
  if (ir::content_hash(parsed->program) != ir::content_hash(again->program))
    finding("equal programs with different content hashes", printed);
  if (ir::print(*again) != printed) finding("print(parse(print(c))) differs from print(c)", printed);
  if (validator_codes(again->program, {}) != codes || validator_codes(again->program, scan) != scan_codes)
    finding("the validator says something else about the printed program", printed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > kMaxInputBytes) return -1;  // not added to the corpus
  check_case(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
