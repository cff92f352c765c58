// The pre-pass from IR to the register code of compiled_program.hpp.

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <optional>
#include <utility>

#include "interp/compiled_program.hpp"
#include "interp/race_detector.hpp"
#include "ir/scalar_semantics.hpp"
#include "ir/walk.hpp"

namespace gridcheck::interp {
namespace {

using ir::BinOp;
using ir::ExprKind;
using ir::ScalarType;
using ir::StmtKind;

// Refusal codes of the compiler (engineering.md: R = run-time / interpreter).
constexpr const char* kUnsupported = "R001";
constexpr const char* kStoreToReadOnly = "R002";
constexpr const char* kBadAtomic = "R003";
constexpr const char* kF32Index = "R004";
constexpr const char* kAssignLoopVariable = "R005";
constexpr const char* kRelaxedBarrier = "R006";
constexpr const char* kUnknownName = "R007";

/// The Instr::sub of a barrier that orders `memory` (compiled_program.hpp). A value outside
/// BarrierMemory is malformed IR (the validator's G008) and orders all memory, as before scopes existed.
std::uint8_t memory_mask(ir::BarrierMemory memory) {
  switch (memory) {
    case ir::BarrierMemory::All: return kOrdersAllMemory;
    case ir::BarrierMemory::Workgroup: return kOrdersWorkgroupMemory;
    case ir::BarrierMemory::Storage: return kOrdersStorageMemory;
  }
  return kOrdersAllMemory;
}

std::string_view stmt_word(StmtKind kind) {
  switch (kind) {
    case StmtKind::AllReduce: return "all_reduce";
    case StmtKind::Broadcast: return "broadcast";
    case StmtKind::AllGather: return "all_gather";
    case StmtKind::ReduceScatter: return "reduce_scatter";
    case StmtKind::AsyncLoad: return "async_load";
    case StmtKind::AsyncStore: return "async_store";
    case StmtKind::AsyncWait: return "async_wait";
    case StmtKind::IndirectDispatch: return "indirect_dispatch";
    case StmtKind::Opaque: return "opaque";
    default: return "statement";
  }
}

using PathId = std::uint32_t;  ///< index into CompiledProgram::paths

class Compiler {
 public:
  Compiler(const ir::Program& p, const ir::TypeTable& types, std::string_view file)
      : p_(p), types_(types), file_(file) {}

  ir::Result<CompiledProgram> run() {
    out_.workgroup_size = p_.workgroup_size();
    // About one instruction, origin and site per node (loops unrolled may need more).
    const std::size_t nodes = p_.expr_count() + p_.stmt_count() + 1;
    out_.code.reserve(nodes);
    out_.origins.reserve(nodes);
    out_.sites.reserve(nodes);
    out_.paths.reserve(p_.stmt_count() + 1);
    out_.buffers.reserve(p_.buffers().size());
    out_.literal_values.reserve(32);
    scope_.reserve(16);
    layout_buffers();
    assign_slots();
    const auto entry = p_.entry_stmts();
    for (std::size_t i = 0; i < entry.size(); ++i)
      compile_stmt(entry[i], path_node(PathNode::kNone, "entry", static_cast<std::uint32_t>(i)));
    set_origin({}, path_node(PathNode::kNone, "end", PathNode::kNone), What{"end of program"}, true, 0);
    emit({Op::Return});
    out_.frame_words = temp_base_ + temp_max_;
    if (diags_.has_errors()) return std::move(diags_);
    out_.race_sites = index_race_sites(out_);
    return std::move(out_);
  }

 private:
  // ------------------------------------------------------------------------------- layout

  void layout_buffers() {
    std::uint32_t storage = 0;
    for (const ir::BufferDecl& d : p_.buffers()) {
      CompiledBuffer b;
      b.name = std::string(p_.name(d.name));
      b.element = d.element;
      b.access = d.access;
      b.workgroup = d.access == ir::BufferAccess::Workgroup;
      b.declared_count = d.count;
      if (b.workgroup) {
        b.workgroup_offset = out_.workgroup_words;
        out_.workgroup_words += d.count;
      } else {
        b.storage_index = storage++;
      }
      out_.buffers.push_back(std::move(b));
    }
    out_.storage_buffer_count = storage;
  }

