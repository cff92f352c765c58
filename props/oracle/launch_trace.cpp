#include "props/oracle/launch_trace.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "interp/interpreter.hpp"
#include "interp/observer.hpp"
#include "planner/external_profile.hpp"
#include "planner/fence_split.hpp"
#include "props/oracle/case_bytes.hpp"
#include "props/oracle/interp_executor.hpp"
#include "props/oracle/reference_run.hpp"

namespace gridcheck::props {
namespace {

using planner::Bytes;

/// R's memory at every phase end, with the elements and store lines of each phase.
/// The bytes a trace may hold: each step recorded is charged its buffers' bytes; from the first step
/// past the budget on, every step is counted in `left_out` instead (what is kept is a prefix).
struct TraceBudget {
  std::uint64_t left = 0;
  std::size_t left_out = 0;
  bool take(std::uint64_t bytes) {
    if (left_out != 0 || bytes > left) {
      ++left_out;
      return false;
    }
    left -= bytes;
    return true;
  }
};

class PhaseRecorder final : public interp::Observer {
 public:
  PhaseRecorder(std::vector<ReferencePhase>& phases, TraceBudget& budget) : phases_(phases), budget_(budget) {}

  void on_launch_begin(const interp::LaunchContext& ctx) override {
    context_ = &ctx;  // valid only while the launch runs
    iteration_ = ctx.launch;
    phase_ = 0;
    begin_phase();
  }
  void on_store(const interp::Access& a) override { record(a); }
  void on_atomic(const interp::Access& a) override {
    if (!a.compare_exchange_failed) record(a);
  }
  void on_fence_release(std::uint32_t, std::uint32_t pc, const interp::MemoryView& m) override {
    end_phase(m, context_ != nullptr ? context_->site(pc).loc.line : 0);
    ++phase_;
    begin_phase();
  }
  void on_launch_end(std::uint32_t, const interp::MemoryView& m) override {
    end_phase(m, 0);
    context_ = nullptr;
  }

 private:
  void begin_phase() {
    stored_.clear();
    lines_.clear();
  }
  void record(const interp::Access& a) {
    if (context_ == nullptr || a.buffer >= context_->program->buffers.size()) return;
    const interp::CompiledBuffer& b = context_->program->buffers[a.buffer];
    if (b.workgroup) return;
    const std::uint32_t index = b.storage_index;
    if (stored_.size() <= index) {
      stored_.resize(index + 1);
      lines_.resize(index + 1);
    }
    auto& bits = stored_[index];
    const std::size_t byte = a.element / 8;
    if (bits.size() <= byte) bits.resize(byte + 1, 0);
    bits[byte] = static_cast<std::uint8_t>(bits[byte] | (1u << (a.element % 8)));
    const std::uint32_t line = context_->site(a.pc).loc.line;
    if (line != 0) lines_[index].insert(line);
  }
  void end_phase(const interp::MemoryView& m, std::uint32_t fence_line) {
    std::uint64_t bytes = 0;
    for (const auto& b : m.buffers) bytes += b.size() + b.size() / 32;  // the bytes and the stored bitmap
    if (!budget_.take(bytes)) return;
    ReferencePhase p;
    p.iteration = iteration_;
    p.phase = phase_;
    p.fence_line = fence_line;
    for (std::size_t i = 0; i < m.buffers.size(); ++i) {
      TracedBuffer t;
      t.bytes.assign(m.buffers[i].begin(), m.buffers[i].end());
      const std::size_t bitmap_bytes = (t.bytes.size() / 4 + 7) / 8;
      t.stored = i < stored_.size() ? stored_[i] : std::vector<std::uint8_t>{};
      t.stored.resize(bitmap_bytes, 0);
      if (i < lines_.size()) t.store_lines.assign(lines_[i].begin(), lines_[i].end());
      p.buffers.push_back(std::move(t));
    }
    phases_.push_back(std::move(p));
  }

