#include "ir/text/program_printer.hpp"

#include <fmt/format.h>

#include "ir/text/builtin_names.hpp"
#include "ir/text/literal.hpp"
#include "ir/text/printer.hpp"
#include "ir/text/spelling.hpp"

namespace gridcheck::ir::text {
namespace {

constexpr int kPrefixOperand = 100;  // binds tighter than every infix operator
constexpr std::size_t kValuesPerLine = 16;

bool is_numeric_literal(const Expr& e) {
  return e.kind == ExprKind::LitU32 || e.kind == ExprKind::LitI32 || e.kind == ExprKind::LitF32;
}

bool prints_infix(const Expr& e) { return e.kind == ExprKind::Binary && !info(e.bin_op()).infix.empty(); }

}  // namespace

ProgramPrinter::ProgramPrinter(const Program& p)
    : p_(p), stmt_locs_(p.stmt_count()), expr_locs_(p.expr_count()) {}

void ProgramPrinter::newline() {
  out_ += '\n';
  ++line_;
  line_start_ = out_.size();
}

SourceLoc ProgramPrinter::here() const {
  return SourceLoc{line_, static_cast<std::uint32_t>(out_.size() - line_start_ + 1)};
}

void ProgramPrinter::indent() {
  for (std::uint32_t i = 0; i < depth_; ++i) write("  ");
}

std::string ProgramPrinter::name(NameId id) const { return spelling::name(p_.name(id)); }

void ProgramPrinter::workgroup_size_line() {
  const auto wg = p_.workgroup_size();
  write(fmt::format("workgroup_size {} {} {}", wg[0], wg[1], wg[2]));
  newline();
}

void ProgramPrinter::buffer_lines() {
  buffer_locs_.clear();
  for (const BufferDecl& b : p_.buffers()) {
    write("buffer ");
    buffer_locs_.push_back(here());
    write(fmt::format("{}: {}[", name(b.name), name_of(b.element)));
    if (b.count != 0) write(fmt::format("{}", b.count));
    write(fmt::format("] {}", name_of(b.access)));
    if (b.access != BufferAccess::Workgroup || b.binding != 0) write(fmt::format(" binding {}", b.binding));
    if (b.is_output) write(" output");
    if (b.pipeline_live_out) write(" live_out");
    if (b.output_byte_range) write(fmt::format(" range {}..{}", b.output_byte_range->begin, b.output_byte_range->end));
    if (b.kind != derived_kind(b.access)) write(fmt::format(" kind {}", name_of(b.kind)));
    newline();
  }
}

void ProgramPrinter::body_block() {
  const auto entry = p_.entry_stmts();
  if (entry.size() == 1) {
    const Stmt& root = p_.stmt(entry[0]);
    if (root.kind == StmtKind::Region && p_.name(root.names[0]) == kRootRegionGenerator && root.names[1] == kNoName) {
      stmt_locs_[index_of(entry[0])] = here();
      write("kernel ");
      block(root.body);
      newline();
      return;
    }
  }
  write("entry ");
  block(p_.entry());
  newline();
}

void ProgramPrinter::value_list(ScalarType element, const std::vector<std::uint32_t>& values) {
  if (values.size() <= kValuesPerLine) {
    write("[");
    for (std::size_t i = 0; i < values.size(); ++i) write(fmt::format("{}{}", i == 0 ? "" : ", ", format_value(element, values[i])));
    write("]");
    return;
  }
  write("[");
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i % kValuesPerLine == 0) {
      newline();
      write("  ");
    } else {
      write(" ");
    }
    write(format_value(element, values[i]));
    if (i + 1 < values.size()) write(",");
  }
  newline();
  write("]");
}

void ProgramPrinter::block(StmtList body) {
  if (body.empty()) {
    write("{}");
    return;
  }
  write("{");
  newline();
  ++depth_;
  for (StmtId id : p_.list(body)) {
    indent();
    stmt(id);
    newline();
  }
  --depth_;
  indent();
  write("}");
}

