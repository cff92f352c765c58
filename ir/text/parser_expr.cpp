// Expressions: precedence climbing over the operator table's infix spellings and precedences, prefix
// operators from the table, and call forms by mnemonic. Recursion and tree height are both bounded by
// text_limits::kMaxExprDepth.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "ir/text/builtin_names.hpp"
#include "ir/text/limits.hpp"
#include "ir/text/literal.hpp"
#include "ir/text/parse_codes.hpp"
#include "ir/text/parser_impl.hpp"

namespace gridcheck::ir::text {
namespace {


class NestingGuard {
 public:
  explicit NestingGuard(std::uint32_t& depth) : depth_(depth) { ++depth_; }
  ~NestingGuard() { --depth_; }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  std::uint32_t& depth_;
};

std::string too_deep() { return fmt::format("expression is nested more than {} deep", text_limits::kMaxExprDepth); }

}  // namespace

std::optional<ParsedExpr> Parser::add_expr(Expr e, SourceLoc loc, std::initializer_list<ParsedExpr> operands) {
  std::uint32_t height = 1;
  std::size_t i = 0;
  for (const ParsedExpr& operand : operands) {
    e.operands[i++] = operand.id;
    height = std::max(height, operand.height + 1);
  }
  if (height > text_limits::kMaxExprDepth) {
    error(parse_code::kNestingTooDeep, loc, too_deep());
    return std::nullopt;
  }
  return ParsedExpr{program().add_expr(e, loc), height};
}

std::optional<ParsedExpr> Parser::parse_expr() { return parse_binary(1); }

std::optional<ParsedExpr> Parser::parse_binary(int min_precedence) {
  std::optional<ParsedExpr> lhs = parse_unary();
  if (!lhs) return std::nullopt;
  for (;;) {
    const Token& t = peek();
    if (t.kind != TokenKind::Punct) break;
    const std::optional<BinOp> op = bin_op_from_infix(t.text);
    if (!op || info(*op).precedence < min_precedence) break;
    const Token op_token = next();
    skip_newlines();  // a line may end after an infix operator
    const std::optional<ParsedExpr> rhs = parse_binary(info(*op).precedence + 1);
    if (!rhs) return std::nullopt;
    lhs = add_expr(Expr{ExprKind::Binary, static_cast<std::uint8_t>(*op)}, op_token.loc, {*lhs, *rhs});
    if (!lhs) return std::nullopt;
  }
  return lhs;
}

std::optional<ParsedExpr> Parser::parse_unary() {
  const NestingGuard guard(expr_nesting_);
  const Token t = peek();
  if (expr_nesting_ > text_limits::kMaxExprDepth) {
    error(parse_code::kNestingTooDeep, t.loc, too_deep());
    return std::nullopt;
  }
  if (t.kind == TokenKind::Punct) {
    if (const std::optional<UnOp> op = un_op_from_prefix(t.text)) {
      next();
      // `-` directly before a number is part of the literal: -3i is LitI32(-3); negate(3i) is -(3i).
      if (*op == UnOp::Negate && peek().kind == TokenKind::Number) return literal(next(), true, t.loc);
      const std::optional<ParsedExpr> x = parse_unary();
      if (!x) return std::nullopt;
      return add_expr(Expr{ExprKind::Unary, static_cast<std::uint8_t>(*op)}, t.loc, {*x});
    }
    if (t.is_punct("(")) {
      next();
      skip_newlines();
      const std::optional<ParsedExpr> inner = parse_expr();
      if (!inner) return std::nullopt;
      skip_newlines();
      if (!at_punct(")")) {
        if (peek().kind == TokenKind::End)
          error(parse_code::kUnclosedBracket, t.loc, "this parenthesis is never closed");
        else
          unexpected(peek(), "a closing parenthesis");
        return std::nullopt;
      }
      next();
      return inner;
    }
  }
  return parse_primary();
}

std::optional<ParsedExpr> Parser::literal(const Token& number, bool negative, SourceLoc loc) {
  if (number.bad) return std::nullopt;  // reported by the lexer
  const LiteralResult r = interpret_literal(number.text, negative);
  if (!r.word) {
    error(r.error.code, loc, r.error.message);
    return std::nullopt;
  }
  ExprKind kind = ExprKind::LitU32;
  switch (r.word->type) {
    case ScalarType::U32: kind = ExprKind::LitU32; break;
    case ScalarType::I32: kind = ExprKind::LitI32; break;
    case ScalarType::F32: kind = ExprKind::LitF32; break;
    case ScalarType::Bool: kind = ExprKind::LitBool; break;
  }
  return add_expr(Expr{kind, 0, MemoryOrdering::SeqCst, r.word->bits}, loc, {});
}

std::optional<ParsedExpr> Parser::parse_primary() {
  const Token t = peek();
  if (t.kind == TokenKind::Number) return literal(next(), false, t.loc);
  if (!t.is_name()) {
    unexpected(t, "an expression");
    return std::nullopt;
  }
  const bool plain = t.kind == TokenKind::Identifier;
  if (plain && (t.text == "true" || t.text == "false")) {
    next();
    return add_expr(Expr{ExprKind::LitBool, 0, MemoryOrdering::SeqCst, t.text == "true" ? 1u : 0u}, t.loc, {});
  }
  if (plain && peek(1).is_punct("(")) return parse_call(next());
  if (plain && peek(1).is_punct(".")) {
    if (const std::optional<ExprKind> builtin = builtin_from_name(t.text)) {
      next();
      next();  // .
      const Token axis = peek();
      const std::size_t index = axis.kind == TokenKind::Identifier && axis.text.size() == 1
                                    ? kAxisLetters.find(axis.text[0])
                                    : std::string_view::npos;
      if (index == std::string_view::npos) {
        error(parse_code::kUnknownAxis, axis.loc, "unknown axis; use x, y or z");
        return std::nullopt;
      }
      next();
      return add_expr(Expr{*builtin, static_cast<std::uint8_t>(index)}, t.loc, {});
    }
  }
  next();
  const std::uint32_t name = index_of(program().intern(t.value()));
  if (at_punct("[")) {
    const Token open = next();
    skip_newlines();
    const std::optional<ParsedExpr> index = parse_expr();
    if (!index) return std::nullopt;
    skip_newlines();
    if (!at_punct("]")) {
      if (peek().kind == TokenKind::End)
        error(parse_code::kUnclosedBracket, open.loc, "this bracket is never closed");
      else
        unexpected(peek(), "a closing bracket after the index");
      return std::nullopt;
    }
    next();
    return add_expr(Expr{ExprKind::Load, 0, MemoryOrdering::SeqCst, name}, t.loc, {*index});
  }
  return add_expr(Expr{ExprKind::Var, 0, MemoryOrdering::SeqCst, name}, t.loc, {});
}

std::optional<std::vector<ParsedExpr>> Parser::parse_call_args(const Token& name, std::size_t expected) {
  const Token open = next();  // (
  std::vector<ParsedExpr> args;
  skip_newlines();
  if (!at_punct(")")) {
    for (;;) {
      const std::optional<ParsedExpr> arg = parse_expr();
      if (!arg) return std::nullopt;
      args.push_back(*arg);
      skip_newlines();
      if (!accept_punct(",")) break;
      skip_newlines();
    }
  }
  if (!at_punct(")")) {
    if (peek().kind == TokenKind::End)
      error(parse_code::kUnclosedBracket, open.loc, "this parenthesis is never closed");
    else
      unexpected(peek(), "a comma or a closing parenthesis");
    return std::nullopt;
  }
  next();
  if (args.size() != expected) {
    error(parse_code::kWrongArgumentCount, name.loc,
          fmt::format("{} takes {} argument{}, found {}", name.text, expected, expected == 1 ? "" : "s", args.size()));
    return std::nullopt;
  }
  return args;
}

std::optional<ParsedExpr> Parser::parse_call(const Token& name) {
  const std::string_view fn = name.text;
  if (fn == "len" || fn == "f32_bits") {
    const Token open = next();  // (
    Expr e{fn == "len" ? ExprKind::BufLen : ExprKind::LitF32};
    if (fn == "len") {
      const std::optional<Token> buffer = expect_name("a buffer name");
      if (!buffer) return std::nullopt;
      e.payload = index_of(program().intern(buffer->value()));
    } else {
      const std::optional<std::uint32_t> bits = u32_arg("the bits of an f32");
      if (!bits) return std::nullopt;
      e.payload = *bits;
    }
    if (!at_punct(")")) {
      if (peek().kind == TokenKind::End)
        error(parse_code::kUnclosedBracket, open.loc, "this parenthesis is never closed");
      else
        error(parse_code::kWrongArgumentCount, name.loc, fmt::format("{} takes one argument", fn));
      return std::nullopt;
    }
    next();
    return add_expr(e, name.loc, {});
  }
  if (const std::optional<AtomicOp> op = atomic_op_from_mnemonic(fn)) return parse_atomic(name, *op);

  Expr e;
  std::size_t arity = 0;
  if (fn == "select" || fn == "fma") {
    e.kind = fn == "select" ? ExprKind::Select : ExprKind::Fma;
    arity = 3;
  } else if (const std::optional<ScalarType> target = scalar_type_from_name(fn)) {
    e.kind = ExprKind::Cast;
    e.op = static_cast<std::uint8_t>(*target);
    arity = 1;
  } else if (const std::optional<BinOp> bin = bin_op_from_mnemonic(fn)) {
    e.kind = ExprKind::Binary;
    e.op = static_cast<std::uint8_t>(*bin);
    arity = 2;
  } else if (const std::optional<UnOp> un = un_op_from_mnemonic(fn)) {
    e.kind = ExprKind::Unary;
    e.op = static_cast<std::uint8_t>(*un);
    arity = 1;
  } else {
    error(parse_code::kUnknownFunction, name.loc, fmt::format("unknown function {}", fn.substr(0, 32)));
    return std::nullopt;
  }
  const std::optional<std::vector<ParsedExpr>> args = parse_call_args(name, arity);
  if (!args) return std::nullopt;
  const std::vector<ParsedExpr>& a = *args;
  if (arity == 1) return add_expr(e, name.loc, {a[0]});
  if (arity == 2) return add_expr(e, name.loc, {a[0], a[1]});
  return add_expr(e, name.loc, {a[0], a[1], a[2]});
}

// atomic_OP(BUF, INDEX, [EXPECTED,] VALUE [, ORDERING])
std::optional<ParsedExpr> Parser::parse_atomic(const Token& name, AtomicOp op) {
  const bool has_expected = info(op).has_expected;
  const std::string shape = fmt::format("{} takes a buffer, an index, {}a value and optionally an ordering", name.text,
                                        has_expected ? "the expected value, " : "");
  const Token open = next();  // (
  skip_newlines();
  const std::optional<Token> buffer = expect_name("the atomic's buffer");
  if (!buffer) return std::nullopt;
  std::vector<ParsedExpr> args;
  for (std::size_t i = 0; i < (has_expected ? 3u : 2u); ++i) {
    skip_newlines();
    if (!at_punct(",")) {
      if (at_punct(")"))
        error(parse_code::kWrongArgumentCount, name.loc, shape);
      else if (peek().kind == TokenKind::End)
        error(parse_code::kUnclosedBracket, open.loc, "this parenthesis is never closed");
      else
        unexpected(peek(), "a comma");
      return std::nullopt;
    }
    next();
    skip_newlines();
    const std::optional<ParsedExpr> arg = parse_expr();
    if (!arg) return std::nullopt;
    args.push_back(*arg);
  }
  MemoryOrdering ordering = MemoryOrdering::SeqCst;
  skip_newlines();
  if (accept_punct(",")) {
    skip_newlines();
    const Token o = peek();
    const std::optional<MemoryOrdering> parsed =
        o.kind == TokenKind::Identifier ? memory_ordering_from_name(o.text) : std::nullopt;
    if (!parsed) {
      if (o.kind == TokenKind::Identifier)
        error(parse_code::kUnknownOrdering, o.loc,
              "unknown memory ordering; use relaxed, acquire, release, acq_rel, seq_cst or grid_sync");
      else
        error(parse_code::kWrongArgumentCount, name.loc, shape);
      return std::nullopt;
    }
    next();
    ordering = *parsed;
    skip_newlines();
  }
  if (!at_punct(")")) {
    if (peek().kind == TokenKind::End)
      error(parse_code::kUnclosedBracket, open.loc, "this parenthesis is never closed");
    else if (at_punct(","))
      error(parse_code::kWrongArgumentCount, name.loc, shape);
    else
      unexpected(peek(), "a closing parenthesis");
    return std::nullopt;
  }
  next();
  Expr e{ExprKind::Atomic, static_cast<std::uint8_t>(op), ordering, index_of(program().intern(buffer->value()))};
  // Operand slots are [index, value, expected]; the text writes the expected value before the value.
  if (has_expected) return add_expr(e, name.loc, {args[0], args[2], args[1]});
  return add_expr(e, name.loc, {args[0], args[1]});
}

}  // namespace gridcheck::ir::text
