#include "props/oracle/waves_oracle.hpp"

#include <fmt/format.h>

#include <functional>

#include "ir/abi.hpp"
#include "ir/equality.hpp"
#include "ir/grid_inference.hpp"
#include "props/oracle/byte_compare.hpp"
#include "props/oracle/phase_clock.hpp"
#include "props/oracle/reference_run.hpp"

namespace gridcheck::props {
namespace {

using planner::Bytes;

/// Wave k's prepared program once prepared (run_waves_with).
using PreparedWaves = std::vector<std::optional<interp::PreparedProgram>>;

WavesRun run_waves_with(const WaveDag& dag, const interp::RunOptions& options, PreparedWaves& prepared);

WavesRun failed(WavesRun run, interp::RunStatus status, std::string detail, std::string message,
                std::optional<std::size_t> wave = std::nullopt) {
  run.status = status;
  run.detail = std::move(detail);
  run.message = std::move(message);
  run.failed_wave = wave;
  run.outputs.clear();
  return run;
}

/// The verdict of one fusion (R's report of the fused program) against the waves.
class FusionJudge {
 public:
  FusionJudge(const WaveDag& dag, const OracleOptions& options) : dag_(dag), options_(options) {}

  const WavesRun& waves() {
    if (!waves_) waves_ = run_waves_with(dag_, run_options(false), prepared_);
    return *waves_;
  }

  OracleOutcome judge(const CaseReport& fused, const std::vector<PlanProblem>& problems, std::string profile) {
    OracleOutcome s;
    s.oracle = std::string(kWavesOracle);
    s.profile = std::move(profile);
    const WavesRun& w = waves();
    s.launches = w.launches;
    if (!w.ok()) return invalid(std::move(s), w);
    for (const interp::OutputBuffer& o : w.outputs) {
      s.output_names.push_back(o.name);
      s.outputs.push_back(o.bytes);
    }
    const std::string plan = describe(problems);
    if (fused.reference_verdict == ir::Verdict::Invalid) {
      if (fused.reference_detail != "race" && fused.reference_detail != "nondeterministic") {
        s.verdict = ir::Verdict::Invalid;
        s.detail = fused.reference_detail;
        s.message = "R cannot run the fused program: " + (fused.reference.diagnostics.empty()
                                                              ? fused.reference_detail
                                                              : fused.reference.diagnostics.all().front().message);
        return s;
      }
      // Racy fusion: the plan's fault only if every wave alone is race-free.
      if (!races_checked_) races_checked_ = run_waves_with(dag_, run_options(true), prepared_);
      if (!races_checked_->ok()) return invalid(std::move(s), *races_checked_);
      const std::string why = !fused.reference.races.empty() ? fused.reference.races.front().message
                              : fused.schedule_dependent     ? std::string("the reversed schedule gives other bytes")
                                                             : fused.reference_detail;
      return diverge(std::move(s), "race", fmt::format("the fused program races under R ({}) while every wave alone is "
                                               "race-free; plan problems: {}",
                                               why, plan));
    }
    if (!fused.reference.ok())
      return diverge(std::move(s), "end", fmt::format("R ends the fused program with {} but the waves run to completion; "
                                               "plan problems: {}",
                                               interp::name_of(fused.reference.status), plan));
    for (const interp::OutputBuffer& actual : fused.reference.outputs) {
      const interp::OutputBuffer* expected = nullptr;
      for (const interp::OutputBuffer& o : w.outputs)
        if (o.name == actual.name) expected = &o;
      if (expected == nullptr) continue;  // same declarations: cannot happen
      if (auto diff = diff_bytes(actual.name, actual.element, expected->bytes, actual.bytes)) {
        FirstDivergence fd;
        fd.final_diff = *diff;
        s.divergence = fd;
        return diverge(std::move(s), "bytes", fmt::format("{} (waves one by one vs fused under R); plan problems: {}",
                                                 diff->describe(), plan));
      }
    }
    s.verdict = ir::Verdict::Match;
    s.message = fmt::format("{} waves in {} launches equal the fused program under R ({} outputs, exact)",
                            dag_.wave_count(), w.launches, fused.reference.outputs.size());
    return s;
  }

