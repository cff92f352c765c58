#include "planner/local_spill.hpp"

#include <algorithm>

#include "ir/ice.hpp"
#include "planner/ir_emit.hpp"
#include "planner/program_copy.hpp"
#include "planner/stmt_queries.hpp"

namespace gridcheck::planner {
namespace {

using Pieces = std::vector<std::vector<ir::StmtId>>;

class Cutter {
 public:
  Cutter(ir::Program& work, const ir::TypeTable& types, SpillLayout& layout, LocalSpillCut& out)
      : work_(work), types_(types), layout_(layout), out_(out), emit_(work) {}

  // Cuts one scope's statement list into pieces (one per segment it spans), with this scope's
  // spills and restores in place (nested scopes handle theirs in the recursion).
  Pieces cut(std::span<const ir::StmtId> seq) {
    const std::vector<ir::StmtId> items(seq.begin(), seq.end());  // the pool grows below
    Pieces pieces(1);
    std::vector<std::pair<ir::StmtId, std::size_t>> lets;  // this scope's lets and their piece
    for (ir::StmtId id : items) {
      const ir::Stmt s = work_.stmt(id);
      if (s.is_fence()) {
        pieces.emplace_back();
        continue;
      }
      if (!has_fence(work_, id)) {
        pieces.back().push_back(id);
        if (s.kind == ir::StmtKind::Let) lets.emplace_back(id, pieces.size() - 1);
        continue;
      }
      Pieces body = cut(work_.list(s.body));
      Pieces otherwise;
      if (s.kind == ir::StmtKind::If) {
        otherwise = cut(work_.list(s.otherwise));
        const std::size_t n = std::max(body.size(), otherwise.size());
        body.resize(n);
        otherwise.resize(n);
      } else {
        GC_ASSERT(s.kind == ir::StmtKind::Block || s.kind == ir::StmtKind::Region);
        otherwise.resize(body.size());
      }
      for (std::size_t k = 0; k < body.size(); ++k) {
        if (k > 0) pieces.emplace_back();
        const ir::StmtId piece = emit_.rebuild(id, body[k], otherwise[k]);
        if (!is_noop(work_, piece)) pieces.back().push_back(piece);
      }
    }
    if (pieces.size() > 1 && !lets.empty()) place_spills(pieces, lets);
    return pieces;
  }

 private:
  void place_spills(Pieces& pieces, const std::vector<std::pair<ir::StmtId, std::size_t>>& lets) {
    const std::size_t m = pieces.size();
    std::vector<LocalUses> uses(m);
    for (std::size_t j = 0; j < m; ++j) collect_local_uses(work_, pieces[j], uses[j]);
    std::vector<std::vector<ir::StmtId>> spills(m), restores(m);
    for (const auto& [let, d] : lets) {
      const ir::NameId v = work_.stmt(let).names[0];
      const ir::ScalarType type = types_[work_.stmt(let).exprs[0]];
      // Only later pieces matter: no other local of this name is in scope there (no shadowing).
      std::size_t last_read = d;
      bool assigned = false;
      for (std::size_t j = d; j < m; ++j) {
        if (j > d && uses[j].reads(v)) last_read = j;
        assigned = assigned || uses[j].assigns(v);
      }
      const ir::ExprId value = work_.stmt(let).exprs[0];
      const bool recompute = !assigned && is_recomputable(work_, value) && is_speculatable(work_, value, &types_);
      for (std::size_t j = d; j + 1 < m; ++j) {
        const bool read_after = last_read > j;
        if (read_after && !recompute && (j == d || uses[j].assigns(v))) {
          spills[j].push_back(layout_.spill(let, type));
          ++out_.spilled_locals;
        }
        if (!uses[j + 1].references(v)) continue;
        const ir::E restored = !read_after ? emit_.zero(type)
                               : recompute ? emit_.wrap(clone_expr(work_, value))
                                           : layout_.restored(let, type);
        const ir::StmtId restore = emit_.let(v, restored);
        out_.restores.insert(restore);
        restores[j + 1].push_back(restore);
      }
    }
    for (std::size_t j = 0; j < m; ++j) {
      if (restores[j].empty() && spills[j].empty()) continue;
      std::vector<ir::StmtId> piece = std::move(restores[j]);
      piece.insert(piece.end(), pieces[j].begin(), pieces[j].end());
      piece.insert(piece.end(), spills[j].begin(), spills[j].end());
      pieces[j] = std::move(piece);
    }
  }

  ir::Program& work_;
  const ir::TypeTable& types_;
  SpillLayout& layout_;
  LocalSpillCut& out_;
  Emit emit_;
};

}  // namespace

LocalSpillCut cut_with_local_spills(ir::Program& work, std::span<const ir::StmtId> entry, const ir::TypeTable& types,
                                    SpillLayout& layout) {
  LocalSpillCut out;
  Cutter cutter(work, types, layout, out);
  out.segments = cutter.cut(entry);
  return out;
}

}  // namespace gridcheck::planner
