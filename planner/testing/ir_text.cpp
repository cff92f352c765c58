#include "planner/testing/ir_text.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ir/text/parser.hpp"
#include "ir/text/printer.hpp"

namespace gridcheck::planner::testing {

ir::Program parse(std::string_view text) {
  ir::Result<ir::Program> p = ir::parse_program(text, "<test>");
  if (!p) {
    ADD_FAILURE() << ir::render(p.diagnostics(), text);
    return ir::Program{};
  }
  return std::move(p).value();
}

std::string kernel_text(const ir::Program& p) {
  const std::string text = ir::print(p);
  std::size_t start = text.find("\nkernel {");
  if (start == std::string::npos) start = text.find("\nentry {");
  return start == std::string::npos ? text : text.substr(start + 1);
}

std::string segments_text(const SplitPlan& plan) {
  std::string out;
  for (std::size_t k = 0; k < plan.segments.size(); ++k)
    out += fmt::format("-- segment {}\n{}", k, kernel_text(plan.segments[k].program));
  return out;
}

}  // namespace gridcheck::planner::testing
