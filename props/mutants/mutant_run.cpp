#include "props/mutants/mutant_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <random>

#include "ir/equality.hpp"
#include "ir/text/case_file.hpp"
#include "ir/text/parser.hpp"
#include "planner/segment_plan.hpp"
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

const OracleOutcome* cpu_outcome(const CaseReport& report) {
  for (const OracleOutcome& s : report.outcomes)
    if (s.oracle == "H-cpu") return &s;
  return nullptr;
}

bool r_valid(const CaseReport& report) { return report.reference_verdict != ir::Verdict::Invalid; }

const OracleOutcome* outcome(const CaseReport& report, std::string_view oracle, std::string_view profile) {
  for (const OracleOutcome& s : report.outcomes)
    if (s.oracle == oracle && s.profile == profile) return &s;
  return nullptr;
}

bool is_dag_case(const ir::Case& c) {
  return std::any_of(c.meta.begin(), c.meta.end(), [](const auto& kv) { return kv.first == "dag_edges"; });
}

void set_meta(ir::Case& c, const std::string& key, std::string value) {
  for (auto& [k, v] : c.meta)
    if (k == key) {
      v = std::move(value);
      return;
    }
  c.meta.emplace_back(key, std::move(value));
}

std::optional<std::size_t> parse_size(std::string_view text) {
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
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

// ------------------------------------------------------------------------- comparing two runs

PairReport evaluate_pair(const ir::Case& c, const planner::Profile& base, const planner::Profile& mutant,
                         std::uint64_t fuel) {
  OracleOptions options;
  options.profiles = {&base, &mutant};
  options.fuel = fuel;
  options.locate_first_divergence = false;
  const CaseReport both = evaluate_case(c, options);
  PairReport pair;
  pair.base = both;
  pair.mutant = both;
  pair.base.outcomes.clear();
  pair.mutant.outcomes.clear();
  for (const OracleOutcome& s : both.outcomes) {
    if (s.profile == base.name) {
      pair.base.outcomes.push_back(s);
    } else if (s.profile == mutant.name) {
      pair.mutant.outcomes.push_back(s);
      pair.mutant.outcomes.back().profile = base.name;
    } else {  // no profile (R-waves of the case's own kernel): the same for both
      pair.base.outcomes.push_back(s);
      pair.mutant.outcomes.push_back(s);
    }
  }
  return pair;
}

std::size_t split_launches(const CaseReport& report, std::string_view profile) {
  for (const OracleOutcome& s : report.outcomes)
    if (s.oracle == "H-cpu" && s.profile == profile) return s.launches;
  return 0;
}

namespace {

std::uint64_t plan_fingerprint(const planner::Profile& profile, const ir::Program& program) {
  if (!profile.split.contains_fence(program)) return 1;
  ir::Result<planner::SplitPlan> plan = planner::plan_split(profile, program);
  if (!plan) return 2;
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](const std::string& s) { h = ir::fnv1a64(s.data(), s.size(), h); };
  for (const planner::PlannedSegment& seg : plan->segments) {
    const std::uint64_t ch = ir::content_hash(seg.program);
    h = ir::fnv1a64(&ch, sizeof ch, h);
    for (const std::string& n : seg.input_names) mix("i" + n);
    for (const std::string& n : seg.output_names) mix("o" + n);
    for (const std::string& n : seg.let_prefix) mix("l" + n);
  }
  return h;
}

}  // namespace

bool plan_is_deterministic(const planner::Profile& profile, const ir::Program& program, int repeats) {
  const std::uint64_t first = plan_fingerprint(profile, program);
  for (int i = 1; i < repeats; ++i)
    if (plan_fingerprint(profile, program) != first) return false;
  return true;
}

std::optional<std::string> tell_apart(const ir::Case& expected, const PairReport& pair, std::size_t base_launches,
                                      const planner::Profile& mutant) {
  const std::vector<ExpectationFailure> failures = check_expectations(expected, pair.mutant);
  if (!failures.empty())
    return fmt::format("{}{}", failures.front().message,
                       failures.size() > 1 ? fmt::format(" (+{} more)", failures.size() - 1) : "");
  const OracleOutcome* m = cpu_outcome(pair.mutant);
  if (m != nullptr && r_valid(pair.mutant) && m->launches != base_launches)
    return fmt::format("{} launches where the base makes {}", m->launches, base_launches);
  if (!plan_is_deterministic(mutant, expected.program)) return std::string("the plan differs from run to run");
  return std::nullopt;
}

ir::Case with_base_expectations(const ir::Case& c, const CaseReport& base_report, const planner::Profile& base) {
  ir::Case out = c;
  record_expectations(out, base_report);
  set_meta(out, "base_launches", std::to_string(split_launches(base_report, base.name)));
  return out;
}

