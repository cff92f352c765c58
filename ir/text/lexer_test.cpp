#include "ir/text/lexer.hpp"

#include <gtest/gtest.h>

#include "ir/ops.hpp"

namespace gridcheck::ir::text {
namespace {

std::vector<Token> lex_all(std::string_view src, Lexer::Mode mode = Lexer::Mode::Code) {
  Lexer lexer(src, "t.gc");
  std::vector<Token> out;
  for (;;) {
    out.push_back(lexer.next(mode));
    if (out.back().kind == TokenKind::End) return out;
  }
}

TEST(IR_TextLexer, EveryInfixAndPrefixSpellingOfTheOperatorTableIsOneToken) {
  for (const BinOpInfo& row : all_bin_ops()) {
    if (row.infix.empty()) continue;
    std::string src = "a";  // (not "a" + ...: GCC 12 warns falsely about that concatenation)
    src.append(row.infix).append("b");
    const auto tokens = lex_all(src);
    ASSERT_EQ(tokens.size(), 4u) << src;
    EXPECT_TRUE(tokens[1].is_punct(row.infix)) << src;
  }
  for (const UnOpInfo& row : all_un_ops()) {
    if (row.prefix.empty()) continue;
    std::string src(row.prefix);
    src.append("x");
    const auto tokens = lex_all(src);
    ASSERT_EQ(tokens.size(), 3u);
    EXPECT_TRUE(tokens[0].is_punct(row.prefix));
  }
}

TEST(IR_TextLexer, RangeDotsAreNotPartOfNumbers) {
  const auto tokens = lex_all("0..4 1.5..2 gid.x..n");
  std::vector<std::string_view> texts;
  for (const Token& t : tokens) texts.push_back(t.text);
  EXPECT_EQ(texts, (std::vector<std::string_view>{"0", "..", "4", "1.5", "..", "2", "gid", ".", "x", "..", "n", ""}));
}

TEST(IR_TextLexer, NumbersKeepSuffixesAndExponents) {
  const auto tokens = lex_all("3i 1e+20 2.5f 0xFFi 7u");
  ASSERT_EQ(tokens.size(), 6u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(tokens[i].kind, TokenKind::Number);
  EXPECT_EQ(tokens[1].text, "1e+20");
  EXPECT_EQ(tokens[3].text, "0xFFi");
}

TEST(IR_TextLexer, TracksLinesAndColumnsAndSkipsComments) {
  const auto tokens = lex_all("let x # comment\n\t  y = 1\n");
  ASSERT_GE(tokens.size(), 6u);
  EXPECT_EQ(tokens[1].loc, (SourceLoc{1, 5}));
  EXPECT_EQ(tokens[2].kind, TokenKind::Newline);
  EXPECT_EQ(tokens[3].text, "y");
  EXPECT_EQ(tokens[3].loc, (SourceLoc{2, 4}));  // a tab counts as one column
}

TEST(IR_TextLexer, DecodesStringAndQuotedNameEscapes) {
  const auto tokens = lex_all(R"("a\"b\\c\n\x41\`" `if you`)");
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].kind, TokenKind::String);
  EXPECT_EQ(tokens[0].decoded, "a\"b\\c\nA`");
  EXPECT_EQ(tokens[1].kind, TokenKind::QuotedIdentifier);
  EXPECT_EQ(tokens[1].value(), "if you");
}

TEST(IR_TextLexer, WordModeReadsOraclesProfilesAndDetailsWhole) {
  const auto tokens = lex_all("H-cpu vyre-0.7.2: diverge lowering/driver", Lexer::Mode::Word);
  ASSERT_EQ(tokens.size(), 6u);
  EXPECT_EQ(tokens[0].text, "H-cpu");
  EXPECT_EQ(tokens[1].text, "vyre-0.7.2");
  EXPECT_TRUE(tokens[2].is_punct(":"));
  EXPECT_EQ(tokens[4].text, "lowering/driver");
  for (std::size_t i : {0u, 1u, 3u, 4u}) EXPECT_EQ(tokens[i].kind, TokenKind::Word);
}

TEST(IR_TextLexer, RewindForgetsTheDiagnosticsOfTheReReadText) {
  Lexer lexer("R 12abc", "t.gc");
  const Token r = lexer.next();
  const Token bad = lexer.next();  // a malformed number in code mode
  EXPECT_TRUE(bad.bad);
  EXPECT_EQ(lexer.diagnostics().size(), 1u);
  lexer.rewind(bad);
  EXPECT_TRUE(lexer.diagnostics().empty());
  const Token word = lexer.next(Lexer::Mode::Word);  // the same text is a fine word
  EXPECT_EQ(word.kind, TokenKind::Word);
  EXPECT_EQ(word.text, "12abc");
  EXPECT_TRUE(lexer.diagnostics().empty());
  (void)r;
}

TEST(IR_TextLexer, ReportsARunOfBadBytesOnce) {
  Lexer lexer("a \x01\x02\x03 b $$$ c", "t.gc");
  std::vector<std::string_view> names;
  for (Token t = lexer.next(); t.kind != TokenKind::End; t = lexer.next()) names.push_back(t.text);
  EXPECT_EQ(names, (std::vector<std::string_view>{"a", "b", "c"}));
  ASSERT_EQ(lexer.diagnostics().size(), 2u);
  EXPECT_EQ(lexer.diagnostics()[0].second.code, "P001");
  EXPECT_EQ(lexer.diagnostics()[0].second.loc, (SourceLoc{1, 3}));
  EXPECT_EQ(lexer.diagnostics()[1].second.loc, (SourceLoc{1, 9}));
}

}  // namespace
}  // namespace gridcheck::ir::text
