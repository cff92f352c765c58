// `buffer NAME: TYPE[COUNT] ACCESS [binding N] [output] [live_out] [range A..B] [kind K]`
#include <fmt/format.h>

#include "ir/text/limits.hpp"
#include "ir/text/parse_codes.hpp"
#include "ir/text/parser_impl.hpp"

namespace gridcheck::ir::text {
namespace {

constexpr std::uint64_t kMaxRangeByte = std::uint64_t{text_limits::kMaxBufferElements} * BufferDecl::kElementBytes;

}  // namespace

void Parser::declare_buffer(const BufferDecl& d) {
  buffer_index_.emplace(std::string(program().name(d.name)), program().buffers().size());
  program().add_buffer(d);
}

void Parser::parse_buffer(const Token&) {
  const std::optional<Token> name = expect_name("a buffer name");
  if (!name) {
    skip_line();
    return;
  }
  BufferDecl d;
  d.name = program().intern(name->value());
  d.loc = name->loc;
  // Whatever goes wrong below, the buffer is still declared so that later lines naming it do not
  // report it as unknown as well.
  auto give_up = [&] {
    declare_buffer(d);
    skip_line();
  };

  if (!expect_punct(":", "a colon after the buffer name")) return give_up();
  const Token type = peek();
  if (type.kind != TokenKind::Identifier) {
    unexpected(type, "an element type");
    return give_up();
  }
  next();
  const std::optional<ScalarType> element = scalar_type_from_name(type.text);
  if (!element) {
    error(parse_code::kUnknownType, type.loc, "unknown element type; use u32, i32, f32 or bool");
    return give_up();
  }
  d.element = *element;

  if (!expect_punct("[", "an opening bracket and the element count")) return give_up();
  if (peek().kind == TokenKind::Number) {
    Token where;
    const std::optional<std::uint64_t> count = number_arg("the element count", &where);
    if (!count) return give_up();
    if (*count > text_limits::kMaxBufferElements) {
      error(parse_code::kBufferTooLarge, where.loc,
            fmt::format("buffer has more than {} elements", text_limits::kMaxBufferElements));
      return give_up();
    }
    d.count = static_cast<std::uint32_t>(*count);
  }
  if (!expect_punct("]", "a closing bracket after the element count")) return give_up();

  const Token access = peek();
  if (access.kind != TokenKind::Identifier) {
    unexpected(access, "an access mode");
    return give_up();
  }
  next();
  const std::optional<BufferAccess> mode = buffer_access_from_name(access.text);
  if (!mode) {
    error(parse_code::kUnknownAccess, access.loc,
          "unknown access mode; use read, read_write, write_only, uniform or workgroup");
    return give_up();
  }
  d.access = *mode;
  d.kind = derived_kind(*mode);

  bool has_binding = false, has_output = false, has_live_out = false, has_range = false, has_kind = false;
  auto once = [&](bool& seen, const Token& attr) {
    if (seen) {
      error(parse_code::kDuplicateAttribute, attr.loc, fmt::format("{} is given twice", attr.text));
      return false;
    }
    seen = true;
    return true;
  };
  for (;;) {
    const Token attr = peek();
    if (attr.kind == TokenKind::Newline || attr.kind == TokenKind::End) break;
    if (attr.kind != TokenKind::Identifier) {
      unexpected(attr, "a buffer attribute (binding, output, live_out, range or kind)");
      return give_up();
    }
    if (attr.text == "binding") {
      next();
      if (!once(has_binding, attr)) return give_up();
      const std::optional<std::uint32_t> binding = u32_arg("the binding number");
      if (!binding) return give_up();
      d.binding = *binding;
    } else if (attr.text == "output") {
      next();
      if (!once(has_output, attr)) return give_up();
      d.is_output = true;
    } else if (attr.text == "live_out") {
      next();
      if (!once(has_live_out, attr)) return give_up();
      d.pipeline_live_out = true;
    } else if (attr.text == "range") {
      next();
      if (!once(has_range, attr)) return give_up();
      Token where;
      const std::optional<std::uint64_t> begin = number_arg("the first byte of the range", &where);
      if (!begin) return give_up();
      if (!expect_punct("..", "two dots between the range's bytes")) return give_up();
      const std::optional<std::uint64_t> end = number_arg("the end byte of the range");
      if (!end) return give_up();
      if (*begin > *end || *end > kMaxRangeByte) {
        error(parse_code::kBadByteRange, where.loc,
              fmt::format("byte range must satisfy begin <= end <= {}", kMaxRangeByte));
        return give_up();
      }
      d.output_byte_range = ByteRange{*begin, *end};
    } else if (attr.text == "kind") {
      next();
      if (!once(has_kind, attr)) return give_up();
      const Token k = peek();
      if (k.kind != TokenKind::Identifier) {
        unexpected(k, "a memory kind");
        return give_up();
      }
      next();
      const std::optional<MemoryKind> kind = memory_kind_from_name(k.text);
      if (!kind) {
        error(parse_code::kUnknownMemoryKind, k.loc,
              "unknown memory kind; use global, shared, uniform, local, readonly, persistent or push");
        return give_up();
      }
      d.kind = *kind;
    } else {
      unexpected(attr, "a buffer attribute (binding, output, live_out, range or kind)");
      return give_up();
    }
  }
  if (!has_binding && d.access != BufferAccess::Workgroup)
    error(parse_code::kMissingBinding, name->loc, "storage buffer needs a binding number");
  declare_buffer(d);
  finish_line();
}

}  // namespace gridcheck::ir::text
