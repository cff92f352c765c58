#pragma once
// RapidCheck generator for generated cases (header-only: only tests and users link RapidCheck), the
// program counterpart of props/gen/dag_rapidcheck.hpp. A case is drawn by props::generate_case from
// ChoiceSource::random with a RapidCheck-supplied seed; the recorded choice vector is what
// RapidCheck shrinks (remove chunks, lower single choices towards 0), each candidate decoded again
// through ChoiceSource::replay. Any choice vector decodes to a valid, race-free case
// (props/gen/case_generator.hpp), so shrinking never leaves the domain.
//
//   RC_GTEST_PROP(Props_Case, Something, ()) {
//     const props::GeneratedCase g = *props::gen_case(config);   // or *rc::gen::arbitrary<GeneratedCase>()
//     ...
//     RC_ASSERT_FALSE(bad) << props::replay_hint(g.test_case, "something");  // or RC_LOG() / RC_FAIL
//   }
//
// RapidCheck prints a counterexample (showValue) as its features and its `.gc` text. replay_hint
// also writes the case to a file under the temporary directory ($TMPDIR) and names the gridcheck
// commands that replay it, next to RapidCheck's own reproduce string.

#include <rapidcheck.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "ir/case.hpp"
#include "ir/text/case_file.hpp"
#include "ir/text/printer.hpp"
#include "props/gen/case_generator.hpp"
#include "props/gen/choice_rapidcheck.hpp"
#include "props/gen/choice_source.hpp"
#include "props/gen/features.hpp"

namespace gridcheck::props {

/// How RapidCheck prints a counterexample: its features, then the case as `.gc` text.
inline void showValue(const GeneratedCase& g, std::ostream& os) {
  os << "features: " << (g.features == 0 ? std::string("none") : describe(g.features)) << "\n" << ir::print(g.test_case);
}

/// Generated cases under `config`, shrinking through the choice stream.
inline rc::Gen<GeneratedCase> gen_case(GeneratorConfig config = {}) {
  return gen_from_choices([config](ChoiceSource& source, const std::vector<std::uint32_t>&) {
    return generate_case(source, config);
  });
}

/// Where replay_hint writes the case tagged `tag`: `gridcheck-rc-<tag>-<pid>.gc` under the
/// temporary directory ($TMPDIR, else /tmp). One file per tag and process, overwritten by each
/// failing run, so after shrinking it holds the minimal counterexample RapidCheck reports.
inline std::string replay_file_path(std::string_view tag) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  return (dir / ("gridcheck-rc-" + std::string(tag) + "-" + std::to_string(::getpid()) + ".gc")).string();
}

/// Writes `c` (print(c), atomically) to replay_file_path(tag) and returns the lines that replay it
/// with gridcheck: `gridcheck replay FILE` (against the case's `expect` lines; record the
/// expectations the property checks in `c` first) and `gridcheck diff FILE` (with `--profile
/// PROFILE` when `profile` is not empty). When the file cannot be written, says so instead.
inline std::string replay_hint(const ir::Case& c, std::string_view tag, std::string_view profile = {}) {
  const std::string path = replay_file_path(tag);
  if (!ir::write_file_atomically(path, ir::print(c))) return "\ngridcheck: could not write the failing case to " + path;
  const std::string profile_arg = profile.empty() ? "" : " --profile " + std::string(profile);
  return "\nfailing case written to " + path + "; replay it with:\n  gridcheck replay" + profile_arg + " " + path +
         "\n  gridcheck diff" + profile_arg + " " + path + "\n";
}

}  // namespace gridcheck::props

namespace rc {

/// Generated cases under the default GeneratorConfig (benign features).
template <>
struct Arbitrary<gridcheck::props::GeneratedCase> {
  static Gen<gridcheck::props::GeneratedCase> arbitrary() { return gridcheck::props::gen_case(); }
};

}  // namespace rc
