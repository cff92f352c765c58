#include "props/mutants/mutant_catalogue.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>

#include "ir/abi.hpp"
#include "ir/equality.hpp"
#include "ir/walk.hpp"
#include "planner/live_buffers.hpp"
#include "props/mutants/megakernel_mutants.hpp"

namespace gridcheck::props {

using planner::Disposition;
using planner::FirstWriter;
using planner::Profile;
using planner::RoleDecision;
using planner::RoleFacts;

std::string_view name_of(MutantKind kind) {
  switch (kind) {
    case MutantKind::RoleRule: return "role";
    case MutantKind::Split: return "split";
    case MutantKind::Table: return "table";
    case MutantKind::Dispatch: return "dispatch";
    case MutantKind::Megakernel: return "megakernel";
  }
  GC_ICE("unknown MutantKind");
}

namespace {

// ------------------------------------------------------------------------------------ helpers

bool is_rewrite_to(const RoleDecision& d, ir::BufferAccess access) {
  return d.disposition == Disposition::Rewrite && d.access == access;
}

RoleDecision rewrite(ir::BufferAccess access, std::string_view reason) {
  RoleDecision d;
  d.disposition = Disposition::Rewrite;
  d.access = access;
  d.kind = planner::rederived_kind(access);
  d.reason = reason;
  return d;
}

/// The base's role rule with `change` applied to its decision.
Profile wrap_role(const Profile& base, std::function<RoleDecision(const RoleFacts&, RoleDecision)> change) {
  Profile p = base;
  p.table.role = [inner = base.table.role, change = std::move(change)](const RoleFacts& f) {
    return change(f, inner(f));
  };
  return p;
}

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

// ------------------------------------------------------------------------- megakernel faults

using MegakernelResult = planner::Expected<planner::BarrierPlan, planner::MegakernelError>;

// ------------------------------------------------------------------------------- the catalogue

std::vector<Mutant> build_catalogue() {
  std::vector<Mutant> all;
  auto add = [&](std::string name, std::string description, std::string origin, MutantKind kind, MutantBase base,
                 std::function<Profile(const Profile&)> apply, std::string equivalent = {}) {
    all.push_back(Mutant{std::move(name), std::move(description), std::move(origin), kind, base,
                         std::move(equivalent), std::move(apply)});
  };
  using K = MutantKind;
  using B = MutantBase;

  // ---------------------------------------------------------------- spec §9: the history (H0-H6)
  add("M0-final-from-last-segment",
      "final outputs are the last segment's outputs only; a buffer the last segment does not produce comes back as "
      "zeros",
      "spec §9 H0 (M0)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
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
      "spec §9 H2 (M1)", K::RoleRule, B::SoundOrVyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if (f.writes && !f.reads && f.first_writer == FirstWriter::Earlier && is_rewrite_to(d, ir::BufferAccess::ReadWrite))
            return rewrite(ir::BufferAccess::WriteOnly, "M1: accumulator row dropped");
          return d;
        });
      });
  add("M2-first-writer-inclusive",
      "the accumulator row uses first <= k: the first writing segment of an output becomes read_write (consumes a "
      "seed)",
      "spec §9 H2 (M2)", K::RoleRule, B::Vyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if ((f.is_output || f.live_out) && f.writes && f.first_writer == FirstWriter::This &&
              is_rewrite_to(d, ir::BufferAccess::WriteOnly))
            return rewrite(ir::BufferAccess::ReadWrite, "M2: first <= k");
          return d;
        });
      });
  add("M3-keep-is-output-last",
      "the last segment that writes an is_output buffer keeps is_output, so it is no longer a segment input (H1 rule)",
      "spec §9 H1/H2 (M3)", K::RoleRule, B::SoundOrVyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if (d.disposition == Disposition::Rewrite && f.is_output && f.writes && f.last_segment) d.is_output = true;
          return d;
        });
      });
  add("M4-per-segment-fixpoint",
      "fixpoint N relaunches each segment N times on its own (one pass) instead of the whole sequence N times",
      "spec §9 H2 (M4)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.schedule = [](std::uint32_t iterations) { return planner::PassSchedule{1, iterations}; };
        return p;
      });
  add("M5-compare-initial-state",
      "the early exit also compares the first pass with the initial state, so a first pass that leaves the owned "
      "state unchanged stops the loop",
      "spec §9 H3 (M5)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.convergence = [inner = base.dispatch.convergence] {
          return std::unique_ptr<planner::Convergence>(std::make_unique<InitialStateConvergence>(inner()));
        };
        return p;
      });
  add("M6-fingerprint-includes-borrowed",
      "the convergence fingerprint XORs in the borrowed (caller) entries as well as the owned ones",
      "spec §9 H3 (M6)", K::Dispatch, B::Vyre,
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
      "spec §9 H3 (M7)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.convergence = [] { return std::unique_ptr<planner::Convergence>(std::make_unique<FixedConvergence>(true)); };
        return p;
      });
  add("M8-never-stop", "the early exit never fires: every fixpoint pass runs (same bytes, more launches)",
      "spec §9 H3 (M8)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.convergence = [] { return std::unique_ptr<planner::Convergence>(std::make_unique<FixedConvergence>(false)); };
        return p;
      });
  add("M9-no-zero-seed",
      "backend-allocated buffers read before their first write are not zero-seeded (the segment input has no bytes)",
      "spec §9 H6 (M9)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.seed_inputs = [](const ir::Program&, const planner::SplitPlan&, planner::LiveMap&) {
          return std::optional<ir::Diagnostic>{};
        };
        return p;
      });
  add("M10-seed-slice-length",
      "the zero seed of a backend-allocated buffer with an output_byte_range has the slice's length, not the "
      "buffer's",
      "spec §9 H6 (M10)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
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
      "spec §9 F1 (bc388cc99)", K::RoleRule, B::Vyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if ((f.backend_allocated() || f.live_out) && f.writes && f.first_writer == FirstWriter::Earlier &&
              is_rewrite_to(d, ir::BufferAccess::WriteOnly))
            return rewrite(ir::BufferAccess::ReadWrite, "F1: accumulator (backend-allocated)");
          return d;
        });
      });
  add("F2-applied",
      "the post-0.7.2 F2 fix: async/indirect/trap operands are scanned and an opaque node touches every buffer",
      "spec §9 F2 (883411a10)", K::Table, B::Vyre, [](const Profile& base) {
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
      "spec §9 F3 (c07085048)", K::Dispatch, B::Vyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.convergence = [] { return std::unique_ptr<planner::Convergence>(std::make_unique<ExactConvergence>()); };
        return p;
      });
  add("F4-reverted",
      "free names of propagated lets are resolved in HashSet order (a fresh random key per set), so the let prefix "
      "order changes from plan to plan",
      "spec §9 F4 (531614949 reverted)", K::Split, B::Vyre, [](const Profile& base) {
        Profile p = base;
        p.split.free_name_order = hash_set_order;
        return p;
      });

  // -------------------------------------------------------------------------------- our own
  add("drop-rw-passthrough",
      "a buffer the segment does not reference is omitted even where the base keeps it as a read_write passthrough",
      "ours", K::RoleRule, B::SoundOrVyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if (!f.reads && !f.writes && d.disposition == Disposition::Rewrite) {
            RoleDecision omit;
            omit.reason = "passthrough dropped";
            return omit;
          }
          return d;
        });
      });
  add("read-write-as-read", "a segment that reads and writes a buffer declares it read (its stores have nowhere to go)",
      "ours", K::RoleRule, B::SoundOrVyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if (f.reads && f.writes && is_rewrite_to(d, ir::BufferAccess::ReadWrite))
            return rewrite(ir::BufferAccess::ReadOnly, "read-write as read");
          return d;
        });
      });
  add("workgroup-omitted", "workgroup memory is omitted from the segments instead of kept unchanged", "ours",
      K::RoleRule, B::SoundOrVyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if (f.access == ir::BufferAccess::Workgroup) {
            RoleDecision omit;
            omit.reason = "workgroup omitted";
            return omit;
          }
          return d;
        });
      });
  add("first-writer-off-by-one",
      "the first-writer map is one segment late (the first writing segment sees `later`, the second `this`)", "ours",
      K::Table, B::Vyre, [](const Profile& base) {
        Profile p = base;
        p.table.first_writer = [inner = base.table.first_writer](std::span<const planner::BufferAccessSet> scans) {
          planner::FirstWriterMap first = inner(scans);
          for (auto& [name, k] : first) ++k;
          return first;
        };
        return p;
      });
  add("swap-output-names",
      "the executor's output slots are zipped with the output names in reverse order (buffers swap live values)",
      "ours", K::Table, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.table.output_names = [inner = base.table.output_names](const ir::Program& program) {
          std::vector<std::string> names = inner(program);
          std::reverse(names.begin(), names.end());
          return names;
        };
        return p;
      });
  add("wrong-input-order", "a segment's inputs are gathered in reverse order", "ours", K::Dispatch, B::SoundOrVyre,
      [](const Profile& base) {
        Profile p = base;
        p.dispatch.gather_inputs = [inner = base.dispatch.gather_inputs](const planner::SplitPlan& plan, std::size_t k,
                                                                         const planner::LiveMap& live,
                                                                         std::vector<const planner::Bytes*>& inputs) {
          auto error = inner(plan, k, live, inputs);
          std::reverse(inputs.begin(), inputs.end());
          return error;
        };
        return p;
      });
  add("refresh-keeps-stale",
      "the refresh copies instead of swapping, in the wrong direction: an owned live entry keeps its stale bytes "
      "(only a borrowed entry's first refresh lands)",
      "ours", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.refresh = [](const planner::SplitPlan& plan, std::size_t k, std::vector<planner::Bytes>& outputs,
                                planner::LiveMap& live) {
          return planner::refresh_named_outputs_with(plan, k, outputs, live,
                                                     [](planner::LiveBuffer& entry, planner::Bytes& produced) {
                                                       if (!entry.is_owned()) {
                                                         entry.refresh_from_output(produced);
                                                         return;
                                                       }
                                                       produced = entry.bytes();  // the stale alias wins
                                                     });
        };
        return p;
      });
  add("skip-let-propagation", "lets used after a fence are not propagated into the later segments", "ours", K::Split,
      B::Vyre, [](const Profile& base) {
        Profile p = base;
        p.split.propagate_lets = [](const ir::Program&, std::span<const ir::StmtId>, std::vector<planner::SegmentNodes>&,
                                    const planner::NameOrder&) {};
        return p;
      });
  add("no-hoist", "fences inside blocks and regions are not hoisted, so such a segment still holds its fence",
      "ours", K::Split, B::Vyre, [](const Profile& base) {
        Profile p = base;
        p.split.hoist = [](ir::Program&, std::span<const ir::StmtId> sequence) {
          return std::vector<ir::StmtId>(sequence.begin(), sequence.end());
        };
        return p;
      });
  add("drop-last-segment", "the cut loses the segment after the last fence", "ours", K::Split, B::SoundOrVyre,
      [](const Profile& base) {
        Profile p = base;
        p.split.cut = [inner = base.split.cut](const ir::Program& work, std::span<const ir::StmtId> hoisted) {
          std::vector<planner::SegmentNodes> segments = inner(work, hoisted);
          if (segments.size() > 1) segments.pop_back();
          return segments;
        };
        return p;
      });
  add("segment-grid-inferred",
      "segments ignore the caller's explicit grid and infer their own from their rewritten tables (G1 everywhere)",
      "ours (spec §10 G1)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.segment_launch = [inner = base.dispatch.segment_launch](
                                        const planner::RunConfig& config, const ir::Program& source,
                                        const planner::PlannedSegment& segment, std::uint32_t fixpoint) {
          planner::LaunchConfig launch = inner(config, source, segment, fixpoint);
          launch.grid_override.reset();
          return launch;
        };
        return p;
      });
  add("launch-guard-off",
      "the S012 guard is gone: a segment that still holds a fence is launched (spec G5: the backend would split it "
      "again)",
      "ours (spec §10 G5)", K::Dispatch, B::Vyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.launch_guard = [](const planner::SplitPlan&, std::size_t) { return std::optional<ir::Diagnostic>{}; };
        return p;
      });

  // ------------------------------------------------------------------------ megakernel planner
  add("mk-cycle-undercount",
      "a cyclic wave graph reports only the waves that are on a cycle as unscheduled, not those downstream of it",
      "ours (spec §7.1 step 7)", K::Megakernel, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.megakernel = [inner = base.megakernel](std::size_t waves, std::span<const planner::WaveDependency> deps,
                                                 planner::BarrierScratch& scratch) -> MegakernelResult {
          MegakernelResult r = inner(waves, deps, scratch);
          if (r.ok() || r.error().kind != planner::MegakernelErrorKind::Cycle) return r;
          // Waves on a cycle: those that reach themselves.
          std::vector<std::vector<std::size_t>> next(waves);
          for (const planner::WaveDependency& d : deps) next[d.before].push_back(d.after);
          std::size_t on_cycle = 0;
          for (std::size_t w = 0; w < waves; ++w) {
            std::vector<bool> seen(waves, false);
            std::vector<std::size_t> stack(next[w].begin(), next[w].end());
            bool back = false;
            while (!stack.empty() && !back) {
              const std::size_t v = stack.back();
              stack.pop_back();
              if (v == w) back = true;
              if (seen[v]) continue;
              seen[v] = true;
              stack.insert(stack.end(), next[v].begin(), next[v].end());
            }
            on_cycle += back ? 1 : 0;
          }
          return planner::MegakernelError::cycle(on_cycle);
        };
        return p;
      });

  for (Mutant& m : contributed_megakernel_mutants()) all.push_back(std::move(m));
  return all;
}

}  // namespace