void ProgramPrinter::stmt(StmtId id) {
  const Stmt& s = p_.stmt(id);
  stmt_locs_[index_of(id)] = here();
  auto group = [&](std::uint32_t g) {
    if (g != 0) write(fmt::format(" group {}", g));
  };
  switch (s.kind) {
    case StmtKind::Let:
      write(fmt::format("let {} = ", name(s.names[0])));
      expr(s.exprs[0], 0);
      return;
    case StmtKind::Assign:
      write(fmt::format("{} = ", name(s.names[0])));
      expr(s.exprs[0], 0);
      return;
    case StmtKind::Store:
      write(fmt::format("{}[", name(s.names[0])));
      expr(s.exprs[0], 0);
      write("] = ");
      expr(s.exprs[1], 0);
      return;
    case StmtKind::If: {
      write("if ");
      expr(s.exprs[0], 0);
      write(" ");
      block(s.body);
      if (s.otherwise.empty()) return;
      write(" else ");
      const auto otherwise = p_.list(s.otherwise);
      if (otherwise.size() == 1 && p_.stmt(otherwise[0]).kind == StmtKind::If) {
        stmt(otherwise[0]);  // else if
      } else {
        block(s.otherwise);
      }
      return;
    }
    case StmtKind::Loop:
      write(fmt::format("loop {} in ", name(s.names[0])));
      expr(s.exprs[0], 0);
      write("..");
      expr(s.exprs[1], 0);
      write(" ");
      block(s.body);
      return;
    case StmtKind::Block:
      write("block ");
      block(s.body);
      return;
    case StmtKind::Region:
      write(fmt::format("region {} ", spelling::quoted_string(p_.name(s.names[0]))));
      if (s.names[1] != kNoName) write(fmt::format("from {} ", spelling::quoted_string(p_.name(s.names[1]))));
      block(s.body);
      return;
    case StmtKind::Barrier: {
      const bool all_memory = s.barrier_memory() == BarrierMemory::All;
      if (s.ordering() == MemoryOrdering::GridSync && all_memory)
        write("grid_sync");
      else if (s.ordering() == MemoryOrdering::SeqCst)
        write("barrier");
      else
        write(fmt::format("barrier {}", name_of(s.ordering())));
      if (!all_memory) write(fmt::format(" memory {}", name_of(s.barrier_memory())));
      return;
    }
    case StmtKind::Return: write("return"); return;
    case StmtKind::AllReduce:
      write(fmt::format("all_reduce {} {}", name(s.names[0]), info(s.collective_op()).mnemonic));
      group(s.literal);
      return;
    case StmtKind::Broadcast:
      write(fmt::format("broadcast {} root {}", name(s.names[0]), s.literal));
      group(s.literal2);
      return;
    case StmtKind::AllGather:
      write(fmt::format("all_gather {} -> {}", name(s.names[0]), name(s.names[1])));
      group(s.literal);
      return;
    case StmtKind::ReduceScatter:
      write(fmt::format("reduce_scatter {} -> {} {}", name(s.names[0]), name(s.names[1]),
                        info(s.collective_op()).mnemonic));
      group(s.literal);
      return;
    case StmtKind::AsyncLoad:
    case StmtKind::AsyncStore:
      write(fmt::format("{} {} -> {} offset ", s.kind == StmtKind::AsyncLoad ? "async_load" : "async_store",
                        name(s.names[0]), name(s.names[1])));
      expr(s.exprs[0], 0);
      write(" size ");
      expr(s.exprs[1], 0);
      write(fmt::format(" tag {}", spelling::quoted_string(p_.name(s.names[2]))));
      return;
    case StmtKind::AsyncWait:
      write(fmt::format("async_wait {}", spelling::quoted_string(p_.name(s.names[2]))));
      return;
    case StmtKind::IndirectDispatch:
      write(fmt::format("indirect_dispatch {} offset {}", name(s.names[0]), s.literal));
      return;
    case StmtKind::Trap:
      write("trap ");
      expr(s.exprs[0], 0);
      write(fmt::format(" tag {}", spelling::quoted_string(p_.name(s.names[2]))));
      return;
    case StmtKind::Opaque:
      write(fmt::format("opaque {}", spelling::quoted_string(p_.name(s.names[0]))));
      return;
  }
  GC_ICE("printer: unknown statement kind");
}