std::string meta_value(const ir::Case& c, std::string_view key) {
  for (const auto& [k, v] : c.meta)
    if (k == key) return v;
  return "";
}

// ---------------------------------------------------------------------------------- DAG oracle

std::string format_dag_edges(const std::vector<planner::WaveDependency>& edges) {
  std::string out;
  for (const planner::WaveDependency& e : edges) out += fmt::format("{}{}>{}", out.empty() ? "" : " ", e.before, e.after);
  return out;
}

std::optional<std::vector<planner::WaveDependency>> parse_dag_edges(std::string_view text) {
  std::vector<planner::WaveDependency> edges;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    const std::size_t end = std::min(text.find(' ', i), text.size());
    const std::string_view token = text.substr(i, end - i);
    const std::size_t gt = token.find('>');
    if (gt == std::string_view::npos) return std::nullopt;
    const auto before = parse_size(token.substr(0, gt));
    const auto after = parse_size(token.substr(gt + 1));
    if (!before || !after) return std::nullopt;
    edges.push_back({*before, *after});
    i = end;
  }
  return edges;
}

namespace {

std::string describe(const planner::Expected<planner::BarrierPlan, planner::MegakernelError>& r) {
  if (!r.ok()) return planner::to_string(r.error());
  std::string s = "[";
  for (const planner::BarrierGroup& g : r->groups) {
    s += s.size() > 1 ? " [" : "[";
    for (std::size_t i = 0; i < g.waves.size(); ++i) s += fmt::format("{}{}", i ? "," : "", g.waves[i]);
    s += "]";
  }
  return s + fmt::format("] with {} barrier(s)", r->global_barriers);
}

}  // namespace

std::optional<std::string> dag_violation(const planner::Profile& profile, const DagCase& dag) {
  const std::size_t n = dag.waves;
  planner::BarrierScratch scratch;
  const auto got = profile.megakernel(n, dag.edges, scratch);

  // The expected error, if any: the first bad edge in input order (range before self), then cycles.
  std::optional<planner::MegakernelError> error;
  for (const planner::WaveDependency& e : dag.edges) {
    if (e.before >= n || e.after >= n) {
      error = planner::MegakernelError::invalid_wave(n, e.before, e.after);
      break;
    }
    if (e.before == e.after) {
      error = planner::MegakernelError::self_dependency(e.before);
      break;
    }
  }
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  if (!error) {
    for (const planner::WaveDependency& e : dag.edges) reach[e.before][e.after] = true;
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t i = 0; i < n; ++i)
        if (reach[i][k])
          for (std::size_t j = 0; j < n; ++j)
            if (reach[k][j]) reach[i][j] = true;
    std::size_t unscheduled = 0;  // on a cycle, or downstream of one
    for (std::size_t v = 0; v < n; ++v) {
      bool blocked = false;
      for (std::size_t u = 0; u < n && !blocked; ++u) blocked = reach[u][u] && (u == v || reach[u][v]);
      unscheduled += blocked ? 1 : 0;
    }
    if (unscheduled > 0) error = planner::MegakernelError::cycle(unscheduled);
  }
  if (error) {
    if (got.ok() || !(got.error() == *error))
      return fmt::format("expected the error \"{}\", got {}", planner::to_string(*error), describe(got));
    return std::nullopt;
  }
  if (!got.ok()) return fmt::format("a valid acyclic graph was refused: {}", describe(got));

  // Earliest layers: longest path (in edges) from a source.
  std::vector<std::size_t> layer(n, 0);
  for (std::size_t round = 0; round < n; ++round)
    for (const planner::WaveDependency& e : dag.edges) layer[e.after] = std::max(layer[e.after], layer[e.before] + 1);
  const std::size_t groups = n == 0 ? 0 : *std::max_element(layer.begin(), layer.end()) + 1;
  const planner::BarrierPlan& plan = *got;
  if (plan.groups.size() != groups)
    return fmt::format("{} groups where the longest path needs {}: {}", plan.groups.size(), groups, describe(got));
  std::vector<int> seen(n, 0);
  for (std::size_t g = 0; g < plan.groups.size(); ++g)
    for (std::size_t w : plan.groups[g].waves) {
      if (w >= n) return fmt::format("group {} holds wave {} of {}: {}", g, w, n, describe(got));
      if (++seen[w] > 1) return fmt::format("wave {} is planned twice: {}", w, describe(got));
      if (layer[w] != g)
        return fmt::format("wave {} is in group {}, its earliest layer is {}: {}", w, g, layer[w], describe(got));
    }
  for (std::size_t w = 0; w < n; ++w)
    if (seen[w] == 0) return fmt::format("wave {} is never planned: {}", w, describe(got));
  if (!plan.groups.empty() && !std::is_sorted(plan.groups[0].waves.begin(), plan.groups[0].waves.end()))
    return fmt::format("layer 0 is not ascending: {}", describe(got));
  const std::size_t barriers = groups == 0 ? 0 : groups - 1;
  if (plan.global_barriers != barriers)
    return fmt::format("{} global barriers for {} groups: {}", plan.global_barriers, groups, describe(got));
  return std::nullopt;
}