std::vector<Mutant> contributed_megakernel_mutants() {
  std::vector<Mutant> out;
  for (const MegakernelMutant& m : megakernel_mutants()) {
    Mutant mutant;
    mutant.name = std::string(m.name);
    mutant.description = std::string(m.description);
    mutant.origin = "props/megakernel_mutants (DAG property)";
    mutant.kind = MutantKind::Megakernel;
    mutant.base = MutantBase::SoundOrVyre;
    if (m.equivalent)
      mutant.equivalent =
          "every plan it returns still runs the waves correctly (the DAG property, R-waves, accepts it; "
          "props/megakernel_mutants.hpp)";
    mutant.apply = [&m](const Profile& base) { return with_mutant(base, m); };
    out.push_back(std::move(mutant));
  }
  return out;
}

const std::vector<Mutant>& mutant_catalogue() {
  static const std::vector<Mutant> catalogue = build_catalogue();
  return catalogue;
}

const Mutant* find_mutant(std::string_view name) {
  for (const Mutant& m : mutant_catalogue())
    if (m.name == name) return &m;
  return nullptr;
}

const Profile& mutant_base(const Mutant& mutant) {
  if (mutant.base == MutantBase::SoundOrVyre)
    if (const Profile* sound = planner::find_profile("sound")) return *sound;
  return planner::vyre_0_7_2();
}

Profile make_mutant(const Mutant& mutant, const Profile& base) {
  Profile p = mutant.apply(base);
  p.name = mutant.name;
  p.description = fmt::format("mutant of {}: {}", base.name, mutant.description);
  return p;
}

Profile renamed(const Profile& profile, std::string name) {
  Profile p = profile;
  p.name = std::move(name);
  return p;
}

}  // namespace gridcheck::props
