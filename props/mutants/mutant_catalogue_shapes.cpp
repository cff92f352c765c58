// The catalogue's third family: faults that only show in the shapes the generator's shape features
// make (multi_dim_grid, workgroup_tail, loop_start, fenced_else, long_fixpoint; the scratch-reuse
// fault is a megakernel mutant, mutant_catalogue_megakernel.cpp). Each models one plausible slip in
// the sound profile's lowering or dispatch, as a wrap of one profile member; on the shapes the
// generator made before those features existed each one is an identity.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "planner/exact_convergence.hpp"
#include "planner/stmt_queries.hpp"
#include "props/mutants/catalogue_builders.hpp"
#include "props/mutants/program_rewrite.hpp"

namespace gridcheck::props::catalogue_builders {
namespace {

using planner::Profile;

/// The base's `split.lower` applied to a rewritten copy of the source (a fault of the lowering's
/// first steps, which see the source's own statements).
Profile rewrite_before_lowering(const Profile& base, StmtRewrite change) {
  Profile p = base;
  p.split.lower = [inner = base.split.lower, change = std::move(change)](const ir::Program& source) {
    ir::Program changed = source;
    rewrite_statements(changed, change);
    return inner(changed);
  };
  return p;
}

/// The base's `split.lower` with a rewrite of the program it produces (a fault of the code the
/// lowering adds: spills, restores, workgroup copies).
Profile rewrite_after_lowering(const Profile& base, StmtRewrite change) {
  Profile p = base;
  p.split.lower = [inner = base.split.lower, change = std::move(change)](const ir::Program& source) {
    ir::Result<planner::LoweredSource> lowered = inner(source);
    if (lowered && lowered->program) rewrite_statements(*lowered->program, change);
    return lowered;
  };
  return p;
}

ir::ExprId binary(ir::Program& p, ir::BinOp op, ir::ExprId lhs, ir::ExprId rhs) {
  ir::Expr e;
  e.kind = ir::ExprKind::Binary;
  e.op = static_cast<std::uint8_t>(op);
  e.operands = {lhs, rhs, ir::kNoExpr};
  return p.add_expr(e);
}

bool is_binary(const ir::Program& p, ir::ExprId id, ir::BinOp op) {
  const ir::Expr& e = p.expr(id);
  return e.kind == ir::ExprKind::Binary && e.bin_op() == op;
}

/// `(C + W - 1) / W` -> `C / W`: the copy loop of workgroup_spill.cpp rounds its trip count down.
std::optional<ir::ExprId> rounded_down_trips(ir::Program& p, ir::ExprId trips) {
  if (!is_binary(p, trips, ir::BinOp::Div)) return std::nullopt;
  const ir::Expr div = p.expr(trips);
  if (!is_binary(p, div.operands[0], ir::BinOp::Sub)) return std::nullopt;
  const ir::ExprId sum = p.expr(div.operands[0]).operands[0];
  if (!is_binary(p, sum, ir::BinOp::Add)) return std::nullopt;
  return binary(p, ir::BinOp::Div, p.expr(sum).operands[0], div.operands[1]);
}

/// Passes stop when the state (the live map without the pass-local scratch, as ExactConvergence
/// compares it) equals the one of the previous pass or of the pass before it.
class PeriodTwoConvergence final : public planner::Convergence {
 public:
  void set_pass_local(std::span<const planner::ScratchBuffer> scratch) override {
    for (const planner::ScratchBuffer& s : scratch) pass_local_.insert(s.name);
  }
  void start(const planner::LiveMap&) override { history_.clear(); }
  bool converged(const planner::LiveMap& live) override {
    std::map<std::string, planner::Bytes, std::less<>> state;
    for (const auto& [name, buffer] : live)
      if (!pass_local_.contains(name)) state.emplace(name, buffer.bytes());
    const bool repeated = std::find(history_.begin(), history_.end(), state) != history_.end();
    history_.push_back(std::move(state));
    if (history_.size() > 2) history_.erase(history_.begin());
    return repeated;
  }