  OracleOutcome refused(const planner::MegakernelError& error, std::string profile) {
    OracleOutcome s;
    s.oracle = std::string(kWavesOracle);
    s.profile = std::move(profile);
    const ir::Diagnostic d = planner::to_diagnostic(error);
    return diverge(std::move(s), "refused", fmt::format("the megakernel planner refuses the acyclic {}-wave DAG: {} [{}]",
                                             dag_.wave_count(), d.message, d.code));
  }

 private:
  interp::RunOptions run_options(bool races) const {
    interp::RunOptions o;
    o.limits = options_.limits;
    o.deadline = options_.deadline;
    o.detect_races = races;
    o.same_value_writes_race = options_.same_value_writes_race;
    o.file = dag_.base->file;
    o.oob = dag_.base->oob;
    o.uninit = dag_.base->uninit;
    return o;
  }

  static OracleOutcome invalid(OracleOutcome s, const WavesRun& w) {
    s.verdict = ir::Verdict::Invalid;
    s.detail = w.detail;
    s.message = w.message;
    s.output_names.clear();
    s.outputs.clear();
    return s;
  }

  static OracleOutcome diverge(OracleOutcome s, std::string_view mode, std::string message) {
    s.verdict = ir::Verdict::Diverge;
    s.detail = fmt::format("{} {}", kMegakernelBlame, mode);
    s.message = std::move(message);
    return s;
  }

