#include "ir/validate/validator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <numeric>
#include <unordered_map>

#include "ir/validate/internal.hpp"
#include "ir/walk.hpp"

namespace gridcheck::ir {
namespace validation {
namespace {

constexpr Severity E = Severity::Error;
constexpr Severity W = Severity::Warning;

// clang-format off
// Sorted by code. Keep docs/validation.md in step (a test checks that every code appears there).
constexpr std::array kRules = {
    ValidationRule{"G001", W, 2, "gridcheck", "grid_sync nested under a grid-uniform if or loop: valid, but the vyre 0.7.2 split does not hoist it"},
    ValidationRule{"G002", E, 2, "gridcheck", "grid_sync under control flow that is not grid-uniform (depends on the workgroup id)"},
    ValidationRule{"G003", E, 2, "gridcheck", "barrier under control flow made workgroup-divergent by an assignment that V010 does not track"},
    ValidationRule{"G004", W, 2, "gridcheck", "load from a write_only buffer"},
    ValidationRule{"G005", W, 2, "gridcheck", "literal load or atomic index out of bounds (reads zero) or negative (traps)"},
    ValidationRule{"G006", W, 2, "gridcheck", "i32 division or remainder by a literal zero (traps when reached)"},
    ValidationRule{"G007", E, 1, "gridcheck", "invocation, local, workgroup id or count axis greater than 2"},
    ValidationRule{"G008", E, 1, "gridcheck", "malformed IR: id out of range, unknown enum value, missing operand or a cycle"},
    ValidationRule{"G009", E, 2, "gridcheck", "assign names a read_write buffer; buffers are written with store"},
    ValidationRule{"G010", W, 2, "gridcheck", "async transfer endpoint that is not a declared buffer"},
    ValidationRule{"G011", E, 1, "gridcheck", "output_byte_range with begin > end, or end beyond a sized buffer"},
    ValidationRule{"G012", W, 1, "gridcheck", "declaration on which the ABI predicates disagree (docs/semantics.md §2.2)"},
    ValidationRule{"G013", W, 1, "gridcheck", "backend-allocated buffer (not is_output) with no count and no output_byte_range"},
    ValidationRule{"G014", E, 2, "gridcheck", "grid_sync with a memory scope other than all (a grid_sync orders all memory)"},
    ValidationRule{"G100", E, 2, "gridcheck", "use of an undeclared variable (type inference)"},
    ValidationRule{"G101", E, 1, "gridcheck", "buf_len of an unknown buffer"},
    ValidationRule{"G102", E, 2, "gridcheck", "binary operands of different types"},
    ValidationRule{"G103", E, 2, "gridcheck", "operator does not accept the operand type"},
    ValidationRule{"G104", E, 2, "gridcheck", "select arms of different types"},
    ValidationRule{"G105", E, 2, "gridcheck", "assignment changes the type of a local (vyre V045)"},
    ValidationRule{"V008", E, 2, "vyre", "shadowing: let or loop variable whose name is already in scope"},
    ValidationRule{"V009", E, 2, "vyre", "atomic on a buffer that is not read_write storage"},
    ValidationRule{"V010", E, 2, "vyre", "barrier inside workgroup-divergent control flow"},
    ValidationRule{"V011", E, 2, "vyre", "assignment to a loop variable"},
    ValidationRule{"V014", E, 2, "vyre", "atomic on a buffer whose element type is not u32"},
    ValidationRule{"V025", E, 2, "vyre", "atomic on workgroup memory"},
    ValidationRule{"V027", E, 2, "vyre", "atomic index that is not u32"},
    ValidationRule{"V028", E, 2, "vyre", "fma operands that are not f32"},
    ValidationRule{"V032", E, 2, "vyre", "duplicate let in the same scope"},
    ValidationRule{"V036", E, 2, "vyre", "literal store index >= count of a sized buffer, or negative"},
    ValidationRule{"V042", E, 2, "vyre", "atomic with an ordering not valid for read-modify-write (grid_sync)"},
    ValidationRule{"V043", E, 2, "vyre", "barrier with relaxed ordering"},
    ValidationRule{"V046", E, 2, "vyre", "collective node: unsupported by default, unknown or workgroup buffer, element mismatch"},
    ValidationRule{"V055", E, 2, "vyre", "loop with a barrier in which an invocation may return after the last unconditional barrier"},
    ValidationRule{"V057", E, 2, "vyre", "atomic value that is not u32"},
    ValidationRule{"V058", E, 2, "vyre", "compare-exchange expected value that is not u32"},
    ValidationRule{"V059", E, 1, "vyre", "compare-exchange without an expected value"},
    ValidationRule{"V060", E, 1, "vyre", "expected value on an atomic that is not compare-exchange"},
    ValidationRule{"V061", E, 1, "vyre", "atomic on an unknown buffer"},
    ValidationRule{"V063", E, 2, "vyre", "store into a buffer that is not writable (read, uniform)"},
    ValidationRule{"V064", E, 1, "vyre", "store into an unknown buffer"},
    ValidationRule{"V065", E, 1, "vyre", "load from an unknown buffer"},
    ValidationRule{"V105", E, 1, "vyre", "entry empty, or a top-level node that is not a region"},
    ValidationRule{"V106", E, 1, "vyre", "workgroup dimension 0"},
    ValidationRule{"V107", E, 1, "vyre", "duplicate buffer name"},
    ValidationRule{"V108", E, 1, "vyre", "duplicate binding among non-workgroup buffers"},
    ValidationRule{"V109", E, 1, "vyre", "workgroup buffer with count 0"},
    ValidationRule{"V112", E, 2, "vyre", "return that is not the last node of its sequence"},
    ValidationRule{"V119", E, 2, "vyre", "assignment to a buffer that is not read_write"},
    ValidationRule{"V120", E, 2, "vyre", "assignment to an undeclared name"},
    ValidationRule{"V121", E, 2, "vyre", "store value type incompatible with the element type"},
    ValidationRule{"V122", E, 2, "vyre", "store index that is not u32"},
    ValidationRule{"V123", E, 2, "vyre", "if condition that is neither u32 nor bool"},
    ValidationRule{"V124", E, 2, "vyre", "loop lower bound that is not u32"},
    ValidationRule{"V125", E, 2, "vyre", "loop upper bound that is not u32"},
    ValidationRule{"V126", E, 1, "vyre", "indirect dispatch offset not a multiple of 4"},
    ValidationRule{"V127", E, 1, "vyre", "indirect dispatch count buffer unknown"},
    ValidationRule{"V130", E, 1, "vyre", "is_output buffer with no count and no output_byte_range"},
    ValidationRule{"V134", E, 2, "vyre", "async transfer into a buffer that is not writable"},
};
// clang-format on

std::string_view stmt_keyword(StmtKind kind) {
  switch (kind) {
    case StmtKind::Let: return "let";
    case StmtKind::Assign: return "assign";
    case StmtKind::Store: return "store";
    case StmtKind::If: return "if";
    case StmtKind::Loop: return "loop";
    case StmtKind::Block: return "block";
    case StmtKind::Region: return "region";
    case StmtKind::Barrier: return "barrier";
    case StmtKind::Return: return "return";
    case StmtKind::AllReduce: return "all_reduce";
    case StmtKind::Broadcast: return "broadcast";
    case StmtKind::AllGather: return "all_gather";
    case StmtKind::ReduceScatter: return "reduce_scatter";
    case StmtKind::AsyncLoad: return "async_load";
    case StmtKind::AsyncStore: return "async_store";
    case StmtKind::AsyncWait: return "async_wait";
    case StmtKind::IndirectDispatch: return "indirect_dispatch";
    case StmtKind::Trap: return "trap";
    case StmtKind::Opaque: return "opaque";
  }
  return "statement";
}

std::string name_or(const Program& p, NameId id) {
  if (id == kNoName || index_of(id) >= p.name_count()) return "?";
  return std::string(p.name(id));
}

/// Statement paths from the entry (`entry[0].body[2].then[0]`), first occurrence wins. Building the
/// index takes time linear in the statements; a path takes time linear in its length.
class PathIndex {
 public:
  explicit PathIndex(const Program& p) : p_(p), steps_(p.stmt_count()) {
    const auto entry = p.entry_stmts();
    for (std::size_t i = 0; i < entry.size(); ++i) visit(entry[i], kRoot, "entry", i, 0);
  }
  std::optional<std::string> path(StmtId id) const {
    if (index_of(id) >= steps_.size() || steps_[index_of(id)].slot == nullptr) return std::nullopt;
    std::vector<const Step*> chain;
    for (std::uint32_t i = index_of(id); i != kRoot; i = steps_[i].parent) chain.push_back(&steps_[i]);
    std::string out;
    out.reserve(16 * chain.size());
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {  // "entry[0].body[2]", in one string
      if (it != chain.rbegin()) out += '.';
      out += (*it)->slot;
      char digits[24];
      out += '[';
      out.append(digits, std::to_chars(digits, digits + sizeof digits, (*it)->position).ptr);
      out += ']';
    }
    return out;
  }

