// The catalogue's first family: the historic bugs of docs/vyre-0.7.2.md §9 (M0-M10 reintroduced on their base;
// F1-F3 applied and F4 reverted on vyre-0.7.2), and the faulty hooks they install.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ir/abi.hpp"
#include "ir/equality.hpp"
#include "ir/program.hpp"
#include "planner/live_buffers.hpp"
#include "props/mutants/catalogue_builders.hpp"

namespace gridcheck::props::catalogue_builders {

using planner::Disposition;
using planner::FirstWriter;
using planner::Profile;
using planner::RoleDecision;
using planner::RoleFacts;

namespace {

/// The owned entries of a live map, by name (what the convergence checks compare).
std::map<std::string, planner::Bytes, std::less<>> owned_state(const planner::LiveMap& live) {
  std::map<std::string, planner::Bytes, std::less<>> state;
  for (const auto& [name, buffer] : live)
    if (buffer.is_owned()) state.emplace(name, buffer.bytes());
  return state;
}

/// M5: the inner convergence, plus "the state after the first pass equals the initial state".
class InitialStateConvergence final : public planner::Convergence {
 public:
  explicit InitialStateConvergence(std::unique_ptr<planner::Convergence> inner) : inner_(std::move(inner)) {}
  void start(const planner::LiveMap& live) override {
    inner_->start(live);
    initial_ = owned_state(live);
    first_ = true;
  }
  bool converged(const planner::LiveMap& live) override {
    const bool inner = inner_->converged(live);
    if (!first_) return inner;
    first_ = false;
    return inner || owned_state(live) == initial_;
  }

 private:
  std::unique_ptr<planner::Convergence> inner_;
  std::map<std::string, planner::Bytes, std::less<>> initial_;
  bool first_ = true;
};

/// M6: vyre's XOR fingerprint over every live entry, borrowed ones included.
class AllEntriesFingerprint final : public planner::Convergence {
 public:
  void start(const planner::LiveMap&) override { previous_.reset(); }
  bool converged(const planner::LiveMap& live) override {
    std::uint64_t fp = 0;
    for (const auto& [name, buffer] : live) fp ^= planner::live_buffer_hash(name, buffer.bytes());
    if (previous_ == fp) return true;
    previous_ = fp;
    return false;
  }

 private:
  std::optional<std::uint64_t> previous_;
};

/// F3 (c07085048): exact per-buffer comparison of the owned state with the previous pass's.
class ExactConvergence final : public planner::Convergence {
 public:
  void start(const planner::LiveMap&) override { previous_.reset(); }
  bool converged(const planner::LiveMap& live) override {
    auto state = owned_state(live);
    if (previous_ && *previous_ == state) return true;
    previous_ = std::move(state);
    return false;
  }

 private:
  std::optional<std::map<std::string, planner::Bytes, std::less<>>> previous_;
};

/// M7 / M8: a fixed answer.
class FixedConvergence final : public planner::Convergence {
 public:
  explicit FixedConvergence(bool answer) : answer_(answer) {}
  void start(const planner::LiveMap&) override {}
  bool converged(const planner::LiveMap&) override { return answer_; }

