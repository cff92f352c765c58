#include "props/gen/expr_generator.hpp"

#include <array>

namespace gridcheck::props::casegen {

using ir::BinOp;
using ir::E;
using ir::ScalarType;
using ir::UnOp;

ExprGenerator::ExprGenerator(GeneratorState& s) : s_(s), c_(s.c), b_(s.b), config_(s.config) {}

ScalarType ExprGenerator::draw_value_type() { return on(Feature::ScalarTypes) ? kTypes[c_.below(4)] : ScalarType::U32; }

E ExprGenerator::zero(ScalarType t) {
  switch (t) {
    case ScalarType::U32: return b_.u32(0);
    case ScalarType::I32: return b_.i32(0);
    case ScalarType::F32: return b_.f32(0.0f);
    case ScalarType::Bool: return b_.boolean(false);
  }
  GC_ICE("unknown scalar type");
}

E ExprGenerator::invocation_count() {
  if (!on(Feature::GridAuto)) return b_.u32(s_.invocations);
  return b_.num_workgroups(0) * b_.workgroup_size(0);
}

E ExprGenerator::linear_gid() {
  // gid.x + gid.y·X + gid.z·X·Y over the grid's invocation extents X, Y (axes of extent 1 omitted).
  const std::uint32_t x = s_.grid[0] * s_.wg_size[0], y = s_.grid[1] * s_.wg_size[1], z = s_.grid[2] * s_.wg_size[2];
  E id = b_.gid(0);
  if (y > 1) id = id + b_.gid(1) * b_.u32(x);
  if (z > 1) id = id + b_.gid(2) * b_.u32(x * y);
  return id;
}
E ExprGenerator::linear_lid() {
  E id = b_.lid(0);
  if (s_.wg_size[1] > 1) id = id + b_.lid(1) * b_.u32(s_.wg_size[0]);
  if (s_.wg_size[2] > 1) id = id + b_.lid(2) * b_.u32(s_.wg_size[0] * s_.wg_size[1]);
  return id;
}

E ExprGenerator::own_slot(std::uint32_t k) {
  if (k == 0) return linear_gid();
  return linear_gid() + (on(Feature::GridAuto) ? invocation_count() * b_.u32(k) : b_.u32(k * s_.invocations));
}
E ExprGenerator::own_workgroup_slot(std::uint32_t k) { return k == 0 ? linear_lid() : linear_lid() + b_.u32(k * s_.wg); }

E ExprGenerator::uniform_condition(bool grid_uniform) {
  switch (c_.below(grid_uniform ? 3 : 4)) {
    case 0: {
      const E rhs = b_.u32(c_.below(3));  // the right operand is drawn first
      const E lhs = b_.u32(c_.below(3));
      return lhs < rhs;
    }
    case 1: return b_.num_workgroups(0) > b_.u32(c_.below(3));
    case 2: {
      const std::size_t i = c_.below(static_cast<std::uint32_t>(s_.buffers.size()));
      if (s_.buffers[i].role == Role::Unreferenced || s_.buffers[i].role == Role::Counter) return b_.boolean(true);
      s_.loaded[i] = true;
      return b_.buf_len(s_.buffers[i].buf) > b_.u32(c_.below(8));
    }
    default: return b_.bin(BinOp::Mod, b_.wgid(0), b_.u32(2)) == b_.u32(c_.below(2));
  }
}

E ExprGenerator::invocation_condition(const Context& ctx) {
  switch (c_.below(3)) {
    case 0: {
      const E residue = b_.u32(c_.below(2));  // drawn before the modulus
      const E modulus = b_.u32(2 + c_.below(3));
      return b_.bin(BinOp::Mod, b_.gid(0), modulus) == residue;
    }
    case 1: return b_.lid(0) < b_.u32(c_.below(s_.wg + 1));
    default: return expr(ScalarType::Bool, ctx, 1).e;
  }
}

Typed ExprGenerator::literal(ScalarType t) {
  static constexpr std::array<std::uint32_t, 8> kSmall = {0, 1, 2, 3, 5, 7, 255, 0x80000000u};
  switch (t) {
    case ScalarType::U32: {
      const std::uint32_t pick = c_.below(9);
      return {b_.u32(pick < kSmall.size() ? kSmall[pick] : c_.word())};
    }
    case ScalarType::I32: {
      static constexpr std::array<std::int32_t, 6> kInts = {0, 1, -1, 7, -100, 2147483647};
      return {b_.i32(kInts[c_.below(kInts.size())])};
    }
    case ScalarType::F32: {
      static constexpr std::array<float, 6> kFloats = {0.0f, 1.0f, -2.5f, 0.5f, 1024.0f, -0.0f};
      return {b_.f32(kFloats[c_.below(kFloats.size())])};
    }
    case ScalarType::Bool: return {b_.boolean(c_.chance(1, 2))};
  }
  GC_ICE("unknown scalar type");
}

void ExprGenerator::readable_locals(ScalarType t) {
  locals_.clear();
  for (const auto& scope : s_.scopes)
    for (const LocalInfo& l : scope)
      if (l.type == t) locals_.push_back(&l);
  for (const LocalInfo& l : s_.root_locals) {
    if (l.type != t) continue;
    // Crossing a fence: vyre re-executes the initialiser, which is exact only for pure,
    // never-assigned locals (docs/vyre-0.7.2.md §6.6, docs/vyre-0.7.2.md#s10-d).
    if (on(Feature::LocalsAcrossFence) || (l.pure && !l.assignable)) locals_.push_back(&l);
  }
}

void ExprGenerator::loadable(ScalarType t, const Context& ctx) {
  loadable_.clear();
  for (std::size_t i = 0; i < s_.buffers.size(); ++i) {
    const BufferInfo& info = s_.buffers[i];
    if (info.element != t || s_.atomic[s_.segment][i] || info.role == Role::Unreferenced) continue;
    if (info.role == Role::Counter) continue;
    if (info.role == Role::Workgroup && !s_.workgroup_written && !on(Feature::WorkgroupAcrossFence)) continue;
    (void)ctx;
    loadable_.push_back(i);
  }
}

Typed ExprGenerator::load(std::size_t i, const Context& ctx) {
  const BufferInfo& info = s_.buffers[i];
  s_.loaded[i] = true;
  E index;
  if (info.role == Role::Workgroup) {
    index = own_workgroup_slot(c_.below(info.slots));
  } else if (s_.written[s_.segment][i]) {
    index = own_slot(c_.below(info.slots));
  } else {
    index = expr(ScalarType::U32, ctx, config_.max_expr_depth).e;  // any index; out of bounds reads 0
  }
  return {b_.load(info.buf, index), false};
}

Typed ExprGenerator::leaf(ScalarType t, const Context& ctx) {
  enum { Literal, Builtin, Local, Load, Length };
  std::array<int, 5> options{};
  std::uint32_t count = 0;
  options[count++] = Literal;
  if (t == ScalarType::U32) options[count++] = Builtin, options[count++] = Length;
  readable_locals(t);
  if (!locals_.empty()) options[count++] = Local;
  loadable(t, ctx);
  if (!loadable_.empty()) options[count++] = Load;
  switch (options[c_.below(count)]) {
    case Builtin: {
      // With a 2-D / 3-D shape, also the y and z builtins (axis drawn after the builtin).
      const bool dims = s_.wg_size[1] * s_.wg_size[2] * s_.grid[1] * s_.grid[2] > 1;
      const std::uint32_t which = c_.below(4);
      const std::uint32_t axis = dims ? c_.below(3) : 0;
      switch (which) {
        case 0: return {b_.gid(axis)};
        case 1: return {b_.lid(axis)};
        case 2: return {b_.wgid(axis)};
        default: return {b_.num_workgroups(axis)};
      }
    }
    case Length: {
      const std::size_t i = c_.below(static_cast<std::uint32_t>(s_.buffers.size()));
      if (s_.buffers[i].role == Role::Unreferenced || s_.buffers[i].role == Role::Counter) return literal(t);
      s_.loaded[i] = true;
      return {b_.buf_len(s_.buffers[i].buf)};
    }
    case Local: {
      const LocalInfo& l = *locals_[c_.below(static_cast<std::uint32_t>(locals_.size()))];
      return {b_.var(l.name), l.pure && !l.assignable};
    }
    case Load: {
      const std::size_t i = loadable_[c_.below(static_cast<std::uint32_t>(loadable_.size()))];
      return load(i, ctx);
    }
    default: return literal(t);
  }
}

Typed ExprGenerator::binary(BinOp op, ScalarType operands, const Context& ctx, std::uint32_t depth) {
  Typed rhs = expr(operands, ctx, depth);  // the right operand is drawn before the left
  Typed lhs = expr(operands, ctx, depth);
  return {b_.bin(op, lhs.e, rhs.e), lhs.pure && rhs.pure};
}

Typed ExprGenerator::expr(ScalarType t, const Context& ctx, std::uint32_t depth) {
  if (depth >= config_.max_expr_depth || c_.below(3) == 0) return leaf(t, ctx);
  const std::uint32_t d = depth + 1;
  switch (t) {
    case ScalarType::U32: {
      static constexpr std::array<BinOp, 16> kOps = {
          BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Mod, BinOp::BitAnd, BinOp::BitOr, BinOp::BitXor,
          BinOp::Shl, BinOp::Shr, BinOp::Min, BinOp::Max, BinOp::SaturatingAdd, BinOp::RotateLeft,
          BinOp::MulHigh, BinOp::WrappingSub};
      switch (c_.below(5)) {
        case 0: {
          static constexpr std::array<UnOp, 5> kUn = {UnOp::BitNot, UnOp::Popcount, UnOp::Clz, UnOp::Ctz,
                                                      UnOp::ReverseBits};
          Typed x = expr(t, ctx, d);
          return {b_.un(kUn[c_.below(kUn.size())], x.e), x.pure};
        }
        case 1: {
          const ScalarType from = draw_value_type();
          Typed x = expr(from, ctx, d);
          return {b_.cast(ScalarType::U32, x.e), x.pure};
        }
        case 2: return select(t, ctx, d);
        default: return binary(kOps[c_.below(kOps.size())], t, ctx, d);  // the operator first
      }
    }
    case ScalarType::I32: {
      static constexpr std::array<BinOp, 9> kOps = {BinOp::Add, BinOp::Sub,    BinOp::Mul, BinOp::BitAnd, BinOp::BitXor,
                                                    BinOp::Shr, BinOp::Min,    BinOp::Max, BinOp::SaturatingSub};
      switch (c_.below(5)) {
        case 0: {
          Typed x = expr(t, ctx, d);
          return {b_.un(c_.chance(1, 2) ? UnOp::Negate : UnOp::Abs, x.e), x.pure};
        }
        case 1: {
          // Division by a literal that is neither 0 nor -1 cannot trap.
          static constexpr std::array<std::int32_t, 4> kDivisors = {2, 3, -7, 16};
          Typed x = expr(t, ctx, d);
          const BinOp op = c_.chance(1, 2) ? BinOp::Div : BinOp::Mod;
          return {b_.bin(op, x.e, b_.i32(kDivisors[c_.below(kDivisors.size())])), x.pure};
        }
        case 2: {
          Typed x = expr(ScalarType::U32, ctx, d);
          return {b_.cast(ScalarType::I32, x.e), x.pure};
        }
        case 3: return select(t, ctx, d);
        default: return binary(kOps[c_.below(kOps.size())], t, ctx, d);  // the operator first
      }
    }
    case ScalarType::F32: {
      // Only operations Vulkan computes exactly, so GPU comparisons stay bit-exact.
      static constexpr std::array<BinOp, 5> kOps = {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Min, BinOp::Max};
      switch (c_.below(5)) {
        case 0: {
          static constexpr std::array<UnOp, 5> kUn = {UnOp::Negate, UnOp::Abs, UnOp::Floor, UnOp::Ceil, UnOp::Trunc};
          Typed x = expr(t, ctx, d);
          return {b_.un(kUn[c_.below(kUn.size())], x.e), x.pure};
        }
        case 1: {
          Typed a = expr(t, ctx, d), b = expr(t, ctx, d), c = expr(t, ctx, d);
          return {b_.fma(a.e, b.e, c.e), a.pure && b.pure && c.pure};
        }
        case 2: {
          Typed x = expr(ScalarType::I32, ctx, d);
          return {b_.cast(ScalarType::F32, x.e), x.pure};
        }
        case 3: return select(t, ctx, d);
        default: return binary(kOps[c_.below(kOps.size())], t, ctx, d);  // the operator first
      }
    }
    case ScalarType::Bool: {
      static constexpr std::array<BinOp, 6> kCmp = {BinOp::Eq, BinOp::Ne, BinOp::Lt, BinOp::Gt, BinOp::Le, BinOp::Ge};
      switch (c_.below(4)) {
        case 0: {
          const ScalarType from = on(Feature::ScalarTypes) ? kTypes[c_.below(3)] : ScalarType::U32;
          return binary(kCmp[c_.below(kCmp.size())], from, ctx, d);  // the operator first
        }
        case 1: {
          Typed x = expr(t, ctx, d);
          return {b_.un(UnOp::LogicalNot, x.e), x.pure};
        }
        case 2: {
          return binary(c_.chance(1, 2) ? BinOp::And : BinOp::Or, t, ctx, d);  // the operator first
        }
        default: {
          Typed x = expr(ScalarType::U32, ctx, d);
          return {b_.cast(ScalarType::Bool, x.e), x.pure};
        }
      }
    }
  }
  GC_ICE("unknown scalar type");
}

Typed ExprGenerator::select(ScalarType t, const Context& ctx, std::uint32_t d) {
  Typed c = expr(ScalarType::Bool, ctx, d), a = expr(t, ctx, d), b = expr(t, ctx, d);
  return {b_.select(c.e, a.e, b.e), c.pure && a.pure && b.pure};
}

}  // namespace gridcheck::props::casegen
