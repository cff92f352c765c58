#include "props/mutants/mutant_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <system_error>
#include <utility>

#include "ir/text/case_file.hpp"
#include "props/campaign/campaign.hpp"
#include "props/campaign/dag_campaign.hpp"
#include "props/gen/case_generator.hpp"
#include "props/gen/choice_source.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"
#include "props/prove/counterexample_program.hpp"
#include "props/prove/role_model.hpp"
#include "props/prove/role_proof.hpp"
#include "props/reduce/case_reducer.hpp"

namespace gridcheck::props {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// A wave-DAG case (props/gen/dag_case.hpp): its kernel is a fused megakernel, judged by R-waves.
bool names_dag_edges(const ir::Case& c) {
  return std::any_of(c.meta.begin(), c.meta.end(), [](const auto& kv) { return kv.first == "dag_edges"; });
}

}  // namespace

// ------------------------------------------------------------------------------- MutantResult

const OracleRun* MutantResult::find(std::string_view oracle) const {
  for (const OracleRun& o : oracles)
    if (o.oracle == oracle) return &o;
  return nullptr;
}

bool MutantResult::killed() const {
  return std::any_of(oracles.begin(), oracles.end(), [](const OracleRun& o) { return o.killed; });
}

std::optional<double> MutantResult::time_to_kill() const {
  std::optional<double> best;
  for (const OracleRun& o : oracles)
    if (o.killed && (!best || o.seconds < *best)) best = o.seconds;
  return best;
}

std::string MutantResult::killed_by() const {
  std::string out;
  for (const OracleRun& o : oracles)
    if (o.killed) out += (out.empty() ? "" : ",") + o.oracle;
  return out;
}

const ir::Case* MutantResult::best_case() const {
  // A program that shows the fault beats the contract oracle's placeholder program.
  const ir::Case* best = nullptr;
  std::size_t best_size = 0;
  for (const char* oracle : {kOracleFuzz, kOracleZ3, kOracleCorpus}) {
    const OracleRun* o = find(oracle);
    if (o == nullptr || !o->killed || !o->killing_case) continue;
    const std::size_t size = statement_count(o->killing_case->program);
    if (best == nullptr || size < best_size) best = &*o->killing_case, best_size = size;
  }
  if (best != nullptr) return best;
  const OracleRun* contract = find(kOracleContract);
  return contract != nullptr && contract->killed && contract->killing_case ? &*contract->killing_case : nullptr;
}

// ------------------------------------------------------------------------------------- runner

namespace {

struct CorpusCase {
  std::string file;
  ir::Case expected;             ///< expectations for the base
  std::size_t base_launches = 0;
};

struct BaseCache {
  bool corpus_loaded = false;
  std::vector<CorpusCase> corpus;
  std::optional<RoleTable> table;
};

bool same_role_table(const RoleTable& a, const RoleTable& b) {
  if (a.rows().size() != b.rows().size()) return false;
  for (std::size_t i = 0; i < a.rows().size(); ++i)
    if (!(a.rows()[i].facts == b.rows()[i].facts) || !a.rows()[i].decision.same_meaning(b.rows()[i].decision)) return false;
  return true;
}

}  // namespace

struct MutantRunner::Impl {
  MutantRunOptions options;
  std::map<std::string, BaseCache> bases;
  std::vector<std::string> warnings;
  std::size_t corpus_files = 0;
  double corpus_seconds = 0;

  bool stopped() const { return options.stop != nullptr && options.stop->load(); }

  BaseCache& cache(const planner::Profile& base) { return bases[base.name]; }

  // ------------------------------------------------------------------ shared: confirm and reduce

  /// The base-expectation case of `c` and what tells the mutant apart on it, if anything. With
  /// `base_must_match`, the base must match R (or refuse) on it: the fuzz oracle's notion of correct.
  /// For a DAG case the base's R-waves outcome is judged (R runs the fused kernel, which may be the
  /// mutant's and race), otherwise its H-cpu outcome.
  std::optional<std::pair<ir::Case, std::string>> confirm(const ir::Case& c, const planner::Profile& base,
                                                          const planner::Profile& mutant, bool base_must_match,
                                                          bool r_must_be_valid) {
    const PairReport pair = evaluate_pair(c, base, mutant, options.limits);
    const bool dag = names_dag_edges(c);
    if (r_must_be_valid && !dag && !reference_is_valid(pair.base)) return std::nullopt;
    const OracleOutcome* b = dag ? pair.base.find("R-waves", base.name) : first_cpu_outcome(pair.base);
    if (base_must_match && (b == nullptr || (b->verdict != ir::Verdict::Match && b->verdict != ir::Verdict::Refused)))
      return std::nullopt;
    ir::Case expected = with_base_expectations(c, pair.base, base);
    auto why = tell_apart(expected, pair, split_launches(pair.base, base.name), mutant);
    if (!why) return std::nullopt;
    return std::make_pair(std::move(expected), std::move(*why));
  }