  const WaveDag& dag_;
  const OracleOptions& options_;
  std::optional<WavesRun> waves_, races_checked_;
  PreparedWaves prepared_;  ///< shared by both runs of the waves
};

/// run_waves with the caller's prepared waves: index k holds wave k's program once prepared (the
/// preparation depends on the options' file and validation only, not on race detection), so a
/// second run of the same DAG prepares nothing again.
WavesRun run_waves_with(const WaveDag& dag, const interp::RunOptions& options, PreparedWaves& prepared) {
  WavesRun run;
  const ir::Program& base = dag.base->program;
  const auto order = topological_order(dag.wave_count(), dag.edges);
  if (!order) return failed(std::move(run), interp::RunStatus::Invalid, "G204", "the DAG's edges have no topological order");
  run.order = *order;

  auto inputs = interp::case_inputs(*dag.base);
  if (!inputs)
    return failed(std::move(run), interp::RunStatus::Invalid, inputs.diagnostics().all().front().code,
                  inputs.diagnostics().all().front().message);
  std::vector<Bytes> storage;
  std::vector<std::uint64_t> element_counts;
  std::size_t next_input = 0;
  for (const ir::BufferDecl& d : base.buffers()) {
    if (d.access == ir::BufferAccess::Workgroup) {
      element_counts.push_back(d.count);
      continue;
    }
    if (ir::is_reference_input(d))
      storage.push_back((*inputs)[next_input++]);
    else
      storage.emplace_back(static_cast<std::size_t>(ir::backend_allocation_bytes(d).value_or(0)), std::uint8_t{0});
    element_counts.push_back(storage.back().size() / 4);
  }
  interp::Grid grid;
  if (dag.base->grid) {
    grid = *dag.base->grid;
  } else {
    auto inferred = ir::reference_grid(base, element_counts);
    if (!inferred)
      return failed(std::move(run), interp::RunStatus::Invalid, inferred.diagnostics().all().front().code,
                    inferred.diagnostics().all().front().message);
    grid = *inferred;
  }

  prepared.resize(dag.wave_count());
  std::optional<ir::Program> alone;
  for (std::uint32_t pass = 0; pass < std::max(1u, dag.base->fixpoint); ++pass) {
    for (std::size_t k : run.order) {
      if (!prepared[k]) {
        const ir::StmtId region = dag.waves[k];
        // Wave k alone: the base program with the region as its whole entry. The arena is copied once
        // per run, in one piece (vectors of plain nodes and the name table), instead of node by node
        // per wave; the other waves' nodes stay behind unreachable, and everything that checks or runs
        // a program walks its entry (the one flat scan, interp::atomics_commute's "no atomic in the
        // arena", only short-cuts its walk and is not used here).
        if (!alone) alone = base;
        alone->set_entry(std::span<const ir::StmtId>(&region, 1));
        auto p = interp::prepare(*alone, options);
        if (!p) {
          const ir::Diagnostic& d = p.diagnostics().all().front();
          return failed(std::move(run), interp::RunStatus::Invalid, d.code,
                        fmt::format("wave {} alone is refused: {} [{}]", k, d.message, d.code), k);
        }
        prepared[k] = std::move(*p);
      }
      const interp::RunResult r = interp::execute(*prepared[k], storage, grid, 1, options);
      ++run.launches;
      if (!r.ok())
        return failed(std::move(run), r.status, r.detail(),
                      fmt::format("wave {} alone ends with {}: {}", k, interp::name_of(r.status),
                                  r.diagnostics.empty() ? r.detail() : r.diagnostics.all().front().message),
                      k);
    }
  }
  std::size_t s = 0;
  for (const ir::BufferDecl& d : base.buffers()) {
    if (d.access == ir::BufferAccess::Workgroup) continue;
    Bytes& bytes = storage[s++];
    if (!ir::is_reference_output(d)) continue;
    interp::OutputBuffer out;
    out.name = std::string(base.name(d.name));
    out.element = d.element;
    if (d.output_byte_range && d.output_byte_range->end <= bytes.size() &&
        d.output_byte_range->begin <= d.output_byte_range->end)
      out.bytes.assign(bytes.begin() + static_cast<std::ptrdiff_t>(d.output_byte_range->begin),
                       bytes.begin() + static_cast<std::ptrdiff_t>(d.output_byte_range->end));
    else
      out.bytes = std::move(bytes);
    run.outputs.push_back(std::move(out));
  }
  return run;
}

}  // namespace

WavesRun run_waves(const WaveDag& dag, const interp::RunOptions& options) {
  PreparedWaves prepared;
  return run_waves_with(dag, options, prepared);
}

void WavesOracle::evaluate(const ir::Case& c, const OracleOptions& options, CaseReport& report) const {
  if (!options.waves || !is_dag_case(c)) return;
  const PhaseScope timed(Phase::Waves, Nested::Absorb);
  const auto dag = read_dag(c);
  if (!dag) {
    OracleOutcome s;
    s.oracle = std::string(kWavesOracle);
    s.verdict = ir::Verdict::Invalid;
    s.detail = dag.diagnostics().all().front().code;
    s.message = dag.diagnostics().all().front().message;
    report.outcomes.push_back(std::move(s));
    return;
  }
  FusionJudge judge(*dag, options);
  const FusedSchedule schedule = fused_schedule(c);
  OracleOutcome kernel = judge.judge(report, plan_problems(schedule, dag->wave_count(), dag->edges), "");
  report.outcomes.push_back(kernel);

  std::vector<const planner::Profile*> profiles = options.profiles;
  if (profiles.empty()) profiles.push_back(&planner::default_profile());
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const planner::Profile* profile = profiles[i];
    planner::BarrierScratch scratch;
    for (const PlannerInput& earlier : dag->scratch_history) (void)profile->megakernel(earlier.wave_count, earlier.edges, scratch);
    const MegakernelPlan plan = profile->megakernel(dag->wave_count(), dag->edges, scratch);
    if (!plan.ok()) {
      report.outcomes.push_back(judge.refused(plan.error(), profile->name));
      continue;
    }
    // The kernel itself when P's plan fuses to it (dag->base->program is c.program, borrowed): decided from
    // the plan where it can be, else by building P's fusion and comparing.
    if (!kernel_is_fusion(*dag, plan)) {
      const ir::Case fused = fuse_dag(*dag, plan, profile->name, /*named=*/false);
      if (!ir::structurally_equal(fused.program, c.program)) {
        CaseReport again;
        run_reference(fused, options, again);
        report.outcomes.push_back(
            judge.judge(again, plan_problems(fused_schedule(fused), dag->wave_count(), dag->edges), profile->name));
        continue;
      }
    }
    OracleOutcome same = i + 1 < profiles.size() ? kernel : std::move(kernel);  // the last use moves
    same.profile = profile->name;
    report.outcomes.push_back(std::move(same));
  }
}

const OracleOutcome* waves_outcome(const CaseReport& report, std::string_view profile) {
  return report.find(kWavesOracle, profile);
}

}  // namespace gridcheck::props
