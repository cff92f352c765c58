#include "planner/buffer_scan.hpp"

#include <cstdint>
#include <vector>

namespace gridcheck::planner {

namespace {

// One scan's recorder: a name enters `out` on its first sighting only (a read and a write are
// separate sightings), so a buffer loaded a thousand times costs one set insertion, not a thousand
// node allocations. The sets end up exactly as if every access had been inserted.
class Scanner {
 public:
  Scanner(const ir::Program& program, BufferAccessSet& out)
      : program_(program), out_(out), seen_(program.name_count(), 0) {}

  void read(ir::NameId name) { mark(name, kRead, out_.reads); }
  void write(ir::NameId name) { mark(name, kWrite, out_.writes); }

  // vyre `visit_expr_buffer_accesses` over `root` and its operands.
  void expr(ir::ExprId root) {
    if (root == ir::kNoExpr) return;
    const ir::Expr& e = program_.expr(root);
    switch (e.kind) {
      case ir::ExprKind::Load:
      case ir::ExprKind::BufLen: read(e.buffer()); break;
      case ir::ExprKind::Atomic:
        read(e.buffer());
        write(e.buffer());
        break;
      default: break;
    }
    for (ir::ExprId operand : e.operands)
      if (operand != ir::kNoExpr) expr(operand);
  }

  // vyre `collect_segment_buffer_targets` for one statement, recursing into its bodies.
  void stmt(ir::StmtId id) {
    const ir::Stmt& s = program_.stmt(id);
    auto recurse = [&](ir::StmtList list) {
      for (ir::StmtId child : program_.list(list)) stmt(child);
    };
    switch (s.kind) {
      case ir::StmtKind::Let:
      case ir::StmtKind::Assign: expr(s.exprs[0]); break;
      case ir::StmtKind::Store:
        write(s.names[0]);
        expr(s.exprs[0]);
        expr(s.exprs[1]);
        break;
      case ir::StmtKind::If:
        expr(s.exprs[0]);
        recurse(s.body);
        recurse(s.otherwise);
        break;
      case ir::StmtKind::Loop:
        expr(s.exprs[0]);
        expr(s.exprs[1]);
        recurse(s.body);
        break;
      case ir::StmtKind::Block:
      case ir::StmtKind::Region: recurse(s.body); break;
      case ir::StmtKind::AllReduce:
      case ir::StmtKind::Broadcast:
        read(s.names[0]);
        write(s.names[0]);
        break;
      case ir::StmtKind::AllGather:
      case ir::StmtKind::ReduceScatter:
        read(s.names[0]);
        write(s.names[1]);
        break;
      case ir::StmtKind::IndirectDispatch:
      case ir::StmtKind::Return:
      case ir::StmtKind::Barrier:
      case ir::StmtKind::AsyncLoad:
      case ir::StmtKind::AsyncStore:
      case ir::StmtKind::AsyncWait:
      case ir::StmtKind::Trap:
      case ir::StmtKind::Opaque: break;  // 0.7.2: nothing recorded, operands not scanned (F2)
    }
  }

  // The post-0.7.2 scan (F2 fixed, `node_buffer_refs`): async endpoints, the indirect-dispatch count
  // buffer and the async/trap operand expressions are scanned; an Opaque node touches every buffer.
  void stmt_complete(ir::StmtId id) {
    const ir::Stmt& s = program_.stmt(id);
    switch (s.kind) {
      case ir::StmtKind::If:
      case ir::StmtKind::Loop:
      case ir::StmtKind::Block:
      case ir::StmtKind::Region:
        for (ir::ExprId e : s.exprs) expr(e);
        for (ir::StmtId child : program_.list(s.body)) stmt_complete(child);
        for (ir::StmtId child : program_.list(s.otherwise)) stmt_complete(child);
        return;
      case ir::StmtKind::AsyncLoad:
      case ir::StmtKind::AsyncStore:
        read(s.names[0]);
        write(s.names[1]);
        for (ir::ExprId e : s.exprs) expr(e);
        return;
      case ir::StmtKind::IndirectDispatch: read(s.names[0]); return;
      case ir::StmtKind::Trap: expr(s.exprs[0]); return;
      case ir::StmtKind::Opaque:
        for (const ir::BufferDecl& b : program_.buffers()) {
          read(b.name);
          write(b.name);
        }
        return;
      default: stmt(id); return;
    }
  }

 private:
  static constexpr std::uint8_t kRead = 1, kWrite = 2;
  void mark(ir::NameId name, std::uint8_t bit, std::set<std::string, std::less<>>& set) {
    const std::uint32_t i = ir::index_of(name);
    if (i < seen_.size()) {
      if ((seen_[i] & bit) != 0) return;
      seen_[i] = static_cast<std::uint8_t>(seen_[i] | bit);
    }
    set.emplace(program_.name(name));  // a name outside the table: as before, Program::name decides
  }

  const ir::Program& program_;
  BufferAccessSet& out_;
  std::vector<std::uint8_t> seen_;  // by name index: kRead | kWrite once recorded
};

}  // namespace

void scan_expr_accesses(const ir::Program& program, ir::ExprId root, BufferAccessSet& out) {
  Scanner(program, out).expr(root);
}

void scan_stmt_accesses(const ir::Program& program, ir::StmtId id, BufferAccessSet& out) {
  Scanner(program, out).stmt(id);
}

BufferAccessSet scan_segment_accesses(const ir::Program& segment) {
  BufferAccessSet out;
  Scanner scanner(segment, out);
  for (ir::StmtId id : segment.entry_stmts()) scanner.stmt(id);
  return out;
}

BufferAccessSet scan_segment_accesses_complete(const ir::Program& segment) {
  BufferAccessSet out;
  Scanner scanner(segment, out);
  for (ir::StmtId id : segment.entry_stmts()) scanner.stmt_complete(id);
  return out;
}

FirstWriterMap first_writer_per_buffer(std::span<const BufferAccessSet> scans) {
  FirstWriterMap first;
  for (std::size_t k = 0; k < scans.size(); ++k)
    for (const std::string& name : scans[k].writes) first.emplace(name, k);  // keeps the first
  return first;
}

}  // namespace gridcheck::planner