  /// Constants, buf_len slots and locals get fixed slots before code generation, so that the
  /// temporaries can start right after them.
  void assign_slots() {
    // One walk: literals are numbered in order of first use from kFirstConstSlot, then the buf_len
    // slots follow in order of first use, then the locals (counted here) and the temporaries.
    std::vector<std::uint32_t> buf_len_order;
    constexpr std::uint32_t kSeen = 0xFFFFFFFFu;
    buf_len_slot_.assign(p_.buffers().size(), 0);
    const_slot_.assign(64, {0, 0});  // grows (const_slot_entry) to stay at most half full
    local_slot_.assign(2 * p_.stmt_count(), 0);
    std::uint32_t locals = 0;
    const auto visit_expr = [&](ir::ExprId id) {
      const ir::Expr& e = p_.expr(id);
      if (e.is_literal()) {
        const std::uint32_t word = ir::literal_word(e.literal_type(), e.payload);
        if (std::uint32_t& slot = const_slot_entry(word); slot == 0) {
          slot = kFirstConstSlot + static_cast<std::uint32_t>(out_.literal_values.size());
          out_.literal_values.push_back(word);
          if (2 * out_.literal_values.size() >= const_slot_.size()) grow_const_slots();
        }
      } else if (e.kind == ExprKind::BufLen) {
        const auto index = p_.buffer_index(e.buffer());
        if (!index || buf_len_slot_[*index] != 0) return;
        buf_len_slot_[*index] = kSeen;
        buf_len_order.push_back(static_cast<std::uint32_t>(*index));
      }
    };
    ir::for_each_stmt(p_, p_.entry(), [&](ir::StmtId id) {
      const ir::Stmt& s = p_.stmt(id);
      if (s.kind == StmtKind::Let) locals += 1;
      if (s.kind == StmtKind::Loop) locals += 2;
      ir::for_each_stmt_operand(s, [&](ir::ExprId root) { ir::for_each_expr(p_, root, visit_expr); });
    });
    std::uint32_t next = kFirstConstSlot + static_cast<std::uint32_t>(out_.literal_values.size());
    for (std::uint32_t index : buf_len_order) {
      buf_len_slot_[index] = next;
      out_.buf_len_slots.push_back({next, index});
      ++next;
    }
    next_local_ = next;
    temp_base_ = next + locals;
  }

  // ---------------------------------------------------------------------------- utilities

  void refuse(const char* code, ir::SourceLoc loc, PathId path, std::string message) {
    auto& d = diags_.error(code, std::string(file_), loc, std::move(message));
    if (!loc.known())
      d.notes.push_back(ir::Diagnostic{ir::Severity::Note, {}, std::string(file_), {}, "at " + out_.path_string(path), {}});
  }

  std::uint32_t emit(Instr in) {
    if (has_pending_site_) {
      const PendingSite& p = pending_site_;
      out_.sites.push_back(SiteRecipe{p.loc, p.path, p.what.prefix, std::string(p.what.arg), p.what.suffix});
      origin_.site = static_cast<std::uint32_t>(out_.sites.size() - 1);
      has_pending_site_ = false;
    }
    out_.code.push_back(in);
    out_.origins.push_back(origin_);
    return static_cast<std::uint32_t>(out_.code.size() - 1);
  }
  std::uint32_t here() const { return static_cast<std::uint32_t>(out_.code.size()); }

  std::uint32_t temp() {
    const std::uint32_t t = temp_base_ + temp_next_++;
    temp_max_ = std::max(temp_max_, temp_next_);
    return t;
  }
  /// The slot of a `let` (part 0) or of a loop's variable (0) and end bound (1). A statement keeps
  /// its slots when it is compiled more than once (inside an unrolled loop).
  std::uint32_t local_slot(ir::StmtId id, int part) {
    std::uint32_t& slot = local_slot_[(std::size_t{ir::index_of(id)} << 1) | static_cast<std::size_t>(part)];
    if (slot == 0) slot = next_local_++;  // locals follow the constants, so a slot is never 0
    return slot;
  }

  void grow_const_slots() {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> old(2 * const_slot_.size(), {0, 0});
    old.swap(const_slot_);
    for (const auto& [word, slot] : old)
      if (slot != 0) const_slot_entry(word) = slot;
  }

  /// The slot of literal word `word` in const_slot_ (0 while it has none): open addressing.
  std::uint32_t& const_slot_entry(std::uint32_t word) {
    const std::size_t mask = const_slot_.size() - 1;
    for (std::size_t i = (word * std::size_t{0x9E3779B1u}) >> 7 & mask;; i = (i + 1) & mask) {
      auto& [key, slot] = const_slot_[i];
      if (slot == 0) key = word;
      if (key == word) return slot;
    }
  }

  /// A loop with literal bounds, at most kMaxUnrollTrips iterations, a small body and no barrier is
  /// compiled as that many copies of its body: no bound checks or back-edges at run time. The loop
  /// variable is kept up to date only when the body reads it.
  static constexpr std::uint32_t kMaxUnrollTrips = 16;
  static constexpr std::uint32_t kMaxUnrollStatements = 16;
  bool compile_unrolled(ir::StmtId id, const ir::Stmt& s, PathId path, std::uint32_t var) {
    const ir::Expr& from = p_.expr(s.exprs[0]);
    const ir::Expr& to = p_.expr(s.exprs[1]);
    auto literal_u32 = [](const ir::Expr& e) -> std::optional<std::uint32_t> {
      if (e.kind == ExprKind::LitU32 || e.kind == ExprKind::LitBool) return e.payload;
      if (e.kind == ExprKind::LitI32 && static_cast<std::int32_t>(e.payload) >= 0) return e.payload;
      return std::nullopt;
    };
    const auto lo = literal_u32(from), hi = literal_u32(to);
    if (!lo || !hi || barrier_scope(s.body) != 0) return false;
    const std::uint32_t trips = *hi > *lo ? *hi - *lo : 0;
    if (trips > kMaxUnrollTrips) return false;
    std::uint32_t statements = 0;
    bool reads_var = false;
    ir::for_each_stmt(p_, s.body, [&](ir::StmtId) { ++statements; });
    ir::for_each_expr_in(p_, s.body, [&](ir::ExprId e) {
      reads_var = reads_var || (p_.expr(e).kind == ExprKind::Var && p_.expr(e).var() == s.names[0]);
    });
    if (statements > kMaxUnrollStatements) return false;
    if (trips > 0 && reads_var) compile_into(s.exprs[0], var);
    for (std::uint32_t k = 0; k < trips; ++k) {
      const std::size_t mark = scope_.size();
      scope_.push_back({s.names[0], var, true});
      compile_list(s.body, path, "body");
      scope_.resize(mark);
      if (reads_var && k + 1 < trips) {
        set_origin_stmt(id, path, What{"loop ", p_.name(s.names[0])});
        emit({Op::Inc, 0, 0, 0, var});
      }
    }
    return true;
  }

