#include "props/prove/role_encoder.hpp"

#include <array>
#include <functional>

namespace gridcheck::props::role_z3 {
namespace {

// Each decision bit (declared, input, output, writable) and each declaration property is a
// Shannon-expanded decision tree over placeholder constants, built once from the tabulated rule (a
// subtree whose leaves all agree collapses), then substituted with a segment's fact expressions.

struct Field {
  z3::expr var;
  int count;  // values 0..count-1; a Bool field has 2
  bool boolean;
};

z3::expr build(z3::context& ctx, const std::vector<Field>& fields, std::size_t level, std::array<int, 7>& a,
               const std::function<bool(const std::array<int, 7>&)>& leaf) {
  if (level == fields.size()) return ctx.bool_val(leaf(a));
  const Field& field = fields[level];
  std::vector<z3::expr> kids;
  for (int v = 0; v < field.count; ++v) {
    a[level] = v;
    kids.push_back(build(ctx, fields, level + 1, a, leaf));
  }
  bool same = true;
  for (const z3::expr& k : kids) same = same && z3::eq(k, kids[0]);
  if (same) return kids[0];
  if (field.boolean) return z3::ite(field.var, kids[1], kids[0]);
  z3::expr e = kids.back();
  for (int v = field.count - 2; v >= 0; --v) {
    if (z3::eq(kids[static_cast<std::size_t>(v)], e)) continue;
    e = z3::ite(field.var == ctx.bv_val(v, field.var.get_sort().bv_size()), kids[static_cast<std::size_t>(v)], e);
  }
  return e;
}

}  // namespace

Encoder::Encoder(z3::context& ctx, const RoleTable& table)
    : ctx(ctx),
      val(ctx.uninterpreted_sort("Val")),
      ph_decl_(ctx.bv_const("ph_decl", kDeclBits)),
      ph_r_(ctx.bool_const("ph_r")),
      ph_w_(ctx.bool_const("ph_w")),
      ph_fw_(ctx.bv_const("ph_fw", kFirstWriterBits)),
      ph_last_(ctx.bool_const("ph_last")),
      ph_rl_(ctx.bool_const("ph_rl")),
      ph_wl_(ctx.bool_const("ph_wl")),
      role_trees_(ctx),
      decl_trees_(ctx) {
  const std::vector<Field> role_fields = {{ph_decl_, 16, false}, {ph_r_, 2, true},    {ph_w_, 2, true},
                                          {ph_fw_, 4, false},    {ph_last_, 2, true}, {ph_rl_, 2, true},
                                          {ph_wl_, 2, true}};
  for (int bit = 0; bit < 4; ++bit) {
    std::array<int, 7> a{};
    role_trees_.push_back(build(ctx, role_fields, 0, a, [&](const std::array<int, 7>& x) {
      const ModelDecl& d = model_decls()[static_cast<std::size_t>(x[0])];
      planner::RoleFacts f = planner::role_facts(d.as_decl(), x[1] != 0, x[2] != 0,
                                                 static_cast<planner::FirstWriter>(x[3]), x[4] != 0, x[5] != 0,
                                                 x[6] != 0);
      const TabulatedRole* row = table.find(f);
      if (row == nullptr) return false;  // inconsistent facts: never reached
      switch (bit) {
        case 0: return row->bits.declared;
        case 1: return row->bits.input;
        case 2: return row->bits.output;
        default: return row->bits.writable;
      }
    }));
  }
  const std::vector<Field> decl_fields = {{ph_decl_, 16, false}};
  for (int prop = 0; prop < kDeclProps; ++prop) {
    std::array<int, 7> a{};
    decl_trees_.push_back(build(ctx, decl_fields, 0, a, [&](const std::array<int, 7>& x) {
      const ModelDecl& d = model_decls()[static_cast<std::size_t>(x[0])];
      switch (prop) {
        case kInScope: return d.in_scope;
        case kCallerInput: return d.caller_input;
        case kReferenceInput: return d.reference_input;
        case kBackendAllocated: return d.backend_allocated;
        case kFinalOutput: return d.final_output;
        default: return d.writable;
      }
    }));
  }
}

Encoder::Bits Encoder::bits(const z3::expr& decl, const z3::expr& r, const z3::expr& w, const z3::expr& fw,
                            const z3::expr& last, const z3::expr& rl, const z3::expr& wl) {
  z3::expr_vector from(ctx), to(ctx);
  for (const z3::expr& e : {ph_decl_, ph_r_, ph_w_, ph_fw_, ph_last_, ph_rl_, ph_wl_}) from.push_back(e);
  for (const z3::expr& e : {decl, r, w, fw, last, rl, wl}) to.push_back(e);
  auto sub = [&](unsigned i) { return z3::expr(role_trees_[i]).substitute(from, to); };
  return Bits{sub(0), sub(1), sub(2), sub(3)};
}

z3::expr Encoder::decl_prop(DeclProp prop, const z3::expr& decl) {
  z3::expr_vector from(ctx), to(ctx);
  from.push_back(ph_decl_);
  to.push_back(decl);
  return z3::expr(decl_trees_[static_cast<unsigned>(prop)]).substitute(from, to);
}

}  // namespace gridcheck::props::role_z3
