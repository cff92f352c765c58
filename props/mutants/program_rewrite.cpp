#include "props/mutants/program_rewrite.hpp"

#include <vector>

namespace gridcheck::props {
namespace {

class Rewriter {
 public:
  Rewriter(ir::Program& p, const StmtRewrite& change) : p_(p), change_(change) {}

  // The rewritten list, or nullopt when nothing in it changed.
  std::optional<ir::StmtList> list(ir::StmtList l) {
    const std::span<const ir::StmtId> view = p_.list(l);
    const std::vector<ir::StmtId> items(view.begin(), view.end());  // the pool grows below
    std::vector<ir::StmtId> out;
    out.reserve(items.size());
    bool changed = false;
    for (ir::StmtId id : items) {
      const ir::StmtId rewritten = stmt(id);
      changed = changed || rewritten != id;
      out.push_back(rewritten);
    }
    if (!changed) return std::nullopt;
    return p_.add_list(out);
  }

  bool any() const { return any_; }

 private:
  ir::StmtId stmt(ir::StmtId id) {
    ir::StmtId current = id;
    if (p_.stmt(id).has_body()) {
      ir::Stmt s = p_.stmt(id);
      const std::optional<ir::StmtList> body = list(s.body);
      const std::optional<ir::StmtList> otherwise = list(s.otherwise);
      if (body || otherwise) {
        if (body) s.body = *body;
        if (otherwise) s.otherwise = *otherwise;
        current = p_.add_stmt(s, p_.loc(id));
      }
    }
    if (const std::optional<ir::StmtId> replaced = change_(p_, current)) current = *replaced;
    any_ = any_ || current != id;
    return current;
  }

  ir::Program& p_;
  const StmtRewrite& change_;
  bool any_ = false;
};

}  // namespace

bool rewrite_statements(ir::Program& p, const StmtRewrite& change) {
  Rewriter rewriter(p, change);
  if (const std::optional<ir::StmtList> entry = rewriter.list(p.entry())) p.set_entry(*entry);
  return rewriter.any();
}

}  // namespace gridcheck::props