  struct Binding {
    ir::NameId name;
    std::uint32_t slot;
    bool loop_variable;
  };
  const Binding* lookup(ir::NameId name) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->name == name) return &*it;
    return nullptr;
  }

  ScalarType type_of(ir::ExprId id) const { return types_[id]; }

  /// A site's description without formatting: prefix + arg + suffix (prefix and suffix literals).
  struct What {
    const char* prefix;
    std::string_view arg = {};
    const char* suffix = "";
  };

  PathId path_node(PathId parent, const char* field, std::uint32_t index) {
    out_.paths.push_back(PathNode{parent, field, index});
    return static_cast<PathId>(out_.paths.size() - 1);
  }
  /// The origin of the instructions emitted next. Its site is spelt out (a SiteRecipe) by the first
  /// of them (emit): an origin that the next one replaces before any instruction costs nothing.
  void set_origin(ir::SourceLoc loc, PathId path, What what, bool is_stmt, std::uint32_t node) {
    pending_site_ = PendingSite{loc, path, what};
    has_pending_site_ = true;
    origin_ = Origin{0, is_stmt, node, 0};
  }
  void set_origin_stmt(ir::StmtId id, PathId path, What what) {
    set_origin(p_.loc(id), path, what, true, ir::index_of(id));
  }
  void set_origin_expr(ir::ExprId id, What what) {
    const ir::SourceLoc loc = p_.loc(id).known() ? p_.loc(id) : stmt_loc_;
    set_origin(loc, stmt_path_, what, false, ir::index_of(id));
  }

  /// 1 = holds a workgroup barrier (no grid_sync), 2 = holds a grid_sync, 0 = neither.
  int barrier_scope(ir::StmtList list) const {
    int scope = 0;
    ir::for_each_stmt(p_, list, [&](ir::StmtId id) {
      const ir::Stmt& s = p_.stmt(id);
      if (s.kind == StmtKind::Barrier) scope = std::max(scope, s.is_fence() ? 2 : 1);
    });
    return scope;
  }

  std::uint32_t first_barrier_at_or_after(std::uint32_t pc) const {
    for (std::uint32_t b : barrier_pcs_)
      if (b >= pc) return b;
    return pc;
  }

  // --------------------------------------------------------------------------- statements

  void compile_list(ir::StmtList list, PathId path, const char* field) {
    const std::size_t mark = scope_.size();
    const auto stmts = p_.list(list);
    for (std::size_t i = 0; i < stmts.size(); ++i)
      compile_stmt(stmts[i], path_node(path, field, static_cast<std::uint32_t>(i)));
    scope_.resize(mark);
  }

