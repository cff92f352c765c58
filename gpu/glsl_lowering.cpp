#include "gpu/glsl_lowering.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "gpu/foldable_literals.hpp"
#include "gpu/glsl_helpers.hpp"
#include "gpu/gpu_diagnostics.hpp"
#include "ir/walk.hpp"

namespace gridcheck::gpu {
namespace {

using ir::BinOp;
using ir::ExprId;
using ir::ExprKind;
using ir::NameId;
using ir::ScalarType;
using ir::StmtId;
using ir::StmtKind;
using ir::UnOp;

constexpr std::string_view kBarrier =
    "controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, "
    "gl_SemanticsAcquireRelease);";

/// A workgroup barrier that orders only the memory `memory` names (docs/semantics.md §2.7).
std::string_view barrier_for(ir::BarrierMemory memory) {
  switch (memory) {
    case ir::BarrierMemory::All: return kBarrier;
    case ir::BarrierMemory::Workgroup:
      return "controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared, "
             "gl_SemanticsAcquireRelease);";
    case ir::BarrierMemory::Storage:
      return "controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer, "
             "gl_SemanticsAcquireRelease);";
  }
  GC_ICE("a barrier memory outside BarrierMemory reached the GLSL lowering");
}

/// `name` reduced to [A-Za-z0-9_] with no doubled, leading or trailing underscore (GLSL reserves "__").
std::string sanitize(std::string_view name) {
  std::string out;
  for (char c : name) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0;
    if (keep)
      out += c;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? std::string("x") : out;
}

/// An IR name for a `//` comment: printable ASCII only.
std::string comment_text(std::string_view name) {
  std::string out;
  for (char c : name) out += (c >= 0x20 && c <= 0x7E) ? c : '?';
  return out;
}

std::string axis_suffix(std::uint32_t axis) { return axis == 0 ? ".x" : axis == 1 ? ".y" : ".z"; }

bool is_workgroup_barrier(const ir::Stmt& s) {
  return s.kind == StmtKind::Barrier && s.ordering() != ir::MemoryOrdering::GridSync;
}

bool is_xor(const ir::Expr& e) {
  return e.kind == ExprKind::Binary && static_cast<ir::BinOp>(e.op) == ir::BinOp::BitXor;
}

class Lowerer {
 public:
  Lowerer(const ir::Program& p, const ir::TypeTable& types, const LoweringOptions& o) : p_(p), types_(types), o_(o) {}

  ir::Result<LoweredShader> run() {
    out_.workgroup_size = o_.workgroup_size.value_or(p_.workgroup_size());
    if (!check_structure()) return std::move(diags_);
    assign_buffer_names();
    analyse();
    // Body first: it decides which helpers, extensions and trap sites the prologue declares.
    indent_ = 1;
    emit_workgroup_zeroing();
    emit_list(p_.entry());
    if (diags_.has_errors()) return std::move(diags_);
    if (out_.trap_sites.size() > kMaxTrapSites)
      return make_error(Code::Unlowerable, fmt::format("the program has {} operations that can trap; the trap record "
                                                       "holds at most {}",
                                                       out_.trap_sites.size(), kMaxTrapSites));
    const std::uint32_t invocations = out_.workgroup_size[0] * out_.workgroup_size[1] * out_.workgroup_size[2];
    if (!out_.trap_sites.empty() && invocations > kMaxTrapLocalInvocations)
      return make_error(Code::WorkgroupTooLarge,
                        fmt::format("a workgroup of {} invocations is too large for the trap record (at most {})",
                                    invocations, kMaxTrapLocalInvocations));
    out_.needs_int64_atomics = !out_.trap_sites.empty();
    out_.glsl = prologue() + "void main() {\n" + body_ + "}\n";
    for (std::string_view h : helpers_.names()) out_.helpers.emplace_back(h);
    return std::move(out_);
  }

 private:
  // ------------------------------------------------------------------------------ structure

  bool check_structure() {
    std::set<std::uint32_t> bindings;
    for (const ir::BufferDecl& b : p_.buffers()) {
      if (b.access == ir::BufferAccess::Workgroup) continue;
      if (!bindings.insert(b.binding).second)
        error(Code::Unlowerable, b.loc, fmt::format("two buffers use binding {}", b.binding));
    }
    ir::for_each_stmt(p_, p_.entry(), [&](StmtId id) {
      const ir::Stmt& s = p_.stmt(id);
      switch (s.kind) {
        case StmtKind::Barrier:
          if (s.is_fence())
            error(Code::ContainsFence, p_.loc(id),
                  "the launch contains a grid_sync fence; a single launch needs a fence-free program (split it first)");
          else if (s.literal >= ir::kBarrierMemoryCount)
            error(Code::Unlowerable, p_.loc(id), fmt::format("barrier memory {} is unknown (G008)", s.literal));
          break;
        case StmtKind::AllReduce:
        case StmtKind::Broadcast:
        case StmtKind::AllGather:
        case StmtKind::ReduceScatter:
        case StmtKind::AsyncLoad:
        case StmtKind::AsyncStore:
        case StmtKind::AsyncWait:
        case StmtKind::IndirectDispatch:
        case StmtKind::Opaque:
          error(Code::Unlowerable, p_.loc(id), "the GLSL lowering cannot express this statement (as the reference cannot)");
          break;
        default: break;
      }
    });
    return !diags_.has_errors();
  }

