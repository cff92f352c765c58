#include "planner/buffer_scan.hpp"

#include "ir/walk.hpp"

namespace gridcheck::planner {

void scan_expr_accesses(const ir::Program& program, ir::ExprId root, BufferAccessSet& out) {
  ir::for_each_expr(program, root, [&](ir::ExprId id) {
    const ir::Expr& e = program.expr(id);
    switch (e.kind) {
      case ir::ExprKind::Load:
      case ir::ExprKind::BufLen: out.reads.emplace(program.name(e.buffer())); break;
      case ir::ExprKind::Atomic:
        out.reads.emplace(program.name(e.buffer()));
        out.writes.emplace(program.name(e.buffer()));
        break;
      default: break;
    }
  });
}

void scan_stmt_accesses(const ir::Program& program, ir::StmtId id, BufferAccessSet& out) {
  const ir::Stmt& s = program.stmt(id);
  auto recurse = [&](ir::StmtList list) {
    for (ir::StmtId child : program.list(list)) scan_stmt_accesses(program, child, out);
  };
  switch (s.kind) {
    case ir::StmtKind::Let:
    case ir::StmtKind::Assign: scan_expr_accesses(program, s.exprs[0], out); break;
    case ir::StmtKind::Store:
      out.writes.emplace(program.name(s.names[0]));
      scan_expr_accesses(program, s.exprs[0], out);
      scan_expr_accesses(program, s.exprs[1], out);
      break;
    case ir::StmtKind::If:
      scan_expr_accesses(program, s.exprs[0], out);
      recurse(s.body);
      recurse(s.otherwise);
      break;
    case ir::StmtKind::Loop:
      scan_expr_accesses(program, s.exprs[0], out);
      scan_expr_accesses(program, s.exprs[1], out);
      recurse(s.body);
      break;
    case ir::StmtKind::Block:
    case ir::StmtKind::Region: recurse(s.body); break;
    case ir::StmtKind::AllReduce:
    case ir::StmtKind::Broadcast:
      out.reads.emplace(program.name(s.names[0]));
      out.writes.emplace(program.name(s.names[0]));
      break;
    case ir::StmtKind::AllGather:
    case ir::StmtKind::ReduceScatter:
      out.reads.emplace(program.name(s.names[0]));
      out.writes.emplace(program.name(s.names[1]));
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

BufferAccessSet scan_segment_accesses(const ir::Program& segment) {
  BufferAccessSet out;
  for (ir::StmtId id : segment.entry_stmts()) scan_stmt_accesses(segment, id, out);
  return out;
}

namespace {

// The post-0.7.2 scan (F2 fixed, `node_buffer_refs`): async endpoints, the indirect-dispatch count
// buffer and the async/trap operand expressions are scanned; an Opaque node touches every buffer.
void scan_stmt_complete(const ir::Program& program, ir::StmtId id, BufferAccessSet& out) {
  const ir::Stmt& s = program.stmt(id);
  switch (s.kind) {
    case ir::StmtKind::If:
    case ir::StmtKind::Loop:
    case ir::StmtKind::Block:
    case ir::StmtKind::Region:
      for (ir::ExprId e : s.exprs) scan_expr_accesses(program, e, out);
      for (ir::StmtId child : program.list(s.body)) scan_stmt_complete(program, child, out);
      for (ir::StmtId child : program.list(s.otherwise)) scan_stmt_complete(program, child, out);
      return;
    case ir::StmtKind::AsyncLoad:
    case ir::StmtKind::AsyncStore:
      out.reads.emplace(program.name(s.names[0]));
      out.writes.emplace(program.name(s.names[1]));
      for (ir::ExprId e : s.exprs) scan_expr_accesses(program, e, out);
      return;
    case ir::StmtKind::IndirectDispatch: out.reads.emplace(program.name(s.names[0])); return;
    case ir::StmtKind::Trap: scan_expr_accesses(program, s.exprs[0], out); return;
    case ir::StmtKind::Opaque:
      for (const ir::BufferDecl& b : program.buffers()) {
        out.reads.emplace(program.name(b.name));
        out.writes.emplace(program.name(b.name));
      }
      return;
    default: scan_stmt_accesses(program, id, out); return;
  }
}

}  // namespace

BufferAccessSet scan_segment_accesses_complete(const ir::Program& segment) {
  BufferAccessSet out;
  for (ir::StmtId id : segment.entry_stmts()) scan_stmt_complete(segment, id, out);
  return out;
}

FirstWriterMap first_writer_per_buffer(std::span<const BufferAccessSet> scans) {
  FirstWriterMap first;
  for (std::size_t k = 0; k < scans.size(); ++k)
    for (const std::string& name : scans[k].writes) first.emplace(name, k);  // keeps the first
  return first;
}

}  // namespace gridcheck::planner