 private:
  bool answer_;
};

/// F2 (883411a10): the 0.7.2 scan plus what the fix adds: AsyncLoad/AsyncStore read their source
/// and write their destination, IndirectDispatch reads its count buffer, the operand expressions of
/// AsyncLoad/AsyncStore/Trap are scanned, and an Opaque node reads and writes every buffer.
void scan_f2_additions(const ir::Program& program, ir::StmtId id, planner::BufferAccessSet& out) {
  const ir::Stmt& s = program.stmt(id);
  auto recurse = [&](ir::StmtList list) {
    for (ir::StmtId child : program.list(list)) scan_f2_additions(program, child, out);
  };
  auto scan = [&](ir::ExprId e) {
    if (e != ir::kNoExpr) planner::scan_expr_accesses(program, e, out);
  };
  switch (s.kind) {
    case ir::StmtKind::If:
      recurse(s.body);
      recurse(s.otherwise);
      break;
    case ir::StmtKind::Loop:
    case ir::StmtKind::Block:
    case ir::StmtKind::Region: recurse(s.body); break;
    case ir::StmtKind::AsyncLoad:
    case ir::StmtKind::AsyncStore:
      out.reads.emplace(program.name(s.names[0]));
      out.writes.emplace(program.name(s.names[1]));
      scan(s.exprs[0]);
      scan(s.exprs[1]);
      break;
    case ir::StmtKind::IndirectDispatch: out.reads.emplace(program.name(s.names[0])); break;
    case ir::StmtKind::Trap: scan(s.exprs[0]); break;
    case ir::StmtKind::Opaque:
      for (const ir::BufferDecl& b : program.buffers()) {
        out.reads.emplace(program.name(b.name));
        out.writes.emplace(program.name(b.name));
      }
      break;
    default: break;
  }
}

/// F4 reverted: free names in the iteration order of a Rust HashSet with a fresh RandomState: a
/// keyed hash order whose key changes with every set built (RandomState::new increments its
/// per-thread key; the thread's first key is random), so two plans of one program can differ.
void hash_set_order(std::vector<std::string_view>& names) {
  thread_local std::uint64_t key = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
  const std::uint64_t k = key++;
  auto hash = [k](std::string_view name) {
    std::uint64_t z = ir::fnv1a64(name.data(), name.size()) ^ (k * 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  std::sort(names.begin(), names.end(), [&](std::string_view a, std::string_view b) {
    const std::uint64_t ha = hash(a), hb = hash(b);
    return ha != hb ? ha < hb : a < b;
  });
}

}  // namespace

void add_historic_mutants(std::vector<Mutant>& all) {
  const MutantAppender add(all);
  using K = MutantKind;
  using B = MutantBase;

  // ---------------------------------------------------------------- docs/vyre-0.7.2.md §9: the history (H0-H6)
  add("M0-final-from-last-segment",
      "final outputs are the last segment's outputs only; a buffer the last segment does not produce comes back as "
      "zeros",
      "docs/vyre-0.7.2.md#h0 (M0)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.collect_final = [inner = base.dispatch.collect_final](const ir::Program& source,
                                                                          const planner::SplitPlan& plan,
                                                                          planner::LiveMap& live,
                                                                          std::vector<planner::Bytes>& outputs) {
          auto error = inner(source, plan, live, outputs);
          if (error || plan.segments.empty()) return error;
          const auto& last = plan.segments.back().output_names;
          for (std::size_t i = 0; i < plan.final_outputs.size() && i < outputs.size(); ++i)
            if (std::find(last.begin(), last.end(), plan.final_outputs[i]) == last.end())
              std::fill(outputs[i].begin(), outputs[i].end(), std::uint8_t{0});
          return error;
        };
        return p;
      });
  add("M1-drop-accumulator",
      "a later segment that writes but does not read an already-written buffer gets write_only (zero-filled), not "
      "read_write",
      "docs/vyre-0.7.2.md#h2 (M1)", K::RoleRule, B::SoundOrVyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if (f.writes && !f.reads && f.first_writer == FirstWriter::Earlier && is_rewrite_to(d, ir::BufferAccess::ReadWrite))
            return rewrite(ir::BufferAccess::WriteOnly, "M1: accumulator row dropped");
          return d;
        });
      });
  add("M2-first-writer-inclusive",
      "the accumulator row uses first <= k: the first writing segment of an output becomes read_write (consumes a "
      "seed)",
      "docs/vyre-0.7.2.md#h2 (M2)", K::RoleRule, B::Vyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if ((f.is_output || f.live_out) && f.writes && f.first_writer == FirstWriter::This &&
              is_rewrite_to(d, ir::BufferAccess::WriteOnly))
            return rewrite(ir::BufferAccess::ReadWrite, "M2: first <= k");
          return d;
        });
      });
  add("M3-keep-is-output-last",
      "the last segment that writes an is_output buffer keeps is_output, so it is no longer a segment input (H1 rule)",
      "docs/vyre-0.7.2.md §9 H1/H2 (M3)", K::RoleRule, B::SoundOrVyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if (d.disposition == Disposition::Rewrite && f.is_output && f.writes && f.last_segment) d.is_output = true;
          return d;
        });
      });
  add("M4-per-segment-fixpoint",
      "fixpoint N relaunches each segment N times on its own (one pass) instead of the whole sequence N times",
      "docs/vyre-0.7.2.md#h2 (M4)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.schedule = [](std::uint32_t iterations) { return planner::PassSchedule{1, iterations}; };
        return p;
      });
  add("M5-compare-initial-state",
      "the early exit also compares the first pass with the initial state, so a first pass that leaves the owned "
      "state unchanged stops the loop",
      "docs/vyre-0.7.2.md#h3 (M5)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.convergence = [inner = base.dispatch.convergence] {
          return std::unique_ptr<planner::Convergence>(std::make_unique<InitialStateConvergence>(inner()));
        };
        return p;
      });
  add("M6-fingerprint-includes-borrowed",
      "the convergence fingerprint XORs in the borrowed (caller) entries as well as the owned ones",
      "docs/vyre-0.7.2.md#h3 (M6)", K::Dispatch, B::Vyre,
      [](const Profile& base) {
        Profile p = base;
        p.dispatch.convergence = [] { return std::unique_ptr<planner::Convergence>(std::make_unique<AllEntriesFingerprint>()); };
        return p;
      },
      "every segment output is refreshed (and so owned) during pass 1, borrowed entries are never written, and "
      "passes are compared only with the previous pass (never with the initial state): from the end of pass 1 on, "
      "the borrowed entries are the same constant set, and XOR-ing a constant into both fingerprints cannot change "
      "whether they are equal");
  add("M7-stop-after-first-pass", "the early exit fires after the first pass, whatever the state",
      "docs/vyre-0.7.2.md#h3 (M7)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.convergence = [] { return std::unique_ptr<planner::Convergence>(std::make_unique<FixedConvergence>(true)); };
        return p;
      });
  add("M8-never-stop", "the early exit never fires: every fixpoint pass runs (same bytes, more launches)",
      "docs/vyre-0.7.2.md#h3 (M8)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.convergence = [] { return std::unique_ptr<planner::Convergence>(std::make_unique<FixedConvergence>(false)); };
        return p;
      });
  add("M9-no-zero-seed",
      "backend-allocated buffers read before their first write are not zero-seeded (the segment input has no bytes)",
      "docs/vyre-0.7.2.md#h6 (M9)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.seed_inputs = [](const ir::Program&, const planner::SplitPlan&, planner::LiveMap&) {
          return std::optional<ir::Diagnostic>{};
        };
        return p;
      });
  add("M10-seed-slice-length",
      "the zero seed of a backend-allocated buffer with an output_byte_range has the slice's length, not the "
      "buffer's",
      "docs/vyre-0.7.2.md#h6 (M10)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.seed_inputs = [](const ir::Program& source, const planner::SplitPlan& plan, planner::LiveMap& live) {
          return planner::seed_backend_allocated_inputs(
              source, plan, live, [](const ir::BufferDecl& b) -> std::optional<std::uint64_t> {
                if (b.output_byte_range && b.output_byte_range->end >= b.output_byte_range->begin)
                  return b.output_byte_range->end - b.output_byte_range->begin;
                return ir::backend_allocation_bytes(b);
              });
        };
        return p;
      });
  add("F1-applied",
      "the post-0.7.2 F1 fix: the accumulator row keys on backend allocation or live_out, so a plain write_only "
      "buffer's later writer is read_write",
      "docs/vyre-0.7.2.md#f1 (bc388cc99)", K::RoleRule, B::Vyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if ((f.backend_allocated() || f.live_out) && f.writes && f.first_writer == FirstWriter::Earlier &&
              is_rewrite_to(d, ir::BufferAccess::WriteOnly))
            return rewrite(ir::BufferAccess::ReadWrite, "F1: accumulator (backend-allocated)");
          return d;
        });
      });
  add("F2-applied",
      "the post-0.7.2 F2 fix: async/indirect/trap operands are scanned and an opaque node touches every buffer",
      "docs/vyre-0.7.2.md#f2 (883411a10)", K::Table, B::Vyre, [](const Profile& base) {
        Profile p = base;
        p.table.scan = [inner = base.table.scan](const ir::Program& segment) {
          planner::BufferAccessSet out = inner(segment);
          for (ir::StmtId id : segment.entry_stmts()) scan_f2_additions(segment, id, out);
          return out;
        };
        return p;
      });
  add("F3-applied",
      "the post-0.7.2 F3 fix: the early exit compares the owned bytes exactly instead of an XOR of FNV-1a-64 hashes",
      "docs/vyre-0.7.2.md#f3 (c07085048)", K::Dispatch, B::Vyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.convergence = [] { return std::unique_ptr<planner::Convergence>(std::make_unique<ExactConvergence>()); };
        return p;
      });
  add("F4-reverted",
      "free names of propagated lets are resolved in HashSet order (a fresh random key per set), so the let prefix "
      "order changes from plan to plan",
      "docs/vyre-0.7.2.md#f4 (531614949 reverted)", K::Split, B::Vyre, [](const Profile& base) {
        Profile p = base;
        p.split.free_name_order = hash_set_order;
        return p;
      });
}

}  // namespace gridcheck::props::catalogue_builders