  void compile_stmt(ir::StmtId id, PathId path) {
    const ir::Stmt& s = p_.stmt(id);
    temp_next_ = 0;
    stmt_loc_ = p_.loc(id);
    stmt_path_ = path;
    switch (s.kind) {
      case StmtKind::Let: {
        set_origin_stmt(id, path, What{"let ", p_.name(s.names[0])});
        const std::uint32_t slot = local_slot(id, 0);
        compile_into(s.exprs[0], slot);
        scope_.push_back({s.names[0], slot, false});
        break;
      }
      case StmtKind::Assign: {
        set_origin_stmt(id, path, What{"assign ", p_.name(s.names[0])});
        const Binding* b = lookup(s.names[0]);
        if (b == nullptr) {
          refuse(kUnknownName, p_.loc(id), path, fmt::format("assignment to undeclared name '{}'", p_.name(s.names[0])));
          break;
        }
        if (b->loop_variable) {
          refuse(kAssignLoopVariable, p_.loc(id), path,
                 fmt::format("assignment to loop variable '{}'", p_.name(s.names[0])));
          break;
        }
        compile_into(s.exprs[0], b->slot);
        break;
      }
      case StmtKind::Store: compile_store(id, s, path); break;
      case StmtKind::If: compile_if(id, s, path); break;
      case StmtKind::Loop: compile_loop(id, s, path); break;
      case StmtKind::Block: compile_list(s.body, path, "body"); break;
      case StmtKind::Region: compile_list(s.body, path, "body"); break;
      case StmtKind::Barrier: {
        const ir::MemoryOrdering ordering = s.ordering();
        if (!ir::is_valid_for_barrier(ordering)) {
          refuse(kRelaxedBarrier, p_.loc(id), path, "barrier with relaxed ordering");
          break;
        }
        const bool fence = ordering == ir::MemoryOrdering::GridSync;
        set_origin_stmt(id, path, fence ? What{"grid_sync"} : What{"barrier ", ir::name_of(ordering)});
        Instr barrier{fence ? Op::Fence : Op::Barrier};
        if (!fence) barrier.sub = memory_mask(s.barrier_memory());
        barrier_pcs_.push_back(emit(barrier));
        (fence ? out_.has_fence : out_.has_barrier) = true;
        break;
      }
      case StmtKind::Return:
        set_origin_stmt(id, path, What{"return"});
        emit({Op::Return});
        break;
      case StmtKind::Trap: {
        const What trap{"trap ", s.names[2] == ir::kNoName ? std::string_view() : p_.name(s.names[2])};
        set_origin_stmt(id, path, trap);
        if (s.exprs[0] != ir::kNoExpr) compile_expr(s.exprs[0]);
        set_origin_stmt(id, path, trap);
        emit({Op::Trap});
        break;
      }
      default:
        refuse(kUnsupported, p_.loc(id), path,
               fmt::format("the reference interpreter does not run {} statements", stmt_word(s.kind)));
        break;
    }
  }

  void compile_store(ir::StmtId id, const ir::Stmt& s, PathId path) {
    const auto index = p_.buffer_index(s.names[0]);
    set_origin_stmt(id, path, What{"store to ", p_.name(s.names[0])});
    if (!index) {
      refuse(kUnknownName, p_.loc(id), path, fmt::format("store into unknown buffer '{}'", p_.name(s.names[0])));
      return;
    }
    const ir::BufferAccess access = p_.buffers()[*index].access;
    if (access == ir::BufferAccess::ReadOnly || access == ir::BufferAccess::Uniform) {
      refuse(kStoreToReadOnly, p_.loc(id), path,
             fmt::format("store into '{}', which is {}", p_.name(s.names[0]), ir::name_of(access)));
      return;
    }
    const std::uint32_t idx = compile_index(s.exprs[0]);
    const std::uint32_t val = compile_expr(s.exprs[1]);
    set_origin_stmt(id, path, What{"store to ", p_.name(s.names[0])});
    emit({Op::Store, 0, 0, 0, 0, static_cast<std::uint32_t>(*index), idx, val});
  }

  /// A register holding a value whose truthiness is `!= 0`.
  std::uint32_t compile_condition(ir::ExprId cond) {
    const std::uint32_t c = compile_expr(cond);
    if (type_of(cond) != ScalarType::F32) return c;
    const std::uint32_t t = temp();
    emit({Op::TruthyF32, 0, 0, 0, t, c});
    return t;
  }

  /// When the last instruction, emitted at or after `cond_start`, is a comparison into `cond` (a
  /// temporary of the condition, read by nothing but the if's jump), turns it into the compare-and-jump
  /// that jumps when the comparison is false (target patched by the caller). The instruction keeps
  /// its origin (the comparison's site) and costs the two steps of the pair (engine.cpp).
  bool fuse_compare_jump(std::uint32_t cond_start, std::uint32_t cond) {
    if (here() == cond_start) return false;
    Instr& last = out_.code.back();
    if (last.d != cond) return false;
    Op fused;
    switch (last.op) {
      case Op::Eq: fused = Op::JnEq; break;
      case Op::Ne: fused = Op::JnNe; break;
      case Op::LtU: fused = Op::JnLtU; break;
      case Op::LtS: fused = Op::JnLtS; break;
      case Op::LeU: fused = Op::JnLeU; break;
      case Op::LeS: fused = Op::JnLeS; break;
      default: return false;
    }
    last = Instr{fused, 0, 0, 0, 0, last.a, last.b};
    return true;
  }

  /// The target field of a Jz (b) or a compare-and-jump (c).
  static std::uint32_t& jump_target(Instr& in) { return in.op == Op::Jz ? in.b : in.c; }

  void compile_if(ir::StmtId id, const ir::Stmt& s, PathId path) {
    set_origin_stmt(id, path, What{"if"});
    const std::uint32_t cond_start = here();
    const std::uint32_t cond = compile_condition(s.exprs[0]);
    set_origin_stmt(id, path, What{"if"});
    const int scope = std::max(barrier_scope(s.body), barrier_scope(s.otherwise));
    std::uint32_t record = 0;
    if (scope > 0)
      record = emit({Op::RecordIf, static_cast<std::uint8_t>(scope == 2 ? RecordScope::Grid : RecordScope::Workgroup),
                     0, 0, 0, cond});
    // The branch's jump: Jz, or the condition's own comparison turned into a compare-and-jump.
    const std::uint32_t jz = scope == 0 && fuse_compare_jump(cond_start, cond) ? here() - 1
                                                                               : emit({Op::Jz, 0, 0, 0, 0, cond});
    const std::uint32_t body_start = here();
    compile_list(s.body, path, "then");
    if (!s.otherwise.empty()) {
      set_origin_stmt(id, path, What{"if"});
      const std::uint32_t jmp = emit({Op::Jmp});
      jump_target(out_.code[jz]) = here();
      compile_list(s.otherwise, path, "else");
      out_.code[jmp].a = here();
    } else {
      jump_target(out_.code[jz]) = here();
    }
    if (scope > 0) out_.origins[record].guarded_barrier_pc = first_barrier_at_or_after(body_start);
  }

