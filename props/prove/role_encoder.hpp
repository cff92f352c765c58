#pragma once
// Internal to props/prove: a tabulated role rule (role_model.hpp) as Z3 terms, shared by the
// bounded and the inductive encodings. For every consistent assignment of one segment's facts, the
// decision bits are the table's bits for those facts, and a declaration property is the ModelDecl
// field of its class. The rule is encoded once per Encoder and instantiated per segment. Not a
// public header.

#include <z3++.h>

#include <cstdint>
#include <string>
#include <vector>

#include "planner/role_rule.hpp"
#include "props/prove/role_model.hpp"

namespace gridcheck::props::role_z3 {

inline constexpr unsigned kDeclBits = 4;  // 16 declaration classes
inline constexpr unsigned kFirstWriterBits = 2;

class Encoder {
 public:
  /// `table` is only read during construction; `ctx` must outlive the Encoder.
  Encoder(z3::context& ctx, const RoleTable& table);

  /// The role decision's meaning (RoleBits) for a segment whose facts are the given terms: `decl` a
  /// declaration class (decl_const / decl_val), `fw` a planner::FirstWriter (fw_val), the rest Bool.
  struct Bits {
    z3::expr declared, input, output, writable;
  };
  Bits bits(const z3::expr& decl, const z3::expr& r, const z3::expr& w, const z3::expr& fw, const z3::expr& last,
            const z3::expr& rl, const z3::expr& wl);

  /// A ModelDecl property of the class `decl`.
  enum DeclProp { kInScope, kCallerInput, kReferenceInput, kBackendAllocated, kFinalOutput, kWritable, kDeclProps };
  z3::expr decl_prop(DeclProp prop, const z3::expr& decl);

  z3::expr decl_const(const std::string& name) { return ctx.bv_const(name.c_str(), kDeclBits); }
  z3::expr decl_val(std::uint32_t index) { return ctx.bv_val(index, kDeclBits); }
  z3::expr fw_val(planner::FirstWriter f) { return ctx.bv_val(static_cast<unsigned>(f), kFirstWriterBits); }

  z3::context& ctx;
  z3::sort val;  ///< element values: uninterpreted, only compared for equality

 private:
  z3::expr ph_decl_, ph_r_, ph_w_, ph_fw_, ph_last_, ph_rl_, ph_wl_;
  z3::expr_vector role_trees_;
  z3::expr_vector decl_trees_;
};

}  // namespace gridcheck::props::role_z3
