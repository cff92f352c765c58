// `expect ORACLE [PROFILE]: VERDICT [DETAIL]`, `expect ORACLE [PROFILE] BUF = [..]`,
// `expect ORACLE [PROFILE] BUF hash H`, `expect ORACLE [PROFILE] launches N`. Read in word mode (oracles and profiles contain `-` and `.`).
#include <limits>

#include <fmt/format.h>

#include "ir/text/literal.hpp"
#include "ir/text/parse_codes.hpp"
#include "ir/text/parser_impl.hpp"

namespace gridcheck::ir::text {
namespace {

bool is_word_like(const Token& t) {
  return t.kind == TokenKind::Word || t.kind == TokenKind::String || t.kind == TokenKind::QuotedIdentifier;
}

std::string oracle_names() {
  std::string out;
  constexpr int kOracles = static_cast<int>(Oracle::Waves) + 1;
  for (int i = 0; i < kOracles; ++i)
    out += fmt::format("{}{}", i == 0 ? "" : i == kOracles - 1 ? " or " : ", ", name_of(static_cast<Oracle>(i)));
  return out;
}

std::string verdict_names() {
  std::string out;
  constexpr int kCount = 8;
  for (int i = 0; i < kCount; ++i)
    out += fmt::format("{}{}", i == 0 ? "" : i == kCount - 1 ? " or " : ", ", name_of(static_cast<Verdict>(i)));
  return out;
}

// A map key for (oracle, profile[, buffer]); lengths make it unambiguous whatever bytes the names hold.
std::string key(Oracle oracle, std::string_view profile, std::string_view buffer = {}) {
  return fmt::format("{}:{}:{}{}:{}", static_cast<int>(oracle), profile.size(), profile, buffer.size(), buffer);
}

}  // namespace

void Parser::parse_expect(const Token& kw) {
  std::vector<Token> words;
  Token stop;
  for (;;) {
    stop = next_word();
    if (!is_word_like(stop) || words.size() == 5) break;
    words.push_back(stop);
  }
  if (words.empty()) {
    unexpected(stop, fmt::format("an oracle ({})", oracle_names()));
    unread(std::move(stop));
    return skip_line();
  }
  const Token& oracle_token = words[0];
  const std::optional<Oracle> oracle =
      oracle_token.kind == TokenKind::Word ? oracle_from_name(oracle_token.text) : std::nullopt;
  if (!oracle) {
    error(parse_code::kUnknownOracle, oracle_token.loc, fmt::format("unknown oracle; use {}", oracle_names()));
    unread(std::move(stop));
    return skip_line();
  }

  // expect ORACLE [PROFILE]: VERDICT [DETAIL]
  if (stop.is_punct(":")) {
    if (words.size() > 2) {
      unexpected(words[2], "a colon after the oracle and profile");
      return skip_line();
    }
    Expectation e;
    e.oracle = *oracle;
    e.profile = words.size() == 2 ? std::string(words[1].value()) : std::string();
    e.loc = kw.loc;
    Token verdict = next_word();
    const std::optional<Verdict> v = verdict.kind == TokenKind::Word ? verdict_from_name(verdict.text) : std::nullopt;
    if (!v) {
      if (verdict.kind == TokenKind::Word)
        error(parse_code::kUnknownVerdict, verdict.loc, fmt::format("unknown verdict; use {}", verdict_names()));
      else
        unexpected(verdict, "a verdict");
      unread(std::move(verdict));
      return skip_line();
    }
    e.verdict = *v;
    for (bool first = true;; first = false) {
      Token d = next_word();
      if (d.kind == TokenKind::Word) {
        if (!e.detail.empty()) e.detail += ' ';
        e.detail += d.text;
      } else if (d.kind == TokenKind::String && first) {
        e.detail = d.decoded;
        d = next_word();
        if (d.kind != TokenKind::Newline && d.kind != TokenKind::End) {
          unexpected(d, "end of line after the quoted detail");
          unread(std::move(d));
          return skip_line();
        }
        unread(std::move(d));
        break;
      } else if (d.kind == TokenKind::Newline || d.kind == TokenKind::End) {
        unread(std::move(d));
        break;
      } else {
        unexpected(d, "a detail word or end of line");
        unread(std::move(d));
        return skip_line();
      }
    }
    const auto [first, fresh] = verdict_line_.emplace(key(e.oracle, e.profile), kw.loc.line);
    if (!fresh) {
      error(parse_code::kDuplicateExpectation, kw.loc,
            fmt::format("second verdict for this oracle and profile; the first is on line {}", first->second));
      return skip_line();
    }
    case_.expectations.push_back(std::move(e));
    return finish_line();
  }

  // expect ORACLE [PROFILE] BUF = [..]   or   expect ORACLE [PROFILE] BUF hash H
  const bool values_form = stop.is_punct("=");
  const bool at_end = stop.kind == TokenKind::Newline || stop.kind == TokenKind::End;
  const auto keyword_before_last = [&](std::string_view keyword) {
    return words.size() >= 2 && words[words.size() - 2].kind == TokenKind::Word && words[words.size() - 2].text == keyword;
  };
  const bool hash_form = !values_form && at_end && words.size() >= 4 && keyword_before_last("hash");
  // expect ORACLE [PROFILE] launches N   (`launches` in the buffer's place; a buffer named
  // `launches` still takes `= [..]` or `hash H`)
  if (!values_form && !hash_form && at_end && words.size() >= 3 && keyword_before_last("launches")) {
    unread(std::move(stop));
    return parse_expect_launches(kw, *oracle, words);
  }
  if (!values_form && !hash_form) {
    if (words.size() >= 5)
      unexpected(words[4], "end of line");
    else
      unexpected(stop, "a colon, an equals sign, or a buffer name and hash");
    unread(std::move(stop));
    return skip_line();
  }
  const std::size_t named = values_form ? words.size() : words.size() - 2;  // oracle, [profile], buffer
  if (named < 2 || named > 3) {
    unexpected(named > 3 ? words[3] : stop, values_form ? "a colon after the oracle and profile" : "a buffer name");
    if (!values_form) unread(std::move(stop));
    return skip_line();
  }
  ExpectedOutput out;
  out.oracle = *oracle;
  out.profile = named == 3 ? std::string(words[1].value()) : std::string();
  const Token& buffer_token = words[named - 1];
  out.buffer = std::string(buffer_token.value());
  out.loc = kw.loc;
  const BufferDecl* buffer = lookup_buffer(buffer_token, "expect");
  if (!buffer) {
    if (!values_form) unread(std::move(stop));
    return skip_line();
  }
  if (buffer->access == BufferAccess::Workgroup) {
    error(parse_code::kExpectForWorkgroupBuffer, buffer_token.loc, "workgroup buffers are not results; expect a storage buffer");
    if (!values_form) unread(std::move(stop));
    return skip_line();
  }
  if (const auto first = output_line_.find(key(out.oracle, out.profile, out.buffer)); first != output_line_.end()) {
    error(parse_code::kDuplicateExpectation, kw.loc,
          fmt::format("second expectation for this buffer, oracle and profile; the first is on line {}", first->second));
    if (!values_form) unread(std::move(stop));
    return skip_line();
  }
  // Recorded before the values are read, so a bad list does not hide a later duplicate.
  output_line_.emplace(key(out.oracle, out.profile, out.buffer), kw.loc.line);
  if (hash_form) {
    const Token& h = words.back();
    const std::optional<std::uint64_t> hash =
        h.kind == TokenKind::Word ? parse_unsigned(h.text, std::numeric_limits<std::uint64_t>::max()) : std::nullopt;
    unread(std::move(stop));
    if (!hash) {
      error(parse_code::kLiteralOutOfRange, h.loc, "hash must be a 64-bit unsigned number such as 0x0123456789abcdef");
      return skip_line();
    }
    out.hash = *hash;
    case_.outputs.push_back(std::move(out));
    return finish_line();
  }
  const Token open = peek();
  std::optional<std::vector<std::uint32_t>> values = parse_value_list(buffer->element);
  if (!values) return skip_line();
  if (buffer->count != 0 && !buffer->output_byte_range && values->size() != buffer->count) {
    error(parse_code::kValueCountMismatch, open.loc,
          fmt::format("list has {} values but the buffer has {} elements", values->size(), buffer->count));
    return skip_line();
  }
  out.words = std::move(*values);
  case_.outputs.push_back(std::move(out));
  finish_line();
}

void Parser::parse_expect_launches(const Token& kw, Oracle oracle, const std::vector<Token>& words) {
  const std::size_t named = words.size() - 2;  // oracle, [profile]
  if (named > 2) {
    unexpected(words[2], "`launches` after the oracle and profile");
    return skip_line();
  }
  if (oracle != Oracle::SplitCpu && oracle != Oracle::SplitGpu) {
    error(parse_code::kLaunchesForNonSplitOracle, words[0].loc,
          fmt::format("only the split oracles {} and {} have a launch count", name_of(Oracle::SplitCpu),
                      name_of(Oracle::SplitGpu)));
    return skip_line();
  }
  ExpectedLaunches e;
  e.oracle = oracle;
  e.profile = named == 2 ? std::string(words[1].value()) : std::string();
  e.loc = kw.loc;
  const Token& n = words.back();
  const std::optional<std::uint64_t> count =
      n.kind == TokenKind::Word ? parse_unsigned(n.text, std::numeric_limits<std::uint32_t>::max()) : std::nullopt;
  if (!count) {
    error(parse_code::kLiteralOutOfRange, n.loc, "launch count must be a 32-bit unsigned number");
    return skip_line();
  }
  e.count = static_cast<std::uint32_t>(*count);
  const auto [first, fresh] = launches_line_.emplace(key(e.oracle, e.profile), kw.loc.line);
  if (!fresh) {
    error(parse_code::kDuplicateExpectation, kw.loc,
          fmt::format("second launch count for this oracle and profile; the first is on line {}", first->second));
    return skip_line();
  }
  case_.launches.push_back(std::move(e));
  finish_line();
}

}  // namespace gridcheck::ir::text
