#include "props/prove/bounded_queries.hpp"

#include <fmt/format.h>

#include "props/prove/proof_solver.hpp"

namespace gridcheck::props::role_z3 {

QueryOutcome Search::check(std::uint32_t n_seg, std::uint32_t n_pass,
                           const std::function<void(const Bounded&, z3::expr_vector&)>& extra,
                           std::optional<Pattern>* found) {
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

}  // namespace gridcheck::props::role_z3