  void error(Code code, ir::SourceLoc loc, std::string message) {
    ir::Diagnostic d = make_error(code, std::move(message));
    d.loc = loc;
    diags_.add(std::move(d));
  }

  // ------------------------------------------------------------------------------ names

  std::string unique(std::string base) {
    std::string name = base;
    for (int n = 2; !used_names_.insert(name).second; ++n) name = fmt::format("{}_{}", base, n);
    return name;
  }

  void assign_buffer_names() {
    for (std::size_t i = 0; i < p_.buffers().size(); ++i) {
      const ir::BufferDecl& b = p_.buffers()[i];
      const bool shared = b.access == ir::BufferAccess::Workgroup;
      buffer_names_[ir::index_of(b.name)] = unique((shared ? "w_" : "b_") + sanitize(p_.name(b.name)));
    }
  }

  const std::string& local(NameId id) {
    auto it = local_names_.find(ir::index_of(id));
    if (it == local_names_.end()) it = local_names_.emplace(ir::index_of(id), unique("v_" + sanitize(p_.name(id)))).first;
    return it->second;
  }

  const ir::BufferDecl& decl(NameId buffer) const {
    const ir::BufferDecl* d = p_.find_buffer(buffer);
    GC_ASSERT(d != nullptr);  // the type checker resolved every buffer
    return *d;
  }
  const std::string& buffer_name(NameId buffer) { return buffer_names_.at(ir::index_of(buffer)); }

  // ------------------------------------------------------------------------------ analysis

  void analyse() {
    ir::for_each_stmt(p_, p_.entry(), [&](StmtId id) {
      const ir::Stmt& s = p_.stmt(id);
      if (is_workgroup_barrier(s)) has_barrier_ = true;
      if (s.kind == StmtKind::Return) has_return_ = true;
      if (s.kind == StmtKind::Store) written_.insert(ir::index_of(s.names[0]));
    });
    ir::for_each_expr_in(p_, p_.entry(), [&](ExprId id) {
      const ir::Expr& e = p_.expr(id);
      if (e.kind == ExprKind::Load) read_.insert(ir::index_of(e.buffer()));
      if (e.kind == ExprKind::Atomic) {
        read_.insert(ir::index_of(e.buffer()));
        written_.insert(ir::index_of(e.buffer()));
      }
    });
    live_flag_ = has_barrier_ && has_return_;
    if (o_.literals == LiteralPolicy::HiddenValues) foldable_ = foldable_literals(p_, types_);
  }

  bool contains_barrier(ir::StmtList list) const {
    bool found = false;
    ir::for_each_stmt(p_, list, [&](StmtId id) { found = found || is_workgroup_barrier(p_.stmt(id)); });
    return found;
  }

  /// True when the loop body assigns a local that is declared outside the loop.
  bool assigns_outer_local(const ir::Stmt& loop) const {
    std::set<std::uint32_t> inner{ir::index_of(loop.names[0])};
    std::set<std::uint32_t> assigned;
    ir::for_each_stmt(p_, loop.body, [&](StmtId id) {
      const ir::Stmt& s = p_.stmt(id);
      if (s.kind == StmtKind::Let || s.kind == StmtKind::Loop) inner.insert(ir::index_of(s.names[0]));
      if (s.kind == StmtKind::Assign) assigned.insert(ir::index_of(s.names[0]));
    });
    return std::any_of(assigned.begin(), assigned.end(), [&](std::uint32_t n) { return inner.count(n) == 0; });
  }

  // ------------------------------------------------------------------------------ emission helpers

  void line(std::string_view text) {
    body_.append(static_cast<std::size_t>(indent_) * 2, ' ');
    body_ += text;
    body_ += '\n';
  }

  std::string temp(std::string_view init) {
    std::string name = fmt::format("t{}", next_temp_++);
    line(fmt::format("uint {} = {};", name, init));
    return name;
  }

  std::string call(std::string_view helper, std::initializer_list<std::string_view> args) {
    helpers_.need(helper);
    std::string s(helper);
    s += '(';
    bool first = true;
    for (std::string_view a : args) {
      if (!first) s += ", ";
      s += a;
      first = false;
    }
    return s + ')';
  }

  std::uint32_t trap_site(ExprId id, ir::SourceLoc loc) {
    out_.trap_sites.push_back(TrapSite{id, loc});
    return static_cast<std::uint32_t>(out_.trap_sites.size() - 1);
  }

  ScalarType type(ExprId id) const { return types_[id]; }

  /// "x != 0u" etc.: the GLSL bool for the truthiness of a word of `t` (canonical f32: ±0 is false).
  static std::string truthy(const std::string& x, ScalarType t) {
    if (t == ScalarType::F32) return fmt::format("({} & 0x7FFFFFFFu) != 0u", x);
    return fmt::format("{} != 0u", x);
  }

