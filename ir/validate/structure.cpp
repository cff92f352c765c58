// Phase 1 of the validator: the arena is well formed, every buffer reference resolves, and the
// program-level rules hold. Nothing here looks at scopes, types or control flow.

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ir/abi.hpp"
#include "ir/ops.hpp"
#include "ir/validate/buffer_index.hpp"
#include "ir/validate/internal.hpp"

namespace gridcheck::ir::validation {
namespace {

constexpr int kMaxDepth = 1024;
constexpr std::size_t kFewBuffers = 32;

std::string_view builtin_name(ExprKind kind) {
  switch (kind) {
    case ExprKind::InvocationId: return "invocation id";
    case ExprKind::LocalId: return "local id";
    case ExprKind::WorkgroupId: return "workgroup id";
    case ExprKind::NumWorkgroups: return "workgroup count";
    case ExprKind::WorkgroupSize: return "workgroup size";
    default: return "builtin";
  }
}

class StructureChecker {
 public:
  StructureChecker(const Program& p, Sink& sink)
      : p_(p), sink_(sink), buffers_(p), stmt_on_path_(p.stmt_count(), 0), expr_on_path_(p.expr_count(), 0) {}

  void run() {
    check_entry();
    check_workgroup_size();
    check_buffers();
    check_list(p_.entry(), std::nullopt, 0);
  }

 private:
  // ------------------------------------------------------------------------------ program level

  void check_entry() {
    if (!p_.is_valid_list(p_.entry())) {
      sink_.at_program(kErr, "G008", "the entry list lies outside the program's list pool");
      return;
    }
    const auto entry = p_.entry_stmts();
    if (entry.empty()) {
      sink_.at_program(kErr, "V105", "the entry is empty; a runnable program has at least one region");
      return;
    }
    for (StmtId id : entry) {
      if (index_of(id) >= p_.stmt_count()) return;  // reported by the tree walk
      if (p_.stmt(id).kind != StmtKind::Region) {
        sink_.at(kErr, "V105", id,
                 fmt::format("top-level {} is not a region; every top-level node must be a region",
                             describe(p_, id)));
        return;  // vyre reports the entry once
      }
    }
  }

  void check_workgroup_size() {
    static constexpr std::array<char, 3> kAxis = {'x', 'y', 'z'};
    const auto size = p_.workgroup_size();
    for (int axis = 0; axis < 3; ++axis)
      if (size[axis] == 0)
        sink_.at_program(kErr, "V106", fmt::format("workgroup size along {} is 0; every dimension must be at least 1",
                                                   kAxis[axis]));
  }

  bool valid_name(NameId id) const { return id != kNoName && index_of(id) < p_.name_count(); }

