#include "ir/program.hpp"

#include <functional>

namespace gridcheck::ir {

ScalarType Expr::literal_type() const {
  switch (kind) {
    case ExprKind::LitU32: return ScalarType::U32;
    case ExprKind::LitI32: return ScalarType::I32;
    case ExprKind::LitF32: return ScalarType::F32;
    case ExprKind::LitBool: return ScalarType::Bool;
    default: GC_ICE("literal_type() of a non-literal expression");
  }
}

int Expr::operand_count() const {
  switch (kind) {
    case ExprKind::Load:
    case ExprKind::Unary:
    case ExprKind::Cast: return 1;
    case ExprKind::Binary: return 2;
    case ExprKind::Select:
    case ExprKind::Fma: return 3;
    case ExprKind::Atomic: return operands[2] == kNoExpr ? 2 : 3;
    default: return 0;
  }
}

Program::Program() = default;

namespace {
std::size_t name_hash(std::string_view name) { return std::hash<std::string_view>{}(name); }
}  // namespace

std::uint32_t Program::find_slot(std::string_view name, std::size_t hash) const {
  const std::size_t mask = name_index_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const std::uint32_t entry = name_index_[i];
    if (entry == 0 || names_[entry - 1] == name) return static_cast<std::uint32_t>(i);
  }
}

void Program::grow_name_index() {
  std::vector<std::uint32_t> old = std::move(name_index_);
  name_index_.assign(old.empty() ? 16 : old.size() * 2, 0);
  const std::size_t mask = name_index_.size() - 1;
  for (std::uint32_t entry : old) {
    if (entry == 0) continue;
    std::size_t i = name_hash(names_[entry - 1]) & mask;
    while (name_index_[i] != 0) i = (i + 1) & mask;
    name_index_[i] = entry;
  }
}

NameId Program::intern(std::string_view name) {
  if ((names_.size() + 1) * 2 > name_index_.size()) grow_name_index();
  const std::uint32_t slot = find_slot(name, name_hash(name));
  if (name_index_[slot] != 0) return NameId{name_index_[slot] - 1};
  GC_ASSERT(names_.size() < 0xFFFFFFFEu);
  const NameId id{static_cast<std::uint32_t>(names_.size())};
  names_.emplace_back(name);
  name_index_[slot] = index_of(id) + 1;
  return id;
}

std::optional<NameId> Program::find_name(std::string_view name) const {
  if (name_index_.empty()) return std::nullopt;
  const std::uint32_t entry = name_index_[find_slot(name, name_hash(name))];
  if (entry == 0) return std::nullopt;
  return NameId{entry - 1};
}

StmtList Program::add_list(std::span<const StmtId> stmts) {
  GC_ASSERT(list_pool_.size() + stmts.size() < 0xFFFFFFFFu);
  StmtList l{static_cast<std::uint32_t>(list_pool_.size()), static_cast<std::uint32_t>(stmts.size())};
  list_pool_.insert(list_pool_.end(), stmts.begin(), stmts.end());
  return l;
}

void Program::reserve_more(std::size_t exprs, std::size_t stmts, std::size_t list_entries) {
  exprs_.reserve(exprs_.size() + exprs);
  expr_locs_.reserve(expr_locs_.size() + exprs);
  stmts_.reserve(stmts_.size() + stmts);
  stmt_locs_.reserve(stmt_locs_.size() + stmts);
  list_pool_.reserve(list_pool_.size() + list_entries);
}

const BufferDecl* Program::find_buffer(NameId name) const {
  for (const BufferDecl& b : buffers_)
    if (b.name == name) return &b;
  return nullptr;
}

const BufferDecl* Program::find_buffer(std::string_view name) const {
  const auto id = find_name(name);
  return id ? find_buffer(*id) : nullptr;
}

std::optional<std::size_t> Program::buffer_index(NameId name) const {
  for (std::size_t i = 0; i < buffers_.size(); ++i)
    if (buffers_[i].name == name) return i;
  return std::nullopt;
}

namespace {

class Compactor {
 public:
  Compactor(const Program& from, Program& to) : from_(from), to_(to) {}

  ExprId copy(ExprId id) {
    if (id == kNoExpr) return kNoExpr;
    Expr e = from_.expr(id);
    for (ExprId& operand : e.operands)
      if (operand != kNoExpr) operand = copy(operand);
    return to_.add_expr(e, from_.loc(id));
  }

  StmtList copy(StmtList list) {
    // The copied ids of every list being copied share one stack: a nested list pushes above its
    // parent's and pops its own before the parent pushes the next id.
    const std::size_t base = ids_.size();
    for (StmtId id : from_.list(list)) {
      const StmtId copied = copy(id);
      ids_.push_back(copied);
    }
    const StmtList out = to_.add_list(std::span<const StmtId>(ids_).subspan(base));
    ids_.resize(base);
    return out;
  }

  StmtId copy(StmtId id) {
    Stmt s = from_.stmt(id);
    for (ExprId& e : s.exprs) e = copy(e);
    if (s.has_body()) {
      s.body = copy(s.body);
      s.otherwise = copy(s.otherwise);
    }
    return to_.add_stmt(s, from_.loc(id));
  }

 private:
  const Program& from_;
  Program& to_;
  std::vector<StmtId> ids_;
};

}  // namespace

Program Program::compacted() const {
  Program out;
  out.names_ = names_;
  out.name_index_ = name_index_;
  out.buffers_ = buffers_;
  out.workgroup_size_ = workgroup_size_;
  out.reserve_more(exprs_.size(), stmts_.size(), list_pool_.size());  // an upper bound: garbage is not copied
  Compactor compactor(*this, out);
  out.entry_ = compactor.copy(entry_);
  return out;
}

}  // namespace gridcheck::ir
