#pragma once
// Internal to ir/text: the recursive-descent parser shared by the parser_*.cpp files, one file per
// construct (core token handling, case sections, buffers, inputs, expectations, statements,
// expressions, typed values). Not a public header.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/case.hpp"
#include "ir/diagnostic.hpp"
#include "ir/text/lexer.hpp"

namespace gridcheck::ir::text {

/// An expression being built and the height of its tree (bounded by text_limits::kMaxExprDepth).
struct ParsedExpr {
  ExprId id = kNoExpr;
  std::uint32_t height = 1;
};

class Parser {
 public:
  enum class Mode : std::uint8_t { Case, Program };

  Parser(std::string_view text, std::string_view file, Mode mode);
  /// Parses the whole text. Returns the diagnostics (empty on success); the result is in case_.
  Diagnostics run();
  Case& result() { return case_; }

 private:
  // ---- tokens (parser_core.cpp)
  const Token& peek(std::size_t k = 0);
  Token next();
  /// The next token read in word mode (after the parser has looked at nothing beyond it).
  Token next_word();
  /// Puts a consumed token back (for error recovery after next_word()).
  void unread(Token t) { ahead_.push_front(std::move(t)); }
  bool at_punct(std::string_view p, std::size_t k = 0) { return peek(k).is_punct(p); }
  bool accept_punct(std::string_view p);
  /// Consumes punctuation `p` or reports "expected WHAT, found ...".
  bool expect_punct(std::string_view p, std::string_view what);
  /// Consumes a (quoted) identifier or reports "expected WHAT, found ...".
  std::optional<Token> expect_name(std::string_view what);
  /// Consumes an unquoted identifier spelled `kw` or reports an error.
  bool expect_keyword(std::string_view kw, std::string_view what);
  std::optional<Token> expect_string(std::string_view what);
  void skip_newlines();
  /// An unquoted top-level directive keyword (never the start of a statement).
  static bool is_directive_keyword(const Token& t);
  /// Ends a header line: a newline or the end of the file, else an error and the rest of the line skipped.
  void finish_line();
  /// Skips to the end of the line (consuming it), jumping over balanced braces; nothing when the last
  /// consumed token was a newline.
  void skip_line();
  /// Skips to the end of the statement (not consuming a newline, `;` or a closing `}`).
  void skip_statement();

  // ---- diagnostics
  void error(std::string_view code, SourceLoc loc, std::string message);
  void unexpected(const Token& t, std::string_view what);  ///< P010 expected WHAT, found ...
  std::size_t error_count() const;
  /// Stops parsing (every later token reads as the end of the file) once there are too many errors.
  void check_error_budget(SourceLoc loc);
  bool stopped() const { return stopped_; }

  // ---- numbers in header lines and statements
  /// A plain unsigned number token (decimal or hex) up to 2^64-1, reported when missing or malformed.
  std::optional<std::uint64_t> number_arg(std::string_view what, Token* where = nullptr);
  std::optional<std::uint32_t> u32_arg(std::string_view what);

  // ---- case sections (parser_case.cpp)
  void collect_header_comments();
  void parse_directive();
  void parse_case_line(const Token& kw);
  void parse_meta(const Token& kw);
  void parse_workgroup_size(const Token& kw);
  void parse_grid(const Token& kw);
  void parse_fixpoint(const Token& kw);
  void parse_memory_check(const Token& kw);  ///< `oob CHECK` and `uninit CHECK`
  void parse_body_section(const Token& kw);
  bool first_time(std::string_view section, const Token& kw, SourceLoc& seen);

  // ---- buffers, inputs, expectations (parser_buffer.cpp, parser_input.cpp, parser_expect.cpp)
  void parse_buffer(const Token& kw);
  void parse_input(const Token& kw);
  void parse_expect(const Token& kw);
  /// The rest of `expect ORACLE [PROFILE] launches N` (`words` ends with `launches` and N).
  void parse_expect_launches(const Token& kw, Oracle oracle, const std::vector<Token>& words);
  const BufferDecl* lookup_buffer(const Token& name_token, std::string_view role);
  void declare_buffer(const BufferDecl& d);