  /// The element count of a buffer as a GLSL uint expression.
  std::string length_of(const ir::BufferDecl& b) {
    if (b.count > 0) return fmt::format("{}u", b.count);
    runtime_sized_.insert(ir::index_of(b.name));
    return "gc." + buffer_name(b.name);
  }

  /// The element reference `b_x.data[i]` or `w_x[i]`.
  std::string element(const ir::BufferDecl& b, const std::string& index) {
    if (b.access == ir::BufferAccess::Workgroup) return fmt::format("{}[{}]", buffer_name(b.name), index);
    return fmt::format("{}.data[{}]", buffer_name(b.name), index);
  }

  /// The guard of a store or atomic: in bounds and (after a possible return) still live.
  std::string effect_guard(const ir::BufferDecl& b, const std::string& index) {
    std::string g = fmt::format("{} < {}", index, length_of(b));
    return live_flag_ ? "gc_live && " + g : g;
  }

  /// An index operand as a u32 word; an i32 index that is negative traps (and then reads nothing).
  /// A literal index that is out of range for `b` goes through a temporary: glslang rejects a constant
  /// out-of-range subscript even in the dead branch of the bounds check.
  std::string index_operand(ExprId index_expr, const ir::BufferDecl& b) {
    std::string index = operand(index_expr);
    const ir::Expr& e = p_.expr(index_expr);
    if (e.is_literal() && (e.payload >= 0x80000000u || (b.count > 0 && e.payload >= b.count))) index = temp(index);
    const ScalarType t = type(index_expr);
    if (t == ScalarType::I32) {
      const std::uint32_t site = trap_site(index_expr, p_.loc(index_expr));
      line(fmt::format("if (int({}) < 0) gc_trap({}u, {}u);", index, site, static_cast<int>(ir::TrapKind::NegativeToU32)));
    } else if (t == ScalarType::F32) {
      error(Code::Unlowerable, p_.loc(index_expr), "a buffer index must be an integer, not f32");
    }
    return index;
  }

  // ------------------------------------------------------------------------------ expressions

  /// Emits the temporaries `id` needs and returns a side-effect-free GLSL operand (a literal, a local,
  /// a builtin or a temporary) holding its word.
  std::string operand(ExprId id) {
    const ir::Expr& e = p_.expr(id);
    switch (e.kind) {
      case ExprKind::LitU32: return literal(id, fmt::format("{}u", e.payload));
      case ExprKind::LitI32: {
        const auto v = static_cast<std::int32_t>(e.payload);
        if (v >= 0) return literal(id, fmt::format("{}u", v));
        if (e.payload == 0x80000000u) return literal(id, "0x80000000u");
        return literal(id, fmt::format("uint({})", v));
      }
      case ExprKind::LitF32: return literal(id, fmt::format("0x{:08X}u", ir::literal_word(ScalarType::F32, e.payload)));
      case ExprKind::LitBool: return literal(id, e.payload != 0 ? "1u" : "0u");
      case ExprKind::Var: return local(e.var());
      case ExprKind::InvocationId: return builtin("gl_GlobalInvocationID", e);
      case ExprKind::LocalId: return builtin("gl_LocalInvocationID", e);
      case ExprKind::WorkgroupId: return builtin("gl_WorkGroupID", e);
      case ExprKind::NumWorkgroups: return builtin("gl_NumWorkGroups", e);
      case ExprKind::WorkgroupSize:
        if (e.axis() > 2) return builtin("", e);
        return literal(id, fmt::format("{}u", out_.workgroup_size[e.axis()]));
      case ExprKind::BufLen: return length_of(decl(e.buffer()));
      case ExprKind::Load: return load(id, e);
      case ExprKind::Binary: return binary(id, e);
      case ExprKind::Unary: return unary(e);
      case ExprKind::Select: {
        const std::string c = operand(e.operands[0]);
        const std::string a = operand(e.operands[1]);
        const std::string b = operand(e.operands[2]);
        return temp(fmt::format("mix({}, {}, {})", b, a, truthy(c, type(e.operands[0]))));
      }
      case ExprKind::Cast: return cast(e);
      case ExprKind::Fma: {
        const std::string a = operand(e.operands[0]);
        const std::string b = operand(e.operands[1]);
        const std::string c = operand(e.operands[2]);
        out_.needs_float64 = true;
        return temp(call("gc_f32_fma", {a, b, c}));
      }
      case ExprKind::Atomic: return atomic(id, e);
    }
    GC_ICE("unknown expression kind");
  }

  /// A program constant hidden from the driver's compiler: XORed with the push-constant word gc.zero,
  /// which is always 0. Drivers optimise typeless 32-bit constants as floats (Mesa 22.3 turns
  /// `c ? 0x3F800000u : 0x80000000u` into b2f(c), losing the sign of -0.0); an unknown word cannot
  /// be folded into such a pattern, so every word derived from program literals keeps its bits.
  /// Under LiteralPolicy::Visible, the literal as it is.
  std::string opaque(std::string literal) {
    if (o_.literals == LiteralPolicy::Visible) return literal;
    uses_zero_ = true;
    return "(" + literal + " ^ gc.zero)";
  }