  void compile_loop(ir::StmtId id, const ir::Stmt& s, PathId path) {
    const What what{"loop ", p_.name(s.names[0])};
    set_origin_stmt(id, path, what);
    const std::uint32_t var = local_slot(id, 0);
    const std::uint32_t end = local_slot(id, 1);
    if (compile_unrolled(id, s, path, var)) return;
    for (int i = 0; i < 2; ++i) {
      const ir::ExprId bound = s.exprs[i];
      if (type_of(bound) == ScalarType::F32) {
        refuse(kF32Index, p_.loc(id), path, "loop bound of type f32");
        return;
      }
      compile_into(bound, i == 0 ? var : end);
      set_origin_stmt(id, path, what);
      if (type_of(bound) == ScalarType::I32)
        emit({Op::CheckU32, static_cast<std::uint8_t>(U32Use::LoopBound), 0, 0, 0, i == 0 ? var : end});
    }
    const int scope = barrier_scope(s.body);
    std::uint32_t record = 0;
    if (scope > 0)
      record = emit({Op::RecordLoop,
                     static_cast<std::uint8_t>(scope == 2 ? RecordScope::Grid : RecordScope::Workgroup), 0, 0, 0,
                     var, end});
    const std::uint32_t skip = emit({Op::JgeU, 0, 0, 0, 0, var, end});
    const std::uint32_t body_start = here();
    const std::size_t mark = scope_.size();
    scope_.push_back({s.names[0], var, true});
    compile_list(s.body, path, "body");
    scope_.resize(mark);
    set_origin_stmt(id, path, what);
    emit({Op::LoopNext, 0, 0, 0, var, end, body_start});
    out_.code[skip].c = here();
    if (scope > 0) out_.origins[record].guarded_barrier_pc = first_barrier_at_or_after(body_start);
  }

  // -------------------------------------------------------------------------- expressions

  void compile_into(ir::ExprId id, std::uint32_t dst) {
    const std::uint32_t r = compile_expr(id, dst);
    if (r != dst) emit({Op::Mov, 0, 0, 0, dst, r});
  }

  /// An index register (u32, bool, or an i32 checked to be non-negative).
  std::uint32_t compile_index(ir::ExprId id) {
    const ScalarType t = type_of(id);
    if (t == ScalarType::F32) {
      refuse(kF32Index, stmt_loc_, stmt_path_, "index of type f32");
      return 0;
    }
    const std::uint32_t r = compile_expr(id);
    if (t == ScalarType::I32) {
      set_origin_expr(id, What{"index"});
      emit({Op::CheckU32, static_cast<std::uint8_t>(U32Use::Index), 0, 0, 0, r});
    }
    return r;
  }

  std::uint32_t dest(std::uint32_t hint) { return hint != kNoHint ? hint : temp(); }

  static constexpr std::uint32_t kNoHint = 0xFFFFFFFFu;

