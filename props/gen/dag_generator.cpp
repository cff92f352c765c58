#include "props/gen/dag_generator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <iterator>
#include <numeric>
#include <set>

#include "ir/builder.hpp"
#include "ir/equality.hpp"

namespace gridcheck::props {
namespace {

using ir::BinOp;
using ir::Buf;
using ir::E;
using ir::S;
using ir::ScalarType;
using planner::WaveDependency;

/// The odd multiplier of the mixing chain `a = a * M + x`: for a fixed `a` the step is a
/// bijection of x, so every dependency read changes the wave's result.
constexpr std::uint32_t kMix = 16777619u;

/// An edge between topological positions (before < after).
struct PositionEdge {
  std::uint32_t before = 0, after = 0;
  bool data = false;
};

class DagGenerator {
 public:
  DagGenerator(ChoiceSource& c, const DagConfig& config) : c_(c), config_(config) {}

  WaveDag run(bool named) {
    draw_graph();
    draw_dispatch();
    declare_buffers();
    std::vector<S> regions(n_);
    for (std::uint32_t p = 0; p < n_; ++p) regions[id_[p]] = wave_region(p);

    // The entry: one wave per phase in topological order (a valid program on its own).
    std::vector<S> entry;
    for (std::uint32_t p = 0; p < n_; ++p) {
      if (p > 0) entry.push_back(b_.grid_sync());
      entry.push_back(regions[id_[p]]);
    }
    WaveDag dag;
    ir::Case& base = *dag.base;
    // Moved out of the builder (run is its last use) rather than copied as Builder::raw would.
    const S root = b_.region(ir::kRootRegionGenerator, entry);
    b_.program().set_entry(std::span<const ir::StmtId>(&root.id, 1));
    base.program = std::move(b_.program());
    base.grid = std::array<std::uint32_t, 3>{groups_, 1, 1};
    base.fixpoint = 1;
    base.oob = ir::MemoryCheck::Defined;  // a wave may index in0 out of bounds (reads 0)
    base.uninit = ir::MemoryCheck::Defined;
    ir::InputData in;
    in.buffer = "in0";
    in.kind = ir::InputData::Kind::Random;
    const std::uint64_t high = c_.word();  // the high word is drawn first
    const std::uint64_t low = c_.word();
    in.seed = (high << 32) | low;
    base.inputs.push_back(in);
    for (const S& r : regions) dag.waves.push_back(r.id);
    dag.edges = edges_;
    dag.ordering_edges = ordering_;
    dag.shape = std::string(name_of(shape_));
    if (named) base.name = fmt::format("dag-{}-{:016x}", dag.shape, ir::content_hash(base.program));
    base.description = fmt::format("{} waves, {} edges ({})", n_, edges_.size(), dag.shape);
    return dag;
  }

 private:
  // ---------------------------------------------------------------------------------- the graph

