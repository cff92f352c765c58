#include "ir/equality.hpp"

#include <cstring>
#include <string_view>

namespace gridcheck::ir {

std::uint64_t fnv1a64(const void* data, std::size_t size, std::uint64_t seed) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::uint64_t h = seed;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= bytes[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

namespace {

// The canonical byte stream into a string.
struct StringSink {
  std::string out;
  void put(char c) { out.push_back(c); }
  void put(const char* data, std::size_t n) { out.append(data, n); }
};

// The canonical byte stream hashed as it is written (the same bytes fnv1a64 would see).
struct HashSink {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void put(char c) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  void put(const char* data, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) put(data[i]);
  }
};

// The canonical byte stream compared, as it is written, with an earlier one.
struct CompareSink {
  std::string_view expected;
  std::size_t at = 0;
  bool same = true;
  void put(char c) {
    same = same && at < expected.size() && expected[at] == c;
    ++at;
  }
  void put(const char* data, std::size_t n) {
    same = same && at + n <= expected.size() && std::memcmp(expected.data() + at, data, n) == 0;
    at += n;
  }
  bool equal() const { return same && at == expected.size(); }
};

// Serialises the meaning of a program into a byte stream (into a Sink); equality compares two
// streams and the hash hashes one. One walk, so the two can never disagree.
template <class Sink>
class CanonicalWriter {
 public:
  CanonicalWriter(const Program& p, Sink& sink) : p_(p), out_(sink) {}

  void run() {
    const auto wg = p_.workgroup_size();
    u32(wg[0]), u32(wg[1]), u32(wg[2]);
    u32(static_cast<std::uint32_t>(p_.buffers().size()));
    for (const BufferDecl& b : p_.buffers()) buffer(b);
    list(p_.entry());
  }

 private:
  void u8(std::uint8_t v) { out_.put(static_cast<char>(v)); }
  void u32(std::uint32_t v) {
    char bytes[4];
    std::memcpy(bytes, &v, 4);
    out_.put(bytes, 4);
  }
  void u64(std::uint64_t v) { u32(static_cast<std::uint32_t>(v)), u32(static_cast<std::uint32_t>(v >> 32)); }
  void name(NameId id) {
    if (id == kNoName) {
      u32(0xFFFFFFFFu);
      return;
    }
    const std::string_view s = p_.name(id);
    u32(static_cast<std::uint32_t>(s.size()));
    out_.put(s.data(), s.size());
  }

  void buffer(const BufferDecl& b) {
    name(b.name);
    u32(b.binding);
    u8(static_cast<std::uint8_t>(b.element));
    u8(static_cast<std::uint8_t>(b.access));
    u8(static_cast<std::uint8_t>(b.kind));
    u32(b.count);
    u8(b.is_output);
    u8(b.pipeline_live_out);
    u8(b.output_byte_range.has_value());
    if (b.output_byte_range) u64(b.output_byte_range->begin), u64(b.output_byte_range->end);
  }

  void expr(ExprId id) {
    if (id == kNoExpr) {
      u8(0xFF);
      return;
    }
    const Expr& e = p_.expr(id);
    u8(static_cast<std::uint8_t>(e.kind));
    u8(e.op);
    u8(static_cast<std::uint8_t>(e.ordering));
    switch (e.kind) {
      case ExprKind::Var:
      case ExprKind::Load:
      case ExprKind::BufLen:
      case ExprKind::Atomic: name(NameId{e.payload}); break;
      default: u32(e.payload); break;
    }
    for (ExprId operand : e.operands) {
      if (operand == kNoExpr)
        u8(0xFF);  // what expr(kNoExpr) writes, without the call
      else
        expr(operand);
    }
  }

  void list(StmtList l) {
    u32(l.count);
    for (StmtId id : p_.list(l)) stmt(id);
  }

  void stmt(StmtId id) {
    const Stmt& s = p_.stmt(id);
    u8(static_cast<std::uint8_t>(s.kind));
    u8(s.op);
    for (NameId n : s.names) name(n);
    for (ExprId e : s.exprs) {
      if (e == kNoExpr)
        u8(0xFF);  // as in expr()
      else
        expr(e);
    }
    u32(s.literal);
    u32(s.literal2);
    if (s.has_body()) {
      list(s.body);
      list(s.otherwise);
    }
  }

  const Program& p_;
  Sink& out_;
};

}  // namespace

bool structurally_equal(const Program& a, const Program& b) {
  StringSink first;
  CanonicalWriter<StringSink>(a, first).run();
  CompareSink second{first.out};
  CanonicalWriter<CompareSink>(b, second).run();
  return second.equal();
}

std::uint64_t content_hash(const Program& p) {
  HashSink sink;
  CanonicalWriter<HashSink>(p, sink).run();
  return sink.h;
}

}  // namespace gridcheck::ir