  /// The program literal `id` (spelled `text`): as it is where it only steers (gpu/foldable_literals.hpp)
  /// unless LoweringOptions::literals hides every literal, else opaque.
  std::string literal(ExprId id, std::string text) {
    if (o_.literals == LiteralPolicy::HiddenValues && foldable_[ir::index_of(id)]) return text;
    return opaque(std::move(text));
  }

  std::string builtin(std::string_view var, const ir::Expr& e) {
    if (e.axis() > 2) {
      error(Code::Unlowerable, {}, fmt::format("builtin axis {} does not exist", e.axis()));
      return "0u";
    }
    return std::string(var) + axis_suffix(e.axis());
  }

  std::string load(ExprId id, const ir::Expr& e) {
    const ir::BufferDecl& b = decl(e.buffer());
    const std::string index = index_operand(e.operands[0], b);
    std::string word = element(b, index);
    if (b.element == ScalarType::Bool) word = fmt::format("uint({} != 0u)", word);
    if (b.element == ScalarType::F32) word = call("gc_canon", {word});
    const std::string t = temp("0u");
    line(fmt::format("if ({} < {}) {} = {};", index, length_of(b), t, word));
    (void)id;
    return t;
  }

  std::string atomic(ExprId id, const ir::Expr& e) {
    const ir::BufferDecl& b = decl(e.buffer());
    const std::string index = index_operand(e.operands[0], b);
    const std::string value = operand(e.operands[1]);
    const std::string elem = element(b, index);
    std::string rmw;
    switch (e.atomic_op()) {
      case ir::AtomicOp::Add: rmw = fmt::format("atomicAdd({}, {})", elem, value); break;
      case ir::AtomicOp::Or: rmw = fmt::format("atomicOr({}, {})", elem, value); break;
      case ir::AtomicOp::And: rmw = fmt::format("atomicAnd({}, {})", elem, value); break;
      case ir::AtomicOp::Xor: rmw = fmt::format("atomicXor({}, {})", elem, value); break;
      case ir::AtomicOp::Min: rmw = fmt::format("atomicMin({}, {})", elem, value); break;
      case ir::AtomicOp::Max: rmw = fmt::format("atomicMax({}, {})", elem, value); break;
      case ir::AtomicOp::Exchange: rmw = fmt::format("atomicExchange({}, {})", elem, value); break;
      case ir::AtomicOp::CompareExchange: {
        const std::string expected = operand(e.operands[2]);
        rmw = fmt::format("atomicCompSwap({}, {}, {})", elem, expected, value);
        break;
      }
    }
    if (b.access == ir::BufferAccess::Workgroup)
      error(Code::Unlowerable, p_.loc(id), "atomics on workgroup buffers are invalid (V025)");
    const std::string t = temp("0u");
    line(fmt::format("if ({}) {} = {};", effect_guard(b, index), t, rmw));
    return t;
  }

