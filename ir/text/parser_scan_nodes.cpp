// The statements the split's buffer scan understands but the reference interpreter refuses
// (docs/semantics.md §2.4): collectives, async copies, indirect dispatch, trap, opaque.
#include <fmt/format.h>

#include "ir/text/parse_codes.hpp"
#include "ir/text/parser_impl.hpp"

namespace gridcheck::ir::text {
namespace {

std::string collective_names() {
  std::string out;
  const auto rows = all_collective_ops();
  for (std::size_t i = 0; i < rows.size(); ++i)
    out += fmt::format("{}{}", i == 0 ? "" : i + 1 == rows.size() ? " or " : ", ", rows[i].mnemonic);
  return out;
}

}  // namespace

std::optional<NameId> Parser::buffer_operand(std::string_view what) {
  const std::optional<Token> name = expect_name(what);
  if (!name) return std::nullopt;
  return program().intern(name->value());
}

std::optional<std::uint32_t> Parser::parse_group() {
  if (!peek().is_keyword("group")) return 0u;
  next();
  return u32_arg("the group number");
}

namespace {

std::optional<CollectiveOp> collective_op(const Token& t) {
  return t.kind == TokenKind::Identifier ? collective_op_from_mnemonic(t.text) : std::nullopt;
}

}  // namespace

// all_reduce BUF OP [group N]
std::optional<StmtId> Parser::parse_all_reduce(const Token& kw) {
  const std::optional<NameId> buffer = buffer_operand("a buffer name");
  if (!buffer) return std::nullopt;
  const Token op_token = peek();
  const std::optional<CollectiveOp> op = collective_op(op_token);
  if (!op) {
    if (op_token.kind == TokenKind::Identifier)
      error(parse_code::kUnknownCollectiveOp, op_token.loc, fmt::format("unknown collective operator; use {}", collective_names()));
    else
      unexpected(op_token, "a collective operator");
    return std::nullopt;
  }
  next();
  const std::optional<std::uint32_t> group = parse_group();
  if (!group) return std::nullopt;
  Stmt s{StmtKind::AllReduce, static_cast<std::uint8_t>(*op)};
  s.names[0] = *buffer;
  s.literal = *group;
  return add_stmt(s, kw.loc);
}

// broadcast BUF root N [group N]
std::optional<StmtId> Parser::parse_broadcast(const Token& kw) {
  const std::optional<NameId> buffer = buffer_operand("a buffer name");
  if (!buffer || !expect_keyword("root", "root and the root rank")) return std::nullopt;
  const std::optional<std::uint32_t> root = u32_arg("the root rank");
  if (!root) return std::nullopt;
  const std::optional<std::uint32_t> group = parse_group();
  if (!group) return std::nullopt;
  Stmt s{StmtKind::Broadcast};
  s.names[0] = *buffer;
  s.literal = *root;
  s.literal2 = *group;
  return add_stmt(s, kw.loc);
}

// all_gather IN -> OUT [group N]   /   reduce_scatter IN -> OUT OP [group N]
std::optional<StmtId> Parser::parse_gather_scatter(const Token& kw) {
  const bool scatter = kw.text == "reduce_scatter";
  const std::optional<NameId> input = buffer_operand("the input buffer");
  if (!input || !expect_punct("->", "an arrow between the input and output buffers")) return std::nullopt;
  const std::optional<NameId> output = buffer_operand("the output buffer");
  if (!output) return std::nullopt;
  Stmt s{scatter ? StmtKind::ReduceScatter : StmtKind::AllGather};
  if (scatter) {
    const Token op_token = peek();
    const std::optional<CollectiveOp> op = collective_op(op_token);
    if (!op) {
      if (op_token.kind == TokenKind::Identifier)
        error(parse_code::kUnknownCollectiveOp, op_token.loc, fmt::format("unknown collective operator; use {}", collective_names()));
      else
        unexpected(op_token, "a collective operator");
      return std::nullopt;
    }
    next();
    s.op = static_cast<std::uint8_t>(*op);
  }
  const std::optional<std::uint32_t> group = parse_group();
  if (!group) return std::nullopt;
  s.names[0] = *input;
  s.names[1] = *output;
  s.literal = *group;
  return add_stmt(s, kw.loc);
}

// async_load SRC -> DST offset E size E tag "t"   (async_store alike)
std::optional<StmtId> Parser::parse_async_copy(const Token& kw) {
  const std::optional<NameId> source = buffer_operand("the source buffer");
  if (!source || !expect_punct("->", "an arrow between the source and destination buffers")) return std::nullopt;
  const std::optional<NameId> destination = buffer_operand("the destination buffer");
  if (!destination || !expect_keyword("offset", "offset and the byte offset")) return std::nullopt;
  const std::optional<ParsedExpr> offset = parse_expr();
  if (!offset || !expect_keyword("size", "size and the byte count")) return std::nullopt;
  const std::optional<ParsedExpr> size = parse_expr();
  if (!size || !expect_keyword("tag", "tag and the copy's tag")) return std::nullopt;
  const std::optional<Token> tag = expect_string("the tag as a string");
  if (!tag) return std::nullopt;
  Stmt s{kw.text == "async_load" ? StmtKind::AsyncLoad : StmtKind::AsyncStore};
  s.names = {*source, *destination, program().intern(tag->decoded)};
  s.exprs = {offset->id, size->id};
  return add_stmt(s, kw.loc);
}

// async_wait "t"
std::optional<StmtId> Parser::parse_async_wait(const Token& kw) {
  const std::optional<Token> tag = expect_string("the tag as a string");
  if (!tag) return std::nullopt;
  Stmt s{StmtKind::AsyncWait};
  s.names[2] = program().intern(tag->decoded);
  return add_stmt(s, kw.loc);
}

// indirect_dispatch BUF offset N
std::optional<StmtId> Parser::parse_indirect_dispatch(const Token& kw) {
  const std::optional<NameId> buffer = buffer_operand("the count buffer");
  if (!buffer || !expect_keyword("offset", "offset and the byte offset")) return std::nullopt;
  const std::optional<std::uint32_t> offset = u32_arg("the byte offset");
  if (!offset) return std::nullopt;
  Stmt s{StmtKind::IndirectDispatch};
  s.names[0] = *buffer;
  s.literal = *offset;
  return add_stmt(s, kw.loc);
}

// trap E tag "t"
std::optional<StmtId> Parser::parse_trap(const Token& kw) {
  const std::optional<ParsedExpr> address = parse_expr();
  if (!address || !expect_keyword("tag", "tag and the trap's tag")) return std::nullopt;
  const std::optional<Token> tag = expect_string("the tag as a string");
  if (!tag) return std::nullopt;
  Stmt s{StmtKind::Trap};
  s.exprs[0] = address->id;
  s.names[2] = program().intern(tag->decoded);
  return add_stmt(s, kw.loc);
}

// opaque "extension"
std::optional<StmtId> Parser::parse_opaque(const Token& kw) {
  const std::optional<Token> extension = expect_string("the extension id as a string");
  if (!extension) return std::nullopt;
  Stmt s{StmtKind::Opaque};
  s.names[0] = program().intern(extension->decoded);
  return add_stmt(s, kw.loc);
}

}  // namespace gridcheck::ir::text
