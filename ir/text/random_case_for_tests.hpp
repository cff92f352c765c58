#pragma once
// Test support (not used by the library): a simple random generator of programs and cases for the
// text round-trip property and the parser fuzz driver. It covers every statement and expression kind,
// every operator of the table, names that need quoting, literals that need f32_bits, and every case
// section, all within the text limits. The real generators (race-free, valid programs) live in props/.
//
// `Choose` is any callable `int(int lo, int hi)` returning a value in [lo, hi]: RapidCheck's
// gen::inRange in the property (so failures shrink), a PRNG in the fuzz driver.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/builder.hpp"
#include "ir/case.hpp"

namespace gridcheck::ir::testing {

template <typename Choose>
class RandomCaseGenerator {
 public:
  explicit RandomCaseGenerator(Choose& choose) : choose_(choose) {}

  Case generate() {
    Case c;
    Builder b(workgroup_size());
    c.name = pick(kCaseNames);
    if (flip()) c.description = pick(kStrings);
    for (int i = choose_(0, 2); i > 0; --i) c.header_comments.push_back(pick(kComments));
    for (int i = choose_(0, 2); i > 0; --i) c.meta.emplace_back(pick(kMetaKeys), pick(kStrings));
    if (flip()) c.grid = std::array<std::uint32_t, 3>{grid_count(), grid_count(), grid_count()};
    c.fixpoint = flip() ? 1u : static_cast<std::uint32_t>(choose_(1, 1000000));
    c.oob = static_cast<MemoryCheck>(choose_(0, 2));
    c.uninit = static_cast<MemoryCheck>(choose_(0, 2));

    buffers(b);
    Program p = entry(b);
    c.program = std::move(p);
    inputs(c);
    expectations(c);
    return c;
  }

 private:
  // ------------------------------------------------------------------------------- vocabulary
  static constexpr std::array<const char*, 8> kCaseNames = {"A1", "fuzz-1234", "corpus/split.case", "x", "weird name",
                                                             "", "tab\tname", "0.7.2"};
  static constexpr std::array<const char*, 9> kStrings = {"", "plain", "docs/vyre-0.7.2.md#s10-a", "quote \" and \\ back",
                                                          "ctrl \x01\x7f", "new\nline", "tick `", "#not a comment",
                                                          "vyre.program.root"};
  static constexpr std::array<const char*, 5> kComments = {"docs/vyre-0.7.2.md#a1", "", " indented", "#double", "x = 1"};
  static constexpr std::array<const char*, 4> kMetaKeys = {"origin", "seed", "replay command", "k-1/2"};
  // Names that are plain, keywords used as names, or need `quoting`.
  static constexpr std::array<const char*, 24> kNames = {
      "x", "y", "v0", "acc", "if", "let", "loop", "in", "else", "return", "gid", "len", "select", "u32",
      "min", "sum", "true", "false", "a b", "", "\xc3\xa9t\xc3\xa9", "new\nline", "back`tick", "x.y"};
  static constexpr std::array<const char*, 8> kBufferNames = {"buf", "out", "sh", "in", "grid", "true", "b 2", "expect"};
  static constexpr std::array<const char*, 5> kProfiles = {"sound", "vyre-0.7.2", "my profile", "p:1", ""};
  static constexpr std::array<const char*, 7> kDetails = {"", "planner", "lowering/driver", "race",
                                                          "two words", "K001: no device", " leading"};
  static constexpr std::array<std::uint32_t, 12> kF32Bits = {
      0x00000000u, 0x80000000u, 0x3fc00000u, 0xbf800000u, 0x7fc00000u, 0xffc00001u, 0x7f800000u,
      0xff800000u, 0x00000001u, 0x7f7fffffu, 0x3dcccccdu, 0x4b800001u};

