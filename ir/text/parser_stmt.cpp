// Statements: blocks, control flow, let / assign / store, barriers. The nodes that only the split's
// buffer scan understands are in parser_scan_nodes.cpp.
#include <array>

#include <fmt/format.h>

#include "ir/text/limits.hpp"
#include "ir/text/parse_codes.hpp"
#include "ir/text/parser_impl.hpp"

namespace gridcheck::ir::text {

std::optional<StmtList> Parser::parse_block(std::uint32_t depth) {
  const Token open = peek();
  if (!open.is_punct("{")) {
    unexpected(open, "an opening brace");
    return std::nullopt;
  }
  next();
  if (depth > text_limits::kMaxBlockNesting) {
    error(parse_code::kNestingTooDeep, open.loc,
          fmt::format("blocks are nested more than {} deep", text_limits::kMaxBlockNesting));
    for (std::size_t open_braces = 1; open_braces > 0;) {  // skip the block without recursing
      const Token t = next();
      if (t.kind == TokenKind::End) break;
      if (t.is_punct("{")) ++open_braces;
      if (t.is_punct("}")) --open_braces;
    }
    return std::nullopt;
  }
  std::vector<StmtId> ids;
  for (;;) {
    while (peek().kind == TokenKind::Newline || at_punct(";")) next();
    const Token t = peek();
    if (t.is_punct("}")) {
      next();
      break;
    }
    // The end of the file, or a directive line (which can never start a statement): the brace was
    // never closed. Report it once, at the innermost open brace.
    if (t.kind == TokenKind::End ||
        (is_directive_keyword(t) && !peek(1).is_punct("=") && !peek(1).is_punct("["))) {
      if (!reported_unclosed_block_)
        error(parse_code::kUnclosedBracket, open.loc, "this brace is never closed");
      reported_unclosed_block_ = true;
      break;
    }
    const std::uint64_t before = consumed_;
    const std::optional<StmtId> s = parse_statement(depth);
    if (s) {
      ids.push_back(*s);
      const Token& after = peek();
      if (!after.ends_statement() && !(previous_ == TokenKind::Newline && is_directive_keyword(after))) {
        unexpected(after, "a newline or semicolon after the statement");
        skip_statement();
      }
    } else {
      skip_statement();
    }
    if (consumed_ == before) next();  // never loop without progress
  }
  return program().add_list(ids);
}

std::optional<StmtId> Parser::parse_statement(std::uint32_t depth) {
  using Handler = std::optional<StmtId> (Parser::*)(const Token&);
  struct Keyword {
    std::string_view word;
    Handler parse;
  };
  static constexpr std::array<Keyword, 12> kSimple = {{
      {"let", &Parser::parse_let},
      {"barrier", &Parser::parse_barrier},
      {"all_reduce", &Parser::parse_all_reduce},
      {"broadcast", &Parser::parse_broadcast},
      {"all_gather", &Parser::parse_gather_scatter},
      {"reduce_scatter", &Parser::parse_gather_scatter},
      {"async_load", &Parser::parse_async_copy},
      {"async_store", &Parser::parse_async_copy},
      {"async_wait", &Parser::parse_async_wait},
      {"indirect_dispatch", &Parser::parse_indirect_dispatch},
      {"trap", &Parser::parse_trap},
      {"opaque", &Parser::parse_opaque},
  }};

  const Token t = peek();
  // Keywords are contextual: a name followed by `=` or `[` is an assignment or a store.
  if (t.is_name()) {
    if (peek(1).is_punct("=")) return parse_assign(next());
    if (peek(1).is_punct("[")) return parse_store(next());
  }
  if (t.kind == TokenKind::Identifier) {
    if (t.text == "if") return parse_if(next(), depth);
    if (t.text == "loop") return parse_loop(next(), depth);
    if (t.text == "region") return parse_region(next(), depth);
    if (t.text == "block") {
      const Token kw = next();
      const std::optional<StmtList> body = parse_block(depth + 1);
      if (!body) return std::nullopt;
      Stmt s{StmtKind::Block};
      s.body = *body;
      return add_stmt(s, kw.loc);
    }
    if (t.text == "grid_sync") {
      next();
      return add_stmt(Stmt{StmtKind::Barrier, static_cast<std::uint8_t>(MemoryOrdering::GridSync)}, t.loc);
    }
    if (t.text == "return") {
      next();
      return add_stmt(Stmt{StmtKind::Return}, t.loc);
    }
    for (const Keyword& k : kSimple)
      if (t.text == k.word) return (this->*k.parse)(next());
    next();
    error(parse_code::kUnknownStatement, t.loc,
          fmt::format("unknown statement {}; statements start with a keyword such as let, if or loop, "
                      "or assign with =",
                      t.text.substr(0, 32)));
    return std::nullopt;
  }
  unexpected(t, "a statement");
  return std::nullopt;
}

std::optional<StmtId> Parser::parse_let(const Token& kw) {
  const std::optional<Token> name = expect_name("the name of the new local");
  if (!name || !expect_punct("=", "an equals sign after the name")) return std::nullopt;
  const std::optional<ParsedExpr> value = parse_expr();
  if (!value) return std::nullopt;
  Stmt s{StmtKind::Let};
  s.names[0] = program().intern(name->value());
  s.exprs[0] = value->id;
  return add_stmt(s, kw.loc);
}

std::optional<StmtId> Parser::parse_assign(const Token& name) {
  next();  // =
  const std::optional<ParsedExpr> value = parse_expr();
  if (!value) return std::nullopt;
  Stmt s{StmtKind::Assign};
  s.names[0] = program().intern(name.value());
  s.exprs[0] = value->id;
  return add_stmt(s, name.loc);
}

std::optional<StmtId> Parser::parse_store(const Token& name) {
  next();  // [
  skip_newlines();
  const std::optional<ParsedExpr> index = parse_expr();
  if (!index) return std::nullopt;
  skip_newlines();
  if (!expect_punct("]", "a closing bracket after the index")) return std::nullopt;
  if (!expect_punct("=", "an equals sign after the store's index")) return std::nullopt;
  const std::optional<ParsedExpr> value = parse_expr();
  if (!value) return std::nullopt;
  Stmt s{StmtKind::Store};
  s.names[0] = program().intern(name.value());
  s.exprs = {index->id, value->id};
  return add_stmt(s, name.loc);
}

std::optional<StmtId> Parser::parse_if(const Token& kw, std::uint32_t depth) {
  const std::optional<ParsedExpr> cond = parse_expr();
  if (!cond) return std::nullopt;
  const std::optional<StmtList> then_body = parse_block(depth + 1);
  if (!then_body) return std::nullopt;
  Stmt s{StmtKind::If};
  s.exprs[0] = cond->id;
  s.body = *then_body;
  if (peek().is_keyword("else")) {
    next();
    if (peek().is_keyword("if")) {
      // `else if` is an else branch holding exactly one If.
      const Token inner_kw = next();
      if (depth + 1 > text_limits::kMaxBlockNesting) {
        error(parse_code::kNestingTooDeep, inner_kw.loc,
              fmt::format("blocks are nested more than {} deep", text_limits::kMaxBlockNesting));
        return std::nullopt;
      }
      const std::optional<StmtId> inner = parse_if(inner_kw, depth + 1);
      if (!inner) return std::nullopt;
      s.otherwise = program().add_list(std::span<const StmtId>(&*inner, 1));
    } else {
      const std::optional<StmtList> else_body = parse_block(depth + 1);
      if (!else_body) return std::nullopt;
      s.otherwise = *else_body;
    }
  }
  return add_stmt(s, kw.loc);
}

std::optional<StmtId> Parser::parse_loop(const Token& kw, std::uint32_t depth) {
  const std::optional<Token> var = expect_name("the loop variable");
  if (!var || !expect_keyword("in", "in after the loop variable")) return std::nullopt;
  const std::optional<ParsedExpr> from = parse_expr();
  if (!from || !expect_punct("..", "two dots between the loop bounds")) return std::nullopt;
  const std::optional<ParsedExpr> to = parse_expr();
  if (!to) return std::nullopt;
  const std::optional<StmtList> body = parse_block(depth + 1);
  if (!body) return std::nullopt;
  Stmt s{StmtKind::Loop};
  s.names[0] = program().intern(var->value());
  s.exprs = {from->id, to->id};
  s.body = *body;
  return add_stmt(s, kw.loc);
}

std::optional<StmtId> Parser::parse_region(const Token& kw, std::uint32_t depth) {
  const std::optional<Token> generator = expect_string("the region's generator as a string");
  if (!generator) return std::nullopt;
  Stmt s{StmtKind::Region};
  s.names[0] = program().intern(generator->decoded);
  if (peek().is_keyword("from")) {
    next();
    const std::optional<Token> source = expect_string("the source region as a string");
    if (!source) return std::nullopt;
    s.names[1] = program().intern(source->decoded);
  }
  const std::optional<StmtList> body = parse_block(depth + 1);
  if (!body) return std::nullopt;
  s.body = *body;
  return add_stmt(s, kw.loc);
}

std::optional<StmtId> Parser::parse_barrier(const Token& kw) {
  MemoryOrdering ordering = MemoryOrdering::SeqCst;
  const Token t = peek();
  if (!t.ends_statement() && !t.is_keyword("memory")) {
    if (t.kind != TokenKind::Identifier) {
      unexpected(t, "a memory ordering, `memory` or the end of the statement");
      return std::nullopt;
    }
    next();
    const std::optional<MemoryOrdering> o = memory_ordering_from_name(t.text);
    if (!o) {
      error(parse_code::kUnknownOrdering, t.loc,
            "unknown memory ordering; use relaxed, acquire, release, acq_rel, seq_cst or grid_sync");
      return std::nullopt;
    }
    ordering = *o;
  }
  const std::optional<BarrierMemory> memory = parse_barrier_memory();
  if (!memory) return std::nullopt;
  Stmt s{StmtKind::Barrier, static_cast<std::uint8_t>(ordering)};
  s.literal = static_cast<std::uint32_t>(*memory);
  return add_stmt(s, kw.loc);
}

std::optional<BarrierMemory> Parser::parse_barrier_memory() {
  if (!peek().is_keyword("memory")) return BarrierMemory::All;
  next();
  const Token t = peek();
  if (t.kind != TokenKind::Identifier) {
    unexpected(t, "the memory the barrier orders (all, workgroup or storage)");
    return std::nullopt;
  }
  next();
  const std::optional<BarrierMemory> memory = barrier_memory_from_name(t.text);
  if (!memory) {
    error(parse_code::kUnknownBarrierMemory, t.loc, "unknown barrier memory; use all, workgroup or storage");
    return std::nullopt;
  }
  return memory;
}

}  // namespace gridcheck::ir::text