 private:
  std::set<std::string, std::less<>> pass_local_;
  std::vector<std::map<std::string, planner::Bytes, std::less<>>> history_;
};

}  // namespace

void add_shape_mutants(std::vector<Mutant>& all) {
  const MutantAppender add(all);
  using K = MutantKind;
  using B = MutantBase;

  // ------------------------------------------------------------- multi_dim_grid
  add("grid-x-extent-only",
      "every segment launches the whole program's grid with its y and z extents dropped ({g.x, 1, 1})",
      "ours (generator shape multi_dim_grid)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.segment_launch = [inner = base.dispatch.segment_launch](
                                        const planner::RunConfig& config, const ir::Program& source,
                                        const planner::PlannedSegment& segment, std::uint32_t fixpoint) {
          planner::LaunchConfig launch = inner(config, source, segment, fixpoint);
          if (launch.grid_override) launch.grid_override = std::array<std::uint32_t, 3>{(*launch.grid_override)[0], 1, 1};
          return launch;
        };
        return p;
      });
  add("scratch-sized-by-x",
      "the spill scratch is sized from the x extents only (grid.x·wg.x invocations, grid.x workgroups): the "
      "slots of invocations with y or z > 0 fall outside it",
      "ours (generator shape multi_dim_grid)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.prepare_launches = [inner = base.dispatch.prepare_launches](
                                          const ir::Program& source, const planner::SplitPlan& plan,
                                          planner::RunConfig& config, planner::LiveMap& live) {
          if (auto error = inner(source, plan, config, live)) return error;
          if (!config.grid) return std::optional<ir::Diagnostic>{};
          const auto size = config.workgroup_override.value_or(source.workgroup_size());
          const std::uint64_t workgroups = (*config.grid)[0];
          const std::uint64_t invocations = workgroups * size[0];
          for (const planner::ScratchBuffer& s : plan.scratch) {
            const std::uint64_t words = s.words_per_invocation * invocations + s.words_per_workgroup * workgroups;
            live.insert_or_assign(s.name, planner::LiveBuffer::owned(planner::Bytes(
                                              static_cast<std::size_t>(words * ir::BufferDecl::kElementBytes), 0)));
          }
          return std::optional<ir::Diagnostic>{};
        };
        return p;
      });

  // ------------------------------------------------------------- workgroup_tail
  add("workgroup-copy-no-tail",
      "the loop that copies a workgroup buffer across a fence runs floor(C/W) times instead of ceil(C/W): the "
      "elements past the last whole multiple of the workgroup size (all of them when C < W) come back as zeros",
      "ours (generator shape workgroup_tail)", K::Split, B::SoundOrVyre, [](const Profile& base) {
        return rewrite_after_lowering(base, [](ir::Program& p, ir::StmtId id) -> std::optional<ir::StmtId> {
          const ir::Stmt& s = p.stmt(id);
          if (s.kind != ir::StmtKind::Loop || p.name(s.names[0]) != "__gc_j") return std::nullopt;
          const std::optional<ir::ExprId> trips = rounded_down_trips(p, s.exprs[1]);
          if (!trips) return std::nullopt;
          ir::Stmt changed = s;
          changed.exprs[1] = *trips;
          return p.add_stmt(changed, p.loc(id));
        });
      });

  // ------------------------------------------------------------- loop_start
  add("fenced-loop-from-zero",
      "the unrolled iterations of a loop holding a fence bind the loop variable to 0, 1, … instead of start, "
      "start+1, … (the trip count stays right)",
      "ours (generator shape loop_start)", K::Split, B::SoundOrVyre, [](const Profile& base) {
        return rewrite_before_lowering(base, [](ir::Program& p, ir::StmtId id) -> std::optional<ir::StmtId> {
          const ir::Stmt& s = p.stmt(id);
          if (s.kind != ir::StmtKind::Loop || !planner::has_fence(p, id)) return std::nullopt;
          const std::optional<std::uint32_t> from = planner::u32_literal(p, s.exprs[0]);
          const std::optional<std::uint32_t> to = planner::u32_literal(p, s.exprs[1]);
          if (!from || !to || *from == 0) return std::nullopt;
          ir::Stmt changed = s;
          ir::Expr zero;
          zero.kind = ir::ExprKind::LitU32;
          ir::Expr trips = zero;
          trips.payload = *to > *from ? *to - *from : 0;
          changed.exprs = {p.add_expr(zero), p.add_expr(trips)};
          return p.add_stmt(changed, p.loc(id));
        });
      });

  // ------------------------------------------------------------- fenced_else
  add("fenced-if-else-dropped",
      "an if holding a fence loses its else branch when the lowering distributes it over the cut",
      "ours (generator shape fenced_else)", K::Split, B::SoundOrVyre, [](const Profile& base) {
        return rewrite_before_lowering(base, [](ir::Program& p, ir::StmtId id) -> std::optional<ir::StmtId> {
          const ir::Stmt& s = p.stmt(id);
          if (s.kind != ir::StmtKind::If || s.otherwise.empty() || !planner::has_fence(p, id)) return std::nullopt;
          ir::Stmt changed = s;
          changed.otherwise = {};
          return p.add_stmt(changed, p.loc(id));
        });
      });
  add("fenced-else-first-piece-only",
      "the else branch of a fenced if is kept only up to its first fence: the else's statements after it are lost "
      "in the later segments",
      "ours (generator shape fenced_else)", K::Split, B::SoundOrVyre, [](const Profile& base) {
        return rewrite_before_lowering(base, [](ir::Program& p, ir::StmtId id) -> std::optional<ir::StmtId> {
          const ir::Stmt& s = p.stmt(id);
          if (s.kind != ir::StmtKind::If || !planner::has_fence(p, p.list(s.otherwise))) return std::nullopt;
          const std::span<const ir::StmtId> branch = p.list(s.otherwise);
          std::vector<ir::StmtId> kept;
          for (ir::StmtId stmt : branch) {
            if (planner::has_fence(p, stmt)) break;
            kept.push_back(stmt);
          }
          ir::Stmt changed = s;
          changed.otherwise = p.add_list(kept);
          return p.add_stmt(changed, p.loc(id));
        });
      });

  // ------------------------------------------------------------- long_fixpoint
  add("fixpoint-capped-at-3", "the dispatch loop runs at most 3 fixpoint passes, whatever the caller asked for",
      "ours (generator shape long_fixpoint)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.schedule = [inner = base.dispatch.schedule](std::uint32_t iterations) {
          planner::PassSchedule schedule = inner(iterations);
          schedule.passes = std::min<std::uint32_t>(schedule.passes, 3);
          return schedule;
        };
        return p;
      });
  add("convergence-period-two",
      "the early exit also stops when a pass's state equals the state two passes back, so a state that oscillates "
      "with period 2 is taken for converged",
      "ours (generator shape long_fixpoint)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.convergence = [] { return std::make_unique<PeriodTwoConvergence>(); };
        return p;
      });
}

}  // namespace gridcheck::props::catalogue_builders