  void draw_graph() {
    shape_ = static_cast<DagShape>(c_.below(4));
    n_ = c_.between(1, std::max(1u, config_.max_waves));
    std::vector<PositionEdge> edges;
    auto add = [&](std::uint32_t before, std::uint32_t after) {
      // A data edge while the consumer has read budget left; further predecessors only order.
      const bool data = reads_[after] < config_.max_reads_per_wave;
      reads_[after] += data ? 1 : 0;
      edges.push_back({before, after, data});
    };
    reads_.assign(n_, 0);
    switch (shape_) {
      case DagShape::Random:
        for (std::uint32_t j = 1; j < n_; ++j)
          for (std::uint32_t i = 0; i < j; ++i)
            if (c_.chance(1, 3)) add(i, j);
        break;
      case DagShape::Deep: {
        const std::uint32_t chains = 1 + c_.below(2);
        for (std::uint32_t j = chains; j < n_; ++j) {
          add(j - chains, j);
          if (j >= chains + 1 && c_.chance(1, 4)) add(c_.below(j - chains), j);  // a skip edge
        }
        break;
      }
      case DagShape::Wide: {
        const bool source = n_ >= 2 && c_.chance(1, 2);
        const bool sink = n_ >= 2u + (source ? 1u : 0u) && c_.chance(1, 2);
        const std::uint32_t first = source ? 1 : 0, last = sink ? n_ - 1 : n_;
        for (std::uint32_t m = first; m < last; ++m) {
          if (source) add(0, m);
          if (sink) add(m, n_ - 1);
        }
        break;
      }
      case DagShape::Diamond: {
        const std::uint32_t width = 2 + c_.below(2);
        // Levels 1, width, 1, width, ...; every wave depends on the whole previous level.
        std::vector<std::uint32_t> previous, current;
        std::uint32_t level = 0;
        for (std::uint32_t p = 0; p < n_;) {
          const std::uint32_t size = std::min(level % 2 == 0 ? 1u : width, n_ - p);
          current.clear();
          for (std::uint32_t k = 0; k < size; ++k, ++p) {
            for (std::uint32_t q : previous) add(q, p);
            current.push_back(p);
          }
          previous = current;
          ++level;
        }
        break;
      }
    }
    // Ordering-only edges (no data flows along them; the plan must still respect them).
    for (std::uint32_t k = c_.below(3); k > 0 && n_ >= 2; --k) {
      const std::uint32_t j = c_.between(1, n_ - 1), i = c_.below(j);
      const bool data = std::any_of(edges.begin(), edges.end(),
                                    [&](const PositionEdge& e) { return e.before == i && e.after == j && e.data; });
      edges.push_back({i, j, data});
    }
    // A repeated edge (counted twice in the planner's in-degree).
    if (!edges.empty() && c_.chance(1, 4)) edges.push_back(edges[c_.below(static_cast<std::uint32_t>(edges.size()))]);

    // Wave ids are a permutation of the positions; the edge list is shuffled. Both decode an
    // all-zero choice sequence to the identity.
    id_ = permutation(n_);
    const std::vector<std::uint32_t> order = permutation(static_cast<std::uint32_t>(edges.size()));
    data_preds_.assign(n_, {});
    for (std::uint32_t k : order) {
      const PositionEdge& e = edges[k];
      const WaveDependency d{id_[e.before], id_[e.after]};
      edges_.push_back(d);
      if (!e.data) ordering_.push_back(d);
    }
    for (const PositionEdge& e : edges)
      if (e.data && std::find(data_preds_[e.after].begin(), data_preds_[e.after].end(), id_[e.before]) ==
                        data_preds_[e.after].end())
        data_preds_[e.after].push_back(id_[e.before]);
  }

  std::vector<std::uint32_t> permutation(std::uint32_t n) {
    std::vector<std::uint32_t> pool(n), out;
    std::iota(pool.begin(), pool.end(), 0u);
    while (!pool.empty()) {
      const std::uint32_t pick = c_.below(static_cast<std::uint32_t>(pool.size()));
      out.push_back(pool[pick]);
      pool.erase(pool.begin() + pick);
    }
    return out;
  }

  // ------------------------------------------------------------------------------- the buffers

  void draw_dispatch() {
    const std::uint32_t max_log =
        static_cast<std::uint32_t>(std::bit_width(std::max(1u, config_.max_workgroup_size)) - 1);
    wg_ = 1u << c_.below(max_log + 1);
    groups_ = c_.between(1, std::max(1u, config_.max_workgroups));
    invocations_ = wg_ * groups_;
    b_.program().set_workgroup_size({wg_, 1, 1});
  }

  void declare_buffers() {
    input_count_ = invocations_ * (1 + c_.below(2));
    in_ = b_.read("in0", 0, ScalarType::U32, input_count_);
    slots_.resize(n_);
    for (std::uint32_t k = 0; k < n_; ++k) {
      slots_[k] = 1 + c_.below(2);
      own_.push_back(b_.output(fmt::format("w{}", k), 1 + k, ScalarType::U32, slots_[k] * invocations_));
    }
    if (c_.chance(1, 3)) {
      // One operator for every wave: atomics of one commutative operator commute with each other,
      // so the counter's bytes do not depend on the order of unrelated waves (mixed operators would).
      static constexpr std::array<ir::AtomicOp, 5> kOps = {ir::AtomicOp::Add, ir::AtomicOp::Or, ir::AtomicOp::Xor,
                                                           ir::AtomicOp::Max, ir::AtomicOp::Min};
      acc_op_ = kOps[c_.below(kOps.size())];
      acc_ = b_.output("acc", 1 + n_, ScalarType::U32, 4);
      // At least one wave updates it (an output no statement references is docs/vyre-0.7.2.md#b1).
      acc_wave_ = c_.below(n_);
    }
  }

  // --------------------------------------------------------------------------------- the waves

