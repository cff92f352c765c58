#include "props/oracle/expectations.hpp"

#include <fmt/format.h>

#include <cstring>

#include "ir/equality.hpp"
#include "props/oracle/byte_compare.hpp"

namespace gridcheck::props {

using planner::Bytes;

namespace {

ir::ExpectedOutput expected_output(ir::Oracle oracle, const std::string& profile, const std::string& name,
                                   const Bytes& bytes) {
  ir::ExpectedOutput e;
  e.oracle = oracle;
  e.profile = profile;
  e.buffer = name;
  if (bytes.size() <= 64 * 4 && bytes.size() % 4 == 0) {
    std::vector<std::uint32_t> words(bytes.size() / 4);
    for (std::size_t i = 0; i < words.size(); ++i) words[i] = word_at(bytes, i);
    e.words = std::move(words);
  } else {
    e.hash = ir::fnv1a64(bytes.data(), bytes.size());
  }
  return e;
}

/// A split expectation without a profile means vyre-0.7.2; R-waves without one means the kernel itself.
std::string default_profile(ir::Oracle oracle, const std::string& profile) {
  if (!profile.empty() || oracle == ir::Oracle::Waves) return profile;
  return std::string(planner::vyre_0_7_2().name);
}

}  // namespace

void record_expectations(ir::Case& c, const CaseReport& report) {
  c.expectations.clear();
  c.outputs.clear();
  c.launches.clear();
  c.expectations.push_back({ir::Oracle::Reference, "", report.reference_verdict,
                            report.reference_verdict == ir::Verdict::Ok ? "" : report.reference_detail, {}});
  if (report.reference.ok())
    for (const interp::OutputBuffer& o : report.reference.outputs)
      c.outputs.push_back(expected_output(ir::Oracle::Reference, "", o.name, o.bytes));
  for (const OracleOutcome& s : report.outcomes) {
    const auto oracle = ir::oracle_from_name(s.oracle);
    if (!oracle) continue;
    c.expectations.push_back({*oracle, s.profile, s.verdict, s.verdict == ir::Verdict::Match ? "" : s.detail, {}});
    // H-gpu runs H-cpu's plan through the same loop, so only H-cpu's count is recorded; a profile
    // that refused (or a case R could not run) launched nothing.
    if (*oracle == ir::Oracle::SplitCpu && s.launches > 0)
      c.launches.push_back({*oracle, s.profile, static_cast<std::uint32_t>(s.launches), {}});
    if (s.verdict == ir::Verdict::Diverge)
      for (std::size_t i = 0; i < s.output_names.size() && i < s.outputs.size(); ++i)
        c.outputs.push_back(expected_output(*oracle, s.profile, s.output_names[i], s.outputs[i]));
  }
}

std::vector<ExpectationFailure> check_expectations(const ir::Case& c, const CaseReport& report) {
  std::vector<ExpectationFailure> failures;
  for (const ir::Expectation& e : c.expectations) {
    ir::Verdict actual;
    std::string detail;
    if (e.oracle == ir::Oracle::Reference) {
      actual = report.reference_verdict;
      detail = report.reference_detail;
    } else {
      const std::string_view oracle = ir::name_of(e.oracle);
      const std::string profile = default_profile(e.oracle, e.profile);
      const OracleOutcome* s = report.find(oracle, profile);
      if (s == nullptr) continue;  // that oracle did not run (no GPU, profile not selected)
      actual = s->verdict;
      detail = s->detail;
    }
    const bool detail_ok = e.detail.empty() || detail.rfind(e.detail, 0) == 0;
    if (actual != e.verdict || !detail_ok)
      failures.push_back({e.loc, fmt::format("expected {}{}: {}{}{}, got {}{}{}", ir::name_of(e.oracle),
                                             e.profile.empty() ? "" : " " + e.profile, ir::name_of(e.verdict),
                                             e.detail.empty() ? "" : " ", e.detail, ir::name_of(actual),
                                             detail.empty() ? "" : " ", detail)});
  }
  for (const ir::ExpectedLaunches& l : c.launches) {
    const OracleOutcome* s = report.find(ir::name_of(l.oracle), default_profile(l.oracle, l.profile));
    if (s == nullptr) continue;  // that oracle did not run
    if (s->launches != l.count)
      failures.push_back({l.loc, fmt::format("expected {} launch{}, got {} ({}{})", l.count, l.count == 1 ? "" : "es",
                                             s->launches, ir::name_of(l.oracle),
                                             l.profile.empty() ? "" : " " + l.profile)});
  }
  for (const ir::ExpectedOutput& o : c.outputs) {
    const Bytes* actual = nullptr;
    Bytes holder;
    if (o.oracle == ir::Oracle::Reference) {
      if (const interp::OutputBuffer* b = report.reference.output(o.buffer)) actual = &b->bytes;
    } else {
      const std::string profile = default_profile(o.oracle, o.profile);
      const OracleOutcome* s = report.find(ir::name_of(o.oracle), profile);
      if (s == nullptr) continue;
      for (std::size_t i = 0; i < s->output_names.size() && i < s->outputs.size(); ++i)
        if (s->output_names[i] == o.buffer) actual = &s->outputs[i];
      if (actual == nullptr && s->verdict != ir::Verdict::Match && s->verdict != ir::Verdict::Diverge) continue;
    }
    if (actual == nullptr) {
      failures.push_back({o.loc, fmt::format("expected output '{}' from {} but there is none", o.buffer,
                                             ir::name_of(o.oracle))});
      continue;
    }
    if (o.hash) {
      const std::uint64_t h = ir::fnv1a64(actual->data(), actual->size());
      if (h != *o.hash)
        failures.push_back({o.loc, fmt::format("output '{}' hashes to 0x{:016x}, expected 0x{:016x}", o.buffer, h, *o.hash)});
    } else if (o.words) {
      Bytes expected(o.words->size() * 4);
      if (!o.words->empty()) std::memcpy(expected.data(), o.words->data(), expected.size());
      const ir::BufferDecl* decl = c.program.find_buffer(o.buffer);
      if (auto diff = compare(o.buffer, decl ? decl->element : ir::ScalarType::U32, expected, *actual, ComparisonRule{}))
        failures.push_back({o.loc, fmt::format("{}: {}", ir::name_of(o.oracle), diff->describe())});
    }
  }
  return failures;
}

}  // namespace gridcheck::props