  ir::Case reduce(const ir::Case& start, const planner::Profile& base, const planner::Profile& mutant,
                  bool base_must_match, std::uint32_t attempts) {
    if (names_dag_edges(start)) return start;  // IR reduction would change the fusion, not the DAG
    const bool valid = reference_is_valid(evaluate_pair(start, base, mutant, options.limits).base);
    ReduceOptions ro;
    ro.max_attempts = attempts;
    ir::Case reduced = reduce_case(
        start,
        [&](const ir::Case& cand) { return !stopped() && confirm(cand, base, mutant, base_must_match, valid).has_value(); },
        ro);
    auto confirmed = confirm(reduced, base, mutant, base_must_match, valid);
    return confirmed ? confirmed->first : start;
  }

  // ------------------------------------------------------------------------------------- corpus

  void load_corpus(const planner::Profile& base, BaseCache& bc) {
    const auto start = Clock::now();
    load_corpus_files(base, bc);
    corpus_seconds += since(start);
  }

  void load_corpus_files(const planner::Profile& base, BaseCache& bc) {
    bc.corpus_loaded = true;
    if (options.corpus_dir.empty()) return;
    std::vector<std::string> files;
    std::error_code ec;
    const fs::path root(options.corpus_dir);
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_directory() && it->path().filename() == "mutants") {
        it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file() && it->path().extension() == ".gc") files.push_back(it->path().string());
    }
    if (ec) warnings.push_back(fmt::format("{}: {}", options.corpus_dir, ec.message()));
    std::sort(files.begin(), files.end());
    corpus_files = files.size();
    for (const std::string& file : files) {
      ir::Result<ir::Case> loaded = ir::load_case_file(file);
      if (!loaded) {
        warnings.push_back(fmt::format("{}: does not parse; skipped", file));
        continue;
      }
      ir::Case c = std::move(loaded).value();
      OracleOptions oo;
      oo.profiles = {&base};
      oo.locate_first_divergence = false;
      oo.limits = options.limits;
      const CaseReport report = evaluate_case(c, oo);
      bool records_base = false;
      for (const ir::Expectation& e : c.expectations) records_base = records_base || e.profile == base.name;
      for (const ir::ExpectedOutput& o : c.outputs) records_base = records_base || o.profile == base.name;
      CorpusCase cc;
      cc.file = file;
      cc.base_launches = split_launches(report, base.name);
      if (records_base) {
        const auto failures = check_expectations(c, report);
        if (!failures.empty()) {
          warnings.push_back(fmt::format("{}: {} fails its own recorded expectations ({}); skipped", file, base.name,
                                         failures.front().message));
          continue;
        }
        cc.expected = std::move(c);
        set_meta(cc.expected, "base_launches", std::to_string(cc.base_launches));
      } else {
        cc.expected = with_base_expectations(c, report, base);
      }
      bc.corpus.push_back(std::move(cc));
    }
  }

  OracleRun run_corpus(const Mutant&, const planner::Profile& base, const planner::Profile& mutant) {
    OracleRun run;
    run.oracle = kOracleCorpus;
    run.applicable = true;  // megakernel mutants: through the DAG cases' R-waves expectations
    if (!run.applicable) return run;
    BaseCache& bc = cache(base);
    if (!bc.corpus_loaded) load_corpus(base, bc);
    const auto start = Clock::now();
    for (const CorpusCase& cc : bc.corpus) {
      if (stopped()) break;
      ++run.work;
      const PairReport pair = evaluate_pair(cc.expected, base, mutant, options.limits);
      auto why = tell_apart(cc.expected, pair, cc.base_launches, mutant);
      if (!why) continue;
      run.killed = true;
      run.seconds = since(start);
      run.detail = fmt::format("{}: {}", fs::path(cc.file).filename().string(), *why);
      run.killing_case = reduce(cc.expected, base, mutant, false, options.reduce_attempts);
      set_meta(*run.killing_case, "reduced_from", fs::path(cc.file).filename().string());
      return run;
    }
    run.seconds = since(start);
    run.detail = fmt::format("{} cases, no difference", run.work);
    return run;
  }

  // ----------------------------------------------------------------------------------------- z3

  OracleRun run_z3(const Mutant& m, const planner::Profile& base, const planner::Profile& mutant) {
    OracleRun run;
    run.oracle = kOracleZ3;
    run.applicable = m.kind == MutantKind::RoleRule;
    if (!run.applicable) return run;
    const auto start = Clock::now();
    BaseCache& bc = cache(base);
    if (!bc.table) bc.table = RoleTable::tabulate(base.table.role);
    const RoleTable table = RoleTable::tabulate(mutant.table.role);
    if (same_role_table(*bc.table, table)) {
      run.applicable = false;  // only workgroup rows changed: outside the model (docs/proof.md §2.1)
      run.seconds = since(start);
      run.detail = "the role table of storage buffers equals the base's (the Z3 model does not see the change)";
      return run;
    }
    ProofOptions po;
    po.timeout_ms = options.z3_timeout_ms;
    std::size_t unknown = 0, unconfirmed = 0;
    // One query per size over every declaration class; if its pattern does not confirm on execution,
    // one query per class of that size.
    auto attempt = [&](std::uint32_t segments, std::uint32_t passes, std::optional<std::uint32_t> decl) -> bool {
      bool u = false;
      ++run.work;
      const std::optional<Pattern> pattern =
          find_distinguishing_pattern(*bc.table, table, segments, passes, po, decl, &u);
      unknown += u ? 1 : 0;
      if (!pattern) return false;
      RenderOptions ro;
      ro.profile = base.name;
      ro.name = "mutant-" + m.name;
      auto confirmed = confirm(render_counterexample(*bc.table, *pattern, ro), base, mutant, false, true);
      if (!confirmed) {
        ++unconfirmed;
        return false;
      }
      const bool base_breaks = simulate(*bc.table, *pattern).first.kind != ViolationKind::None;
      run.killed = true;
      run.seconds = since(start);
      run.detail = fmt::format("{} breaks on {}; executed: {}", base_breaks ? "the base (not the mutant)" : "the mutant",
                               pattern->to_string(), confirmed->second);
      run.killing_case = std::move(confirmed->first);
      return true;
    };
    for (std::uint32_t passes = 1; passes <= options.z3_max_passes; ++passes)
      for (std::uint32_t segments = 2; segments <= options.z3_max_segments; ++segments) {
        if (stopped()) break;
        const std::size_t before = unconfirmed;
        if (attempt(segments, passes, std::nullopt)) return run;
        if (unconfirmed == before) continue;
        for (std::uint32_t decl = 0; decl < kModelDeclCount; ++decl)
          if (model_decls()[decl].in_scope && attempt(segments, passes, decl)) return run;
      }
    run.seconds = since(start);
    run.detail = fmt::format("no distinguishing pattern for K <= {}, N <= {}{}{}", options.z3_max_segments,
                             options.z3_max_passes, unknown ? fmt::format(", {} unknown", unknown) : "",
                             unconfirmed ? fmt::format(", {} not confirmed by execution", unconfirmed) : "");
    return run;
  }

  // --------------------------------------------------------------------------------------- fuzz

  OracleRun run_fuzz(const Mutant& m, const planner::Profile& base, const planner::Profile& mutant) {
    OracleRun run;
    run.oracle = kOracleFuzz;
    run.applicable = true;
    const auto start = Clock::now();
    const bool vyre_base = base.name == planner::vyre_0_7_2().name;
    const bool megakernel = m.kind == MutantKind::Megakernel;
    std::atomic<bool> stop{false};
    CampaignOptions co;
    co.seconds = options.fuzz_seconds;
    co.seed = options.fuzz_seed;
    co.generator.allowed = options.fuzz_features.value_or(kAllFeatures) & (vyre_base ? kBenignFeatures : kAllFeatures);
    // As `gridcheck fuzz` with sound alone: any combination of divergence features (sound equals R
    // on all of them); a vyre-0.7.2 base gets none, so the limit does not matter there.
    if (!vyre_base) co.generator.max_divergence_features = 0;
    // A megakernel mutant is invisible to the split: fuzz wave DAGs fused by its rule instead
    // (`gridcheck fuzz --target dag --mutant`, the DAG property R-waves).
    if (megakernel) co.target = dag_campaign_target(DagConfig{}, mutant);
    co.oracle.profiles = {&mutant};
    {
      const std::uint64_t fuel = co.oracle.limits.fuel;
      co.oracle.limits = options.limits;
      if (!options.fuel_given) co.oracle.limits.fuel = fuel;
    }
    co.jobs = std::max(1u, options.fuzz_jobs);
    co.shrink = true;
    co.shrink_attempts = options.shrink_attempts;
    co.stop = &stop;
    std::optional<std::pair<ir::Case, std::string>> kill;
    double found_after = 0;
    std::uint64_t found_index = 0;
    std::string first_unconfirmed;
    std::size_t unconfirmed = 0;
    co.on_progress = [&](const CampaignProgress&) {
      if (stopped()) stop.store(true);
    };
    // Runs under the campaign's lock: confirming a failure (a few oracle runs) briefly holds the
    // other workers; it happens once per mutant in practice.
    co.on_failure = [&](const CampaignFailure& f) {
      if (kill || f.blame == "generator") return;
      auto confirmed = confirm(f.shrunk, base, mutant, true, true);
      if (!confirmed) {
        // Shrinking may have drifted to a case the base fails as well: try the generated original.
        ChoiceSource choices = ChoiceSource::random(f.case_seed);
        const ir::Case original =
            co.target.generate ? co.target.generate(choices) : generate_case(choices, co.generator).test_case;
        if (confirm(original, base, mutant, true, true))
          confirmed = confirm(reduce(original, base, mutant, true, options.reduce_attempts), base, mutant, true, true);
      }
      if (!confirmed) {
        if (first_unconfirmed.empty()) first_unconfirmed = f.signature;
        ++unconfirmed;
        return;
      }
      kill = std::move(confirmed);
      found_after = f.found_after_seconds;
      found_index = f.case_index;
      stop.store(true);
    };
    const CampaignResult result = run_campaign(co);
    run.work = result.progress.cases;
    if (kill) {
      run.killed = true;
      run.seconds = found_after;
      run.work = found_index + 1;  // cases up to the killing one (exact with one job)
      run.detail = fmt::format("generated case {} (seed {}): {}", found_index, options.fuzz_seed, kill->second);
      run.killing_case = std::move(kill->first);
      set_meta(*run.killing_case, "fuzz_seed", std::to_string(options.fuzz_seed));
      return run;
    }
    run.seconds = since(start);
    run.detail = fmt::format("{} cases ({}), no failure{}", run.work,
                             megakernel ? "wave DAGs" : vyre_base ? "benign features" : "all features",
                             unconfirmed == 0 ? ""
                                              : fmt::format(" of the mutant's own ({} failure(s) the base shares, first {})",
                                                            unconfirmed, first_unconfirmed));
    return run;
  }

  // ----------------------------------------------------------------------------------- contract

  OracleRun run_contract(const Mutant& m, const planner::Profile& base, const planner::Profile& mutant) {
    OracleRun run;
    run.oracle = kOracleContract;
    run.applicable = m.kind == MutantKind::Megakernel;
    if (!run.applicable) return run;
    const auto start = Clock::now();
    std::mt19937_64 rng(options.contract_seed);
    for (std::uint32_t i = 0; i < options.contract_cases && !stopped(); ++i) {
      const DagCase d = random_dag(rng);
      ++run.work;
      if (auto base_bad = dag_violation(base, d)) {
        warnings.push_back(fmt::format("contract oracle: the base {} breaks docs/vyre-0.7.2.md §7.1 on {} waves, edges \"{}\": {}",
                                       base.name, d.waves, format_edges(d.edges), *base_bad));
        continue;
      }
      if (!dag_violation(mutant, d)) continue;
      run.killed = true;
      run.seconds = since(start);
      const DagCase small = shrink_dag(base, mutant, d);
      const std::string why = dag_violation(mutant, small).value_or("");
      run.detail = fmt::format("graph {} after {} graphs ({} waves, edges \"{}\"): {}", i + 1, run.work, small.waves,
                               format_edges(small.edges), why);
      run.killing_case = contract_case(m, small, why);
      return run;
    }
    run.seconds = since(start);
    run.detail = fmt::format("{} graphs, no violation", run.work);
    return run;
  }
};