  S wave_region(std::uint32_t position) {
    const std::uint32_t k = id_[position];
    wave_ = k;
    next_local_ = 0;
    readable_ = data_preds_[position];
    const std::string a = fmt::format("a{}", k);
    accumulator_ = a;
    std::vector<S> body;
    body.push_back(b_.let(a, b_.u32(2654435761u * (k + 1))));
    for (std::uint32_t q : readable_) body.push_back(mix(b_.load(own_[q], producer_index(q))));
    bool exchanged = false;
    for (std::uint32_t i = 0, ops = c_.below(config_.max_ops_per_wave + 1); i < ops; ++i) op(body, exchanged);
    if (acc_ && k == acc_wave_) body.push_back(atomic());
    const E own_slot = b_.gid(0);
    body.push_back(b_.store(own_[k], own_slot, b_.var(a)));
    if (slots_[k] == 2)
      body.push_back(b_.store(own_[k], b_.gid(0) + b_.u32(invocations_), b_.var(a) * b_.u32(kMix) + b_.u32(k)));
    if (c_.chance(1, 3))  // read-modify-write of the own slot: running a wave twice shows
      body.push_back(b_.store(own_[k], b_.gid(0),
                              b_.load(own_[k], b_.gid(0)) * b_.u32(5) + (b_.var(a) >> b_.u32(3))));
    return b_.region(fmt::format("wave.{}", k), body);
  }

  /// a = a * M + x
  S mix(E x) { return b_.assign(accumulator_, b_.var(accumulator_) * b_.u32(kMix) + x); }

  std::string fresh(std::string_view prefix) { return fmt::format("{}{}_{}", prefix, wave_, next_local_++); }

  /// Where a consumer reads producer q's buffer: its own slot, another invocation's, a fixed
  /// element, or the second slot.
  E producer_index(std::uint32_t q) {
    const std::uint32_t count = slots_[q] * invocations_;
    switch (c_.below(5)) {
      case 0: return b_.gid(0);
      case 1: {
        const std::uint32_t shift = c_.between(1, std::max(1u, invocations_ - 1));
        return b_.bin(BinOp::Mod, b_.gid(0) + b_.u32(shift), b_.u32(invocations_));
      }
      case 2: return b_.u32(invocations_ - 1) - b_.gid(0);
      case 3: return b_.u32(c_.below(count));
      default:
        return slots_[q] == 2 ? b_.gid(0) + b_.u32(invocations_)
                              : b_.bin(BinOp::Mod, b_.gid(0) + b_.u32(1), b_.u32(invocations_));
    }
  }

  enum class Op { MixInput, LetMix, InvocationIf, Loop, Atomic, Exchange };

  void op(std::vector<S>& body, bool& exchanged) {
    std::vector<Op> kinds = {Op::MixInput, Op::LetMix, Op::InvocationIf, Op::Loop};
    if (acc_) kinds.push_back(Op::Atomic);
    if (!exchanged && wg_ > 1) kinds.push_back(Op::Exchange);
    switch (kinds[c_.below(static_cast<std::uint32_t>(kinds.size()))]) {
      case Op::MixInput: body.push_back(mix(b_.load(in_, index_expr()))); return;
      case Op::LetMix: {
        const std::string t = fresh("t");
        body.push_back(b_.let(t, expr(1)));
        body.push_back(mix(b_.var(t)));
        return;
      }
      case Op::InvocationIf: {
        const std::uint32_t modulus = 2 + c_.below(3);
        const std::uint32_t residue = c_.below(2);
        const E cond = b_.bin(BinOp::Mod, b_.gid(0), b_.u32(modulus)) == b_.u32(residue);
        body.push_back(b_.if_(cond, {b_.assign(accumulator_, b_.var(accumulator_) ^ expr(1))}));
        return;
      }
      case Op::Loop: {
        const std::string i = fresh("i");
        // Over a producer's buffer when there is one, else over the input.
        const bool producer = !readable_.empty() && c_.chance(2, 3);
        const std::uint32_t q = producer ? readable_[c_.below(static_cast<std::uint32_t>(readable_.size()))] : 0;
        const Buf src = producer ? own_[q] : in_;
        const std::uint32_t count = producer ? slots_[q] * invocations_ : input_count_;
        const E index = b_.bin(BinOp::Mod, b_.gid(0) + b_.var(i), b_.u32(count));
        body.push_back(b_.loop(i, b_.u32(0), b_.u32(1 + c_.below(3)), {mix(b_.load(src, index))}));
        return;
      }
      case Op::Atomic: body.push_back(atomic()); return;
      case Op::Exchange: {
        exchanged = true;
        const Buf sh = b_.workgroup(fmt::format("sh{}", wave_), wg_, ScalarType::U32);
        body.push_back(b_.store(sh, b_.lid(0), b_.var(accumulator_)));
        body.push_back(b_.barrier());
        const E other = b_.bin(BinOp::Mod, b_.lid(0) + b_.u32(c_.between(1, wg_ - 1)), b_.u32(wg_));
        body.push_back(mix(b_.load(sh, other)));
        body.push_back(b_.barrier());
        return;
      }
    }
  }