  std::uint32_t compile_expr(ir::ExprId id, std::uint32_t hint = kNoHint) {
    const ir::Expr& e = p_.expr(id);
    switch (e.kind) {
      case ExprKind::LitU32:
      case ExprKind::LitI32:
      case ExprKind::LitF32:
      case ExprKind::LitBool: {
        const std::uint32_t slot = const_slot_entry(ir::literal_word(e.literal_type(), e.payload));
        GC_ASSERT(slot != 0);  // assign_slots numbered every literal
        return slot;
      }
      case ExprKind::Var: {
        const Binding* b = lookup(e.var());
        if (b == nullptr) {
          refuse(kUnknownName, stmt_loc_, stmt_path_, fmt::format("undeclared variable '{}'", p_.name(e.var())));
          return 0;
        }
        return b->slot;
      }
      case ExprKind::InvocationId: return kSlotGlobalId + e.axis();
      case ExprKind::LocalId: return kSlotLocalId + e.axis();
      case ExprKind::WorkgroupId: return kSlotWorkgroupId + e.axis();
      case ExprKind::NumWorkgroups: return kSlotNumWorkgroups + e.axis();
      case ExprKind::WorkgroupSize: return kSlotWorkgroupSize + e.axis();
      case ExprKind::BufLen: {
        const auto index = p_.buffer_index(e.buffer());
        if (!index) {
          refuse(kUnknownName, stmt_loc_, stmt_path_, fmt::format("unknown buffer '{}'", p_.name(e.buffer())));
          return 0;
        }
        return buf_len_slot_[*index];
      }
      case ExprKind::Load: return compile_load(id, e, hint);
      case ExprKind::Binary: return compile_binary(id, e, hint);
      case ExprKind::Unary: {
        const std::uint32_t x = compile_expr(e.operands[0]);
        const std::uint32_t d = dest(hint);
        set_origin_expr(id, What{"", ir::info(e.un_op()).mnemonic});
        if (e.un_op() == ir::UnOp::LogicalNot) {
          emit({Op::LogNot, 0, 0, 0, d, x});
        } else if (const std::optional<Op> fast = fast_unary(e.un_op(), type_of(e.operands[0]))) {
          emit({*fast, 0, 0, 0, d, x});
        } else {
          emit({Op::Unary, static_cast<std::uint8_t>(e.un_op()), static_cast<std::uint8_t>(type_of(e.operands[0])), 0,
                d, x});
        }
        return d;
      }
      case ExprKind::Select: {
        const std::uint32_t c = compile_condition(e.operands[0]);
        const std::uint32_t t = compile_expr(e.operands[1]);
        const std::uint32_t f = compile_expr(e.operands[2]);
        const std::uint32_t d = dest(hint);
        set_origin_expr(id, What{"select"});
        emit({Op::Select, 0, 0, 0, d, c, t, f});
        return d;
      }
      case ExprKind::Cast: {
        const std::uint32_t x = compile_expr(e.operands[0], hint);
        const ScalarType from = type_of(e.operands[0]);
        if (from == e.cast_target()) return x;  // registers hold canonical values already
        const std::uint32_t d = dest(hint);
        set_origin_expr(id, What{"cast"});
        const bool from_int = from == ScalarType::U32 || from == ScalarType::I32;
        const bool to_int = e.cast_target() == ScalarType::U32 || e.cast_target() == ScalarType::I32;
        if (from_int && to_int) {  // the same bits
          emit({Op::Mov, 0, 0, 0, d, x});
          return d;
        }
        if ((from_int && e.cast_target() == ScalarType::Bool) || (from == ScalarType::Bool && to_int)) {
          emit({Op::NeZero, 0, 0, 0, d, x});
          return d;
        }
        emit({Op::Cast, static_cast<std::uint8_t>(e.cast_target()), static_cast<std::uint8_t>(from), 0, d, x});
        return d;
      }
      case ExprKind::Fma: {
        const std::uint32_t a = compile_expr(e.operands[0]);
        const std::uint32_t b = compile_expr(e.operands[1]);
        const std::uint32_t c = compile_expr(e.operands[2]);
        const std::uint32_t d = dest(hint);
        set_origin_expr(id, What{"fma"});
        emit({Op::Fma, 0, 0, 0, d, a, b, c});
        return d;
      }
      case ExprKind::Atomic: return compile_atomic(id, e, hint);
    }
    GC_ICE("unknown expression kind");
  }

  std::uint32_t compile_load(ir::ExprId id, const ir::Expr& e, std::uint32_t hint) {
    const auto index = p_.buffer_index(e.buffer());
    if (!index) {
      refuse(kUnknownName, stmt_loc_, stmt_path_, fmt::format("load from unknown buffer '{}'", p_.name(e.buffer())));
      return 0;
    }
    const std::uint32_t idx = compile_index(e.operands[0]);
    const std::uint32_t d = dest(hint);
    set_origin_expr(id, What{"load from ", p_.name(e.buffer())});
    const ScalarType element = p_.buffers()[*index].element;
    const Op op = element == ScalarType::Bool ? Op::LoadBool : element == ScalarType::F32 ? Op::LoadF32 : Op::Load;
    emit({op, 0, 0, 0, d, static_cast<std::uint32_t>(*index), idx});
    return d;
  }

  std::uint32_t compile_atomic(ir::ExprId id, const ir::Expr& e, std::uint32_t hint) {
    const auto index = p_.buffer_index(e.buffer());
    const std::string what = fmt::format("{} on {}", ir::info(e.atomic_op()).mnemonic, p_.name(e.buffer()));  // rare
    if (!index) {
      refuse(kUnknownName, stmt_loc_, stmt_path_, fmt::format("atomic on unknown buffer '{}'", p_.name(e.buffer())));
      return 0;
    }
    const ir::BufferDecl& decl = p_.buffers()[*index];
    if (decl.access != ir::BufferAccess::ReadWrite || decl.element != ScalarType::U32) {
      refuse(kBadAtomic, p_.loc(id).known() ? p_.loc(id) : stmt_loc_, stmt_path_,
             fmt::format("atomic on '{}', which is not a read_write buffer of u32", p_.name(e.buffer())));
      return 0;
    }
    const bool has_expected = e.atomic_op() == ir::AtomicOp::CompareExchange;
    if (has_expected != (e.operands[2] != ir::kNoExpr)) {
      refuse(kBadAtomic, stmt_loc_, stmt_path_,
             has_expected ? "compare-exchange without an expected value" : "expected value on an atomic that is not compare-exchange");
      return 0;
    }
    // vyre's evaluation order: index, expected, value.
    const std::uint32_t idx = compile_index(e.operands[0]);
    std::uint32_t expected = 0;
    if (has_expected) expected = compile_atomic_operand(e.operands[2]);
    const std::uint32_t value = compile_atomic_operand(e.operands[1]);
    const std::uint32_t d = dest(hint);
    set_origin_expr(id, What{"", what});
    emit({Op::Atomic, static_cast<std::uint8_t>(e.atomic_op()), 0, 0, d, static_cast<std::uint32_t>(*index), idx, value,
          expected});
    return d;
  }

