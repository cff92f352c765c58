#include "planner/uniform_fence_lowering.hpp"

#include <string>

#include "ir/ice.hpp"
#include "planner/program_copy.hpp"
#include "planner/sound_refusals.hpp"
#include "planner/stmt_queries.hpp"

namespace gridcheck::planner {
namespace {

class Lowering {
 public:
  Lowering(ir::Program& work, const UnrollLimits& limits) : work_(work), limits_(limits) {}

  // Appends the lowered form of `seq` to `out`; false (with `error_` set) on a refusal.
  bool lower(std::span<const ir::StmtId> seq, std::vector<ir::StmtId>& out) {
    const std::vector<ir::StmtId> items(seq.begin(), seq.end());  // the pool grows below
    for (ir::StmtId id : items) {
      if (!has_fence(work_, id)) {
        out.push_back(id);
        continue;
      }
      ir::Stmt s = work_.stmt(id);
      const ir::SourceLoc loc = work_.loc(id);
      switch (s.kind) {
        case ir::StmtKind::Barrier: out.push_back(id); break;
        case ir::StmtKind::Block:
        case ir::StmtKind::Region: {
          std::vector<ir::StmtId> body;
          if (!lower(work_.list(s.body), body)) return false;
          s.body = work_.add_list(body);
          out.push_back(work_.add_stmt(s, loc));
          break;
        }
        case ir::StmtKind::If: {
          std::string why;
          if (!is_grid_invariant(work_, s.exprs[0], &why)) {
            error_ = sound_refusal::fence_under_variant_if(loc, why);
            return false;
          }
          std::vector<ir::StmtId> then_body, else_body;
          if (!lower(work_.list(s.body), then_body) || !lower(work_.list(s.otherwise), else_body)) return false;
          s.body = work_.add_list(then_body);
          s.otherwise = work_.add_list(else_body);
          out.push_back(work_.add_stmt(s, loc));
          break;
        }
        case ir::StmtKind::Loop:
          if (!unroll(s, loc, out)) return false;
          break;
        default: GC_ICE("a grid_sync nested in a statement without a body");
      }
    }
    return true;
  }

  ir::Diagnostic error() const { return error_; }

 private:
  bool unroll(const ir::Stmt& loop, ir::SourceLoc loc, std::vector<ir::StmtId>& out) {
    const std::string var(work_.name(loop.names[0]));
    const std::optional<std::uint32_t> from = u32_literal(work_, loop.exprs[0]);
    const std::optional<std::uint32_t> to = u32_literal(work_, loop.exprs[1]);
    if (!from || !to) {
      error_ = sound_refusal::fence_in_runtime_loop(loc, var);
      return false;
    }
    const std::uint64_t iterations = *to > *from ? std::uint64_t{*to} - *from : 0;
    std::vector<ir::StmtId> body;
    if (!lower(work_.list(loop.body), body)) return false;
    const std::uint64_t statements = iterations * (statement_count(work_, body) + 2);
    if (iterations > limits_.max_iterations || statements > limits_.max_statements) {
      error_ = sound_refusal::unroll_limit(loc, var, iterations, statements, limits_.max_iterations,
                                           limits_.max_statements);
      return false;
    }
    for (std::uint64_t k = 0; k < iterations; ++k) {
      ir::Expr value;
      value.kind = ir::ExprKind::LitU32;
      value.payload = static_cast<std::uint32_t>(*from + k);
      ir::Stmt let;
      let.kind = ir::StmtKind::Let;
      let.names[0] = loop.names[0];
      let.exprs[0] = work_.add_expr(value, loc);
      std::vector<ir::StmtId> iteration{work_.add_stmt(let, loc)};
      const std::vector<ir::StmtId> copy = clone_stmts(work_, body);
      iteration.insert(iteration.end(), copy.begin(), copy.end());
      ir::Stmt block;
      block.kind = ir::StmtKind::Block;
      block.body = work_.add_list(iteration);
      out.push_back(work_.add_stmt(block, loc));
    }
    return true;
  }

  ir::Program& work_;
  const UnrollLimits& limits_;
  ir::Diagnostic error_;
};

}  // namespace

ir::Result<std::vector<ir::StmtId>> lower_uniform_fences(ir::Program& work, std::span<const ir::StmtId> entry,
                                                         const UnrollLimits& limits) {
  Lowering lowering(work, limits);
  std::vector<ir::StmtId> out;
  if (!lowering.lower(entry, out)) return lowering.error();
  return out;
}

}  // namespace gridcheck::planner
