#pragma once
// The JUnit XML report (`replay --junit FILE`, docs/reports.md): one <testcase> per case file, in
// the dialect CI systems read (Jenkins, GitLab, GitHub test reporters): a case that ran and failed
// is a <failure>, a file gridcheck could not read or parse an <error>, a case that could not run
// here (no Vulkan device for H-gpu) <skipped>.

#include <string>
#include <string_view>
#include <vector>

namespace gridcheck::tools {

enum class JunitResult { Passed, Failed, Error, Skipped };

struct JunitCase {
  std::string name;  ///< the case's name, else its file
  std::string file;
  double seconds = 0;
  JunitResult result = JunitResult::Passed;
  std::string message;  ///< one line, starting with the file name (not for Passed)
  std::string details;  ///< every line of the failure, error or skip
};

/// The whole document: <testsuites> holding one <testsuite name="SUITE"> with the counts of tests,
/// failures, errors and skipped, every text escaped by xml_escape.
std::string junit_xml(std::string_view suite, const std::vector<JunitCase>& cases);

}  // namespace gridcheck::tools
