#include "props/oracle/byte_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <set>

#include "ir/ops.hpp"
#include "ir/typecheck.hpp"
#include "ir/walk.hpp"

namespace gridcheck::props {
namespace {

using planner::Bytes;

bool f32_within(std::uint32_t a, std::uint32_t b, std::uint32_t ulp) {
  if (a == b) return true;
  const float fa = std::bit_cast<float>(a), fb = std::bit_cast<float>(b);
  if (fa != fa || fb != fb) return false;  // one NaN (equal NaN words returned above)
  if (fa == fb) return true;               // +0 and -0
  // Distance in representable floats: map the sign-magnitude order onto integers.
  auto ordered = [](std::uint32_t w) -> std::int64_t {
    return (w & 0x80000000u) ? -static_cast<std::int64_t>(w & 0x7FFFFFFFu) : static_cast<std::int64_t>(w);
  };
  const std::int64_t d = ordered(a) - ordered(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d) <= ulp;
}

std::string format_word(ir::ScalarType t, std::uint32_t w) {
  switch (t) {
    case ir::ScalarType::I32: return fmt::format("{}", static_cast<std::int32_t>(w));
    case ir::ScalarType::F32: return fmt::format("{} (0x{:08x})", std::bit_cast<float>(w), w);
    case ir::ScalarType::Bool: return w != 0 ? "true" : "false";
    case ir::ScalarType::U32: break;
  }
  return fmt::format("{}", w);
}

}  // namespace

std::uint32_t word_at(const Bytes& b, std::uint64_t element) {
  const std::uint64_t offset = element * 4;
  if (offset + 4 > b.size()) return 0;
  std::uint32_t w;
  std::memcpy(&w, b.data() + offset, 4);
  return w;
}

std::string ByteDiff::describe() const {
  std::string out;
  if (differing_elements > 0)
    out = fmt::format("'{}': {} value{} differed, first difference at byte {} (element {}): {} != {}", buffer,
                      differing_elements, differing_elements == 1 ? "" : "s", first_byte, element_index,
                      format_word(element, expected_word), format_word(element, actual_word));
  if (expected_bytes != actual_bytes)
    out += fmt::format("{}'{}': expected {} bytes, got {}", out.empty() ? "" : "; ", buffer, expected_bytes,
                       actual_bytes);
  return out;
}

std::string ComparisonRule::describe() const {
  return ulp == 0 ? "exact" : fmt::format("f32 within {} ulp (uses {})", ulp, inexact_ops);
}

ComparisonRule comparison_rule(const ir::Program& p) {
  ComparisonRule rule;
  const auto types = ir::typecheck(p);
  if (!types.ok()) return rule;
  std::set<std::string_view> names;
  ir::for_each_expr_in(p, p.entry(), [&](ir::ExprId id) {
    const ir::Expr& e = p.expr(id);
    ir::F32Precision precision;
    std::string_view name;
    if (e.kind == ir::ExprKind::Binary && (*types)[e.operands[0]] == ir::ScalarType::F32) {
      precision = ir::info(e.bin_op()).f32;
      name = ir::info(e.bin_op()).mnemonic;
    } else if (e.kind == ir::ExprKind::Unary && (*types)[e.operands[0]] == ir::ScalarType::F32) {
      precision = ir::info(e.un_op()).f32;
      name = ir::info(e.un_op()).mnemonic;
    } else {
      return;
    }
    if (precision.exact) return;
    rule.ulp = std::max(rule.ulp, precision.ulp);
    names.insert(name);
  });
  for (std::string_view n : names) rule.inexact_ops += (rule.inexact_ops.empty() ? "" : ", ") + std::string(n);
  return rule;
}

std::optional<ByteDiff> compare(std::string_view name, ir::ScalarType element, const Bytes& expected,
                                const Bytes& actual, const ComparisonRule& rule) {
  ByteDiff diff;
  diff.buffer = std::string(name);
  diff.element = element;
  diff.expected_bytes = expected.size();
  diff.actual_bytes = actual.size();
  const std::uint64_t elements = (std::max(expected.size(), actual.size()) + 3) / 4;
  bool found = false;
  for (std::uint64_t i = 0; i < elements; ++i) {
    const std::uint32_t e = word_at(expected, i), a = word_at(actual, i);
    const bool beyond = (i + 1) * 4 > expected.size() || (i + 1) * 4 > actual.size();
    bool equal = e == a && !beyond;
    if (!equal && !beyond && rule.ulp > 0 && element == ir::ScalarType::F32) equal = f32_within(e, a, rule.ulp);
    if (equal) continue;
    ++diff.differing_elements;
    if (!found) {
      found = true;
      diff.element_index = i;
      diff.expected_word = e;
      diff.actual_word = a;
      std::uint64_t byte = i * 4;
      for (std::uint64_t k = 0; k < 4; ++k) {
        const std::uint64_t at = i * 4 + k;
        const bool in_e = at < expected.size(), in_a = at < actual.size();
        if (in_e != in_a || (in_e && expected[at] != actual[at])) {
          byte = at;
          break;
        }
      }
      diff.first_byte = byte;
    }
  }
  if (!found && expected.size() == actual.size()) return std::nullopt;
  return diff;
}

std::optional<ByteDiff> diff_bytes(std::string_view buffer, ir::ScalarType element, const Bytes& expected,
                                   const Bytes& actual) {
  return compare(buffer, element, expected, actual, ComparisonRule{});
}

}  // namespace gridcheck::props
