#include "planner/return_guard.hpp"

#include "ir/ice.hpp"
#include "planner/ir_emit.hpp"
#include "planner/sound_refusals.hpp"
#include "planner/stmt_queries.hpp"

namespace gridcheck::planner {
namespace {

class Guard {
 public:
  Guard(ir::Program& work, const ReturnGuardInput& input) : work_(work), input_(input), emit_(work) {}

  // The guarded form of `seq`; `returned` = the invocation may have returned before `seq` starts.
  bool sequence(std::span<const ir::StmtId> seq, bool returned, std::vector<ir::StmtId>& out) {
    const std::vector<ir::StmtId> items(seq.begin(), seq.end());
    std::vector<ir::StmtId> pending;  // statements waiting for one shared guard
    auto flush = [&]() -> bool {
      if (pending.empty()) return true;
      std::vector<ir::StmtId> inner;
      if (!sequence(pending, false, inner)) return false;
      out.push_back(emit_.if_(emit_.logical_not(emit_.var(input_.returned_local)), inner));
      pending.clear();
      return true;
    };
    for (ir::StmtId id : items) {
      const ir::Stmt s = work_.stmt(id);
      if (!returned) {
        ir::StmtId converted;
        if (!convert(id, converted)) return false;
        out.push_back(converted);
        returned = has_return(work_, id);
        continue;
      }
      if (s.kind == ir::StmtKind::Let) {
        if (!flush()) return false;
        const bool safe = (input_.safe_lets != nullptr && input_.safe_lets->contains(id)) ||
                          is_speculatable(work_, s.exprs[0], input_.types);
        if (safe) {
          out.push_back(id);
        } else {
          out.push_back(emit_.let(s.names[0], emit_.zero((*input_.types)[s.exprs[0]])));
          pending.push_back(emit_.assign(s.names[0], emit_.wrap(s.exprs[0])));
        }
        continue;
      }
      if (s.kind == ir::StmtKind::Barrier || (s.has_body() && has_workgroup_barrier(work_, id))) {
        if (!flush()) return false;
        ir::StmtId kept;
        if (!barrier_bearing(id, kept)) return false;
        out.push_back(kept);
        continue;
      }
      pending.push_back(id);
    }
    return flush();
  }

  ir::Diagnostic error() const { return error_; }

 private:
  // `id` executed by every invocation (none returned before it): returns inside become the flag.
  bool convert(ir::StmtId id, ir::StmtId& out) {
    const ir::Stmt s = work_.stmt(id);
    if (s.kind == ir::StmtKind::Return) {
      out = emit_.assign(input_.returned_local, emit_.boolean(true));
      return true;
    }
    if (!s.has_body() || !has_return(work_, id)) {
      out = id;
      return true;
    }
    const bool loop_returns = s.kind == ir::StmtKind::Loop;  // a later iteration follows a return
    std::vector<ir::StmtId> body, otherwise;
    if (!sequence(work_.list(s.body), loop_returns, body) || !sequence(work_.list(s.otherwise), false, otherwise))
      return false;
    out = emit_.rebuild(id, body, otherwise);
    return true;
  }

  // A barrier, or a container holding one, after a possible return: kept in place for every
  // invocation, its bodies guarded inside.
  bool barrier_bearing(ir::StmtId id, ir::StmtId& out) {
    const ir::Stmt s = work_.stmt(id);
    if (!s.has_body()) {
      out = id;
      return true;
    }
    if (s.kind == ir::StmtKind::If || s.kind == ir::StmtKind::Loop) {
      for (ir::ExprId e : s.exprs)
        if (e != ir::kNoExpr && !is_speculatable(work_, e, input_.types)) {
          error_ = sound_refusal::trapping_control_after_return(
              work_.loc(id), s.kind == ir::StmtKind::If ? "an `if` condition" : "a loop bound");
          return false;
        }
    }
    std::vector<ir::StmtId> body, otherwise;
    if (!sequence(work_.list(s.body), true, body) || !sequence(work_.list(s.otherwise), true, otherwise)) return false;
    out = emit_.rebuild(id, body, otherwise);
    return true;
  }

  ir::Program& work_;
  const ReturnGuardInput& input_;
  Emit emit_;
  ir::Diagnostic error_;
};

}  // namespace

ir::Result<std::vector<ir::StmtId>> guard_returns(ir::Program& work, std::span<const ir::StmtId> body,
                                                  bool may_have_returned, const ReturnGuardInput& input) {
  GC_ASSERT(input.types != nullptr);
  Guard guard(work, input);
  std::vector<ir::StmtId> out;
  if (!guard.sequence(body, may_have_returned, out)) return guard.error();
  return out;
}

}  // namespace gridcheck::planner
