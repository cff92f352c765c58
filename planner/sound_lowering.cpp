#include "planner/sound_lowering.hpp"

#include <algorithm>

#include "ir/ice.hpp"
#include "planner/ir_emit.hpp"
#include "planner/local_spill.hpp"
#include "planner/return_guard.hpp"
#include "planner/sound_refusals.hpp"
#include "planner/spill_layout.hpp"
#include "planner/stmt_queries.hpp"
#include "planner/workgroup_spill.hpp"

namespace gridcheck::planner {
namespace {

/// Which of the locals `a` and `b` the statements of `list` read (a Var expression naming them, at
/// any depth): one walk, no sets, that stops once both are found.
struct LocalReads {
  bool a = false;
  bool b = false;
  bool both() const { return a && b; }
};
void add_local_reads(const ir::Program& p, ir::ExprId id, ir::NameId a, ir::NameId b, LocalReads& out) {
  if (id == ir::kNoExpr) return;
  const ir::Expr& x = p.expr(id);
  if (x.kind == ir::ExprKind::Var) {
    out.a = out.a || x.var() == a;
    out.b = out.b || x.var() == b;
  }
  for (ir::ExprId operand : x.operands) {
    if (out.both()) return;
    if (operand != ir::kNoExpr) add_local_reads(p, operand, a, b, out);
  }
}
void add_local_reads(const ir::Program& p, std::span<const ir::StmtId> list, ir::NameId a, ir::NameId b,
                     LocalReads& out) {
  for (ir::StmtId id : list) {
    if (out.both()) return;
    const ir::Stmt& s = p.stmt(id);
    for (ir::ExprId root : s.exprs) add_local_reads(p, root, a, b, out);
    if (s.has_body()) {
      add_local_reads(p, p.list(s.body), a, b, out);
      add_local_reads(p, p.list(s.otherwise), a, b, out);
    }
  }
}

}  // namespace

ir::Result<LoweredSource> sound_lower(const ir::Program& source, const SoundLoweringOptions& options) {
  if (binds_name_starting_with(source, kReservedPrefix))  // the set (its order names the one reported) only then
    for (const std::string& name : bound_names(source))
      if (name.starts_with(kReservedPrefix)) return sound_refusal::reserved_name(name);

  ir::Program work = source;
  for (ir::BufferDecl& d : work.mutable_buffers()) d.output_byte_range.reset();
  LoweredSource lowered;
  if (!has_fence(work, work.entry_stmts())) {
    lowered.program = std::move(work);
    return lowered;
  }

  // 2. fences under uniform control flow
  const std::vector<ir::StmtId> entry(work.entry_stmts().begin(), work.entry_stmts().end());
  ir::Result<std::vector<ir::StmtId>> flat = lower_uniform_fences(work, entry, options.unroll);
  if (!flat) return flat.diagnostics();
  work.set_entry(std::span<const ir::StmtId>(*flat));
  ir::Result<ir::TypeTable> typed = ir::typecheck(work);
  if (!typed) return sound_refusal::untyped_program(typed.diagnostics());
  const ir::TypeTable& types = *typed;

  // 3. the cut with local spills
  SpillLayout layout(work);
  LocalSpillCut cut = cut_with_local_spills(work, *flat, types, layout);

  // 4. drop segments that do nothing
  std::vector<std::vector<ir::StmtId>> segments;
  for (std::vector<ir::StmtId>& seg : cut.segments)
    if (!std::all_of(seg.begin(), seg.end(), [&](ir::StmtId id) { return is_noop(work, id, &types); }))
      segments.push_back(std::move(seg));
  if (segments.empty()) segments.push_back(std::move(cut.segments.front()));
  const std::size_t n = segments.size();

  // 5. returned flags and workgroup memory
  std::vector<bool> returns(n), returned_before(n, false);
  for (std::size_t k = 0; k < n; ++k) {
    returns[k] = has_return(work, segments[k]);
    if (k > 0) returned_before[k] = returned_before[k - 1] || returns[k - 1];
  }
  const WorkgroupSpillPlan shared = plan_workgroup_spills(work, segments);
  Emit emit(work);
  std::vector<ir::StmtId> top;
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<ir::StmtId> items = segments[k];
    ir::NameId generator = work.intern("gridcheck.sound.segment"), source_region = ir::kNoName;
    if (items.size() == 1 && work.stmt(items[0]).kind == ir::StmtKind::Region) {
      const ir::Stmt root = work.stmt(items[0]);
      generator = root.names[0];
      source_region = root.names[1];
      items.assign(work.list(root.body).begin(), work.list(root.body).end());
    }
    const bool stores_flag = returns[k] && k + 1 < n;
    const bool guarded = returned_before[k] || stores_flag;
    std::vector<ir::StmtId> body = items;
    if (guarded) {
      const ReturnGuardInput input{layout.returned_local(), &types, &cut.restores};
      ir::Result<std::vector<ir::StmtId>> g = guard_returns(work, items, returned_before[k], input);
      if (!g) return g.diagnostics();
      body = std::move(*g);
    }
    std::vector<ir::StmtId> code;
    if (guarded)
      code.push_back(emit.let(layout.returned_local(),
                              returned_before[k] ? layout.returned_flag() : emit.boolean(false)));
    for (ir::StmtId id : workgroup_restore_code(work, layout, shared.restore[k])) code.push_back(id);
    code.insert(code.end(), body.begin(), body.end());
    if (stores_flag) code.push_back(layout.store_returned_flag());
    for (ir::StmtId id : workgroup_spill_code(work, layout, shared.spill[k])) code.push_back(id);
    std::vector<ir::StmtId> prologue;
    // A local the layout never read cannot be read here: nothing to look for (true = settled).
    LocalReads reads{!layout.emitted_invocation_reads(), !layout.emitted_count_reads()};
    if (!reads.both()) add_local_reads(work, code, layout.invocation_local(), layout.count_local(), reads);
    if (layout.emitted_invocation_reads() && reads.a)
      prologue.push_back(emit.let(layout.invocation_local(), emit.linear_invocation()));
    if (layout.emitted_count_reads() && reads.b)
      prologue.push_back(emit.let(layout.count_local(), emit.invocation_count()));
    prologue.insert(prologue.end(), code.begin(), code.end());
    if (k > 0) top.push_back(emit.grid_sync());
    top.push_back(emit.region(generator, source_region, prologue));
  }
  work.set_entry(std::span<const ir::StmtId>(top));
  lowered.scratch = layout.declare();
  // With two or more segments the split only copies reachable nodes out of the lowered program
  // (rewrap_segment, node by node, a shared node once per use), so the lowering's garbage may stay.
  // A single segment is run as the program itself: compacted, as before, so that it holds no
  // unreachable or shared nodes.
  if (n > 1)
    lowered.program = std::move(work);
  else
    lowered.program = work.compacted();
  return lowered;
}

}  // namespace gridcheck::planner