  template <typename Array>
  std::string pick(const Array& a) {
    return a[static_cast<std::size_t>(choose_(0, static_cast<int>(a.size()) - 1))];
  }
  bool flip() { return choose_(0, 1) == 1; }
  std::uint32_t word() {
    switch (choose_(0, 3)) {
      case 0: return static_cast<std::uint32_t>(choose_(0, 16));
      case 1: return 0xFFFFFFFFu - static_cast<std::uint32_t>(choose_(0, 2));
      case 2: return 0x80000000u;
      default: return static_cast<std::uint32_t>(choose_(0, 0x7fffffff)) * 2u + static_cast<std::uint32_t>(choose_(0, 1));
    }
  }
  std::uint32_t value_of(ScalarType t) {
    switch (t) {
      case ScalarType::F32: return flip() ? kF32Bits[static_cast<std::size_t>(choose_(0, 11))] : word();
      case ScalarType::Bool: return flip() ? static_cast<std::uint32_t>(choose_(0, 1)) : word();
      default: return word();
    }
  }
  std::uint32_t grid_count() { return static_cast<std::uint32_t>(flip() ? choose_(1, 4) : choose_(1, 65535)); }
  std::array<std::uint32_t, 3> workgroup_size() {
    const std::array<std::uint32_t, 5> xs = {1, 2, 4, 64, 0};
    return {xs[static_cast<std::size_t>(choose_(0, 4))], static_cast<std::uint32_t>(choose_(1, 2)),
            static_cast<std::uint32_t>(choose_(1, 2))};
  }
  ScalarType scalar() { return static_cast<ScalarType>(choose_(0, kScalarTypeCount - 1)); }

  // ------------------------------------------------------------------------------- program
  void buffers(Builder& b) {
    const int n = choose_(0, 5);
    for (int i = 0; i < n; ++i) {
      BufferDecl d;
      d.name = b.program().intern(std::string(kBufferNames[static_cast<std::size_t>(i)]) +
                                  (flip() ? "" : std::to_string(i)));
      d.element = scalar();
      d.access = static_cast<BufferAccess>(choose_(0, kBufferAccessCount - 1));
      d.kind = choose_(0, 4) == 0 ? static_cast<MemoryKind>(choose_(0, kMemoryKindCount - 1)) : derived_kind(d.access);
      d.count = flip() ? static_cast<std::uint32_t>(choose_(0, 20)) : static_cast<std::uint32_t>(choose_(0, 3));
      d.binding = d.access == BufferAccess::Workgroup && flip() ? 0u : static_cast<std::uint32_t>(choose_(0, 9));
      d.is_output = flip();
      d.pipeline_live_out = flip();
      if (choose_(0, 3) == 0) {
        const auto begin = static_cast<std::uint64_t>(choose_(0, 64));
        d.output_byte_range = ByteRange{begin, begin + static_cast<std::uint64_t>(choose_(0, 64))};
      }
      b.program().add_buffer(d);
      buffers_.push_back(Buf{d.name});
    }
  }

  Buf any_buffer(Builder& b) {
    if (!buffers_.empty() && choose_(0, 4) != 0) return buffers_[static_cast<std::size_t>(choose_(0, static_cast<int>(buffers_.size()) - 1))];
    return Buf{b.program().intern(pick(kBufferNames))};
  }

  E expr(Builder& b, int depth) {
    const int leaf_kinds = 8;
    const int kind = depth <= 0 ? choose_(0, leaf_kinds - 1) : choose_(0, leaf_kinds + 8);
    switch (kind) {
      case 0: return b.u32(word());
      case 1: return b.i32(static_cast<std::int32_t>(word()));
      case 2: return b.f32_bits(value_of(ScalarType::F32));
      case 3: return b.boolean(flip());
      case 4: return b.var(pick(kNames));
      case 5: return b.buf_len(any_buffer(b));
      case 6: {
        const auto axis = static_cast<std::uint32_t>(choose_(0, 2));
        switch (choose_(0, 4)) {
          case 0: return b.gid(axis);
          case 1: return b.lid(axis);
          case 2: return b.wgid(axis);
          case 3: return b.num_workgroups(axis);
          default: return b.workgroup_size(axis);
        }
      }
      case 7: return b.u32(static_cast<std::uint32_t>(choose_(0, 9)));
      case 8:
      case 9:
      case 10: return b.bin(static_cast<BinOp>(choose_(0, kBinOpCount - 1)), expr(b, depth - 1), expr(b, depth - 1));
      case 11: return b.un(static_cast<UnOp>(choose_(0, kUnOpCount - 1)), expr(b, depth - 1));
      case 12: return b.load(any_buffer(b), expr(b, depth - 1));
      case 13: return b.select(expr(b, depth - 1), expr(b, depth - 1), expr(b, depth - 1));
      case 14: return b.cast(scalar(), expr(b, depth - 1));
      case 15: return b.fma(expr(b, depth - 1), expr(b, depth - 1), expr(b, depth - 1));
      default: {
        const auto op = static_cast<AtomicOp>(choose_(0, kAtomicOpCount - 1));
        const auto ordering = static_cast<MemoryOrdering>(choose_(0, kMemoryOrderingCount - 1));
        if (op == AtomicOp::CompareExchange)
          return b.compare_exchange(any_buffer(b), expr(b, depth - 1), expr(b, depth - 1), expr(b, depth - 1), ordering);
        return b.atomic(op, any_buffer(b), expr(b, depth - 1), expr(b, depth - 1), ordering);
      }
    }
  }

