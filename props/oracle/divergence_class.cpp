#include "props/oracle/divergence_class.hpp"

#include <set>

#include "ir/abi.hpp"
#include "ir/walk.hpp"
#include "planner/profile.hpp"
#include "planner/segment_plan.hpp"

namespace gridcheck::props {
namespace {

using ir::StmtKind;

bool has_nested_fence(const ir::Program& p, ir::StmtList list, bool nested) {
  for (ir::StmtId id : p.list(list)) {
    const ir::Stmt& s = p.stmt(id);
    if (s.is_fence() && nested) return true;
    if (!s.has_body()) continue;
    const bool inner = nested || s.kind == StmtKind::If || s.kind == StmtKind::Loop;
    if (has_nested_fence(p, s.body, inner) || has_nested_fence(p, s.otherwise, inner)) return true;
  }
  return false;
}

bool contains(const ir::Program& p, ir::StmtList list, StmtKind kind) {
  bool found = false;
  ir::for_each_stmt(p, list, [&](ir::StmtId id) { found = found || p.stmt(id).kind == kind; });
  return found;
}

/// Names assigned anywhere in the program.
std::set<std::string> assigned_names(const ir::Program& p) {
  std::set<std::string> out;
  ir::for_each_stmt(p, p.entry(), [&](ir::StmtId id) {
    const ir::Stmt& s = p.stmt(id);
    if (s.kind == StmtKind::Assign) out.emplace(p.name(s.names[0]));
  });
  return out;
}

/// Let names whose initialiser reads memory (loads, atomics) somewhere in its expression tree.
std::set<std::string> memory_reading_lets(const ir::Program& p) {
  std::set<std::string> out;
  ir::for_each_stmt(p, p.entry(), [&](ir::StmtId id) {
    const ir::Stmt& s = p.stmt(id);
    if (s.kind != StmtKind::Let) return;
    bool reads = false;
    ir::for_each_expr(p, s.exprs[0], [&](ir::ExprId e) {
      const ir::ExprKind k = p.expr(e).kind;
      reads = reads || k == ir::ExprKind::Load || k == ir::ExprKind::Atomic;
    });
    if (reads) out.emplace(p.name(s.names[0]));
  });
  return out;
}

/// Assignments in a segment to names the segment never declares (vyre propagates no Let for them).
bool assigns_foreign_local(const ir::Program& segment) {
  std::set<std::string> declared, assigned;
  ir::for_each_stmt(segment, segment.entry(), [&](ir::StmtId id) {
    const ir::Stmt& s = segment.stmt(id);
    if (s.kind == StmtKind::Let || s.kind == StmtKind::Loop) declared.emplace(segment.name(s.names[0]));
    if (s.kind == StmtKind::Assign) assigned.emplace(segment.name(s.names[0]));
  });
  for (const std::string& a : assigned)
    if (declared.count(a) == 0) return true;
  return false;
}

}  // namespace

std::vector<std::string> divergence_classes(const ir::Case& c) {
  const ir::Program& p = c.program;
  std::set<std::string> found;
  const bool nested_fence = has_nested_fence(p, p.entry(), false);
  if (!c.grid) found.insert("G1");
  if (nested_fence) found.insert("G5");

  auto plan = planner::plan_split(planner::vyre_0_7_2(), p);
  if (plan.ok() && plan->segments.size() > 1) {
    const std::size_t n = plan->segments.size();
    const std::set<std::string> assigned = assigned_names(p);
    const std::set<std::string> reading = memory_reading_lets(p);
    for (std::size_t b = 0; b < p.buffers().size(); ++b) {
      const ir::BufferDecl& decl = p.buffers()[b];
      bool referenced = false, written_before = false;
      std::size_t writers = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const planner::BufferRoleRow& row = plan->segments[k].roles[b];
        referenced = referenced || row.facts.reads || row.facts.writes;
        if (decl.access == ir::BufferAccess::Workgroup) {
          if (row.facts.reads && written_before) found.insert("C1");
          written_before = written_before || row.facts.writes;
          continue;
        }
        if (row.facts.writes) ++writers;
        const bool write_only_role = row.decision.disposition == planner::Disposition::Rewrite &&
                                     row.decision.access == ir::BufferAccess::WriteOnly;
        if (!write_only_role) continue;
        if (decl.count == 0) found.insert("A5");
        if (decl.access == ir::BufferAccess::ReadWrite && !decl.is_output && !decl.pipeline_live_out)
          found.insert("A");
        if (c.fixpoint > 1 && ir::is_backend_allocated_output(decl)) found.insert("A4");
        if (decl.access == ir::BufferAccess::WriteOnly && !decl.is_output && writers >= 2) found.insert("F1");
      }
      if (decl.access != ir::BufferAccess::Workgroup) {
        if (!referenced && ir::is_dispatch_output(decl)) found.insert("B1");
        if (referenced && decl.output_byte_range) found.insert("G3");
      }
    }
    for (std::size_t k = 0; k < n; ++k) {
      const planner::PlannedSegment& seg = plan->segments[k];
      for (const std::string& name : seg.let_prefix)
        if (assigned.count(name) != 0 || reading.count(name) != 0) found.insert("D");
      if (assigns_foreign_local(seg.program)) found.insert("D");
      if (k + 1 < n && contains(seg.program, seg.program.entry(), StmtKind::Return)) found.insert("G2");
    }
  }
  static const char* const kOrder[] = {"A", "A4", "A5", "B1", "C1", "D", "F1", "G1", "G2", "G3", "G5"};
  std::vector<std::string> out;
  for (const char* name : kOrder)
    if (found.count(name) != 0) out.emplace_back(name);
  return out;
}

std::string join_classes(const std::vector<std::string>& classes) {
  if (classes.empty()) return "unclassified";
  std::string out;
  for (const std::string& c : classes) out += (out.empty() ? "" : "+") + c;
  return out;
}

}  // namespace gridcheck::props