  std::string binary(ExprId id, const ir::Expr& e) {
    const std::string a = operand(e.operands[0]);
    const std::string b = operand(e.operands[1]);
    const ScalarType t = type(e.operands[0]);
    const bool f = t == ScalarType::F32;
    const bool i = t == ScalarType::I32;
    auto f32_call = [&](std::string_view helper, const std::string& x, const std::string& y) {
      out_.needs_float64 = out_.needs_float64 || helper == "gc_f32_add" || helper == "gc_f32_sub" ||
                           helper == "gc_f32_mul" || helper == "gc_f32_div";
      return call(helper, {x, y});
    };
    std::string v;
    switch (e.bin_op()) {
      case BinOp::Add: v = f ? f32_call("gc_f32_add", a, b) : fmt::format("{} + {}", a, b); break;
      case BinOp::Sub: v = f ? f32_call("gc_f32_sub", a, b) : fmt::format("{} - {}", a, b); break;
      case BinOp::Mul: v = f ? f32_call("gc_f32_mul", a, b) : fmt::format("{} * {}", a, b); break;
      case BinOp::Div:
        if (f)
          v = f32_call("gc_f32_div", a, b);
        else if (i)
          v = call("gc_i32_div", {a, b, fmt::format("{}u", trap_site(id, p_.loc(id)))});
        else if (is_nonzero_literal(e.operands[1]))
          v = fmt::format("{} / {}", a, b);
        else
          v = fmt::format("mix({} / max({}, 1u), 0xFFFFFFFFu, {} == 0u)", a, b, b);
        break;
      case BinOp::Mod:
        if (f)
          v = f32_call("gc_f32_mod", a, b);
        else if (i)
          v = call("gc_i32_mod", {a, b, fmt::format("{}u", trap_site(id, p_.loc(id)))});
        else if (is_nonzero_literal(e.operands[1]))
          v = fmt::format("{} % {}", a, b);
        else
          v = fmt::format("mix({} % max({}, 1u), 0u, {} == 0u)", a, b, b);
        break;
      case BinOp::WrappingAdd: v = fmt::format("{} + {}", a, b); break;
      case BinOp::WrappingSub: v = fmt::format("{} - {}", a, b); break;
      case BinOp::BitAnd: v = fmt::format("{} & {}", a, b); break;
      case BinOp::BitOr: v = fmt::format("{} | {}", a, b); break;
      case BinOp::BitXor: v = fmt::format("{} ^ {}", a, b); break;
      case BinOp::Shl: v = fmt::format("{} << ({} & 31u)", a, b); break;
      case BinOp::Shr: v = i ? fmt::format("uint(int({}) >> ({} & 31u))", a, b) : fmt::format("{} >> ({} & 31u)", a, b); break;
      case BinOp::Eq: v = f ? f32_call("gc_f32_eq", a, b) : fmt::format("uint({} == {})", a, b); break;
      case BinOp::Ne: v = f ? f32_call("gc_f32_eq", a, b) + " ^ 1u" : fmt::format("uint({} != {})", a, b); break;
      case BinOp::Lt: v = compare(t, "<", "gc_f32_lt", a, b); break;
      case BinOp::Gt: v = compare(t, "<", "gc_f32_lt", b, a); break;
      case BinOp::Le: v = compare(t, "<=", "gc_f32_le", a, b); break;
      case BinOp::Ge: v = compare(t, "<=", "gc_f32_le", b, a); break;
      case BinOp::And: v = fmt::format("uint({} != 0u && {} != 0u)", a, b); break;
      case BinOp::Or: v = fmt::format("uint({} != 0u || {} != 0u)", a, b); break;
      case BinOp::AbsDiff:
        v = i ? fmt::format("mix({} - {}, {} - {}, int({}) > int({}))", b, a, a, b, a, b)
              : fmt::format("mix({} - {}, {} - {}, {} > {})", b, a, a, b, a, b);
        break;
      case BinOp::Min:
        v = f ? f32_call("gc_f32_min", a, b) : i ? fmt::format("uint(min(int({}), int({})))", a, b) : fmt::format("min({}, {})", a, b);
        break;
      case BinOp::Max:
        v = f ? f32_call("gc_f32_max", a, b) : i ? fmt::format("uint(max(int({}), int({})))", a, b) : fmt::format("max({}, {})", a, b);
        break;
      case BinOp::SaturatingAdd:
        v = i ? call("gc_i32_saturating_add", {a, b}) : fmt::format("mix({} + {}, 0xFFFFFFFFu, {} + {} < {})", a, b, a, b, a);
        break;
      case BinOp::SaturatingSub:
        v = i ? call("gc_i32_saturating_sub", {a, b}) : fmt::format("mix(0u, {} - {}, {} > {})", a, b, a, b);
        break;
      case BinOp::SaturatingMul: v = call(i ? "gc_i32_saturating_mul" : "gc_u32_saturating_mul", {a, b}); break;
      case BinOp::RotateLeft: v = fmt::format("({} << ({} & 31u)) | ({} >> ((32u - ({} & 31u)) & 31u))", a, b, a, b); break;
      case BinOp::RotateRight: v = fmt::format("({} >> ({} & 31u)) | ({} << ((32u - ({} & 31u)) & 31u))", a, b, a, b); break;
      case BinOp::MulHigh: v = call("gc_mul_high", {a, b}); break;
    }
    return temp(v);
  }

  bool is_nonzero_literal(ExprId id) const {
    const ir::Expr& e = p_.expr(id);
    return e.kind == ExprKind::LitU32 && e.payload != 0;
  }

  std::string compare(ScalarType t, std::string_view op, std::string_view f32_helper, const std::string& a,
                      const std::string& b) {
    if (t == ScalarType::F32) return call(f32_helper, {a, b});
    if (t == ScalarType::I32) return fmt::format("uint(int({}) {} int({}))", a, op, b);
    return fmt::format("uint({} {} {})", a, op, b);
  }