  std::vector<S> body(Builder& b, int depth) {
    std::vector<S> out;
    for (int i = choose_(0, depth <= 0 ? 3 : 6); i > 0; --i) out.push_back(stmt(b, depth));
    return out;
  }

  S stmt(Builder& b, int depth) {
    const int e = choose_(0, depth > 0 ? 4 : 2);
    switch (choose_(0, depth > 0 ? 24 : 18)) {
      case 0:
      case 1: return b.let(pick(kNames), expr(b, e));
      case 2: return b.assign(pick(kNames), expr(b, e));
      case 3:
      case 4: return b.store(any_buffer(b), expr(b, e), expr(b, e));
      case 5: {
        const auto ordering = static_cast<MemoryOrdering>(choose_(0, kMemoryOrderingCount - 1));
        return b.barrier(ordering, static_cast<BarrierMemory>(choose_(0, kBarrierMemoryCount - 1)));
      }
      case 6: return b.grid_sync();
      case 7: return b.ret();
      case 8: return b.all_reduce(any_buffer(b), static_cast<CollectiveOp>(choose_(0, kCollectiveOpCount - 1)), group());
      case 9: return b.broadcast(any_buffer(b), word(), group());
      case 10: return b.all_gather(any_buffer(b), any_buffer(b), group());
      case 11:
        return b.reduce_scatter(any_buffer(b), any_buffer(b), static_cast<CollectiveOp>(choose_(0, kCollectiveOpCount - 1)),
                                group());
      case 12: return b.async_load(any_buffer(b), any_buffer(b), expr(b, e), expr(b, e), pick(kStrings));
      case 13: return b.async_store(any_buffer(b), any_buffer(b), expr(b, e), expr(b, e), pick(kStrings));
      case 14: return b.async_wait(pick(kStrings));
      case 15: return b.indirect_dispatch(any_buffer(b), word());
      case 16: return b.trap(expr(b, e), pick(kStrings));
      case 17: return b.opaque(pick(kStrings));
      case 18: return b.let(pick(kNames), expr(b, 0));
      case 19:
      case 20: return b.if_(expr(b, e), body(b, depth - 1), flip() ? std::vector<S>{} : body(b, depth - 1));
      case 21: return b.loop(pick(kNames), expr(b, 1), expr(b, 1), body(b, depth - 1));
      case 22: return b.block(body(b, depth - 1));
      case 23: return region(b, depth);
      default: {  // else-if chains
        std::vector<S> inner = {b.if_(expr(b, 1), body(b, depth - 1), body(b, depth - 1))};
        return b.if_(expr(b, 1), body(b, depth - 1), inner);
      }
    }
  }

  S region(Builder& b, int depth) {
    Stmt s{StmtKind::Region};
    s.names[0] = b.program().intern(flip() ? std::string(kRootRegionGenerator) : pick(kStrings));
    if (flip()) s.names[1] = b.program().intern(pick(kStrings));
    std::vector<StmtId> ids;
    for (S x : body(b, depth - 1)) ids.push_back(x.id);
    s.body = b.program().add_list(ids);
    return S{b.program().add_stmt(s)};
  }

  std::uint32_t group() { return flip() ? 0u : word(); }