  void check_buffers() {
    // The first declaration of each name (indexed by name; only declarations with a valid name and a
    // known access, kind and element type count, unlike buffers_) and of each binding: a flat list scanned while the program has
    // few buffers, a hash map beyond that.
    std::vector<const BufferDecl*> by_name(p_.name_count(), nullptr);
    std::vector<const BufferDecl*> bound;
    std::unordered_map<std::uint32_t, const BufferDecl*> by_binding;
    const bool few = p_.buffers().size() <= kFewBuffers;
    if (few) bound.reserve(p_.buffers().size());
    const auto first_with_binding = [&](const BufferDecl& b) -> const BufferDecl* {
      if (!few) return by_binding.emplace(b.binding, &b).first->second;
      for (const BufferDecl* other : bound)
        if (other->binding == b.binding) return other;
      bound.push_back(&b);
      return &b;
    };
    for (const BufferDecl& b : p_.buffers()) {
      if (!valid_name(b.name)) {
        sink_.at_buffer(kErr, "G008", b, "buffer declaration has no valid name");
        continue;
      }
      const std::string_view name = p_.name(b.name);
      if (static_cast<int>(b.access) >= kBufferAccessCount || static_cast<int>(b.element) >= kScalarTypeCount ||
          static_cast<int>(b.kind) >= kMemoryKindCount) {
        sink_.at_buffer(kErr, "G008", b, fmt::format("buffer '{}' has an unknown access, kind or element type", name));
        continue;
      }
      if (const BufferDecl*& first = by_name[index_of(b.name)]; first == nullptr) {
        first = &b;
      } else {
        buffer_note(sink_.at_buffer(kErr, "V107", b, fmt::format("duplicate buffer name '{}'", name)), *first,
                    "first declared here");
      }
      const bool workgroup = b.access == BufferAccess::Workgroup;
      if (!workgroup) {
        if (const BufferDecl* first = first_with_binding(b); first != &b) {
          buffer_note(sink_.at_buffer(kErr, "V108", b,
                                      fmt::format("buffer '{}' reuses binding {} of buffer '{}'", name, b.binding,
                                                  p_.name(first->name))),
                      *first, "binding first used here");
        }
      }
      if (workgroup && b.count == 0)
        sink_.at_buffer(kErr, "V109", b, fmt::format("workgroup buffer '{}' has count 0; it needs a static size", name));
      if (b.is_output && b.count == 0 && !b.output_byte_range)
        sink_.at_buffer(kErr, "V130", b,
                        fmt::format("output buffer '{}' has neither a count nor an output byte range", name));
      if (b.output_byte_range) {
        const ByteRange r = *b.output_byte_range;
        if (r.begin > r.end)
          sink_.at_buffer(kErr, "G011", b,
                          fmt::format("output byte range {}..{} of '{}' ends before it begins", r.begin, r.end, name));
        else if (b.count > 0 && r.end > b.static_byte_len())
          sink_.at_buffer(kErr, "G011", b,
                          fmt::format("output byte range {}..{} of '{}' exceeds its {} bytes", r.begin, r.end, name,
                                      b.static_byte_len()));
      }
      if (!b.is_output && b.count == 0 && !b.output_byte_range && !workgroup && is_backend_allocated_output(b))
        sink_.at_buffer(kWarn, "G013", b,
                        fmt::format("backend-allocated buffer '{}' has no count and no output byte range, so no "
                                    "backend can size it",
                                    name));
      if (b.access == BufferAccess::ReadOnly && b.pipeline_live_out)
        sink_.at_buffer(kWarn, "G012", b,
                        fmt::format("read-only buffer '{}' is live-out: the reference takes it as an input but the "
                                    "split treats it as an output only",
                                    name));
      if (b.kind == MemoryKind::Persistent && b.access == BufferAccess::ReadWrite)
        sink_.at_buffer(kWarn, "G012", b,
                        fmt::format("persistent read_write buffer '{}' is a split input and output but has binding "
                                    "role persistent",
                                    name));
      if (workgroup && (b.is_output || b.pipeline_live_out))
        sink_.at_buffer(kWarn, "G012", b,
                        fmt::format("workgroup buffer '{}' is marked output or live-out; workgroup memory is never "
                                    "read back",
                                    name));
    }
  }

  /// "first declared here": only useful with a position (text IR); the message names both buffers.
  void buffer_note(Diagnostic& d, const BufferDecl& first, std::string_view message) {
    if (first.loc.known())
      d.notes.push_back(Diagnostic{Severity::Note, {}, sink_.file(), first.loc, std::string(message), {}});
  }

  // -------------------------------------------------------------------------------- statements

  void error_at(std::optional<StmtId> at, std::string_view code, std::string message) {
    if (at)
      sink_.at(kErr, code, *at, std::move(message));
    else
      sink_.at_program(kErr, code, std::move(message));
  }

  void check_list(StmtList list, std::optional<StmtId> parent, int depth) {
    if (!p_.is_valid_list(list)) {
      error_at(parent, "G008", "a statement list lies outside the program's list pool");
      return;
    }
    if (depth > kMaxDepth) {
      error_at(parent, "G008", fmt::format("statements nest deeper than {} levels", kMaxDepth));
      return;
    }
    for (StmtId id : p_.list(list)) {
      if (index_of(id) >= p_.stmt_count()) {
        error_at(parent, "G008", fmt::format("statement id {} is out of range", index_of(id)));
        continue;
      }
      if (stmt_on_path_[index_of(id)]) {
        error_at(parent, "G008", fmt::format("statement {} contains itself", describe(p_, id)));
        continue;
      }
      stmt_on_path_[index_of(id)] = 1;
      check_stmt(id, depth);
      stmt_on_path_[index_of(id)] = 0;
    }
  }

  bool need_name(StmtId id, int slot, std::string_view what) {
    if (valid_name(p_.stmt(id).names[slot])) return true;
    sink_.at(kErr, "G008", id, fmt::format("{} has no {}", describe(p_, id), what));
    return false;
  }

  void need_expr(StmtId id, int slot, std::string_view what) {
    const ExprId e = p_.stmt(id).exprs[slot];
    if (e == kNoExpr) {
      sink_.at(kErr, "G008", id, fmt::format("{} has no {}", describe(p_, id), what));
      return;
    }
    check_expr(e, id, 0);
  }

  /// The buffer named in `slot` must be declared; reports `code` otherwise.
  void need_buffer(StmtId id, int slot, std::string_view code, std::string_view what) {
    if (!need_name(id, slot, what)) return;
    const NameId name = p_.stmt(id).names[slot];
    if (buffers_.find(name) == nullptr)
      sink_.at(kErr, code, id, fmt::format("{} names unknown buffer '{}'", describe(p_, id), p_.name(name)));
  }