  std::string unary(const ir::Expr& e) {
    const std::string x = operand(e.operands[0]);
    const ScalarType t = type(e.operands[0]);
    const bool f = t == ScalarType::F32;
    std::string v;
    auto f32_helper = [&](std::string_view name) {
      if (name == "gc_f32_sqrt" || name == "gc_f32_inverse_sqrt") out_.needs_float64 = true;
      return call(name, {x});
    };
    switch (e.un_op()) {
      case UnOp::Negate: v = f ? call("gc_canon", {x + " ^ 0x80000000u"}) : "0u - " + x; break;
      case UnOp::BitNot: v = "~" + x; break;
      case UnOp::LogicalNot: v = fmt::format("uint({} == 0u)", x); break;
      case UnOp::Popcount: v = fmt::format("uint(bitCount({}))", x); break;
      case UnOp::Clz: v = fmt::format("uint(31 - findMSB({}))", x); break;
      case UnOp::Ctz: v = fmt::format("mix(uint(findLSB({})), 32u, {} == 0u)", x, x); break;
      case UnOp::ReverseBits: v = fmt::format("bitfieldReverse({})", x); break;
      case UnOp::Abs:
        v = f ? x + " & 0x7FFFFFFFu" : t == ScalarType::I32 ? fmt::format("mix({}, 0u - {}, int({}) < 0)", x, x, x) : x;
        break;
      case UnOp::Sqrt: v = f32_helper("gc_f32_sqrt"); break;
      case UnOp::InverseSqrt: v = f32_helper("gc_f32_inverse_sqrt"); break;
      case UnOp::Reciprocal:
        out_.needs_float64 = true;
        v = call("gc_f32_div", {"0x3F800000u", x});
        break;
      case UnOp::Floor: v = f32_helper("gc_f32_floor"); break;
      case UnOp::Ceil: v = f32_helper("gc_f32_ceil"); break;
      case UnOp::Round: v = f32_helper("gc_f32_round"); break;
      case UnOp::Trunc: v = f32_helper("gc_f32_trunc"); break;
      case UnOp::Sign: v = f ? f32_helper("gc_f32_sign") : fmt::format("uint(sign(int({})))", x); break;
      case UnOp::IsNan: v = fmt::format("uint({})", call("gc_f32_is_nan", {x})); break;
      case UnOp::IsInf: v = fmt::format("uint(({} & 0x7FFFFFFFu) == 0x7F800000u)", x); break;
      case UnOp::IsFinite: v = fmt::format("uint(({} & 0x7F800000u) != 0x7F800000u)", x); break;
      case UnOp::Cos: v = f32_helper("gc_f32_cos"); break;
      case UnOp::Sin: v = f32_helper("gc_f32_sin"); break;
      case UnOp::Tan: v = f32_helper("gc_f32_tan"); break;
      case UnOp::Acos: v = f32_helper("gc_f32_acos"); break;
      case UnOp::Asin: v = f32_helper("gc_f32_asin"); break;
      case UnOp::Atan: v = f32_helper("gc_f32_atan"); break;
      case UnOp::Tanh: v = f32_helper("gc_f32_tanh"); break;
      case UnOp::Sinh: v = f32_helper("gc_f32_sinh"); break;
      case UnOp::Cosh: v = f32_helper("gc_f32_cosh"); break;
      case UnOp::Exp: v = f32_helper("gc_f32_exp"); break;
      case UnOp::Exp2: v = f32_helper("gc_f32_exp2"); break;
      case UnOp::Log: v = f32_helper("gc_f32_log"); break;
      case UnOp::Log2: v = f32_helper("gc_f32_log2"); break;
      case UnOp::Unpack4Low: v = x + " & 0xFu"; break;
      case UnOp::Unpack4High: v = fmt::format("({} >> 4u) & 0xFu", x); break;
      case UnOp::Unpack8Low: v = x + " & 0xFFu"; break;
      case UnOp::Unpack8High: v = fmt::format("({} >> 24u) & 0xFFu", x); break;
    }
    return temp(v);
  }

  std::string cast(const ir::Expr& e) {
    const std::string x = operand(e.operands[0]);
    const ScalarType from = type(e.operands[0]);
    const ScalarType to = e.cast_target();
    if (from == to) return to == ScalarType::F32 ? temp(call("gc_canon", {x})) : x;
    switch (to) {
      case ScalarType::U32:
      case ScalarType::I32:
        if (from == ScalarType::F32) return temp(call(to == ScalarType::U32 ? "gc_f32_to_u32" : "gc_f32_to_i32", {x}));
        return x;  // u32 <-> i32 reinterpret; bool is already 0/1
      case ScalarType::Bool: return temp(fmt::format("uint({})", truthy(x, from)));
      case ScalarType::F32:
        if (from == ScalarType::Bool) return temp(fmt::format("mix(0u, 0x3F800000u, {} != 0u)", x));
        return temp(call(from == ScalarType::U32 ? "gc_u32_to_f32" : "gc_i32_to_f32", {x}));
    }
    GC_ICE("unknown cast target");
  }

  // ------------------------------------------------------------------------------ statements

  void emit_list(ir::StmtList list) {
    for (StmtId id : p_.list(list)) emit_stmt(id);
  }

  void open_block(std::string_view head) {
    line(head);
    ++indent_;
  }
  void close_block() {
    --indent_;
    line("}");
  }

