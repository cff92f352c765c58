// libFuzzer target: the bytes are a choice stream (props/gen/choice_source.hpp) that the case
// generator decodes into a valid, race-free case with any combination of generator features; the
// case then goes through the differential oracle as a campaign judges it (props::case_failure: R,
// then H-cpu under one planner profile, byte for byte). The planner code is instrumented, so
// coverage of the planner guides the search.
//
// The contract it checks: the profile never diverges from R and never errs, and R accepts every
// generated case. A failure prints the case (with the expectations that replay it) and traps.
//
// Environment, read once at start:
//   GRIDCHECK_FUZZ_PROFILE    the planner profile (default "sound"). "vyre-0.7.2" is deliberately
//                             unsound, so libFuzzer finds a crash quickly (the test that it can fail).
//   GRIDCHECK_FUZZ_CASE_OUT   a failing case is also written to this file (replay it with
//                             `gridcheck replay --profile P FILE`).
//   GRIDCHECK_FUZZ_WRITE_SEEDS=DIR   writes a seed corpus (streams recorded from seeded random
//                             generation, encoded as below) into DIR and exits.
//
// Byte encoding: each choice is an unsigned LEB128 number (7 bits per byte, low first, a set high
// bit continues; at most 5 bytes), so small choices take one byte and literals can still be any
// 32-bit word. The generator reduces every choice modulo its bound and reads 0 past the end.
// Inputs are bounded (kMaxInputBytes, kMaxChoices) and the generator and interpreter budgets are
// small, so one input runs in milliseconds; the run is deterministic.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ir/text/case_file.hpp"
#include "ir/text/printer.hpp"
#include "planner/profile.hpp"
#include "props/campaign/campaign.hpp"
#include "props/gen/case_generator.hpp"
#include "props/gen/choice_source.hpp"
#include "props/gen/features.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"

namespace {

using namespace gridcheck;

constexpr std::size_t kMaxInputBytes = 4096;
constexpr std::size_t kMaxChoices = 2048;
constexpr std::size_t kSeedCount = 64;

/// Every feature may be on, any number of divergence features at once (the sound campaign's
/// configuration), in smaller cases than a campaign's.
props::GeneratorConfig generator_config() {
  props::GeneratorConfig g;
  g.allowed = props::kAllFeatures;
  g.max_divergence_features = 0;
  g.max_segments = 4;
  g.max_ops_per_segment = 5;
  g.max_nesting = 2;
  g.max_expr_depth = 3;
  g.max_workgroups = 3;
  g.max_workgroup_size = 16;
  return g;
}

struct Target {
  const planner::Profile* profile = nullptr;
  std::string case_out;
  props::GeneratorConfig generator = generator_config();
  props::OracleOptions oracle;
};
Target g_target;

std::vector<std::uint32_t> decode_choices(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint32_t> choices;
  std::size_t i = 0;
  while (i < size && choices.size() < kMaxChoices) {
    std::uint32_t value = 0;
    for (int shift = 0; i < size && shift < 35; shift += 7) {
      const std::uint8_t byte = data[i++];
      value |= static_cast<std::uint32_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
    }
    choices.push_back(value);
  }
  return choices;
}

std::string encode_choices(const std::vector<std::uint32_t>& choices) {
  std::string bytes;
  for (std::uint32_t v : choices) {
    do {
      const auto low = static_cast<std::uint8_t>(v & 0x7f);
      v >>= 7;
      bytes.push_back(static_cast<char>(v != 0 ? low | 0x80 : low));
    } while (v != 0);
  }
  return bytes;
}

int write_seeds(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (std::size_t i = 0; i < kSeedCount; ++i) {
    props::ChoiceSource source = props::ChoiceSource::random(props::case_seed(1, i));
    (void)props::generate_case(source, g_target.generator);
    const std::string path = dir + "/choices-" + std::to_string(i);
    if (!ir::write_file_atomically(path, encode_choices(source.recorded()))) {
      std::fprintf(stderr, "fuzz_choice_case: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  std::printf("fuzz_choice_case: %zu seeds in %s\n", kSeedCount, dir.c_str());
  return 0;
}

[[noreturn]] void finding(ir::Case c, const std::string& blame, const props::CaseReport& report) {
  props::record_expectations(c, report);
  c.header_comments = {"found by fuzzers/fuzz_choice_case under profile " + g_target.profile->name + ": " + blame,
                       "replay: gridcheck replay --profile " + g_target.profile->name + " FILE"};
  const std::string text = ir::print(c);
  std::fprintf(stderr, "fuzz_choice_case: profile %s fails on a generated case (blame %s)\n--- case ---\n%s--- end ---\n",
               g_target.profile->name.c_str(), blame.c_str(), text.c_str());
  if (!g_target.case_out.empty() && ir::write_file_atomically(g_target.case_out, text))
    std::fprintf(stderr, "fuzz_choice_case: the case is in %s\n", g_target.case_out.c_str());
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  const char* name = std::getenv("GRIDCHECK_FUZZ_PROFILE");
  const std::string profile = name != nullptr && *name != '\0' ? name : "sound";
  g_target.profile = planner::find_profile(profile);
  if (g_target.profile == nullptr) {
    std::fprintf(stderr, "fuzz_choice_case: GRIDCHECK_FUZZ_PROFILE names no profile: %s (known:", profile.c_str());
    for (std::string_view known : planner::profile_names())
      std::fprintf(stderr, " %.*s", static_cast<int>(known.size()), known.data());
    std::fprintf(stderr, ")\n");
    std::exit(2);
  }
  if (const char* out = std::getenv("GRIDCHECK_FUZZ_CASE_OUT")) g_target.case_out = out;
  g_target.oracle.profiles = {g_target.profile};
  g_target.oracle.limits.fuel = std::uint64_t{1} << 18;
  if (const char* seeds = std::getenv("GRIDCHECK_FUZZ_WRITE_SEEDS")) std::exit(write_seeds(seeds));
  std::fprintf(stderr, "fuzz_choice_case: profile %s\n", g_target.profile->name.c_str());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > kMaxInputBytes) return -1;  // not added to the corpus
  props::ChoiceSource source = props::ChoiceSource::replay(decode_choices(data, size));
  const ir::Case c = props::generate_case(source, g_target.generator).test_case;
  props::CaseReport report;
  if (const std::optional<std::string> blame = props::case_failure(c, g_target.oracle, report)) finding(c, *blame, report);
  return 0;
}
