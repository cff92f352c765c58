#pragma once
// The IR: a Program owns flat arenas of statements and expressions addressed by 32-bit ids, an
// interned name table and the buffer declarations (docs/semantics.md §2, docs/DESIGN.md §2). Nodes are immutable once
// added; transformations add new nodes and point a new entry list at them. Nodes that are no longer
// reachable from the entry are simply ignored (equality, hashing and printing walk from the entry).

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/ice.hpp"
#include "ir/ops.hpp"
#include "ir/source_loc.hpp"
#include "ir/types.hpp"

namespace gridcheck::ir {

enum class ExprId : std::uint32_t {};
enum class StmtId : std::uint32_t {};
enum class NameId : std::uint32_t {};

inline constexpr ExprId kNoExpr{0xFFFFFFFFu};
inline constexpr NameId kNoName{0xFFFFFFFFu};

constexpr std::uint32_t index_of(ExprId id) { return static_cast<std::uint32_t>(id); }
constexpr std::uint32_t index_of(StmtId id) { return static_cast<std::uint32_t>(id); }
constexpr std::uint32_t index_of(NameId id) { return static_cast<std::uint32_t>(id); }

// ---------------------------------------------------------------------------------------- exprs

enum class ExprKind : std::uint8_t {
  LitU32, LitI32, LitF32, LitBool,
  Var,            ///< payload = NameId of the local
  Load,           ///< payload = buffer NameId; operands = [index]
  BufLen,         ///< payload = buffer NameId; element count of the buffer
  InvocationId,   ///< op = axis; global invocation id
  LocalId,        ///< op = axis; local invocation id within the workgroup
  WorkgroupId,    ///< op = axis
  NumWorkgroups,  ///< op = axis; number of workgroups in the dispatch grid
  WorkgroupSize,  ///< op = axis; declared workgroup size
  Binary,         ///< op = BinOp; operands = [lhs, rhs]
  Unary,          ///< op = UnOp; operands = [x]
  Select,         ///< operands = [cond, if_true, if_false]; both arms are evaluated
  Cast,           ///< op = target ScalarType; operands = [x]
  Fma,            ///< operands = [a, b, c] (f32)
  Atomic,         ///< op = AtomicOp; payload = buffer NameId; operands = [index, value, expected|kNoExpr]
};
inline constexpr int kExprKindCount = 18;

struct Expr {
  ExprKind kind = ExprKind::LitU32;
  std::uint8_t op = 0;
  MemoryOrdering ordering = MemoryOrdering::SeqCst;  ///< atomics only
  std::uint32_t payload = 0;  ///< literal bits, or a NameId (see ExprKind)
  std::array<ExprId, 3> operands = {kNoExpr, kNoExpr, kNoExpr};