  void check_stmt(StmtId id, int depth) {
    const Stmt& s = p_.stmt(id);
    if (static_cast<int>(s.kind) >= kStmtKindCount) {
      sink_.at(kErr, "G008", id, fmt::format("statement kind {} is unknown", static_cast<int>(s.kind)));
      return;
    }
    switch (s.kind) {
      case StmtKind::Let:
      case StmtKind::Assign:
        need_name(id, 0, "name");
        need_expr(id, 0, "value");
        break;
      case StmtKind::Store:
        if (need_name(id, 0, "buffer") && buffers_.find(s.names[0]) == nullptr)
          sink_.at(kErr, "V064", id, fmt::format("store into unknown buffer '{}'", p_.name(s.names[0])));
        need_expr(id, 0, "index");
        need_expr(id, 1, "value");
        break;
      case StmtKind::If:
        need_expr(id, 0, "condition");
        check_list(s.body, id, depth + 1);
        check_list(s.otherwise, id, depth + 1);
        break;
      case StmtKind::Loop:
        need_name(id, 0, "loop variable");
        need_expr(id, 0, "lower bound");
        need_expr(id, 1, "upper bound");
        check_list(s.body, id, depth + 1);
        break;
      case StmtKind::Block: check_list(s.body, id, depth + 1); break;
      case StmtKind::Region:
        need_name(id, 0, "generator");
        check_list(s.body, id, depth + 1);
        break;
      case StmtKind::Barrier:
        if (s.op >= kMemoryOrderingCount)
          sink_.at(kErr, "G008", id, fmt::format("barrier ordering {} is unknown", static_cast<int>(s.op)));
        if (s.literal >= kBarrierMemoryCount)
          sink_.at(kErr, "G008", id, fmt::format("barrier memory {} is unknown", s.literal));
        break;
      case StmtKind::Return: break;
      case StmtKind::AllReduce:
      case StmtKind::ReduceScatter:
        if (s.op >= kCollectiveOpCount)
          sink_.at(kErr, "G008", id, fmt::format("collective operator {} is unknown", static_cast<int>(s.op)));
        need_name(id, 0, "buffer");
        if (s.kind == StmtKind::ReduceScatter) need_name(id, 1, "output buffer");
        break;  // unknown collective buffers are V046 (phase 2)
      case StmtKind::Broadcast: need_name(id, 0, "buffer"); break;
      case StmtKind::AllGather:
        need_name(id, 0, "input buffer");
        need_name(id, 1, "output buffer");
        break;
      case StmtKind::AsyncLoad:
      case StmtKind::AsyncStore:
        need_name(id, 0, "source");
        need_name(id, 1, "destination");
        need_name(id, 2, "tag");
        need_expr(id, 0, "offset");
        need_expr(id, 1, "size");
        break;
      case StmtKind::AsyncWait: need_name(id, 2, "tag"); break;
      case StmtKind::IndirectDispatch:
        need_buffer(id, 0, "V127", "count buffer");
        if (s.literal % 4 != 0)
          sink_.at(kErr, "V126", id,
                   fmt::format("indirect dispatch offset {} is not a multiple of 4 bytes", s.literal));
        break;
      case StmtKind::Trap:
        need_expr(id, 0, "address");
        need_name(id, 2, "tag");
        break;
      case StmtKind::Opaque: need_name(id, 0, "extension id"); break;
    }
  }

  // ------------------------------------------------------------------------------- expressions