 private:
  static constexpr std::uint32_t kRoot = 0xFFFFFFFFu;
  /// How the first visit reached a statement; slot == nullptr: not reached.
  struct Step {
    std::uint32_t parent = kRoot;
    const char* slot = nullptr;  ///< "entry", "body", "then" or "else"
    std::size_t position = 0;
  };

  void visit(StmtId id, std::uint32_t parent, const char* slot, std::size_t position, int depth) {
    // Structure errors may include cycles and bad ids: stay inside the arena and bounded.
    if (index_of(id) >= p_.stmt_count() || depth > 256) return;
    Step& step = steps_[index_of(id)];
    if (step.slot != nullptr) return;
    step = Step{parent, slot, position};
    const Stmt& s = p_.stmt(id);
    if (!s.has_body()) return;
    const bool is_if = s.kind == StmtKind::If;
    const auto body = p_.list(s.body);
    for (std::size_t i = 0; i < body.size(); ++i) visit(body[i], index_of(id), is_if ? "then" : "body", i, depth + 1);
    if (is_if) {
      const auto otherwise = p_.list(s.otherwise);
      for (std::size_t i = 0; i < otherwise.size(); ++i) visit(otherwise[i], index_of(id), "else", i, depth + 1);
    }
  }
  const Program& p_;
  std::vector<Step> steps_;  ///< by statement index
};

}  // namespace

std::unordered_map<std::uint32_t, StmtId> expression_owners(const Program& p) {
  std::unordered_map<std::uint32_t, StmtId> owner;
  for_each_stmt(p, p.entry(), [&](StmtId id) {
    for_each_stmt_operand(p.stmt(id), [&](ExprId root) {
      for_each_expr(p, root, [&](ExprId e) { owner.emplace(index_of(e), id); });
    });
  });
  return owner;
}

std::string describe(const Program& p, StmtId id) {
  if (index_of(id) >= p.stmt_count()) return "statement";
  const Stmt& s = p.stmt(id);
  const std::string_view kw = stmt_keyword(s.kind);
  switch (s.kind) {
    case StmtKind::Let:
    case StmtKind::Assign:
    case StmtKind::Loop: return fmt::format("{} {}", kw, name_or(p, s.names[0]));
    case StmtKind::Store: return fmt::format("store to {}", name_or(p, s.names[0]));
    case StmtKind::Region: return fmt::format("region {}", name_or(p, s.names[0]));
    case StmtKind::Barrier:
      return s.op < kMemoryOrderingCount ? fmt::format("barrier {}", name_of(s.ordering())) : std::string("barrier");
    case StmtKind::AllReduce:
    case StmtKind::Broadcast:
    case StmtKind::IndirectDispatch: return fmt::format("{} {}", kw, name_or(p, s.names[0]));
    case StmtKind::AllGather:
    case StmtKind::ReduceScatter:
    case StmtKind::AsyncLoad:
    case StmtKind::AsyncStore:
      return fmt::format("{} {} -> {}", kw, name_or(p, s.names[0]), name_or(p, s.names[1]));
    default: return std::string(kw);
  }
}

Diagnostic& Sink::at(Severity severity, std::string_view code, StmtId at, std::string message, ExprId expr) {
  SourceLoc loc;
  if (expr != kNoExpr && index_of(expr) < p_.expr_count()) loc = p_.loc(expr);
  if (!loc.known() && index_of(at) < p_.stmt_count()) loc = p_.loc(at);
  entries_.push_back(Entry{Diagnostic{severity, std::string(code), file_, loc, std::move(message), {}}, at, {}});
  return entries_.back().diagnostic;
}

Diagnostic& Sink::at_buffer(Severity severity, std::string_view code, const BufferDecl& buffer, std::string message) {
  entries_.push_back(
      Entry{Diagnostic{severity, std::string(code), file_, buffer.loc, std::move(message), {}}, std::nullopt, {}});
  return entries_.back().diagnostic;
}

Diagnostic& Sink::at_program(Severity severity, std::string_view code, std::string message) {
  entries_.push_back(Entry{Diagnostic{severity, std::string(code), file_, {}, std::move(message), {}}, std::nullopt, {}});
  return entries_.back().diagnostic;
}

void Sink::note(StmtId at, std::string message) {
  GC_ASSERT(!entries_.empty());
  Entry& e = entries_.back();
  const SourceLoc loc = index_of(at) < p_.stmt_count() ? p_.loc(at) : SourceLoc{};
  e.diagnostic.notes.push_back(Diagnostic{Severity::Note, {}, file_, loc, std::move(message), {}});
  e.note_stmts.push_back(at);
}

bool Sink::has_errors() const { return error_count() > 0; }

std::size_t Sink::error_count() const {
  return static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(), [](const Entry& e) {
    return e.diagnostic.severity == Severity::Error;
  }));
}

