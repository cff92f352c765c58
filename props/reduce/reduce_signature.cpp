#include "props/reduce/reduce_signature.hpp"

#include <fmt/format.h>

namespace gridcheck::props {

std::string reduce_signature(const CaseReport& report) {
  std::string key = fmt::format("R:{}", ir::name_of(report.reference_verdict));
  for (const OracleOutcome& s : report.outcomes)
    key += fmt::format("|{}/{}:{}:{}", s.oracle, s.profile, ir::name_of(s.verdict), s.detail);
  return key;
}

bool has_gpu_only_divergence(const CaseReport& report, std::string_view gpu_name) {
  for (const OracleOutcome& gpu : report.outcomes) {
    if (gpu.oracle != gpu_name || gpu.verdict != ir::Verdict::Diverge) continue;
    const OracleOutcome* cpu = report.find("H-cpu", gpu.profile);
    if (cpu != nullptr && cpu->verdict == ir::Verdict::Match) return true;
  }
  return false;
}

}  // namespace gridcheck::props