namespace {

/// A random wave graph: mostly DAGs over a shuffled topological order (with duplicate edges), some
/// with a back edge (a cycle, maybe with waves downstream), some with a bad edge (self or range).
DagCase random_dag(std::mt19937_64& rng) {
  auto below = [&](std::uint64_t bound) { return bound == 0 ? 0 : static_cast<std::size_t>(rng() % bound); };
  DagCase d;
  d.waves = below(11);
  std::vector<std::size_t> order(d.waves);
  for (std::size_t i = 0; i < d.waves; ++i) order[i] = i;
  for (std::size_t i = d.waves; i > 1; --i) std::swap(order[i - 1], order[below(i)]);
  const std::size_t density = 1 + below(4);  // edge chance density/8
  for (std::size_t i = 0; i < d.waves; ++i)
    for (std::size_t j = i + 1; j < d.waves; ++j)
      if (below(8) < density) {
        d.edges.push_back({order[i], order[j]});
        if (below(20) == 0) d.edges.push_back({order[i], order[j]});
      }
  for (std::size_t i = d.edges.size(); i > 1; --i) std::swap(d.edges[i - 1], d.edges[below(i)]);
  const std::size_t mode = below(10);
  if (mode == 0 && d.waves >= 2) {
    const std::size_t j = 1 + below(d.waves - 1), i = below(j);
    d.edges.insert(d.edges.begin() + static_cast<std::ptrdiff_t>(below(d.edges.size() + 1)), {order[j], order[i]});
  } else if (mode == 1) {
    planner::WaveDependency bad;
    if (below(2) == 0 && d.waves > 0) {
      bad.before = bad.after = below(d.waves);  // a self edge
    } else {
      bad = {below(d.waves + 1), d.waves + below(2)};  // an endpoint out of range
      if (below(2) == 0) std::swap(bad.before, bad.after);
    }
    d.edges.insert(d.edges.begin() + static_cast<std::ptrdiff_t>(below(d.edges.size() + 1)), bad);
  }
  return d;
}

/// Greedy shrinking of a violating graph: drop edges, then trailing waves no edge names.
DagCase shrink_dag(const planner::Profile& base, const planner::Profile& mutant, DagCase d) {
  auto keeps = [&](const DagCase& c) { return !dag_violation(base, c) && dag_violation(mutant, c); };
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t i = 0; i < d.edges.size(); ++i) {
      DagCase c = d;
      c.edges.erase(c.edges.begin() + static_cast<std::ptrdiff_t>(i));
      if (keeps(c)) {
        d = std::move(c);
        progress = true;
        --i;
      }
    }
    // Drop a wave no edge names, renumbering the waves above it.
    for (std::size_t w = d.waves; w-- > 0;) {
      const bool named = std::any_of(d.edges.begin(), d.edges.end(),
                                     [&](const planner::WaveDependency& e) { return e.before == w || e.after == w; });
      if (named) continue;
      DagCase c = d;
      --c.waves;
      for (planner::WaveDependency& e : c.edges) {
        if (e.before > w) --e.before;
        if (e.after > w) --e.after;
      }
      if (!keeps(c)) continue;
      d = std::move(c);
      progress = true;
    }
  }
  return d;
}

