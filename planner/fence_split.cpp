#include "planner/fence_split.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "ir/walk.hpp"
#include "planner/program_copy.hpp"

namespace gridcheck::planner {

void sort_names(std::vector<std::string_view>& names) { std::sort(names.begin(), names.end()); }

bool contains_grid_sync(const ir::Program& program) {
  bool found = false;
  ir::for_each_stmt(program, program.entry(), [&](ir::StmtId id) { found = found || program.stmt(id).is_fence(); });
  return found;
}

std::size_t count_fences(const ir::Program& program, ir::StmtList list) {
  std::size_t count = 0;
  ir::for_each_stmt(program, list, [&](ir::StmtId id) { count += program.stmt(id).is_fence() ? 1 : 0; });
  return count;
}

Peeled peel_wrappers(const ir::Program& program) {
  Peeled peeled;
  std::span<const ir::StmtId> current = program.entry_stmts();
  while (current.size() == 1) {
    const ir::Stmt& s = program.stmt(current[0]);
    if (s.kind == ir::StmtKind::Region)
      peeled.wrappers.push_back(Wrapper{ir::StmtKind::Region, s.names[0], s.names[1]});
    else if (s.kind == ir::StmtKind::Block)
      peeled.wrappers.push_back(Wrapper{ir::StmtKind::Block, ir::kNoName, ir::kNoName});
    else
      break;
    current = program.list(s.body);
  }
  peeled.inner.assign(current.begin(), current.end());
  return peeled;
}

namespace {

bool has_top_level_fence(const ir::Program& work, std::span<const ir::StmtId> sequence) {
  return std::any_of(sequence.begin(), sequence.end(), [&](ir::StmtId id) { return work.stmt(id).is_fence(); });
}

// A container of the same kind (and, for a Region, the same generator and source_region) over `body`.
ir::StmtId rebuild_container(ir::Program& work, const ir::Stmt& original, std::span<const ir::StmtId> body) {
  ir::Stmt s;
  s.kind = original.kind;
  s.names = original.names;
  s.body = work.add_list(body);
  return work.add_stmt(s);
}

}  // namespace

std::vector<ir::StmtId> hoist_grid_sync_barriers(ir::Program& work, std::span<const ir::StmtId> sequence) {
  std::vector<ir::StmtId> out;
  out.reserve(sequence.size());
  for (ir::StmtId id : sequence) {
    const ir::Stmt original = work.stmt(id);  // by value: `work` grows below
    if (original.kind != ir::StmtKind::Block && original.kind != ir::StmtKind::Region) {
      out.push_back(id);  // If, Loop and everything else: unchanged, nested fences included
      continue;
    }
    const std::vector<ir::StmtId> body(work.list(original.body).begin(), work.list(original.body).end());
    const std::vector<ir::StmtId> hoisted = hoist_grid_sync_barriers(work, body);
    if (!has_top_level_fence(work, hoisted)) {
      out.push_back(hoisted == body ? id : rebuild_container(work, original, hoisted));
      continue;
    }
    std::vector<ir::StmtId> piece;
    for (ir::StmtId child : hoisted) {
      if (work.stmt(child).is_fence()) {
        out.push_back(rebuild_container(work, original, piece));
        out.push_back(child);
        piece.clear();
      } else {
        piece.push_back(child);
      }
    }
    out.push_back(rebuild_container(work, original, piece));
  }
  return out;
}

std::vector<SegmentNodes> cut_at_fences(const ir::Program& work, std::span<const ir::StmtId> hoisted) {
  std::vector<SegmentNodes> segments(1);
  for (ir::StmtId id : hoisted) {
    if (work.stmt(id).is_fence())
      segments.emplace_back();
    else
      segments.back().body.push_back(id);
  }
  return segments;
}

namespace {

class LetResolver {
 public:
  LetResolver(const ir::Program& work, const std::unordered_map<ir::NameId, ir::StmtId>& global_lets,
              const NameOrder& order)
      : work_(work), global_lets_(global_lets), order_(order) {}

  void resolve(ir::NameId name, std::vector<ir::StmtId>& prefix) {
    if (resolved_.contains(name)) return;
    const auto it = global_lets_.find(name);
    if (it == global_lets_.end()) return;  // silently ignored (docs/vyre-0.7.2.md §6.6)
    resolved_.insert(name);
    std::unordered_set<ir::NameId> vars;
    ir::for_each_expr(work_, work_.stmt(it->second).exprs[0], [&](ir::ExprId e) {
      if (work_.expr(e).kind == ir::ExprKind::Var) vars.insert(work_.expr(e).var());
    });
    for (ir::NameId dependency : ordered(vars)) resolve(dependency, prefix);
    prefix.push_back(it->second);
  }