  /// let u = atomic_OP(acc, gid % 4, a & 255), the old value unused.
  S atomic() {
    const E index = b_.bin(BinOp::Mod, b_.gid(0), b_.u32(4));
    const E value = b_.var(accumulator_) & b_.u32(255);
    return b_.let(fresh("u"), b_.atomic(acc_op_, *acc_, index, value));
  }

  /// An index into in0: the own slot, a shifted one, or an arbitrary expression (out of bounds
  /// reads 0).
  E index_expr() {
    switch (c_.below(3)) {
      case 0: return b_.gid(0);
      case 1: return b_.bin(BinOp::Mod, b_.gid(0) + b_.u32(c_.below(input_count_)), b_.u32(input_count_));
      default: return expr(1);
    }
  }

  E leaf() {
    switch (c_.below(6)) {
      case 0: return b_.var(accumulator_);
      case 1: return b_.gid(0);
      case 2: return b_.lid(0);
      case 3: return b_.wgid(0);
      case 4: {
        static constexpr std::array<std::uint32_t, 6> kSmall = {1, 2, 3, 7, 255, 0x80000000u};
        return b_.u32(kSmall[c_.below(kSmall.size())]);
      }
      default: {
        // A load of the input or of a producer, at the own slot.
        const std::uint32_t pick = c_.below(static_cast<std::uint32_t>(readable_.size()) + 1);
        return pick == 0 ? b_.load(in_, b_.gid(0)) : b_.load(own_[readable_[pick - 1]], b_.gid(0));
      }
    }
  }

  E expr(std::uint32_t depth) {
    if (depth >= config_.max_expr_depth || c_.below(3) == 0) return leaf();
    static constexpr std::array<BinOp, 12> kOps = {BinOp::Add, BinOp::Sub,    BinOp::Mul,    BinOp::Div,
                                                   BinOp::Mod, BinOp::BitAnd, BinOp::BitOr,  BinOp::BitXor,
                                                   BinOp::Shl, BinOp::Shr,    BinOp::Min,    BinOp::Max};
    const BinOp op = kOps[c_.below(kOps.size())];
    const E l = expr(depth + 1);
    return b_.bin(op, l, expr(depth + 1));
  }

  ChoiceSource& c_;
  const DagConfig& config_;
  ir::Builder b_;
  DagShape shape_ = DagShape::Random;
  std::uint32_t n_ = 1;
  std::vector<std::uint32_t> reads_;
  std::vector<std::uint32_t> id_;                       ///< position -> wave id
  std::vector<std::vector<std::uint32_t>> data_preds_;  ///< position -> producer wave ids
  std::vector<WaveDependency> edges_, ordering_;
  std::uint32_t wg_ = 1, groups_ = 1, invocations_ = 1, input_count_ = 1;
  Buf in_;
  std::vector<Buf> own_;
  std::vector<std::uint32_t> slots_;
  std::optional<Buf> acc_;
  ir::AtomicOp acc_op_ = ir::AtomicOp::Add;
  std::uint32_t acc_wave_ = 0;
  std::uint32_t wave_ = 0, next_local_ = 0;
  std::vector<std::uint32_t> readable_;
  std::string accumulator_;
};

}  // namespace

std::string_view name_of(DagShape shape) {
  switch (shape) {
    case DagShape::Random: return "random";
    case DagShape::Deep: return "deep";
    case DagShape::Wide: return "wide";
    case DagShape::Diamond: return "diamond";
  }
  return "random";
}

std::string format_edges(const std::vector<planner::WaveDependency>& edges) {
  std::string out;
  for (const planner::WaveDependency& e : edges)
    fmt::format_to(std::back_inserter(out), "{}{}>{}", out.empty() ? "" : " ", e.before, e.after);
  return out;
}

std::optional<std::vector<planner::WaveDependency>> parse_edges(std::string_view text) {
  std::vector<planner::WaveDependency> edges;
  std::size_t i = 0;
  auto number = [&](std::size_t& out) {
    const char* first = text.data() + i;
    const auto [end, ec] = std::from_chars(first, text.data() + text.size(), out);
    if (ec != std::errc() || end == first) return false;
    i += static_cast<std::size_t>(end - first);
    return true;
  };
  while (true) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i == text.size()) return edges;
    planner::WaveDependency e;
    if (!number(e.before) || i >= text.size() || text[i] != '>') return std::nullopt;
    ++i;
    if (!number(e.after)) return std::nullopt;
    if (i < text.size() && text[i] != ' ') return std::nullopt;
    edges.push_back(e);
  }
}