MutantRunner::MutantRunner(MutantRunOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}
MutantRunner::~MutantRunner() = default;

std::size_t MutantRunner::corpus_size() const { return impl_->corpus_files; }
double MutantRunner::corpus_seconds() const { return impl_->corpus_seconds; }
const std::vector<std::string>& MutantRunner::corpus_warnings() const { return impl_->warnings; }

MutantResult MutantRunner::run(const Mutant& mutant) {
  const planner::Profile& base = mutant_base(mutant);
  const planner::Profile profile = make_mutant(mutant, base);
  MutantResult result;
  result.mutant = &mutant;
  result.base = base.name;
  const MutantRunOptions& o = impl_->options;
  if (o.skip_equivalent && !mutant.equivalent.empty()) return result;
  auto add = [&](bool enabled, auto fn) {
    if (!enabled || (o.stop_at_first_kill && result.killed())) return;
    result.oracles.push_back((impl_.get()->*fn)(mutant, base, profile));
  };
  add(o.z3, &Impl::run_z3);
  add(o.corpus, &Impl::run_corpus);
  add(o.contract, &Impl::run_contract);  // cheap: before the fuzz budget
  add(o.fuzz, &Impl::run_fuzz);
  for (OracleRun& r : result.oracles) {
    if (!r.killing_case) continue;
    ir::Case& c = *r.killing_case;
    c.name = "mutant-" + mutant.name;
    c.description = mutant.description;
    set_meta(c, "mutant", mutant.name);
    set_meta(c, "base", base.name);
    set_meta(c, "killed_by", r.oracle);
    set_meta(c, "difference", r.detail);
  }
  return result;
}

}  // namespace gridcheck::props