  std::vector<ir::NameId> ordered(const std::unordered_set<ir::NameId>& names) const {
    std::vector<std::string_view> spelled;
    spelled.reserve(names.size());
    for (ir::NameId n : names) spelled.push_back(work_.name(n));
    order_(spelled);
    std::vector<ir::NameId> out;
    out.reserve(spelled.size());
    for (std::string_view s : spelled) out.push_back(*work_.find_name(s));
    return out;
  }

 private:
  const ir::Program& work_;
  const std::unordered_map<ir::NameId, ir::StmtId>& global_lets_;
  const NameOrder& order_;
  std::unordered_set<ir::NameId> resolved_;
};

}  // namespace

void propagate_lets(const ir::Program& work, std::span<const ir::StmtId> hoisted,
                    std::vector<SegmentNodes>& segments, const NameOrder& order) {
  // Pre-order through If (then, else), Loop, Block and Region; the last Let of a name wins.
  std::unordered_map<ir::NameId, ir::StmtId> global_lets;
  auto visit = [&](ir::StmtId id) {
    const ir::Stmt& s = work.stmt(id);
    if (s.kind == ir::StmtKind::Let) global_lets[s.names[0]] = id;
  };
  for (ir::StmtId top : hoisted) {
    visit(top);
    const ir::Stmt& s = work.stmt(top);
    if (s.has_body()) {
      ir::for_each_stmt(work, s.body, visit);
      ir::for_each_stmt(work, s.otherwise, visit);
    }
  }

  for (SegmentNodes& segment : segments) {
    std::unordered_set<ir::NameId> locally_defined;
    std::unordered_set<ir::NameId> referenced;
    auto scan = [&](ir::StmtId id) {
      const ir::Stmt& s = work.stmt(id);
      if (s.kind == ir::StmtKind::Let || s.kind == ir::StmtKind::Loop) locally_defined.insert(s.names[0]);
      ir::for_each_stmt_operand(s, [&](ir::ExprId root) {
        ir::for_each_expr(work, root, [&](ir::ExprId e) {
          if (work.expr(e).kind == ir::ExprKind::Var) referenced.insert(work.expr(e).var());
        });
      });
    };
    for (ir::StmtId top : segment.body) {
      scan(top);
      const ir::Stmt& s = work.stmt(top);
      if (s.has_body()) {
        ir::for_each_stmt(work, s.body, scan);
        ir::for_each_stmt(work, s.otherwise, scan);
      }
    }
    std::unordered_set<ir::NameId> free;
    for (ir::NameId n : referenced)
      if (!locally_defined.contains(n)) free.insert(n);
    LetResolver resolver(work, global_lets, order);
    std::vector<ir::StmtId> prefix;
    for (ir::NameId name : resolver.ordered(free)) resolver.resolve(name, prefix);
    segment.let_prefix = std::move(prefix);
  }
}

ir::Program make_segment_skeleton(const ir::Program& source) {
  ir::Program out;
  out.set_workgroup_size(source.workgroup_size());
  ProgramCopier from_source(source, out);
  for (const ir::BufferDecl& decl : source.buffers()) out.add_buffer(from_source.buffer(decl));
  return out;
}

ir::Program rewrap_segment(const ir::Program&, const HostSplit& split, const SegmentNodes& segment) {
  ir::Program out = split.skeleton;
  // At most the whole work arena is copied; reserving it once spares the growth of every arena.
  out.reserve_more(split.work.expr_count(), split.work.stmt_count(), split.work.list_pool_size());

  ProgramCopier copier(split.work, out);
  std::vector<ir::StmtId> inner;
  inner.reserve(segment.let_prefix.size() + segment.body.size());
  for (ir::StmtId id : segment.let_prefix) inner.push_back(copier.stmt(id));
  for (ir::StmtId id : segment.body) inner.push_back(copier.stmt(id));
  for (auto it = split.wrappers.rbegin(); it != split.wrappers.rend(); ++it) {
    ir::Stmt s;
    s.kind = it->kind;
    if (it->kind == ir::StmtKind::Region) s.names[0] = copier.name(it->generator);  // source_region dropped
    s.body = out.add_list(inner);
    inner.assign(1, out.add_stmt(s));
  }
  out.set_entry(std::span<const ir::StmtId>(inner));
  return out;
}

}  // namespace gridcheck::planner
