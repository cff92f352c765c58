#include "props/prove/role_proof.hpp"

#include <z3++.h>

#include <array>
#include <chrono>
#include <functional>

#include <fmt/format.h>

#include "ir/ice.hpp"

namespace gridcheck::props {

std::string_view name_of(QueryVerdict verdict) {
  switch (verdict) {
    case QueryVerdict::Holds: return "holds";
    case QueryVerdict::Fails: return "fails";
    case QueryVerdict::Unknown: return "unknown";
  }
  GC_ICE("unknown QueryVerdict");
}

bool InductiveResult::proven() const {
  return step_satisfiable && base.verdict == QueryVerdict::Holds && step.verdict == QueryVerdict::Holds &&
         final_output.verdict == QueryVerdict::Holds;
}

bool ProofReport::bounded_holds() const {
  if (bounded.empty()) return false;
  for (const BoundedResult& b : bounded)
    if (b.outcome.verdict != QueryVerdict::Holds) return false;
  return true;
}

bool ProofReport::proven() const { return bounded_holds() && inductive.proven() && model_errors.empty(); }

bool ProofReport::refuted() const {
  for (const BoundedResult& b : bounded)
    if (b.outcome.verdict == QueryVerdict::Fails) return true;
  return false;
}

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

constexpr unsigned kDeclBits = 4;  // 16 declaration classes
constexpr unsigned kFirstWriterBits = 2;

// ------------------------------------------------------------------ the tabulated rule in Z3
//
// Each decision bit (declared, input, output, writable) and each declaration property is a
// Shannon-expanded decision tree over placeholder constants, built once from the tabulated rule (a
// subtree whose leaves all agree collapses), then substituted with a segment's fact expressions.

struct Field {
  z3::expr var;
  int count;  // values 0..count-1; a Bool field has 2
  bool boolean;
};

class Encoder {
 public:
  Encoder(z3::context& ctx, const RoleTable& table)
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
      role_trees_.push_back(build(role_fields, 0, a, [&](const std::array<int, 7>& x) {
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
      decl_trees_.push_back(build(decl_fields, 0, a, [&](const std::array<int, 7>& x) {
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

  struct Bits {
    z3::expr declared, input, output, writable;
  };

  Bits bits(const z3::expr& decl, const z3::expr& r, const z3::expr& w, const z3::expr& fw, const z3::expr& last,
            const z3::expr& rl, const z3::expr& wl) {
    z3::expr_vector from(ctx), to(ctx);
    for (const z3::expr& e : {ph_decl_, ph_r_, ph_w_, ph_fw_, ph_last_, ph_rl_, ph_wl_}) from.push_back(e);
    for (const z3::expr& e : {decl, r, w, fw, last, rl, wl}) to.push_back(e);
    auto sub = [&](unsigned i) { return z3::expr(role_trees_[i]).substitute(from, to); };
    return Bits{sub(0), sub(1), sub(2), sub(3)};
  }

  enum DeclProp { kInScope, kCallerInput, kReferenceInput, kBackendAllocated, kFinalOutput, kWritable, kDeclProps };
  z3::expr decl_prop(DeclProp prop, const z3::expr& decl) {
    z3::expr_vector from(ctx), to(ctx);
    from.push_back(ph_decl_);
    to.push_back(decl);
    return z3::expr(decl_trees_[static_cast<unsigned>(prop)]).substitute(from, to);
  }

  z3::expr decl_const(const std::string& name) { return ctx.bv_const(name.c_str(), kDeclBits); }
  z3::expr decl_val(std::uint32_t index) { return ctx.bv_val(index, kDeclBits); }
  z3::expr fw_val(planner::FirstWriter f) { return ctx.bv_val(static_cast<unsigned>(f), kFirstWriterBits); }

  z3::context& ctx;
  z3::sort val;

 private:
  z3::expr build(const std::vector<Field>& fields, std::size_t level, std::array<int, 7>& a,
                 const std::function<bool(const std::array<int, 7>&)>& leaf) {
    if (level == fields.size()) return ctx.bool_val(leaf(a));
    const Field& field = fields[level];
    std::vector<z3::expr> kids;
    for (int v = 0; v < field.count; ++v) {
      a[level] = v;
      kids.push_back(build(fields, level + 1, a, leaf));
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

  z3::expr ph_decl_, ph_r_, ph_w_, ph_fw_, ph_last_, ph_rl_, ph_wl_;
  z3::expr_vector role_trees_;
  z3::expr_vector decl_trees_;
};

z3::expr any_of(z3::context& ctx, const std::vector<z3::expr>& xs, std::size_t begin, std::size_t end) {
  z3::expr e = ctx.bool_val(false);
  for (std::size_t i = begin; i < end; ++i) e = e || xs[i];
  return e;
}

// ------------------------------------------------------------------ the bounded model

struct Bounded {
  std::uint32_t segments = 0, passes = 0;
  z3::expr decl;
  std::vector<z3::expr> reads, writes;
  std::vector<std::vector<z3::expr>> element_read, element_write;
  z3::expr_vector constraints;
  z3::expr violation;
};

std::string idx(std::string_view base, std::uint32_t p, std::uint32_t k) { return fmt::format("{}_{}_{}", base, p, k); }

/// `state` prefixes the names of the per-step state constants, so that two tables can be encoded over
/// the same pattern in one context (find_distinguishing_pattern); the pattern's constants (decl,
/// scan, element pattern, values) are shared by name.
Bounded encode_bounded(Encoder& en, std::uint32_t n_seg, std::uint32_t n_pass, std::string_view state = "") {
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

/// A solver for one query: preprocessing (simplify, propagate-values, solve-eqs) then the SMT core,
/// bounded by the per-query timeout. Applying the tactics up front lets the equations that define the
/// per-step state collapse before search; it is 10-40x faster than the default incremental solver on
/// these queries.
z3::solver make_solver(z3::context& ctx, const ProofOptions& options) {
  const z3::tactic pipeline =
      z3::tactic(ctx, "simplify") & z3::tactic(ctx, "propagate-values") & z3::tactic(ctx, "solve-eqs") &
      z3::tactic(ctx, "smt");
  z3::solver s = z3::try_for(pipeline, options.timeout_ms).mk_solver();
  z3::params params(ctx);
  params.set("timeout", options.timeout_ms);
  s.set(params);
  return s;
}

QueryVerdict verdict_of(z3::check_result r) {
  switch (r) {
    case z3::unsat: return QueryVerdict::Holds;
    case z3::sat: return QueryVerdict::Fails;
    case z3::unknown: return QueryVerdict::Unknown;
  }
  return QueryVerdict::Unknown;
}

/// Switches off every element and scan literal it can (greedy, with assumptions) while the query
/// stays satisfiable; the solver holds the query. Returns the final model's pattern.
Pattern minimise(z3::solver& s, const Bounded& b) {
  z3::context& c = s.ctx();
  std::vector<z3::expr> literals;
  for (std::uint32_t p = b.passes; p-- > 0;)
    for (std::uint32_t k = b.segments; k-- > 0;) {
      literals.push_back(b.element_write[p][k]);
      literals.push_back(b.element_read[p][k]);
    }
  for (std::uint32_t k = b.segments; k-- > 0;) {
    literals.push_back(b.writes[k]);
    literals.push_back(b.reads[k]);
  }
  z3::expr_vector assumptions(c);
  z3::model model = s.get_model();
  for (const z3::expr& lit : literals) {
    if (!model.eval(lit, true).is_true()) {
      assumptions.push_back(!lit);
      continue;
    }
    assumptions.push_back(!lit);
    if (s.check(assumptions) == z3::sat) {
      model = s.get_model();
    } else {
      assumptions.pop_back();
    }
  }
  return extract_pattern(b, model);
}

// ------------------------------------------------------------------ named scenarios

struct Scenario {
  std::string_view id, title, spec;
  ir::BufferAccess access;
  bool is_output, live_out;
  std::uint32_t passes;
  std::function<void(const Bounded&, z3::expr_vector&)> constrain;
};

void no_element_writes(const Bounded& b, z3::expr_vector& cons) {
  for (const auto& pass : b.element_write)
    for (const z3::expr& ew : pass) cons.push_back(!ew);
}

/// Some segment references the buffer (excludes the B1 shape, which every rule without a B1 fix has).
void referenced_somewhere(const Bounded& b, z3::expr_vector& cons) {
  z3::expr some = b.decl.ctx().bool_val(false);
  for (std::uint32_t k = 0; k < b.segments; ++k) some = some || b.reads[k] || b.writes[k];
  cons.push_back(some);
}

/// The element is written in segment 0 of pass 0 and by no later segment of that pass: a correct
/// split must keep segment 0's value.
void earlier_slot_written(const Bounded& b, z3::expr_vector& cons) {
  cons.push_back(b.writes[0]);
  cons.push_back(b.element_write[0][0]);
  for (std::uint32_t k = 1; k < b.segments; ++k) cons.push_back(!b.element_write[0][k]);
  z3::expr later_writer = b.writes[0].ctx().bool_val(false);
  for (std::uint32_t k = 1; k < b.segments; ++k) later_writer = later_writer || b.writes[k];
  cons.push_back(later_writer);
}

const std::vector<Scenario>& scenarios() {
  using A = ir::BufferAccess;
  static const std::vector<Scenario> all = {
      {"A1", "read_write buffer with caller bytes, written but not read by a segment: the caller bytes are lost",
       "spec §10(a) A1", A::ReadWrite, false, false, 1,
       [](const Bounded& b, z3::expr_vector& cons) {
         no_element_writes(b, cons);
         z3::expr some = b.decl.ctx().bool_val(false);
         for (std::uint32_t k = 0; k < b.segments; ++k) some = some || (b.writes[k] && !b.reads[k]);
         cons.push_back(some);
       }},
      {"A2", "read_write buffer read by one segment and partially written by a later one",
       "spec §10(a) A2", A::ReadWrite, false, false, 1,
       [](const Bounded& b, z3::expr_vector& cons) {
         no_element_writes(b, cons);
         cons.push_back(b.reads[0] && !b.writes[0]);
         cons.push_back(b.writes[b.segments - 1] && !b.reads[b.segments - 1]);
       }},
      {"A3", "read_write buffer written in two segments: the second writer zeroes the first writer's slots",
       "spec §10(a) A3", A::ReadWrite, false, false, 1,
       [](const Bounded& b, z3::expr_vector& cons) {
         cons.push_back(b.reads[0]);
         earlier_slot_written(b, cons);
       }},
      {"A4", "output under fixpoint: the first-writer segment is write_only on every pass and zeroes the "
             "previous pass's slots",
       "spec §10(a) A4", A::ReadWrite, true, true, 2, referenced_somewhere},
      {"F1", "plain write_only buffer written in two segments: the later writer is zero-filled again",
       "spec §9 F1, §10 G10", A::WriteOnly, false, false, 1, earlier_slot_written},
      {"B1", "output that no segment references: the final output is never produced",
       "spec §10(b) B1", A::ReadWrite, true, true, 1,
       [](const Bounded& b, z3::expr_vector& cons) {
         for (std::uint32_t k = 0; k < b.segments; ++k) cons.push_back(!b.reads[k] && !b.writes[k]);
       }},
      {"H2", "output written in two segments loses the earlier segment's slots (recall = 0)",
       "spec §9 H1/H2", A::ReadWrite, true, true, 1, earlier_slot_written},
  };
  return all;
}

// ------------------------------------------------------------------ queries

struct Search {
  Encoder& en;
  const RoleTable& table;
  const ProofOptions& options;
  std::vector<std::string>& model_errors;

  /// One (K, N) query with extra constraints; on sat, the minimised pattern.
  QueryOutcome check(std::uint32_t n_seg, std::uint32_t n_pass,
                     const std::function<void(const Bounded&, z3::expr_vector&)>& extra, std::optional<Pattern>* found) {
    const auto start = Clock::now();
    QueryOutcome out;
    try {
      Bounded b = encode_bounded(en, n_seg, n_pass);
      z3::solver s = make_solver(en.ctx, options);
      s.add(b.constraints);
      s.add(b.violation);
      z3::expr_vector more(en.ctx);
      if (extra) extra(b, more);
      s.add(more);
      const z3::check_result r = s.check();
      out.verdict = verdict_of(r);
      if (r == z3::unknown) out.reason = s.reason_unknown();
      if (r == z3::sat && found != nullptr) {
        Pattern p = minimise(s, b);
        if (!p.valid() || !simulate(table, p).first)
          model_errors.push_back(fmt::format("Z3 counterexample not confirmed by the simulator: {}", p.to_string()));
        *found = std::move(p);
      }
    } catch (const z3::exception& e) {
      out.verdict = QueryVerdict::Unknown;
      out.reason = fmt::format("z3: {}", e.msg());
    }
    out.ms = ms_since(start);
    return out;
  }
};

Counterexample make_counterexample(const RoleTable& table, std::string id, std::string title, std::string spec,
                                   Pattern pattern) {
  Counterexample cx;
  cx.id = std::move(id);
  cx.title = std::move(title);
  cx.spec = std::move(spec);
  cx.violation = simulate(table, pattern).first;
  cx.pattern = std::move(pattern);
  return cx;
}

void set_seeds(const ProofOptions& options) {
  z3::set_param("smt.random_seed", static_cast<int>(options.seed));
  z3::set_param("sat.random_seed", static_cast<int>(options.seed));
}

// ------------------------------------------------------------------ the inductive step

struct State {
  z3::expr v, live, present, pass_start, started, written_before, consumed_before, wl_prev, rl_prev;
};

State state_consts(z3::context& c, z3::sort val, std::string_view tag) {
  auto b = [&](std::string_view n) { return c.bool_const(fmt::format("{}_{}", n, tag).c_str()); };
  return State{c.constant(fmt::format("v_{}", tag).c_str(), val),
               c.constant(fmt::format("live_{}", tag).c_str(), val),
               b("present"),
               b("pass_start"),
               b("started"),
               b("written_before"),
               b("consumed_before"),
               b("wl_prev"),
               b("rl_prev")};
}

struct Statics {
  z3::expr decl, written_anywhere, seeded, caller, zero;
  z3::expr in_scope, ci, ref_in, ba, po, writable;
};

Statics statics(Encoder& en) {
  z3::context& c = en.ctx;
  const z3::expr decl = en.decl_const("decl");
  return Statics{decl,
                 c.bool_const("written_anywhere"),
                 c.bool_const("seeded"),
                 c.constant("caller", en.val),
                 c.constant("zero", en.val),
                 en.decl_prop(Encoder::kInScope, decl),
                 en.decl_prop(Encoder::kCallerInput, decl),
                 en.decl_prop(Encoder::kReferenceInput, decl),
                 en.decl_prop(Encoder::kBackendAllocated, decl),
                 en.decl_prop(Encoder::kFinalOutput, decl),
                 en.decl_prop(Encoder::kWritable, decl)};
}

// The invariant (docs/proof.md §4).
z3::expr invariant(const Statics& g, const State& s) {
  return g.in_scope &&                                                          // I0
         z3::implies(s.present, s.live == s.v) &&                               // I1
         z3::implies(g.ci, s.present) &&                                        // I2
         z3::implies(g.ba && g.seeded, s.present) &&                            // I3
         z3::implies(g.ba && !g.written_anywhere, s.v == g.zero) &&             // I4
         z3::implies(g.ref_in && !g.written_anywhere, s.v == g.caller) &&       // I5
         z3::implies(s.pass_start && s.started && g.po, s.present) &&           // I6
         z3::implies(s.pass_start, !s.written_before && !s.consumed_before) &&  // I7
         z3::implies(!s.started, s.pass_start) &&                               // I8
         z3::implies(s.written_before, g.written_anywhere) &&                   // I9
         z3::implies(s.consumed_before, g.seeded) &&                            // I10
         z3::implies(g.written_anywhere, g.writable) &&                         // I11
         z3::implies(s.written_before, s.present);                              // I12
}

z3::expr initial(const Statics& g, const State& s) {
  return g.in_scope && s.v == z3::ite(g.ref_in, g.caller, g.zero) && s.live == z3::ite(g.ci, g.caller, g.zero) &&
         s.present == (g.ci || (g.ba && g.seeded)) && s.pass_start && !s.started && !s.written_before &&
         !s.consumed_before && z3::implies(g.written_anywhere, g.writable);
}

QueryOutcome run_query(z3::context& ctx, const ProofOptions& options, const z3::expr_vector& assertions) {
  const auto start = Clock::now();
  QueryOutcome out;
  try {
    z3::solver s = make_solver(ctx, options);
    s.add(assertions);
    const z3::check_result r = s.check();
    out.verdict = verdict_of(r);
    if (r == z3::unknown) out.reason = s.reason_unknown();
    if (r == z3::sat) out.reason = "counterexample to induction";
  } catch (const z3::exception& e) {
    out.verdict = QueryVerdict::Unknown;
    out.reason = fmt::format("z3: {}", e.msg());
  }
  out.ms = ms_since(start);
  return out;
}

InductiveResult inductive_with(Encoder& en, const ProofOptions& options) {
  z3::context& c = en.ctx;
  InductiveResult result;
  const Statics g = statics(en);
  const State s = state_consts(c, en.val, "s");

  // Base.
  {
    z3::expr_vector q(c);
    q.push_back(initial(g, s));
    q.push_back(!invariant(g, s));
    result.base = run_query(c, options, q);
  }

  // Step: one (pass, segment) of any K, any N.
  {
    const z3::expr r = c.bool_const("r"), w = c.bool_const("w"), wl = c.bool_const("wl"), rl = c.bool_const("rl");
    const z3::expr last = c.bool_const("last"), er = c.bool_const("er"), ew = c.bool_const("ew");
    const z3::expr written = c.constant("written", en.val);
    z3::expr_vector q(c);
    q.push_back(invariant(g, s));
    // Validity of the program and of the element pattern.
    q.push_back(z3::implies(w, g.writable));
    q.push_back(z3::implies(er, r));
    q.push_back(z3::implies(ew, w));
    // Consistency of the scan facts with the rest of the sequence (prophecies).
    q.push_back(z3::implies(last, !wl && !rl));
    q.push_back(z3::implies(!s.pass_start, s.wl_prev == (w || wl) && s.rl_prev == (r || rl)));
    q.push_back(g.written_anywhere == (s.written_before || w || wl));
    const z3::expr fw =
        z3::ite(s.written_before, en.fw_val(planner::FirstWriter::Earlier),
                z3::ite(w, en.fw_val(planner::FirstWriter::This),
                        z3::ite(wl, en.fw_val(planner::FirstWriter::Later), en.fw_val(planner::FirstWriter::None))));
    const Encoder::Bits d = en.bits(g.decl, r, w, fw, last, rl, wl);
    const z3::expr consumes = d.declared && d.input;
    q.push_back(z3::implies(consumes, g.seeded));
    q.push_back(z3::implies(last, g.seeded == (s.consumed_before || consumes)));
    // The split's step and the true step.
    const z3::expr error = (!d.declared && (r || w)) || (d.declared && w && !d.writable) || (consumes && !s.present);
    const z3::expr start = z3::ite(d.input, s.live, g.zero);
    const z3::expr update = !error && d.declared && d.output;
    const State next{z3::ite(ew, written, s.v),
                     z3::ite(update, z3::ite(ew, written, start), s.live),
                     s.present || update,
                     last,
                     c.bool_val(true),
                     !last && (s.written_before || w),
                     !last && (s.consumed_before || consumes),
                     wl,
                     rl};
    const z3::expr safe = !error && z3::implies(er, start == s.v);
    result.step_satisfiable = run_query(c, options, q).verdict == QueryVerdict::Fails;  // sat: not vacuous
    q.push_back(!(invariant(g, next) && safe));
    result.step = run_query(c, options, q);
  }

  // Final outputs, at the end of any pass.
  {
    z3::expr_vector q(c);
    q.push_back(invariant(g, s));
    q.push_back(s.pass_start && s.started);
    q.push_back(!z3::implies(g.po, s.present && s.live == s.v));
    result.final_output = run_query(c, options, q);
  }
  return result;
}

}  // namespace

// ------------------------------------------------------------------ public entry points

struct RoleProver::Impl {
  Impl(const RoleTable& t, const ProofOptions& o) : table(t), options(o), en((set_seeds(o), ctx), table) {}
  RoleTable table;
  ProofOptions options;
  z3::context ctx;
  Encoder en;
  std::vector<std::string> errors;
};

RoleProver::RoleProver(const RoleTable& table, const ProofOptions& options)
    : impl_(std::make_unique<Impl>(table, options)) {}
RoleProver::~RoleProver() = default;

std::optional<Pattern> RoleProver::find_counterexample(std::uint32_t segments, std::uint32_t passes,
                                                       std::optional<std::uint32_t> decl, bool* unknown) {
  set_seeds(impl_->options);
  Search search{impl_->en, impl_->table, impl_->options, impl_->errors};
  std::optional<Pattern> found;
  const QueryOutcome out = search.check(
      segments, passes,
      [&](const Bounded& b, z3::expr_vector& cons) {
        if (decl) cons.push_back(b.decl == impl_->en.decl_val(*decl));
      },
      &found);
  if (unknown != nullptr) *unknown = out.verdict == QueryVerdict::Unknown;
  GC_ASSERT(impl_->errors.empty());
  return found;
}

InductiveResult RoleProver::prove_inductive() {
  set_seeds(impl_->options);
  return inductive_with(impl_->en, impl_->options);
}

std::optional<Pattern> find_bounded_counterexample(const RoleTable& table, std::uint32_t segments, std::uint32_t passes,
                                                   const ProofOptions& options, std::optional<std::uint32_t> decl,
                                                   bool* unknown) {
  RoleProver prover(table, options);
  return prover.find_counterexample(segments, passes, decl, unknown);
}

std::optional<Pattern> find_distinguishing_pattern(const RoleTable& a, const RoleTable& b, std::uint32_t segments,
                                                   std::uint32_t passes, const ProofOptions& options,
                                                   std::optional<std::uint32_t> decl, bool* unknown) {
  set_seeds(options);
  z3::context ctx;
  Encoder ea(ctx, a), eb(ctx, b);
  const Bounded ba = encode_bounded(ea, segments, passes, "a_");
  const Bounded bb = encode_bounded(eb, segments, passes, "b_");
  z3::solver s = make_solver(ctx, options);
  s.add(ba.constraints);
  s.add(bb.constraints);
  s.add(ba.violation != bb.violation);
  if (decl) s.add(ba.decl == ea.decl_val(*decl));
  const z3::check_result r = s.check();
  if (unknown != nullptr) *unknown = r == z3::unknown;
  if (r != z3::sat) return std::nullopt;
  return minimise(s, ba);
}

std::string z3_version() {
  unsigned major = 0, minor = 0, build = 0, revision = 0;
  Z3_get_version(&major, &minor, &build, &revision);
  return fmt::format("{}.{}.{}.{}", major, minor, build, revision);
}

ProofReport prove_role_rule(const planner::RoleRule& rule, std::string rule_name, const ProofOptions& options) {
  const auto start = Clock::now();
  ProofReport report;
  report.rule = std::move(rule_name);
  report.options = options;
  for (const ModelDecl& d : model_decls())
    if (!d.in_scope) report.excluded_declarations.push_back(d.name());

  const RoleTable table = RoleTable::tabulate(rule);
  set_seeds(options);
  z3::context ctx;
  Encoder en(ctx, table);
  Search search{en, table, options, report.model_errors};

  // Bounded sweep.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> best;  // (N, K) of report.first
  for (std::uint32_t k = 1; k <= options.max_segments; ++k)
    for (std::uint32_t n = 1; n <= options.max_passes; ++n) {
      // K = 1 is a one-segment split (reachable only through spec §10 G5's unhoisted nested fence):
      // it is checked, but the reported counterexample has a top-level fence so that it renders.
      const bool renderable = k >= 2 || options.max_segments == 1;
      const bool smaller = renderable && (!best || std::make_pair(n, k) < *best);
      std::optional<Pattern> found;
      BoundedResult b{k, n, search.check(k, n, nullptr, smaller ? &found : nullptr)};
      if (found) {
        best = std::make_pair(n, k);
        report.first = make_counterexample(table, "first", "smallest counterexample of the bounded sweep", "",
                                           std::move(*found));
      }
      report.bounded.push_back(std::move(b));
    }

  report.inductive = inductive_with(en, options);

  if (options.scenarios) {
    for (const Scenario& sc : scenarios()) {
      ScenarioResult result{std::string(sc.id), std::string(sc.title), std::string(sc.spec), std::nullopt,
                            QueryVerdict::Holds};
      const std::uint32_t decl = *model_decl_index(sc.access, sc.is_output, sc.live_out);
      const std::uint32_t passes = std::min(sc.passes, std::max<std::uint32_t>(options.max_passes, 1));
      for (std::uint32_t k = 2; k <= options.catalogue_max_segments && !result.counterexample; ++k) {
        std::optional<Pattern> found;
        const QueryOutcome out = search.check(
            k, passes,
            [&](const Bounded& b, z3::expr_vector& cons) {
              cons.push_back(b.decl == en.decl_val(decl));
              if (sc.constrain) sc.constrain(b, cons);
            },
            &found);
        if (out.verdict == QueryVerdict::Unknown) result.verdict = QueryVerdict::Unknown;
        if (found) {
          result.verdict = QueryVerdict::Fails;
          result.counterexample =
              make_counterexample(table, result.id, result.title, result.spec, std::move(*found));
        }
      }
      report.scenarios.push_back(std::move(result));
    }
  }

  if (options.per_declaration && report.refuted()) {
    for (std::uint32_t decl = 0; decl < kModelDeclCount; ++decl) {
      const ModelDecl& d = model_decls()[decl];
      if (!d.in_scope) continue;
      // First a counterexample in which some segment references the buffer (the B1 shape hides
      // everything else), then any.
      bool done = false;
      for (const bool need_reference : {true, false})
        for (std::uint32_t n = 1; n <= options.catalogue_max_passes && !done; ++n)
          for (std::uint32_t k = 2; k <= options.catalogue_max_segments && !done; ++k) {
            std::optional<Pattern> found;
            search.check(
                k, n,
                [&](const Bounded& b, z3::expr_vector& cons) {
                  cons.push_back(b.decl == en.decl_val(decl));
                  if (need_reference) referenced_somewhere(b, cons);
                },
                &found);
            if (found) {
              report.per_declaration.push_back(make_counterexample(
                  table, "decl:" + d.name(), "smallest counterexample for " + d.name(), "", std::move(*found)));
              done = true;
            }
          }
    }
  }
  report.total_ms = ms_since(start);
  return report;
}

}  // namespace gridcheck::props