  // ---- typed values (parser_values.cpp)
  std::optional<std::uint32_t> parse_value(ScalarType element);
  std::optional<std::vector<std::uint32_t>> parse_value_list(ScalarType element);

  // ---- statements (parser_stmt.cpp)
  std::optional<StmtList> parse_block(std::uint32_t depth);
  std::optional<StmtId> parse_statement(std::uint32_t depth);
  std::optional<StmtId> parse_if(const Token& kw, std::uint32_t depth);
  std::optional<StmtId> parse_loop(const Token& kw, std::uint32_t depth);
  std::optional<StmtId> parse_region(const Token& kw, std::uint32_t depth);
  std::optional<StmtId> parse_barrier(const Token& kw);
  /// The optional `memory all|workgroup|storage` of a barrier (All when absent).
  std::optional<BarrierMemory> parse_barrier_memory();
  std::optional<StmtId> parse_let(const Token& kw);
  std::optional<StmtId> parse_assign(const Token& name);
  std::optional<StmtId> parse_store(const Token& name);
  std::optional<StmtId> parse_all_reduce(const Token& kw);
  std::optional<StmtId> parse_broadcast(const Token& kw);
  std::optional<StmtId> parse_gather_scatter(const Token& kw);
  std::optional<StmtId> parse_async_copy(const Token& kw);
  std::optional<StmtId> parse_async_wait(const Token& kw);
  std::optional<StmtId> parse_indirect_dispatch(const Token& kw);
  std::optional<StmtId> parse_trap(const Token& kw);
  std::optional<StmtId> parse_opaque(const Token& kw);
  /// The optional trailing `group N` of a collective (0 when absent).
  std::optional<std::uint32_t> parse_group();
  /// A buffer operand of a statement, interned.
  std::optional<NameId> buffer_operand(std::string_view what);
  StmtId add_stmt(const Stmt& s, SourceLoc loc) { return program().add_stmt(s, loc); }

  // ---- expressions (parser_expr.cpp)
  std::optional<ParsedExpr> parse_expr();
  std::optional<ParsedExpr> parse_binary(int min_precedence);
  std::optional<ParsedExpr> parse_unary();
  std::optional<ParsedExpr> parse_primary();
  std::optional<ParsedExpr> parse_call(const Token& name);
  std::optional<ParsedExpr> parse_atomic(const Token& name, AtomicOp op);
  std::optional<std::vector<ParsedExpr>> parse_call_args(const Token& name, std::size_t expected);
  std::optional<ParsedExpr> literal(const Token& number, bool negative, SourceLoc loc);
  /// Adds `e` with the given operands; fails with P014 when the tree gets too tall.
  std::optional<ParsedExpr> add_expr(Expr e, SourceLoc loc, std::initializer_list<ParsedExpr> operands);

  Program& program() { return case_.program; }

  Lexer lexer_;
  std::string_view text_;
  std::string file_;
  Mode mode_;
  std::deque<Token> ahead_;
  Token end_token_;
  TokenKind previous_ = TokenKind::Newline;  ///< kind of the last consumed token
  std::uint64_t consumed_ = 0;               ///< tokens consumed so far (a progress guard)
  Diagnostics diagnostics_;
  bool stopped_ = false;
  std::uint32_t expr_nesting_ = 0;
  bool reported_unclosed_block_ = false;  ///< one unclosed-brace error per kernel block

  Case case_;
  // Lookups by name, so that huge files stay linear: the first buffer declared with a name, and the
  // line of the input / verdict / expected output / launch count already given for a buffer or oracle key.
  std::unordered_map<std::string, std::size_t> buffer_index_;
  std::unordered_map<std::string, std::uint32_t> input_line_;
  std::unordered_map<std::string, std::uint32_t> verdict_line_;
  std::unordered_map<std::string, std::uint32_t> output_line_;
  std::unordered_map<std::string, std::uint32_t> launches_line_;
  SourceLoc seen_case_, seen_workgroup_size_, seen_grid_, seen_fixpoint_, seen_body_;
  SourceLoc seen_oob_, seen_uninit_;
};

}  // namespace gridcheck::ir::text
