// `input NAME = [v, ...] | fill V | series V step V | random seed S`, each with an optional `count N`.
#include <fmt/format.h>

#include "ir/text/limits.hpp"
#include "ir/text/parse_codes.hpp"
#include "ir/text/parser_impl.hpp"

namespace gridcheck::ir::text {

const BufferDecl* Parser::lookup_buffer(const Token& name_token, std::string_view role) {
  if (const auto it = buffer_index_.find(std::string(name_token.value())); it != buffer_index_.end())
    return &program().buffers()[it->second];
  error(parse_code::kUnknownBuffer, name_token.loc,
        fmt::format("{} names an unknown buffer; declare the buffer before this line", role));
  return nullptr;
}

void Parser::parse_input(const Token& kw) {
  const std::optional<Token> name = expect_name("a buffer name");
  if (!name) return skip_line();
  const BufferDecl* buffer = lookup_buffer(*name, "input");
  if (!buffer) return skip_line();
  if (buffer->access == BufferAccess::Workgroup) {
    error(parse_code::kInputForWorkgroupBuffer, name->loc, "workgroup buffers take no input; they start zeroed");
    return skip_line();
  }
  if (const auto first = input_line_.find(std::string(name->value())); first != input_line_.end()) {
    error(parse_code::kDuplicateInput, name->loc,
          fmt::format("second input for this buffer; the first is on line {}", first->second));
    return skip_line();
  }
  if (!expect_punct("=", "an equals sign after the buffer name")) return skip_line();

  input_line_.emplace(std::string(name->value()), kw.loc.line);
  InputData in;
  in.buffer = std::string(name->value());
  in.loc = kw.loc;
  const ScalarType element = buffer->element;
  const std::uint32_t declared = buffer->count;
  const Token source = peek();
  if (source.is_punct("[")) {
    std::optional<std::vector<std::uint32_t>> values = parse_value_list(element);
    if (!values) return skip_line();
    if (declared != 0 && values->size() != declared) {
      error(parse_code::kValueCountMismatch, source.loc,
            fmt::format("list has {} values but the buffer has {} elements", values->size(), declared));
      return skip_line();
    }
    in.kind = InputData::Kind::Values;
    in.values = std::move(*values);
    case_.inputs.push_back(std::move(in));
    return finish_line();
  }

  if (source.is_keyword("fill")) {
    next();
    const std::optional<std::uint32_t> v = parse_value(element);
    if (!v) return skip_line();
    in.kind = InputData::Kind::Fill;
    in.first = *v;
  } else if (source.is_keyword("series")) {
    next();
    if (element == ScalarType::Bool) {
      error(parse_code::kSeriesOfBool, source.loc, "a series needs a numeric buffer; use a list for bool");
      return skip_line();
    }
    const std::optional<std::uint32_t> start = parse_value(element);
    if (!start || !expect_keyword("step", "step and the distance between values")) return skip_line();
    const std::optional<std::uint32_t> step = parse_value(element);
    if (!step) return skip_line();
    in.kind = InputData::Kind::Series;
    in.first = *start;
    in.step = *step;
  } else if (source.is_keyword("random")) {
    next();
    if (!expect_keyword("seed", "seed and the random seed")) return skip_line();
    const std::optional<std::uint64_t> seed = number_arg("the random seed");
    if (!seed) return skip_line();
    in.kind = InputData::Kind::Random;
    in.seed = *seed;
  } else {
    unexpected(source, "a value list, fill, series or random");
    return skip_line();
  }

  if (peek().is_keyword("count")) {
    next();
    Token where;
    const std::optional<std::uint64_t> n = number_arg("the element count", &where);
    if (!n) return skip_line();
    if (*n == 0 || *n > text_limits::kMaxInputCount) {
      error(parse_code::kCountOutOfRange, where.loc,
            fmt::format("count must be between 1 and {}", text_limits::kMaxInputCount));
      return skip_line();
    }
    if (declared != 0 && *n != declared) {
      error(parse_code::kCountMismatch, where.loc,
            fmt::format("count {} differs from the buffer's {} elements", *n, declared));
      return skip_line();
    }
    // A count equal to the declared one is redundant; the canonical form leaves it out.
    in.length = declared != 0 ? 0 : static_cast<std::uint32_t>(*n);
  } else if (declared == 0) {
    error(parse_code::kRuntimeSizedNeedsCount, source.loc,
          "the buffer is runtime-sized, so this input needs count N");
    return skip_line();
  }
  case_.inputs.push_back(std::move(in));
  finish_line();
}

}  // namespace gridcheck::ir::text
