#include "tools/report_junit.hpp"

#include <fmt/format.h>

#include "tools/report_xml.hpp"

namespace gridcheck::tools {

std::string junit_xml(std::string_view suite, const std::vector<JunitCase>& cases) {
  std::size_t failures = 0, errors = 0, skipped = 0;
  double total = 0;
  for (const JunitCase& c : cases) {
    failures += c.result == JunitResult::Failed ? 1 : 0;
    errors += c.result == JunitResult::Error ? 1 : 0;
    skipped += c.result == JunitResult::Skipped ? 1 : 0;
    total += c.seconds;
  }
  const std::string counts = fmt::format("tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\"",
                                         cases.size(), failures, errors, skipped, total);
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format("<testsuites {}>\n", counts);
  xml += fmt::format("  <testsuite name=\"{}\" {}>\n", xml_escape(suite), counts);
  for (const JunitCase& c : cases) {
    xml += fmt::format("    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" time=\"{:.3f}\"", xml_escape(suite),
                       xml_escape(c.name.empty() ? c.file : c.name), xml_escape(c.file), c.seconds);
    if (c.result == JunitResult::Passed) {
      xml += "/>\n";
      continue;
    }
    const char* element = c.result == JunitResult::Failed ? "failure" : c.result == JunitResult::Error ? "error" : "skipped";
    xml += fmt::format(">\n      <{} message=\"{}\">{}</{}>\n    </testcase>\n", element, xml_escape(c.message),
                       xml_escape(c.details), element);
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace gridcheck::tools