  // Typed views of the payload; each asserts the kind.
  NameId var() const { GC_ASSERT(kind == ExprKind::Var); return NameId{payload}; }
  NameId buffer() const {
    GC_ASSERT(kind == ExprKind::Load || kind == ExprKind::BufLen || kind == ExprKind::Atomic);
    return NameId{payload};
  }
  std::uint32_t axis() const { GC_ASSERT(is_builtin()); return op; }
  BinOp bin_op() const { GC_ASSERT(kind == ExprKind::Binary); return static_cast<BinOp>(op); }
  UnOp un_op() const { GC_ASSERT(kind == ExprKind::Unary); return static_cast<UnOp>(op); }
  AtomicOp atomic_op() const { GC_ASSERT(kind == ExprKind::Atomic); return static_cast<AtomicOp>(op); }
  ScalarType cast_target() const { GC_ASSERT(kind == ExprKind::Cast); return static_cast<ScalarType>(op); }
  bool is_literal() const { return kind <= ExprKind::LitBool; }
  bool is_builtin() const { return kind >= ExprKind::InvocationId && kind <= ExprKind::WorkgroupSize; }
  /// The type of a literal.
  ScalarType literal_type() const;
  /// Number of used operand slots (Atomic: 2 or 3).
  int operand_count() const;
};

// ----------------------------------------------------------------------------------- statements

/// A list of statements: a slice of Program's list pool.
struct StmtList {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  bool empty() const { return count == 0; }
};

enum class StmtKind : std::uint8_t {
  Let,               ///< names[0] = local; exprs[0] = value
  Assign,            ///< names[0] = local; exprs[0] = value
  Store,             ///< names[0] = buffer; exprs[0] = index, exprs[1] = value
  If,                ///< exprs[0] = cond; body = then; otherwise = else
  Loop,              ///< names[0] = loop variable; exprs[0] = from, exprs[1] = to (half-open); body
  Block,             ///< body (scoped)
  Region,            ///< names[0] = generator; names[1] = source_region or kNoName; body (scoped)
  Barrier,           ///< op = MemoryOrdering (GridSync is a fence); literal = BarrierMemory
  Return,            ///< ends the invocation
  AllReduce,         ///< names[0] = buffer; op = CollectiveOp; literal = group
  Broadcast,         ///< names[0] = buffer; literal = root; literal2 = group
  AllGather,         ///< names[0] = input; names[1] = output; literal = group
  ReduceScatter,     ///< names[0] = input; names[1] = output; op = CollectiveOp; literal = group
  AsyncLoad,         ///< names[0] = source; names[1] = destination; names[2] = tag; exprs = [offset, size]
  AsyncStore,        ///< names[0] = source; names[1] = destination; names[2] = tag; exprs = [offset, size]
  AsyncWait,         ///< names[2] = tag
  IndirectDispatch,  ///< names[0] = count buffer; literal = count_offset (bytes)
  Trap,              ///< exprs[0] = address; names[2] = tag
  Opaque,            ///< names[0] = extension id
};
inline constexpr int kStmtKindCount = 19;

struct Stmt {
  StmtKind kind = StmtKind::Return;
  std::uint8_t op = 0;
  std::array<NameId, 3> names = {kNoName, kNoName, kNoName};
  std::array<ExprId, 2> exprs = {kNoExpr, kNoExpr};
  std::uint32_t literal = 0;
  std::uint32_t literal2 = 0;
  StmtList body;
  StmtList otherwise;

  MemoryOrdering ordering() const { GC_ASSERT(kind == StmtKind::Barrier); return static_cast<MemoryOrdering>(op); }
  bool is_fence() const { return kind == StmtKind::Barrier && ordering() == MemoryOrdering::GridSync; }
  /// The memory the barrier orders; the validator rejects a literal outside BarrierMemory (G008).
  BarrierMemory barrier_memory() const {
    GC_ASSERT(kind == StmtKind::Barrier);
    return static_cast<BarrierMemory>(literal);
  }
  CollectiveOp collective_op() const {
    GC_ASSERT(kind == StmtKind::AllReduce || kind == StmtKind::ReduceScatter);
    return static_cast<CollectiveOp>(op);
  }
  /// True for the statements that own nested statement lists.
  bool has_body() const {
    return kind == StmtKind::If || kind == StmtKind::Loop || kind == StmtKind::Block || kind == StmtKind::Region;
  }
};

// -------------------------------------------------------------------------------------- buffers

/// A half-open byte range [begin, end).
struct ByteRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  friend constexpr bool operator==(ByteRange, ByteRange) = default;
};

struct BufferDecl {
  NameId name = kNoName;
  std::uint32_t binding = 0;  ///< ignored for workgroup buffers
  ScalarType element = ScalarType::U32;
  BufferAccess access = BufferAccess::ReadOnly;
  MemoryKind kind = MemoryKind::Readonly;
  std::uint32_t count = 0;  ///< element count; 0 = runtime-sized (length from the caller's bytes)
  bool is_output = false;
  bool pipeline_live_out = false;
  std::optional<ByteRange> output_byte_range;
  SourceLoc loc;

  /// Element size in bytes; every scalar of the subset is one 32-bit word.
  static constexpr std::uint32_t kElementBytes = 4;
  std::uint64_t static_byte_len() const { return std::uint64_t{count} * kElementBytes; }
};

// -------------------------------------------------------------------------------------- program

class Program {
 public:
  Program();

  // -- names
  NameId intern(std::string_view name);
  std::optional<NameId> find_name(std::string_view name) const;
  std::string_view name(NameId id) const {
    GC_ASSERT(index_of(id) < names_.size());
    return names_[index_of(id)];
  }
  std::size_t name_count() const { return names_.size(); }

