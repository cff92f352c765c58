#include "props/prove/role_proof.hpp"

#include <z3++.h>

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "ir/ice.hpp"
#include "props/prove/bounded_encoding.hpp"
#include "props/prove/bounded_queries.hpp"
#include "props/prove/inductive_proof.hpp"
#include "props/prove/proof_scenarios.hpp"
#include "props/prove/proof_solver.hpp"
#include "props/prove/role_encoder.hpp"

namespace gridcheck::props {

using namespace role_z3;

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

}  // namespace

// ------------------------------------------------------------------ public entry points

struct RoleProver::Impl {
  Impl(const RoleTable& t, const ProofOptions& o) : table(t), options(o) {
    set_seeds(o);
    try {
      en.emplace(ctx, table);
    } catch (const z3::exception& e) {
      encoding_error = fmt::format("z3: {}", e.msg());
    }
  }
  RoleTable table;
  ProofOptions options;
  z3::context ctx;
  std::optional<Encoder> en;   ///< absent when Z3 failed to encode the table (encoding_error says why)
  std::string encoding_error;
  std::vector<std::string> errors;
};

RoleProver::RoleProver(const RoleTable& table, const ProofOptions& options)
    : impl_(std::make_unique<Impl>(table, options)) {}
RoleProver::~RoleProver() = default;

std::optional<Pattern> RoleProver::find_counterexample(std::uint32_t segments, std::uint32_t passes,
                                                       std::optional<std::uint32_t> decl, bool* unknown) {
  set_seeds(impl_->options);
  if (!impl_->en) {
    if (unknown != nullptr) *unknown = true;
    return std::nullopt;
  }
  Search search{*impl_->en, impl_->table, impl_->options, impl_->errors};
  std::optional<Pattern> found;
  const QueryOutcome out = search.check(
      segments, passes,
      [&](const Bounded& b, z3::expr_vector& cons) {
        if (decl) cons.push_back(b.decl == impl_->en->decl_val(*decl));
      },
      &found);
  if (unknown != nullptr) *unknown = out.verdict == QueryVerdict::Unknown;
  GC_ASSERT(impl_->errors.empty());
  return found;
}

InductiveResult RoleProver::prove_inductive() {
  set_seeds(impl_->options);
  if (!impl_->en) return role_z3::inductive_unknown(impl_->encoding_error);
  return role_z3::prove_inductive(*impl_->en, impl_->options);
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
  try {
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
  } catch (const z3::exception&) {
    if (unknown != nullptr) *unknown = true;
    return std::nullopt;
  }
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
  std::optional<Encoder> encoder;
  try {
    encoder.emplace(ctx, table);
  } catch (const z3::exception& e) {
    report.inductive = role_z3::inductive_unknown(fmt::format("z3: {}", e.msg()));
    report.model_errors.push_back(report.inductive.base.reason);
    report.total_ms = ms_since(start);
    return report;
  }
  Encoder& en = *encoder;
  Search search{en, table, options, report.model_errors};

  // Bounded sweep.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> best;  // (N, K) of report.first
  for (std::uint32_t k = 1; k <= options.max_segments; ++k)
    for (std::uint32_t n = 1; n <= options.max_passes; ++n) {
      // K = 1 is a one-segment split (reachable only through docs/vyre-0.7.2.md#g5's unhoisted nested fence):
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

  report.inductive = role_z3::prove_inductive(en, options);

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