Diagnostics Sink::finish() {
  std::optional<PathIndex> paths;
  auto where = [&](StmtId id) -> std::string {
    if (!paths) paths.emplace(p_);
    const auto path = paths->path(id);
    return path ? fmt::format("at {} ({})", *path, describe(p_, id)) : fmt::format("at {}", describe(p_, id));
  };
  for (Entry& e : entries_) {
    // Builder-made IR has no positions: name the statement instead.
    for (std::size_t i = 0; i < e.note_stmts.size(); ++i)
      if (e.note_stmts[i] && !e.diagnostic.notes[i].loc.known())
        e.diagnostic.notes[i].message.append(1, ' ').append(where(*e.note_stmts[i]));
    if (e.stmt && !e.diagnostic.loc.known())
      e.diagnostic.notes.insert(e.diagnostic.notes.begin(),
                                Diagnostic{Severity::Note, {}, file_, {}, where(*e.stmt), {}});
  }
  // Sorts positions rather than the (large) entries themselves; stable, so ties keep report order.
  std::vector<std::uint32_t> order(entries_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const SourceLoc la = entries_[a].diagnostic.loc;
    const SourceLoc lb = entries_[b].diagnostic.loc;
    return la.line != lb.line ? la.line < lb.line : la.col < lb.col;
  });
  Diagnostics out;
  for (std::uint32_t i : order) out.add(std::move(entries_[i].diagnostic));
  entries_.clear();
  return out;
}

}  // namespace validation