  // -- nodes. add_* return the new id; the location may be unknown. (The hot accessors are defined
  // here, inline: every walk and copy calls them once per node.)
  ExprId add_expr(const Expr& e, SourceLoc loc = {}) {
    GC_ASSERT(exprs_.size() < 0xFFFFFFFFu);
    exprs_.push_back(e);
    expr_locs_.push_back(loc);
    return ExprId{static_cast<std::uint32_t>(exprs_.size() - 1)};
  }
  StmtId add_stmt(const Stmt& s, SourceLoc loc = {}) {
    GC_ASSERT(stmts_.size() < 0xFFFFFFFFu);
    stmts_.push_back(s);
    stmt_locs_.push_back(loc);
    return StmtId{static_cast<std::uint32_t>(stmts_.size() - 1)};
  }
  StmtList add_list(std::span<const StmtId> stmts);
  const Expr& expr(ExprId id) const { GC_ASSERT(index_of(id) < exprs_.size()); return exprs_[index_of(id)]; }
  const Stmt& stmt(StmtId id) const { GC_ASSERT(index_of(id) < stmts_.size()); return stmts_[index_of(id)]; }
  std::span<const StmtId> list(StmtList l) const {
    GC_ASSERT(std::size_t{l.first} + l.count <= list_pool_.size());
    return std::span<const StmtId>(list_pool_.data() + l.first, l.count);
  }
  /// False when `l` does not lie inside the list pool (only hand-forged lists; the validator checks it).
  bool is_valid_list(StmtList l) const { return std::size_t{l.first} + l.count <= list_pool_.size(); }
  SourceLoc loc(ExprId id) const { return expr_locs_[index_of(id)]; }
  SourceLoc loc(StmtId id) const { return stmt_locs_[index_of(id)]; }
  void set_loc(StmtId id, SourceLoc loc) { stmt_locs_[index_of(id)] = loc; }
  void set_loc(ExprId id, SourceLoc loc) { expr_locs_[index_of(id)] = loc; }
  std::size_t expr_count() const { return exprs_.size(); }
  std::size_t stmt_count() const { return stmts_.size(); }
  std::size_t list_pool_size() const { return list_pool_.size(); }
  /// Makes room for this many more expressions, statements and list entries (a copy into a fresh
  /// arena reserves the source's sizes once instead of growing node by node). Changes no ids.
  void reserve_more(std::size_t exprs, std::size_t stmts, std::size_t list_entries);

  // -- entry and shape
  StmtList entry() const { return entry_; }
  std::span<const StmtId> entry_stmts() const { return list(entry_); }
  void set_entry(StmtList entry) { entry_ = entry; }
  void set_entry(std::span<const StmtId> stmts) { entry_ = add_list(stmts); }
  std::array<std::uint32_t, 3> workgroup_size() const { return workgroup_size_; }
  void set_workgroup_size(std::array<std::uint32_t, 3> size) { workgroup_size_ = size; }
  std::uint32_t invocations_per_workgroup() const {
    return workgroup_size_[0] * workgroup_size_[1] * workgroup_size_[2];
  }

  // -- buffers (declaration order is the dispatch ABI, docs/semantics.md §5)
  std::span<const BufferDecl> buffers() const { return buffers_; }
  std::vector<BufferDecl>& mutable_buffers() { return buffers_; }
  void add_buffer(const BufferDecl& decl) { buffers_.push_back(decl); }
  const BufferDecl* find_buffer(NameId name) const;
  const BufferDecl* find_buffer(std::string_view name) const;
  std::optional<std::size_t> buffer_index(NameId name) const;

  /// Copies only the nodes reachable from the entry into a fresh arena (ids change; names and
  /// locations are kept). Used by transformations that leave much garbage behind.
  Program compacted() const;

 private:
  /// Open-addressing index over names_ (power-of-two size, at most half full): each slot holds a
  /// name's index + 1, 0 when empty. One flat vector, so interning allocates only on growth and a
  /// program copy copies it in one piece.
  std::uint32_t find_slot(std::string_view name, std::size_t hash) const;
  void grow_name_index();
  std::vector<std::string> names_;
  std::vector<std::uint32_t> name_index_;
  std::vector<Expr> exprs_;
  std::vector<SourceLoc> expr_locs_;
  std::vector<Stmt> stmts_;
  std::vector<SourceLoc> stmt_locs_;
  std::vector<StmtId> list_pool_;
  std::vector<BufferDecl> buffers_;
  StmtList entry_;
  std::array<std::uint32_t, 3> workgroup_size_ = {1, 1, 1};
};

/// The generator name of the root region that `Program::wrapped` adds (docs/semantics.md §2.1).
inline constexpr std::string_view kRootRegionGenerator = "vyre.program.root";

}  // namespace gridcheck::ir