  void emit_stmt(StmtId id) {
    const ir::Stmt& s = p_.stmt(id);
    switch (s.kind) {
      case StmtKind::Let: {
        const std::string v = operand(s.exprs[0]);
        line(fmt::format("uint {} = {};", local(s.names[0]), v));
        break;
      }
      case StmtKind::Assign: {
        const std::string v = operand(s.exprs[0]);
        line(fmt::format("{} = {};", local(s.names[0]), v));
        break;
      }
      case StmtKind::Store: {
        const ir::BufferDecl& b = decl(s.names[0]);
        const std::string index = index_operand(s.exprs[0], b);
        std::string value = operand(s.exprs[1]);
        if (o_.fault == LoweringFault::StoreXorPlusOne && is_xor(p_.expr(s.exprs[1])))
          value = fmt::format("({} + 1u)", value);  // the deliberate test fault (LoweringFault)
        line(fmt::format("if ({}) {} = {};", effect_guard(b, index), element(b, index), value));
        break;
      }
      case StmtKind::If: {
        const std::string c = operand(s.exprs[0]);
        open_block(fmt::format("if ({}) {{", truthy(c, type(s.exprs[0]))));
        emit_list(s.body);
        if (!s.otherwise.empty()) {
          --indent_;
          line("} else {");
          ++indent_;
          emit_list(s.otherwise);
        }
        close_block();
        break;
      }
      case StmtKind::Loop: {
        const std::string from = operand(s.exprs[0]);
        std::string to = operand(s.exprs[1]);
        if (p_.expr(s.exprs[1]).kind == ExprKind::Var) to = temp(to);  // bounds are evaluated once
        const std::string& var = local(s.names[0]);
        open_block(fmt::format("for (uint {} = {}; {} < {}; {}++) {{", var, from, var, to, var));
        const bool breakable = !contains_barrier(s.body) && (!has_barrier_ || !assigns_outer_local(s));
        if (breakable) {
          std::string stop;
          if (live_flag_) stop = "!gc_live";
          if (!out_.trap_sites.empty() || may_trap(s.body))
            stop += std::string(stop.empty() ? "" : " || ") + "gc_trap_record.key != 0xFFFFFFFFFFFFFFFFul";
          if (!stop.empty()) line(fmt::format("if ({}) break;", stop));
        }
        emit_list(s.body);
        close_block();
        break;
      }
      case StmtKind::Block:
      case StmtKind::Region:
        open_block("{");
        emit_list(s.body);
        close_block();
        break;
      case StmtKind::Barrier: line(barrier_for(s.barrier_memory())); break;
      case StmtKind::Return: line(live_flag_ ? "gc_live = false;" : "return;"); break;
      case StmtKind::Trap: {
        if (s.exprs[0] != ir::kNoExpr) (void)operand(s.exprs[0]);
        const std::uint32_t site = trap_site(ir::kNoExpr, p_.loc(id));
        line(fmt::format("gc_trap({}u, {}u);", site, static_cast<int>(ir::TrapKind::TrapStatement)));
        break;
      }
      default: GC_ICE("statement kind passed check_structure but cannot be lowered");
    }
  }

  /// Whether a statement list contains an operation that may trap (conservatively: i32 div/mod, an i32
  /// index, a trap statement), so that a loop can stop once any invocation trapped.
  bool may_trap(ir::StmtList list) const {
    bool found = false;
    ir::for_each_stmt(p_, list, [&](StmtId id) { found = found || p_.stmt(id).kind == StmtKind::Trap; });
    ir::for_each_expr_in(p_, list, [&](ExprId id) {
      const ir::Expr& e = p_.expr(id);
      if (e.kind == ExprKind::Binary && (e.bin_op() == BinOp::Div || e.bin_op() == BinOp::Mod) &&
          types_[e.operands[0]] == ScalarType::I32)
        found = true;
      if ((e.kind == ExprKind::Load || e.kind == ExprKind::Atomic) && types_[e.operands[0]] == ScalarType::I32) found = true;
    });
    return found;
  }

  void emit_workgroup_zeroing() {
    const std::uint32_t invocations = out_.workgroup_size[0] * out_.workgroup_size[1] * out_.workgroup_size[2];
    bool any = false;
    for (const ir::BufferDecl& b : p_.buffers()) {
      if (b.access != ir::BufferAccess::Workgroup) continue;
      any = true;
      line(fmt::format("for (uint gc_i = gl_LocalInvocationIndex; gc_i < {}u; gc_i += {}u) {}[gc_i] = 0u;", b.count,
                       invocations, buffer_name(b.name)));
      out_.shared_memory_bytes += b.count * 4;
    }
    if (any) {
      line(kBarrier);
      uses_barrier_ext_ = true;
    }
  }

  // ------------------------------------------------------------------------------ prologue