ir::Case contract_case(const Mutant& mutant, const DagCase& d, const std::string& violation) {
  // The program is a placeholder that R runs; the graph is in meta (contract_waves, contract_edges).
  const std::string text = fmt::format(
      "case mutant-{} \"{}\"\n"
      "meta contract_waves \"{}\"\n"
      "meta contract_edges \"{}\"\n\n"
      "workgroup_size 1 1 1\ngrid 1 1 1\nfixpoint 1\n\n"
      "buffer out: u32[1] read_write binding 0\n\n"
      "kernel {{\n  out[0] = 1\n}}\n\n"
      "expect R: ok\nexpect R out = [1]\n",
      mutant.name, "megakernel plan of the graph in meta", d.waves, format_dag_edges(d.edges));
  ir::Result<ir::Case> parsed = ir::parse_case(text, "dag");
  GC_ASSERT(parsed.ok());
  ir::Case c = std::move(parsed).value();
  c.description = violation;
  return c;
}

}  // namespace

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
    const PairReport pair = evaluate_pair(c, base, mutant);
    const bool dag = is_dag_case(c);
    if (r_must_be_valid && !dag && !r_valid(pair.base)) return std::nullopt;
    const OracleOutcome* b = dag ? outcome(pair.base, "R-waves", base.name) : cpu_outcome(pair.base);
    if (base_must_match && (b == nullptr || (b->verdict != ir::Verdict::Match && b->verdict != ir::Verdict::Refused)))
      return std::nullopt;
    ir::Case expected = with_base_expectations(c, pair.base, base);
    auto why = tell_apart(expected, pair, split_launches(pair.base, base.name), mutant);
    if (!why) return std::nullopt;
    return std::make_pair(std::move(expected), std::move(*why));
  }

  ir::Case reduce(const ir::Case& start, const planner::Profile& base, const planner::Profile& mutant,
                  bool base_must_match, std::uint32_t attempts) {
    if (is_dag_case(start)) return start;  // IR reduction would change the fusion, not the DAG
    const bool valid = r_valid(evaluate_pair(start, base, mutant).base);
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
      const PairReport pair = evaluate_pair(cc.expected, base, mutant);
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
    co.generator.allowed = vyre_base ? kBenignFeatures : kAllFeatures;
    // A megakernel mutant is invisible to the split: fuzz wave DAGs fused by its rule instead
    // (`gridcheck fuzz --target dag --mutant`, the DAG property R-waves).
    if (megakernel) co.target = dag_campaign_target(DagConfig{}, mutant);
    co.oracle.profiles = {&mutant};
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

  // ---------------------------------------------------------------------------------------- dag

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
        warnings.push_back(fmt::format("contract oracle: the base {} breaks spec §7.1 on {} waves, edges \"{}\": {}",
                                       base.name, d.waves, format_dag_edges(d.edges), *base_bad));
        continue;
      }
      if (!dag_violation(mutant, d)) continue;
      run.killed = true;
      run.seconds = since(start);
      const DagCase small = shrink_dag(base, mutant, d);
      const std::string why = dag_violation(mutant, small).value_or("");
      run.detail = fmt::format("graph {} after {} graphs ({} waves, edges \"{}\"): {}", i + 1, run.work, small.waves,
                               format_dag_edges(small.edges), why);
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

// ---------------------------------------------------------------------------------- replaying

KillingCaseCheck check_killing_case(const ir::Case& c) {
  KillingCaseCheck check;
  const Mutant* mutant = find_mutant(meta_value(c, "mutant"));
  const planner::Profile* base = planner::find_profile(meta_value(c, "base"));
  if (mutant == nullptr || base == nullptr) {
    check.message = fmt::format("meta mutant '{}' / base '{}' is not a known mutant and profile",
                                meta_value(c, "mutant"), meta_value(c, "base"));
    return check;
  }
  check.usable = true;
  const planner::Profile profile = make_mutant(*mutant, *base);
  if (const std::string edges = meta_value(c, "contract_edges");
      !edges.empty() || !meta_value(c, "contract_waves").empty()) {
    const auto waves = parse_size(meta_value(c, "contract_waves"));
    const auto parsed = parse_dag_edges(edges);
    if (!waves || !parsed) {
      check.usable = false;
      check.message = "meta contract_waves / contract_edges do not parse";
      return check;
    }
    const DagCase d{*waves, *parsed};
    const auto base_bad = dag_violation(*base, d);
    const auto mutant_bad = dag_violation(profile, d);
    check.base_passes = !base_bad;
    check.mutant_fails = mutant_bad.has_value();
    check.message = base_bad ? "base: " + *base_bad : mutant_bad ? *mutant_bad : "the mutant keeps every §7.1 guarantee";
    return check;
  }
  const PairReport pair = evaluate_pair(c, *base, profile);
  std::vector<std::string> base_failures;
  for (const ExpectationFailure& f : check_expectations(c, pair.base)) base_failures.push_back(f.message);
  const std::size_t live_launches = split_launches(pair.base, base->name);
  const auto recorded = parse_size(meta_value(c, "base_launches"));
  if (recorded && *recorded != live_launches)
    base_failures.push_back(fmt::format("the base makes {} launches, {} recorded", live_launches, *recorded));
  if (!plan_is_deterministic(*base, c.program)) base_failures.push_back("the base's plan is not deterministic");
  check.base_passes = base_failures.empty();
  const auto why = tell_apart(c, pair, recorded.value_or(live_launches), profile);
  check.mutant_fails = why.has_value();
  if (!check.base_passes)
    check.message = "base: " + base_failures.front();
  else
    check.message = why ? *why : "the mutant passes the base's expectations";
  return check;
}

}  // namespace gridcheck::props
