#pragma once
// Invocations that returned before a fence stay returned (docs/vyre-0.7.2.md#g2). Under true grid sync a
// `return` ends the invocation for the rest of the launch; a split segment is a new launch, so the
// sound split keeps a per-invocation flag instead of returning:
//
//   `return`                        -> `__gc_ret = true`
//   a statement after a point where the invocation may have returned
//                                   -> `if !__gc_ret { ... }` (consecutive ones share one guard)
//   a `let` there                   -> kept when its value is speculatable (stmt_queries.hpp), else
//                                      `let v = <zero>` + a guarded `v = value`
//   a workgroup barrier, or an if/loop/block/region holding one
//                                   -> not guarded: every invocation of the workgroup still reaches
//                                      it in uniform control flow (GPU-valid, no `return` before a
//                                      barrier); its body is guarded inside, and its condition or
//                                      bounds must be speculatable (else SR005)
//
// `__gc_ret` is a bool local the segment prologue declares (false, or the flag the previous
// segments left in `__gc_returned`); the epilogue stores it back. Inside a loop whose body may
// return, every iteration starts "may have returned".

#include <span>
#include <unordered_set>
#include <vector>

#include "ir/diagnostic.hpp"
#include "ir/program.hpp"
#include "ir/typecheck.hpp"

namespace gridcheck::planner {

struct ReturnGuardInput {
  ir::NameId returned_local;  ///< `__gc_ret`
  const ir::TypeTable* types = nullptr;  ///< types of the original expressions (lets' zero values)
  /// Lets that are safe to execute unguarded whatever their value (the spill code's restores).
  const std::unordered_set<ir::StmtId>* safe_lets = nullptr;
};

/// Rewrites `body` (a segment's statements) so that no `return` remains. `may_have_returned`: an
/// earlier segment may have returned this invocation. Fails with SR005.
ir::Result<std::vector<ir::StmtId>> guard_returns(ir::Program& work, std::span<const ir::StmtId> body,
                                                  bool may_have_returned, const ReturnGuardInput& input);

}  // namespace gridcheck::planner