void ProgramPrinter::call(std::string_view fn, std::initializer_list<ExprId> args) {
  write(fn);
  write("(");
  bool first = true;
  for (ExprId a : args) {
    if (!first) write(", ");
    first = false;
    expr(a, 0);
  }
  write(")");
}

void ProgramPrinter::expr(ExprId id, int min_precedence) {
  const Expr& e = p_.expr(id);
  if (prints_infix(e)) {
    const BinOpInfo& op = info(e.bin_op());
    const bool parenthesised = op.precedence < min_precedence;
    if (parenthesised) write("(");
    expr(e.operands[0], op.precedence);  // left-associative: the left operand may bind equally
    write(" ");
    expr_locs_[index_of(id)] = here();
    write(op.infix);
    write(" ");
    expr(e.operands[1], op.precedence + 1);
    if (parenthesised) write(")");
    return;
  }
  expr_locs_[index_of(id)] = here();
  switch (e.kind) {
    case ExprKind::LitU32:
    case ExprKind::LitI32:
    case ExprKind::LitF32:
    case ExprKind::LitBool: write(format_literal(e.literal_type(), e.payload)); return;
    case ExprKind::Var: write(name(e.var())); return;
    case ExprKind::Load:
      write(fmt::format("{}[", name(e.buffer())));
      expr(e.operands[0], 0);
      write("]");
      return;
    case ExprKind::BufLen: write(fmt::format("len({})", name(e.buffer()))); return;
    case ExprKind::InvocationId:
    case ExprKind::LocalId:
    case ExprKind::WorkgroupId:
    case ExprKind::NumWorkgroups:
    case ExprKind::WorkgroupSize:
      GC_ASSERT(e.axis() < kAxisLetters.size());
      write(fmt::format("{}.{}", builtin_name(e.kind), kAxisLetters[e.axis()]));
      return;
    case ExprKind::Binary: call(info(e.bin_op()).mnemonic, {e.operands[0], e.operands[1]}); return;
    case ExprKind::Unary: {
      const UnOpInfo& op = info(e.un_op());
      if (op.prefix.empty()) {
        call(op.mnemonic, {e.operands[0]});
        return;
      }
      write(op.prefix);
      // `-3i` reads back as a literal, so negate of a literal keeps its parentheses: -(3i).
      const Expr& x = p_.expr(e.operands[0]);
      if (e.un_op() == UnOp::Negate && is_numeric_literal(x)) {
        write("(");
        expr(e.operands[0], 0);
        write(")");
      } else {
        expr(e.operands[0], kPrefixOperand);
      }
      return;
    }
    case ExprKind::Select: call("select", {e.operands[0], e.operands[1], e.operands[2]}); return;
    case ExprKind::Cast: call(name_of(e.cast_target()), {e.operands[0]}); return;
    case ExprKind::Fma: call("fma", {e.operands[0], e.operands[1], e.operands[2]}); return;
    case ExprKind::Atomic: {
      const AtomicOpInfo& op = info(e.atomic_op());
      GC_ASSERT(op.has_expected == (e.operands[2] != kNoExpr));
      write(fmt::format("{}({}, ", op.mnemonic, name(e.buffer())));
      expr(e.operands[0], 0);
      write(", ");
      if (op.has_expected) {
        expr(e.operands[2], 0);
        write(", ");
      }
      expr(e.operands[1], 0);
      if (e.ordering != MemoryOrdering::SeqCst) write(fmt::format(", {}", name_of(e.ordering)));
      write(")");
      return;
    }
  }
  GC_ICE("printer: unknown expression kind");
}

}  // namespace gridcheck::ir::text

namespace gridcheck::ir {

std::string print(const Program& p) { return print_with_locations(p).text; }

PrintedProgram print_with_locations(const Program& p) {
  text::ProgramPrinter printer(p);
  printer.workgroup_size_line();
  if (!p.buffers().empty()) {
    printer.newline();
    printer.buffer_lines();
  }
  printer.newline();
  printer.body_block();
  PrintedProgram out;
  out.stmt_locs = std::move(printer.stmt_locs());
  out.expr_locs = std::move(printer.expr_locs());
  out.buffer_locs = std::move(printer.buffer_locs());
  out.text = printer.take();
  return out;
}

}  // namespace gridcheck::ir
