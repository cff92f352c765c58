#include "props/prove/inductive_proof.hpp"

#include <string_view>

#include <fmt/format.h>

#include "props/prove/proof_solver.hpp"

namespace gridcheck::props::role_z3 {
namespace {

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

InductiveResult encode_and_prove(Encoder& en, const ProofOptions& options) {
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

InductiveResult inductive_unknown(const std::string& reason) {
  InductiveResult result;
  for (QueryOutcome* q : {&result.base, &result.step, &result.final_output}) {
    q->verdict = QueryVerdict::Unknown;
    q->reason = reason;
  }
  return result;
}

InductiveResult prove_inductive(Encoder& en, const ProofOptions& options) {
  try {
    return encode_and_prove(en, options);
  } catch (const z3::exception& e) {  // building the encoding failed; the queries catch their own
    return inductive_unknown(fmt::format("z3: {}", e.msg()));
  }
}

}  // namespace gridcheck::props::role_z3