  std::string prologue() {
    std::string s = "#version 450\n";
    if (has_barrier_ || uses_barrier_ext_) s += "#extension GL_KHR_memory_scope_semantics : require\n";
    if (!out_.trap_sites.empty()) {
      s += "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n";
      s += "#extension GL_EXT_shader_atomic_int64 : require\n";
    }
    if (!o_.label.empty()) s += "// gridcheck: " + comment_text(o_.label) + "\n";
    s += fmt::format("layout(local_size_x = {}, local_size_y = {}, local_size_z = {}) in;\n\n", out_.workgroup_size[0],
                     out_.workgroup_size[1], out_.workgroup_size[2]);

    // Storage buffers in binding order.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < p_.buffers().size(); ++i)
      if (p_.buffers()[i].access != ir::BufferAccess::Workgroup) order.push_back(i);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return p_.buffers()[a].binding < p_.buffers()[b].binding; });
    std::uint32_t max_binding = 0;
    std::vector<std::string> lengths;
    for (std::size_t i : order) {
      const ir::BufferDecl& b = p_.buffers()[i];
      const std::uint32_t key = ir::index_of(b.name);
      const bool reads = read_.count(key) > 0;
      const bool writes = written_.count(key) > 0;
      std::string qualifier;
      if ((b.access == ir::BufferAccess::ReadOnly || b.access == ir::BufferAccess::Uniform) && !writes)
        qualifier = "readonly ";
      else if (b.access == ir::BufferAccess::WriteOnly && !reads)
        qualifier = "writeonly ";
      else if (reads && writes)
        qualifier = "coherent ";
      s += fmt::format("// {}: {} {}[{}]{}\n", comment_text(p_.name(b.name)), ir::name_of(b.access), ir::name_of(b.element),
                       b.count == 0 ? std::string() : std::to_string(b.count),
                       b.access == ir::BufferAccess::Uniform ? " (uniform lowered as a readonly std430 storage buffer)" : "");
      s += fmt::format("layout(std430, set = 0, binding = {}) {}buffer B{}_{} {{ uint data[]; }} {};\n", b.binding, qualifier,
                       b.binding, sanitize(p_.name(b.name)), buffer_name(b.name));
      BufferBinding bb;
      bb.decl_index = i;
      bb.binding = b.binding;
      if (b.count == 0 && runtime_sized_.count(key) > 0) {
        bb.length_push_word = static_cast<std::uint32_t>(1 + lengths.size());  // word 0 is gc.zero
        lengths.push_back(buffer_name(b.name));
      }
      out_.buffers.push_back(bb);
      max_binding = std::max(max_binding, b.binding + 1);
    }
    if (uses_zero_ || !lengths.empty()) {
      s += "layout(push_constant) uniform GcPush { uint zero;";
      for (const std::string& n : lengths) s += " uint " + n + ";";
      s += " } gc;  // zero: always 0 (hides literals from the driver); then element counts of runtime-sized buffers\n";
      out_.push_constant_words = static_cast<std::uint32_t>(1 + lengths.size());
    }
    for (const ir::BufferDecl& b : p_.buffers())
      if (b.access == ir::BufferAccess::Workgroup)
        s += fmt::format("shared uint {}[{}];  // {}: workgroup {}[{}]\n", buffer_name(b.name), b.count, comment_text(p_.name(b.name)),
                         ir::name_of(b.element), b.count);
    if (live_flag_) s += "bool gc_live = true;  // false once this invocation returned (it still meets every barrier)\n";
    if (!out_.trap_sites.empty()) {
      out_.trap_binding = max_binding;
      s += fmt::format(
          "layout(std430, set = 0, binding = {}) coherent buffer GcTrapRecord {{ uint64_t key; }} gc_trap_record;\n"
          "bool gc_trapped = false;\n"
          "// the first trap of this invocation; the smallest (workgroup, invocation) key wins\n"
          "void gc_trap(uint site, uint kind) {{\n"
          "  if (gc_trapped{}) return;\n"
          "  gc_trapped = true;\n"
          "  uint wg = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);\n"
          "  atomicMin(gc_trap_record.key, (uint64_t(wg) << 32) | uint64_t((gl_LocalInvocationIndex << 20u) | (site << 4u) | "
          "kind));\n"
          "}}\n",
          max_binding, live_flag_ ? " || !gc_live" : "");
    }
    s += "\n";
    if (!helpers_.empty()) s += helpers_.text();
    return s;
  }

  const ir::Program& p_;
  const ir::TypeTable& types_;
  const LoweringOptions& o_;
  LoweredShader out_;
  ir::Diagnostics diags_;
  std::string body_;
  int indent_ = 0;
  std::uint32_t next_temp_ = 0;
  HelperSet helpers_;
  std::set<std::string> used_names_;
  std::unordered_map<std::uint32_t, std::string> buffer_names_;
  std::unordered_map<std::uint32_t, std::string> local_names_;
  std::set<std::uint32_t> read_;
  std::set<std::uint32_t> written_;
  std::set<std::uint32_t> runtime_sized_;
  std::vector<bool> foldable_;  ///< by ExprId, under LiteralPolicy::HiddenValues
  bool has_barrier_ = false;
  bool has_return_ = false;
  bool live_flag_ = false;
  bool uses_barrier_ext_ = false;
  bool uses_zero_ = false;
};

}  // namespace

DecodedTrap decode_trap(std::uint64_t key) {
  DecodedTrap d;
  d.workgroup_linear = static_cast<std::uint32_t>(key >> 32);
  const auto low = static_cast<std::uint32_t>(key);
  d.local_index = low >> 20;
  d.site = (low >> 4) & 0xFFFFu;
  d.kind = static_cast<ir::TrapKind>(low & 0xFu);
  return d;
}

ir::Result<LoweredShader> lower_to_glsl(const ir::Program& program, const ir::TypeTable& types,
                                        const LoweringOptions& options) {
  return Lowerer(program, types, options).run();
}

ir::Result<LoweredShader> lower_to_glsl(const ir::Program& program, const LoweringOptions& options) {
  ir::Result<ir::TypeTable> types = ir::typecheck(program);
  if (!types) {
    ir::Diagnostic d = make_error(Code::Untyped, "the program does not type-check");
    for (const ir::Diagnostic& n : types.diagnostics()) d.notes.push_back(n);
    return d;
  }
  return lower_to_glsl(program, *types, options);
}

std::optional<LoweringFault> lowering_fault_named(std::string_view name) {
  if (name == "none") return LoweringFault::None;
  if (name == "store-xor-plus-one") return LoweringFault::StoreXorPlusOne;
  return std::nullopt;
}

}  // namespace gridcheck::gpu
