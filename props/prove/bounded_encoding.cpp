#include "props/prove/bounded_encoding.hpp"

#include <string>

#include <fmt/format.h>

namespace gridcheck::props::role_z3 {
namespace {

z3::expr any_of(z3::context& ctx, const std::vector<z3::expr>& xs, std::size_t begin, std::size_t end) {
  z3::expr e = ctx.bool_val(false);
  for (std::size_t i = begin; i < end; ++i) e = e || xs[i];
  return e;
}

std::string idx(std::string_view base, std::uint32_t p, std::uint32_t k) { return fmt::format("{}_{}_{}", base, p, k); }

}  // namespace

Bounded encode_bounded(Encoder& en, std::uint32_t n_seg, std::uint32_t n_pass, std::string_view state) {
  z3::context& c = en.ctx;
  Bounded b{n_seg, n_pass, en.decl_const("decl"), {}, {}, {}, {}, z3::expr_vector(c), c.bool_val(false)};
  z3::expr_vector& cons = b.constraints;
  const z3::expr& decl = b.decl;
  cons.push_back(en.decl_prop(Encoder::kInScope, decl));
  const z3::expr writable_source = en.decl_prop(Encoder::kWritable, decl);
  for (std::uint32_t k = 0; k < n_seg; ++k) {
    b.reads.push_back(c.bool_const(fmt::format("R_{}", k).c_str()));
    b.writes.push_back(c.bool_const(fmt::format("W_{}", k).c_str()));
    cons.push_back(z3::implies(b.writes[k], writable_source));
  }
  for (std::uint32_t p = 0; p < n_pass; ++p) {
    b.element_read.emplace_back();
    b.element_write.emplace_back();
    for (std::uint32_t k = 0; k < n_seg; ++k) {
      b.element_read[p].push_back(c.bool_const(idx("er", p, k).c_str()));
      b.element_write[p].push_back(c.bool_const(idx("ew", p, k).c_str()));
      cons.push_back(z3::implies(b.element_read[p][k], b.reads[k]));
      cons.push_back(z3::implies(b.element_write[p][k], b.writes[k]));
    }
  }

  // The planner's facts per segment and the rule's decision bits.
  std::vector<Encoder::Bits> bits;
  z3::expr consumed_anywhere = c.bool_val(false);
  for (std::uint32_t k = 0; k < n_seg; ++k) {
    const z3::expr before = any_of(c, b.writes, 0, k);
    const z3::expr after = any_of(c, b.writes, k + 1, n_seg);
    const z3::expr read_after = any_of(c, b.reads, k + 1, n_seg);
    const z3::expr fw =
        z3::ite(before, en.fw_val(planner::FirstWriter::Earlier),
                z3::ite(b.writes[k], en.fw_val(planner::FirstWriter::This),
                        z3::ite(after, en.fw_val(planner::FirstWriter::Later), en.fw_val(planner::FirstWriter::None))));
    bits.push_back(en.bits(decl, b.reads[k], b.writes[k], fw, c.bool_val(k + 1 == n_seg), read_after, after));
    consumed_anywhere = consumed_anywhere || (bits[k].declared && bits[k].input);
  }

  const z3::expr caller = c.constant("caller", en.val);
  const z3::expr zero = c.constant("zero", en.val);
  const z3::expr ci = en.decl_prop(Encoder::kCallerInput, decl);
  const z3::expr ba = en.decl_prop(Encoder::kBackendAllocated, decl);
  z3::expr present = c.bool_const(fmt::format("{}present_init", state).c_str());
  z3::expr live = c.constant(fmt::format("{}live_init", state).c_str(), en.val);
  z3::expr truth = c.constant(fmt::format("{}true_init", state).c_str(), en.val);
  cons.push_back(present == (ci || (ba && consumed_anywhere)));
  cons.push_back(live == z3::ite(ci, caller, zero));
  cons.push_back(truth == z3::ite(en.decl_prop(Encoder::kReferenceInput, decl), caller, zero));
  z3::expr alive = c.bool_val(true);
  z3::expr_vector violations(c);

  for (std::uint32_t p = 0; p < n_pass; ++p)
    for (std::uint32_t k = 0; k < n_seg; ++k) {
      const Encoder::Bits& d = bits[k];
      const z3::expr& er = b.element_read[p][k];
      const z3::expr& ew = b.element_write[p][k];
      const z3::expr written = c.constant(idx("w", p, k).c_str(), en.val);
      const z3::expr error = (!d.declared && (b.reads[k] || b.writes[k])) || (d.declared && b.writes[k] && !d.writable) ||
                             (d.declared && d.input && !present);
      violations.push_back(alive && error);
      const z3::expr ok = alive && !error;
      const z3::expr start = z3::ite(d.input, live, zero);
      violations.push_back(ok && d.declared && er && start != truth);
      const z3::expr update = ok && d.declared && d.output;
      const z3::expr x = z3::ite(ew, written, start);

      const z3::expr next_live = c.constant(idx(fmt::format("{}live", state), p, k).c_str(), en.val);
      const z3::expr next_present = c.bool_const(idx(fmt::format("{}present", state), p, k).c_str());
      const z3::expr next_truth = c.constant(idx(fmt::format("{}true", state), p, k).c_str(), en.val);
      const z3::expr next_alive = c.bool_const(idx(fmt::format("{}alive", state), p, k).c_str());
      cons.push_back(next_live == z3::ite(update, x, live));
      cons.push_back(next_present == (present || update));
      cons.push_back(next_truth == z3::ite(ew, written, truth));
      cons.push_back(next_alive == ok);
      live = next_live;
      present = next_present;
      truth = next_truth;
      alive = next_alive;
    }
  violations.push_back(alive && en.decl_prop(Encoder::kFinalOutput, decl) && (!present || live != truth));
  b.violation = z3::mk_or(violations);
  return b;
}

Pattern extract_pattern(const Bounded& b, const z3::model& m) {
  const std::uint32_t decl = m.eval(b.decl, true).get_numeral_uint();
  Pattern p = Pattern::empty(decl, b.segments, b.passes);
  for (std::uint32_t k = 0; k < b.segments; ++k) {
    p.reads[k] = m.eval(b.reads[k], true).is_true();
    p.writes[k] = m.eval(b.writes[k], true).is_true();
  }
  for (std::uint32_t pass = 0; pass < b.passes; ++pass)
    for (std::uint32_t k = 0; k < b.segments; ++k) {
      p.element_read[pass][k] = m.eval(b.element_read[pass][k], true).is_true();
      p.element_write[pass][k] = m.eval(b.element_write[pass][k], true).is_true();
    }
  return p;
}

}  // namespace gridcheck::props::role_z3