  std::uint32_t compile_atomic_operand(ir::ExprId id) {
    const ScalarType t = type_of(id);
    if (t == ScalarType::F32) {
      refuse(kBadAtomic, stmt_loc_, stmt_path_, "atomic operand of type f32");
      return 0;
    }
    const std::uint32_t r = compile_expr(id);
    if (t == ScalarType::I32) {
      set_origin_expr(id, What{"atomic operand"});
      emit({Op::CheckU32, static_cast<std::uint8_t>(U32Use::AtomicOperand), 0, 0, 0, r});
    }
    return r;
  }

  /// The dedicated opcode of an integer unary operator (the ones generated programs use), or nullopt
  /// for Op::Unary.
  static std::optional<Op> fast_unary(ir::UnOp op, ScalarType t) {
    if (t != ScalarType::U32 && t != ScalarType::I32) return std::nullopt;
    switch (op) {
      case ir::UnOp::Negate: return Op::Neg;
      case ir::UnOp::BitNot: return Op::BitNot;
      case ir::UnOp::Popcount: return Op::Popcount;
      case ir::UnOp::Clz: return Op::Clz;
      case ir::UnOp::Ctz: return Op::Ctz;
      case ir::UnOp::ReverseBits: return Op::ReverseBits;
      case ir::UnOp::Abs: return t == ScalarType::I32 ? Op::AbsS : Op::Mov;  // u32 abs is the value
      default: return std::nullopt;
    }
  }

  /// The operands of an integer `x * y` (for fusing `x * y + z`), or nullopt.
  std::optional<std::pair<ir::ExprId, ir::ExprId>> integer_product(ir::ExprId id) const {
    const ir::Expr& e = p_.expr(id);
    if (e.kind != ExprKind::Binary || e.bin_op() != BinOp::Mul) return std::nullopt;
    const ScalarType t = type_of(e.operands[0]);
    if (t != ScalarType::U32 && t != ScalarType::I32) return std::nullopt;
    return std::pair{e.operands[0], e.operands[1]};
  }

  std::uint32_t compile_binary(ir::ExprId id, const ir::Expr& e, std::uint32_t hint) {
    const ScalarType operand_type = type_of(e.operands[0]);
    const bool wrapping_add = (e.bin_op() == BinOp::Add || e.bin_op() == BinOp::WrappingAdd) &&
                              (operand_type == ScalarType::U32 || operand_type == ScalarType::I32);
    if (wrapping_add) {
      // x * y + z and z + x * y in one instruction; operands keep their left-to-right order.
      if (auto product = integer_product(e.operands[0])) {
        const std::uint32_t x = compile_expr(product->first);
        const std::uint32_t y = compile_expr(product->second);
        const std::uint32_t z = compile_expr(e.operands[1]);
        const std::uint32_t d = dest(hint);
        set_origin_expr(id, What{"operator '+'"});
        emit({Op::MulAdd, 0, 0, 0, d, x, y, z});
        return d;
      }
      if (auto product = integer_product(e.operands[1])) {
        const std::uint32_t z = compile_expr(e.operands[0]);
        const std::uint32_t x = compile_expr(product->first);
        const std::uint32_t y = compile_expr(product->second);
        const std::uint32_t d = dest(hint);
        set_origin_expr(id, What{"operator '+'"});
        emit({Op::MulAdd, 0, 0, 0, d, x, y, z});
        return d;
      }
    }
    std::uint32_t l = compile_expr(e.operands[0]);
    std::uint32_t r = compile_expr(e.operands[1]);
    const std::uint32_t d = dest(hint);
    const ScalarType t = type_of(e.operands[0]);
    const BinOp op = e.bin_op();
    const ir::BinOpInfo& row = ir::info(op);
    set_origin_expr(id, What{"operator '", row.infix.empty() ? row.mnemonic : row.infix, "'"});
    const bool integer = t == ScalarType::U32 || t == ScalarType::I32;
    const bool is_signed = t == ScalarType::I32;
    std::optional<Op> fast;
    bool swap = false;
    if (integer || t == ScalarType::Bool) {
      switch (op) {
        case BinOp::BitAnd: fast = Op::And; break;
        case BinOp::BitOr: fast = Op::Or; break;
        case BinOp::BitXor: fast = Op::Xor; break;
        case BinOp::Eq: fast = Op::Eq; break;
        case BinOp::Ne: fast = Op::Ne; break;
        case BinOp::And: fast = Op::LogAnd; break;
        case BinOp::Or: fast = Op::LogOr; break;
        default: break;
      }
    }
    if (integer && !fast) {
      switch (op) {
        case BinOp::Add:
        case BinOp::WrappingAdd: fast = Op::Add; break;
        case BinOp::Sub:
        case BinOp::WrappingSub: fast = Op::Sub; break;
        case BinOp::Mul: fast = Op::Mul; break;
        case BinOp::Shl: fast = Op::Shl; break;
        case BinOp::Shr: fast = is_signed ? Op::ShrS : Op::ShrU; break;
        case BinOp::Lt: fast = is_signed ? Op::LtS : Op::LtU; break;
        case BinOp::Gt: fast = is_signed ? Op::LtS : Op::LtU; swap = true; break;
        case BinOp::Le: fast = is_signed ? Op::LeS : Op::LeU; break;
        case BinOp::Ge: fast = is_signed ? Op::LeS : Op::LeU; swap = true; break;
        case BinOp::Div: fast = is_signed ? Op::DivS : Op::DivU; break;
        case BinOp::Mod: fast = is_signed ? Op::ModS : Op::ModU; break;
        case BinOp::Min: fast = is_signed ? Op::MinS : Op::MinU; break;
        case BinOp::Max: fast = is_signed ? Op::MaxS : Op::MaxU; break;
        default: break;
      }
    }
    if (!fast) {
      switch (op) {
        case BinOp::SaturatingAdd: fast = t == ScalarType::U32 ? std::optional{Op::SatAddU} : std::nullopt; break;
        case BinOp::SaturatingSub: fast = t == ScalarType::I32 ? std::optional{Op::SatSubS} : std::nullopt; break;
        case BinOp::RotateLeft: fast = t == ScalarType::U32 ? std::optional{Op::RotlU} : std::nullopt; break;
        case BinOp::MulHigh: fast = t == ScalarType::U32 ? std::optional{Op::MulHiU} : std::nullopt; break;
        case BinOp::Add: fast = t == ScalarType::F32 ? std::optional{Op::AddF32} : std::nullopt; break;
        case BinOp::Sub: fast = t == ScalarType::F32 ? std::optional{Op::SubF32} : std::nullopt; break;
        case BinOp::Mul: fast = t == ScalarType::F32 ? std::optional{Op::MulF32} : std::nullopt; break;
        default: break;
      }
    }
    if (swap) std::swap(l, r);
    if (fast) {
      emit({*fast, 0, 0, 0, d, l, r});
    } else {
      emit({Op::Binary, static_cast<std::uint8_t>(op), static_cast<std::uint8_t>(t), 0, d, l, r});
    }
    return d;
  }