WaveDag generate_dag(ChoiceSource& choices, const DagConfig& config, bool named) {
  return DagGenerator(choices, config).run(named);
}

std::vector<PlannerInput> generate_scratch_history(ChoiceSource& c, const DagConfig& config, std::size_t wave_count,
                                                   std::size_t edge_count) {
  std::vector<PlannerInput> history(c.below(4));
  const auto most = static_cast<std::uint32_t>(std::max<std::uint32_t>(config.max_waves, 1) * 2);
  for (PlannerInput& in : history) {
    // 0: the same counts, 1: fewer, 2: more, 3: refused (the counts of 0).
    const std::uint32_t mode = c.below(4);
    std::size_t n = std::max<std::size_t>(wave_count, 1), m = edge_count;
    if (mode == 1) {
      n = c.between(1, static_cast<std::uint32_t>(n));
      m = m == 0 ? 0 : c.below(static_cast<std::uint32_t>(m));
    } else if (mode == 2) {
      n = c.between(static_cast<std::uint32_t>(std::min<std::size_t>(n, most)), most);
      m = m + c.between(1, static_cast<std::uint32_t>(2 * n));
    }
    in.wave_count = n;
    if (n >= 2) {
      // Edges from an earlier to a later position of a random order of the ids.
      std::vector<std::size_t> id(n);
      std::iota(id.begin(), id.end(), std::size_t{0});
      for (std::size_t i = n - 1; i > 0; --i) std::swap(id[i], id[c.below(static_cast<std::uint32_t>(i + 1))]);
      for (std::size_t e = 0; e < m; ++e) {
        if (!in.edges.empty() && c.chance(1, 8)) {
          in.edges.push_back(in.edges[c.below(static_cast<std::uint32_t>(in.edges.size()))]);  // a duplicate
          continue;
        }
        const std::uint32_t after = c.between(1, static_cast<std::uint32_t>(n - 1));
        in.edges.push_back({id[c.below(after)], id[after]});
      }
    }
    if (mode == 3) {
      // The fault goes at a random place: the planner has counted the edges before it.
      planner::WaveDependency bad{n, 0};                         // 0: a wave out of range
      const std::uint32_t fault = c.below(3);
      if (fault == 1) bad = {n - 1, n - 1};                      // 1: a self-edge
      if (fault == 2 && !in.edges.empty()) bad = {in.edges.back().after, in.edges.back().before};  // 2: a cycle
      in.edges.insert(in.edges.begin() + c.below(static_cast<std::uint32_t>(in.edges.size() + 1)), bad);
    }
  }
  return history;
}

std::string format_history(const std::vector<PlannerInput>& history) {
  std::string out;
  for (const PlannerInput& in : history)
    fmt::format_to(std::back_inserter(out), "{}{}:{}", out.empty() ? "" : "; ", in.wave_count, format_edges(in.edges));
  return out;
}

std::optional<std::vector<PlannerInput>> parse_history(std::string_view text) {
  std::vector<PlannerInput> history;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find("; "), text.size());
    const std::string_view item = text.substr(0, end);
    text.remove_prefix(std::min(end + 2, text.size()));
    PlannerInput in;
    const auto [colon, ec] = std::from_chars(item.data(), item.data() + item.size(), in.wave_count);
    if (ec != std::errc() || colon == item.data() + item.size() || *colon != ':') return std::nullopt;
    auto edges = parse_edges(item.substr(static_cast<std::size_t>(colon - item.data()) + 1));
    if (!edges) return std::nullopt;
    in.edges = std::move(*edges);
    history.push_back(std::move(in));
  }
  return history;
}

std::optional<std::vector<std::size_t>> topological_order(std::size_t wave_count,
                                                          const std::vector<planner::WaveDependency>& edges) {
  std::vector<std::size_t> indegree(wave_count, 0);
  std::vector<std::vector<std::size_t>> out(wave_count);
  for (const planner::WaveDependency& e : edges) {
    if (e.before >= wave_count || e.after >= wave_count) return std::nullopt;
    out[e.before].push_back(e.after);
    ++indegree[e.after];
  }
  std::set<std::size_t> ready;
  for (std::size_t k = 0; k < wave_count; ++k)
    if (indegree[k] == 0) ready.insert(k);
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    const std::size_t k = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(k);
    for (std::size_t t : out[k])
      if (--indegree[t] == 0) ready.insert(t);
  }
  if (order.size() != wave_count) return std::nullopt;
  return order;
}

}  // namespace gridcheck::props