Diagnostics validate(const Program& p, std::string_view file, const ValidateOptions& options) {
  std::optional<TypeTable> types;
  return validate(p, file, options, types);
}

Diagnostics validate(const Program& p, std::string_view file, const ValidateOptions& options,
                     std::optional<TypeTable>& types_out) {
  types_out.reset();
  validation::Sink sink(p, file);
  if (validation::check_structure(p, sink)) {
    PartialTypes types = typecheck_partial(p, file);
    if (!types.diagnostics.empty()) {
      const auto owner = validation::expression_owners(p);
      for (std::size_t i = 0; i < types.diagnostics.size(); ++i) {
        const Diagnostic& d = types.diagnostics.all()[i];
        const PartialTypes::Subject& subject = types.subjects[i];
        if (subject.stmt) {
          sink.at(d.severity, d.code, *subject.stmt, d.message);
        } else if (auto it = owner.find(index_of(subject.expr)); it != owner.end()) {
          sink.at(d.severity, d.code, it->second, d.message, subject.expr);
        } else {
          sink.at_program(d.severity, d.code, d.message).loc = d.loc;
        }
      }
    }
    validation::check_semantics(p, types, options, sink);
    validation::check_uniformity(p, sink);
    if (!types.diagnostics.has_errors()) types_out = std::move(types.table);
  }
  return sink.finish();
}

bool is_valid(const Program& p, const ValidateOptions& options) { return !validate(p, {}, options).has_errors(); }

std::span<const ValidationRule> validation_rules() { return validation::kRules; }

const ValidationRule* find_validation_rule(std::string_view code) {
  for (const ValidationRule& r : validation::kRules)
    if (r.code == code) return &r;
  return nullptr;
}

}  // namespace gridcheck::ir