  const ir::Program& p_;
  const ir::TypeTable& types_;
  std::string_view file_;
  CompiledProgram out_;
  ir::Diagnostics diags_;
  Origin origin_;
  /// set_origin's site until an instruction is emitted under it (its arg views the program's names
  /// or static text, which outlive the compilation).
  struct PendingSite {
    ir::SourceLoc loc;
    PathId path = 0;
    What what{""};
  };
  PendingSite pending_site_;
  bool has_pending_site_ = false;
  ir::SourceLoc stmt_loc_;
  PathId stmt_path_ = 0;
  std::vector<Binding> scope_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> const_slot_;  ///< (word, slot); slot 0 = empty
  std::vector<std::uint32_t> local_slot_;  ///< index: statement * 2 + part; 0 = none yet
  std::vector<std::uint32_t> buf_len_slot_;
  std::vector<std::uint32_t> barrier_pcs_;
  std::uint32_t next_local_ = 0;
  std::uint32_t temp_base_ = 0;
  std::uint32_t temp_next_ = 0;
  std::uint32_t temp_max_ = 0;
};

}  // namespace

std::string CompiledProgram::path_string(std::uint32_t path) const {
  // Root first: the nodes from `path` up, then written in reverse into one string.
  std::uint32_t chain[32];
  std::vector<std::uint32_t> deep;  // past 32 levels
  std::size_t depth = 0;
  for (std::uint32_t p = path; p != PathNode::kNone; p = paths[p].parent) {
    if (depth < std::size(chain)) chain[depth] = p;
    else deep.push_back(p);
    ++depth;
  }
  std::string out;
  out.reserve(16 * depth);
  for (std::size_t i = depth; i-- > 0;) {
    const PathNode& n = paths[i < std::size(chain) ? chain[i] : deep[i - std::size(chain)]];
    out += n.field;
    if (n.index != PathNode::kNone) {
      char digits[12];
      const auto end = std::to_chars(digits, digits + sizeof digits, n.index).ptr;
      out += '[';
      out.append(digits, end);
      out += ']';
    }
    if (i != 0) out += '.';
  }
  return out;
}

Site CompiledProgram::site(std::uint32_t pc) const {
  const SiteRecipe& r = sites[origins[pc].site];
  std::string what = r.prefix;
  what += r.arg;
  what += r.suffix;
  return Site{r.loc, path_string(r.path), std::move(what)};
}

ir::Result<CompiledProgram> compile(const ir::Program& program, const ir::TypeTable& types, std::string_view file) {
  return Compiler(program, types, file).run();
}

}  // namespace gridcheck::interp