  void check_expr(ExprId id, StmtId owner, int depth) {
    if (index_of(id) >= p_.expr_count()) {
      sink_.at(kErr, "G008", owner, fmt::format("expression id {} is out of range", index_of(id)));
      return;
    }
    if (expr_on_path_[index_of(id)] || depth > kMaxDepth) {
      sink_.at(kErr, "G008", owner, "an expression contains itself or nests too deeply", id);
      return;
    }
    const Expr& e = p_.expr(id);
    if (static_cast<int>(e.kind) >= kExprKindCount) {
      sink_.at(kErr, "G008", owner, fmt::format("expression kind {} is unknown", static_cast<int>(e.kind)), id);
      return;
    }
    int operands = 0;  // required operand slots
    bool optional_third = false;
    switch (e.kind) {
      case ExprKind::LitU32:
      case ExprKind::LitI32:
      case ExprKind::LitF32: break;
      case ExprKind::LitBool:
        if (e.payload > 1) sink_.at(kErr, "G008", owner, "a bool literal must be 0 or 1", id);
        break;
      case ExprKind::Var:
        if (!valid_name(NameId{e.payload})) sink_.at(kErr, "G008", owner, "a variable has no valid name", id);
        break;
      case ExprKind::Load:
        operands = 1;
        if (auto name = buffer_name(e, owner, id); name && buffers_.find(*name) == nullptr)
          sink_.at(kErr, "V065", owner, fmt::format("load from unknown buffer '{}'", p_.name(*name)), id);
        break;
      case ExprKind::BufLen:
        if (auto name = buffer_name(e, owner, id); name && buffers_.find(*name) == nullptr)
          sink_.at(kErr, "G101", owner, fmt::format("buf_len of unknown buffer '{}'", p_.name(*name)), id);
        break;
      case ExprKind::InvocationId:
      case ExprKind::LocalId:
      case ExprKind::WorkgroupId:
      case ExprKind::NumWorkgroups:
      case ExprKind::WorkgroupSize:
        if (e.op > 2)
          sink_.at(kErr, "G007", owner,
                   fmt::format("{} axis {} is out of range; use 0 (x), 1 (y) or 2 (z)", builtin_name(e.kind), e.op),
                   id);
        break;
      case ExprKind::Binary:
        operands = 2;
        if (e.op >= kBinOpCount)
          sink_.at(kErr, "G008", owner, fmt::format("binary operator {} is unknown", static_cast<int>(e.op)), id);
        break;
      case ExprKind::Unary:
        operands = 1;
        if (e.op >= kUnOpCount)
          sink_.at(kErr, "G008", owner, fmt::format("unary operator {} is unknown", static_cast<int>(e.op)), id);
        break;
      case ExprKind::Select:
      case ExprKind::Fma: operands = 3; break;
      case ExprKind::Cast:
        operands = 1;
        if (e.op >= kScalarTypeCount)
          sink_.at(kErr, "G008", owner, fmt::format("cast target type {} is unknown", static_cast<int>(e.op)), id);
        break;
      case ExprKind::Atomic: {
        operands = 2;
        optional_third = true;
        if (e.op >= kAtomicOpCount || static_cast<int>(e.ordering) >= kMemoryOrderingCount) {
          sink_.at(kErr, "G008", owner, "atomic operator or ordering is unknown", id);
          break;
        }
        const AtomicOpInfo& op = info(e.atomic_op());
        if (auto name = buffer_name(e, owner, id); name && buffers_.find(*name) == nullptr)
          sink_.at(kErr, "V061", owner, fmt::format("{} on unknown buffer '{}'", op.mnemonic, p_.name(*name)), id);
        if (op.has_expected && e.operands[2] == kNoExpr)
          sink_.at(kErr, "V059", owner, fmt::format("{} has no expected value", op.mnemonic), id);
        if (!op.has_expected && e.operands[2] != kNoExpr)
          sink_.at(kErr, "V060", owner,
                   fmt::format("{} has an expected value; only compare-exchange takes one", op.mnemonic), id);
        break;
      }
    }
    // A leaf with no operand slot filled has nothing left to check (and cannot be on a cycle).
    if (operands == 0 && e.operands[0] == kNoExpr && e.operands[1] == kNoExpr && e.operands[2] == kNoExpr) return;
    expr_on_path_[index_of(id)] = 1;
    for (int slot = 0; slot < 3; ++slot) {
      const ExprId operand = e.operands[slot];
      const bool required = slot < operands;
      const bool allowed = required || (optional_third && slot == 2);
      if (operand == kNoExpr) {
        if (required) sink_.at(kErr, "G008", owner, fmt::format("an expression is missing operand {}", slot), id);
      } else if (!allowed) {
        sink_.at(kErr, "G008", owner, fmt::format("an expression has an unexpected operand {}", slot), id);
      } else {
        check_expr(operand, owner, depth + 1);
      }
    }
    expr_on_path_[index_of(id)] = 0;
  }

  std::optional<NameId> buffer_name(const Expr& e, StmtId owner, ExprId id) {
    const NameId name{e.payload};
    if (valid_name(name)) return name;
    sink_.at(kErr, "G008", owner, "an expression names no valid buffer", id);
    return std::nullopt;
  }

  const Program& p_;
  Sink& sink_;
  BufferIndex buffers_;
  // On the current path from the entry (cycle detection), by index; bytes rather than bits: read and
  // written once per node, the walk's hottest state.
  std::vector<std::uint8_t> stmt_on_path_;
  std::vector<std::uint8_t> expr_on_path_;
};

}  // namespace

bool check_structure(const Program& p, Sink& sink) {
  const std::size_t before = sink.error_count();
  StructureChecker(p, sink).run();
  return sink.error_count() == before;
}

}  // namespace gridcheck::ir::validation