  std::vector<ReferencePhase>& phases_;
  TraceBudget& budget_;
  const interp::LaunchContext* context_ = nullptr;
  std::uint32_t iteration_ = 0, phase_ = 0;
  std::vector<std::vector<std::uint8_t>> stored_;
  std::vector<std::set<std::uint32_t>> lines_;
};

void max_line(const ir::Program& p, std::span<const ir::StmtId> list, std::uint32_t& out) {
  for (ir::StmtId id : list) {
    out = std::max(out, p.loc(id).line);
    const ir::Stmt& s = p.stmt(id);
    if (!s.has_body()) continue;
    max_line(p, p.list(s.body), out);
    max_line(p, p.list(s.otherwise), out);
  }
}

/// `reference_complete`: R's phases were all recorded (else the last recorded iteration may be partial).
SplitTrace trace_split(const ir::Case& c, const OracleOptions& options, const planner::Profile& profile,
                       const std::vector<ReferencePhase>& reference, bool reference_complete, TraceBudget& budget) {
  SplitTrace trace;
  trace.profile = profile.name;
  std::vector<Bytes> inputs;
  for (const std::string& name : planner::split_input_names(profile, c.program)) inputs.push_back(case_bytes(c, name));
  planner::RunOptions run_options;
  std::size_t launch_index = 0;
  run_options.observer = [&](const planner::SegmentEvent& ev) {
    std::uint64_t bytes = 0;
    for (const auto& [name, buffer] : *ev.live) bytes += buffer.bytes().size();
    const std::size_t index = launch_index++;
    if (!budget.take(bytes)) return;
    SplitLaunch l;
    l.index = index;
    l.pass = ev.pass;
    l.segment = ev.segment;
    for (const auto& [name, buffer] : *ev.live) l.buffers.push_back(TracedBuffer{name, buffer.bytes(), {}, {}});
    trace.launches.push_back(std::move(l));
  };
  InterpExecutor executor(reference_run_options(c, options));
  const planner::RunConfig config{c.grid, std::nullopt, c.fixpoint};
  planner::SplitRun run = planner::run_split(profile, c.program, inputs, config, executor, run_options);
  trace.segment_count = run.segment_count;
  trace.failure = run.failure;
  if (!run.split && run.ok()) {
    // One unsplit dispatch: no segment event; its outputs are the state after the only launch.
    SplitLaunch l;
    std::uint64_t bytes = 0;
    for (const Bytes& b : run.outputs) bytes += b.size();
    if (!budget.take(bytes)) return trace;
    for (std::size_t i = 0; i < run.output_names.size() && i < run.outputs.size(); ++i)
      l.buffers.push_back(TracedBuffer{run.output_names[i], run.outputs[i], {}, {}});
    if (!reference.empty() && reference_complete) l.reference_phase = reference.size() - 1;
    trace.aligned = l.reference_phase.has_value();
    trace.launches.push_back(std::move(l));
    return trace;
  }
  // Aligned when every R iteration has segment_count phases (a partial last one left out of the count).
  std::map<std::uint32_t, std::size_t> per_iteration;
  for (const ReferencePhase& p : reference) ++per_iteration[p.iteration];
  if (!reference_complete && !per_iteration.empty()) per_iteration.erase(std::prev(per_iteration.end()));
  trace.aligned = !per_iteration.empty() && std::all_of(per_iteration.begin(), per_iteration.end(), [&](const auto& kv) {
    return kv.second == trace.segment_count;
  });
  if (trace.aligned) {
    for (SplitLaunch& l : trace.launches) {
      const std::size_t k = std::size_t{l.pass} * trace.segment_count + l.segment;
      if (k < reference.size()) l.reference_phase = k;
    }
    return trace;
  }
  // Otherwise only the end of a pass is comparable: the plan's last segment against R's last phase
  // of the same fixpoint iteration (e.g. a trailing grid_sync the plan drops).
  std::map<std::uint32_t, std::size_t> last_phase;
  for (std::size_t k = 0; k < reference.size(); ++k) last_phase[reference[k].iteration] = k;
  if (!reference_complete && !last_phase.empty()) last_phase.erase(std::prev(last_phase.end()));
  for (SplitLaunch& l : trace.launches) {
    if (trace.segment_count == 0 || l.segment != trace.segment_count - 1) continue;
    if (auto it = last_phase.find(l.pass); it != last_phase.end()) l.reference_phase = it->second;
  }
  return trace;
}

}  // namespace

LaunchTrace trace_launches(const ir::Case& c, const OracleOptions& options) {
  LaunchTrace trace;
  for (const ir::BufferDecl& b : c.program.buffers()) {
    if (b.access == ir::BufferAccess::Workgroup) continue;
    const std::string name(c.program.name(b.name));
    trace.buffers.push_back(BufferInfo{name, b.element, b.loc.line, case_bytes(c, name)});
  }
  // The source's segment boundaries: the fences at the top of the kernel once its single Block and
  // Region wrappers are peeled, as the planner cuts (planner/fence_split.hpp).
  const std::vector<ir::StmtId> entry = planner::peel_wrappers(c.program).inner;
  for (ir::StmtId id : entry)
    if (c.program.stmt(id).is_fence() && c.program.loc(id).known()) trace.fence_lines.push_back(c.program.loc(id).line);
  if (!entry.empty()) {
    trace.kernel_first_line = c.program.loc(entry.front()).line;
    max_line(c.program, entry, trace.kernel_last_line);
  }

  // R's phases may take half of --max-memory, the splits' launches what is left.
  TraceBudget reference_budget{options.limits.max_memory / 2, 0};
  PhaseRecorder recorder(trace.reference, reference_budget);
  interp::RunOptions o = reference_run_options(c, options);
  o.observers.push_back(&recorder);
  const interp::RunResult r = interp::run_case(c, o);
  if (r.status == interp::RunStatus::Invalid) {  // R refuses the program: nothing is planned either
    trace.reference.clear();
    return trace;
  }

  const planner::PlanCaseScope case_scope(c.name);  // an external planner's request names the case
  const bool complete = reference_budget.left_out == 0;
  TraceBudget budget{options.limits.max_memory - (options.limits.max_memory / 2 - reference_budget.left), 0};
  if (options.profiles.empty()) {
    trace.splits.push_back(trace_split(c, options, planner::default_profile(), trace.reference, complete, budget));
  } else {
    for (const planner::Profile* p : options.profiles)
      trace.splits.push_back(trace_split(c, options, *p, trace.reference, complete, budget));
  }
  trace.steps_left_out = reference_budget.left_out + budget.left_out;
  return trace;
}

std::optional<std::size_t> first_different_element(const Bytes& a, const Bytes& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i + 4 <= n; i += 4)
    if (std::memcmp(a.data() + i, b.data() + i, 4) != 0) return i / 4;
  if (a.size() != b.size()) return n / 4;
  return std::nullopt;
}

Bytes reference_view(const ir::Program& program, const ReferencePhase& phase, const std::string& buffer,
                     std::size_t split_size) {
  std::size_t storage = 0;
  for (const ir::BufferDecl& b : program.buffers()) {
    if (b.access == ir::BufferAccess::Workgroup) continue;
    if (program.name(b.name) == buffer) {
      if (storage >= phase.buffers.size()) return {};
      const Bytes& full = phase.buffers[storage].bytes;
      if (!b.output_byte_range || full.size() == split_size) return full;
      const std::size_t begin = static_cast<std::size_t>(std::min<std::uint64_t>(b.output_byte_range->begin, full.size()));
      const std::size_t end = static_cast<std::size_t>(std::min<std::uint64_t>(b.output_byte_range->end, full.size()));
      return Bytes(full.begin() + static_cast<std::ptrdiff_t>(begin),
                   full.begin() + static_cast<std::ptrdiff_t>(std::max(begin, end)));
    }
    ++storage;
  }
  return {};
}

}  // namespace gridcheck::props
