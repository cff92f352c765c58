#pragma once
// Building IR inside an existing arena (the builder DSL, ir/builder.hpp, owns its own program). The
// planner's transformations use it to emit spill, restore and guard code into the work program.
// Expressions are ir::E, so the DSL's C++ operators (+ * == ...) apply.

#include <span>
#include <string_view>
#include <vector>

#include "ir/builder.hpp"
#include "ir/program.hpp"

namespace gridcheck::planner {

class Emit {
 public:
  /// New nodes get location `loc` (the construct they stand for), unknown by default.
  explicit Emit(ir::Program& p, ir::SourceLoc loc = {}) : p_(p), loc_(loc) {}

  ir::Program& program() { return p_; }
  ir::NameId name(std::string_view spelling) { return p_.intern(spelling); }

  // -- expressions
  ir::E wrap(ir::ExprId id) { return ir::E{&p_, id}; }
  ir::E u32(std::uint32_t v);
  ir::E zero(ir::ScalarType type);
  ir::E boolean(bool v);
  ir::E var(ir::NameId name);
  ir::E load(ir::NameId buffer, ir::E index);
  ir::E builtin(ir::ExprKind kind, std::uint32_t axis);
  ir::E logical_not(ir::E x);
  ir::E select(ir::E cond, ir::E if_true, ir::E if_false);
  /// Linear global invocation index: gid.x + X·(gid.y + Y·gid.z), X, Y the grid's extents in invocations.
  ir::E linear_invocation();
  /// Invocations of the dispatch: the product of the three extents.
  ir::E invocation_count();
  /// Linear workgroup index and linear local index, and invocations per workgroup.
  ir::E linear_workgroup();
  ir::E linear_local();
  ir::E workgroup_invocations();

  // -- statements
  ir::StmtId let(ir::NameId name, ir::E value);
  ir::StmtId assign(ir::NameId name, ir::E value);
  ir::StmtId store(ir::NameId buffer, ir::E index, ir::E value);
  ir::StmtId if_(ir::E cond, std::span<const ir::StmtId> then_body, std::span<const ir::StmtId> else_body = {});
  ir::StmtId loop(ir::NameId var, ir::E from, ir::E to, std::span<const ir::StmtId> body);
  ir::StmtId barrier();
  ir::StmtId grid_sync();
  ir::StmtId region(ir::NameId generator, ir::NameId source_region, std::span<const ir::StmtId> body);
  /// A copy of a Block, Region or If statement with new bodies (same kind, names, condition, location).
  ir::StmtId rebuild(ir::StmtId original, std::span<const ir::StmtId> body,
                     std::span<const ir::StmtId> otherwise = {});

 private:
  ir::E expr(const ir::Expr& e);
  ir::StmtId stmt(const ir::Stmt& s);

  ir::Program& p_;
  ir::SourceLoc loc_;
};

}  // namespace gridcheck::planner
