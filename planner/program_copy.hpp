#pragma once
// Deep copies of statement lists between program arenas. A split segment is built as a fresh,
// compact program holding only its own nodes (the source arena is never copied per segment), so
// planning stays linear in the program size however many fences it has.

#include <span>
#include <vector>

#include "ir/program.hpp"

namespace gridcheck::planner {

/// Copies nodes of `from` into `to`, re-interning names by spelling. Each call copies the whole
/// subtree again (a statement listed twice becomes two nodes), which keeps ids private to `to`.
class ProgramCopier {
 public:
  ProgramCopier(const ir::Program& from, ir::Program& to);

  ir::NameId name(ir::NameId id);
  ir::ExprId expr(ir::ExprId id);
  ir::StmtId stmt(ir::StmtId id);
  ir::StmtList list(std::span<const ir::StmtId> ids);
  ir::StmtList list(ir::StmtList l) { return list(from_.list(l)); }
  /// A declaration of `from` with its name interned into `to`.
  ir::BufferDecl buffer(const ir::BufferDecl& decl);

 private:
  const ir::Program& from_;
  ir::Program& to_;
  std::vector<ir::NameId> names_;  // index: name in `from`; kNoName until interned
  std::vector<ir::StmtId> stack_;  // copied ids of the lists being copied
};

/// Deep copies of a subtree inside one arena (new statement and expression nodes, same names and
/// locations): an unrolled loop body gets private nodes per iteration.
ir::ExprId clone_expr(ir::Program& p, ir::ExprId id);
ir::StmtId clone_stmt(ir::Program& p, ir::StmtId id);
std::vector<ir::StmtId> clone_stmts(ir::Program& p, std::span<const ir::StmtId> ids);

/// A program with `from`'s workgroup size, the given declarations (names of `from`) and an entry
/// copied from `entry` (statements of `from`).
ir::Program program_from(const ir::Program& from, std::span<const ir::BufferDecl> buffers,
                         std::span<const ir::StmtId> entry);

}  // namespace gridcheck::planner