  std::vector<S> top_level(Builder& b, int depth) {
    std::vector<S> out;
    for (int i = choose_(0, 10); i > 0; --i) out.push_back(stmt(b, depth));
    return out;
  }

  Program entry(Builder& b) {
    const int depth = choose_(0, 4);
    switch (choose_(0, 3)) {
      case 0: return b.raw(top_level(b, depth));                    // any raw entry, possibly empty
      case 1: return b.raw({region(b, depth), region(b, depth)});  // several regions
      default: return b.wrapped(top_level(b, depth));              // kernel { } (or all-region entry)
    }
  }

  // ------------------------------------------------------------------------------- case data
  void inputs(Case& c) {
    for (const BufferDecl& d : c.program.buffers()) {
      if (d.access == BufferAccess::Workgroup || choose_(0, 2) == 0) continue;
      InputData in;
      in.buffer = std::string(c.program.name(d.name));
      const int kind = choose_(0, 3);
      if (kind == 0 || (kind == 2 && d.element == ScalarType::Bool)) {
        const std::uint32_t n = d.count != 0 ? d.count : static_cast<std::uint32_t>(choose_(0, 40));
        for (std::uint32_t i = 0; i < n; ++i) in.values.push_back(value_of(d.element));
      } else {
        in.kind = static_cast<InputData::Kind>(kind);
        in.first = in.kind == InputData::Kind::Random ? 0u : value_of(d.element);
        in.step = in.kind == InputData::Kind::Series ? value_of(d.element) : 0u;
        in.seed = in.kind == InputData::Kind::Random ? (std::uint64_t{word()} << 32 | word()) : 0u;
        in.length = d.count != 0 ? 0u : static_cast<std::uint32_t>(choose_(1, 1000));
      }
      c.inputs.push_back(std::move(in));
    }
  }

  void expectations(Case& c) {
    // Keys with a verdict first, then keys with buffers only: the canonical grouping keeps this order.
    std::vector<std::pair<Oracle, std::string>> keys;
    for (int i = choose_(0, 4); i > 0; --i) {
      const auto oracle = static_cast<Oracle>(choose_(0, 3));
      const std::string profile = pick(kProfiles);
      bool seen = false;
      for (const auto& k : keys) seen = seen || (k.first == oracle && k.second == profile);
      if (!seen) keys.emplace_back(oracle, profile);
    }
    const std::size_t with_verdict = keys.empty() ? 0 : static_cast<std::size_t>(choose_(0, static_cast<int>(keys.size())));
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (k < with_verdict) {
        Expectation e;
        e.oracle = keys[k].first;
        e.profile = keys[k].second;
        e.verdict = static_cast<Verdict>(choose_(0, 7));
        e.detail = pick(kDetails);
        c.expectations.push_back(e);
      }
    }
    // Launch counts of split keys that have a verdict (so the grouping order stays the same).
    for (std::size_t k = 0; k < with_verdict; ++k) {
      const Oracle oracle = keys[k].first;
      if ((oracle != Oracle::SplitCpu && oracle != Oracle::SplitGpu) || !flip()) continue;
      ExpectedLaunches l;
      l.oracle = oracle;
      l.profile = keys[k].second;
      l.count = flip() ? static_cast<std::uint32_t>(choose_(0, 64)) : word();
      c.launches.push_back(std::move(l));
    }
    for (const auto& [oracle, profile] : keys) {
      for (const BufferDecl& d : c.program.buffers()) {
        if (d.access == BufferAccess::Workgroup || choose_(0, 2) == 0) continue;
        ExpectedOutput o;
        o.oracle = oracle;
        o.profile = profile;
        o.buffer = std::string(c.program.name(d.name));
        if (flip()) {
          o.hash = std::uint64_t{word()} << 32 | word();
        } else {
          const std::uint32_t n =
              d.count != 0 && !d.output_byte_range ? d.count : static_cast<std::uint32_t>(choose_(0, 20));
          std::vector<std::uint32_t> words;
          for (std::uint32_t i = 0; i < n; ++i) words.push_back(value_of(d.element));
          o.words = std::move(words);
        }
        c.outputs.push_back(std::move(o));
      }
    }
  }

  Choose& choose_;
  std::vector<Buf> buffers_;
};

}  // namespace gridcheck::ir::testing
