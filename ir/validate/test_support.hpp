#pragma once
// Helpers shared by the validator's tests.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/diagnostic.hpp"
#include "ir/validate/validator.hpp"

namespace gridcheck::ir::testing {

/// "CODE" of every diagnostic, in order ("V010", "G001", ...).
inline std::vector<std::string> codes_of(const Diagnostics& ds) {
  std::vector<std::string> out;
  for (const Diagnostic& d : ds) out.push_back(d.code);
  return out;
}

inline std::vector<std::string> error_codes(const Diagnostics& ds) {
  std::vector<std::string> out;
  for (const Diagnostic& d : ds)
    if (d.severity == Severity::Error) out.push_back(d.code);
  return out;
}

inline const Diagnostic* find_code(const Diagnostics& ds, std::string_view code) {
  for (const Diagnostic& d : ds)
    if (d.code == code) return &d;
  return nullptr;
}

/// Validates and expects exactly the given codes (errors and warnings), in order.
inline ::testing::AssertionResult reports(const Program& p, std::vector<std::string> expected,
                                          const ValidateOptions& options = {}) {
  const Diagnostics ds = validate(p, {}, options);
  for (const Diagnostic& d : ds)
    if (find_validation_rule(d.code) == nullptr)
      return ::testing::AssertionFailure() << "code " << d.code << " is not in the rule table";
  if (codes_of(ds) == expected) return ::testing::AssertionSuccess();
  std::string want;
  for (const auto& c : expected) want += c + " ";
  return ::testing::AssertionFailure() << "expected [ " << want << "], got:\n" << render(ds);
}

/// Validates and expects no diagnostic at all (the silent twin of a rule test).
inline ::testing::AssertionResult silent(const Program& p, const ValidateOptions& options = {}) {
  return reports(p, {}, options);
}

}  // namespace gridcheck::ir::testing
