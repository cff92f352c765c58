#include "props/oracle/first_divergence.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "interp/observer.hpp"
#include "props/oracle/byte_compare.hpp"
#include "props/oracle/interp_executor.hpp"
#include "props/oracle/reference_run.hpp"

namespace gridcheck::props {
namespace {

using planner::Bytes;

/// R's memory at each fence release and launch end, and the last writer of every element.
class ReferenceRecorder final : public interp::Observer {
 public:
  struct Writer {
    std::uint32_t pc = 0, workgroup = 0, local = 0;
    bool set = false;
  };
  /// snapshots[launch] = one memory image per fence, then one at launch end.
  std::vector<std::vector<std::vector<Bytes>>> snapshots;
  std::vector<std::vector<Writer>> writers;  ///< per buffer, per element (until the cutoff)
  const interp::LaunchContext* context = nullptr;
  /// Stop recording writers after this (launch, fence index) snapshot; nullopt = never.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> cutoff;
  /// The element whose last writer is wanted at the cutoff (buffer index, element); resolved while
  /// the launch (and its LaunchContext) is still alive.
  std::optional<std::pair<std::uint32_t, std::uint64_t>> target;
  std::optional<interp::InvocationIds> target_writer;
  std::optional<interp::Site> target_site;

  void on_launch_begin(const interp::LaunchContext& ctx) override {
    context = &ctx;  // valid only while the launch runs
    launch_ = ctx.launch;
    fence_ = 0;
    snapshots.emplace_back();
  }
  void on_store(const interp::Access& a) override { record(a); }
  void on_atomic(const interp::Access& a) override { record(a); }
  void on_fence_release(std::uint32_t, std::uint32_t, const interp::MemoryView& m) override { snapshot(m); }
  void on_launch_end(std::uint32_t, const interp::MemoryView& m) override { snapshot(m); }

  /// The writer of (buffer, element) at the cutoff.
  std::optional<Writer> writer(std::uint32_t buffer, std::uint64_t element) const {
    if (buffer >= writers.size() || element >= writers[buffer].size() || !writers[buffer][element].set)
      return std::nullopt;
    return writers[buffer][element];
  }

 private:
  void record(const interp::Access& a) {
    if (stopped_) return;
    if (writers.size() <= a.buffer) writers.resize(a.buffer + 1);
    auto& w = writers[a.buffer];
    if (w.size() <= a.element) w.resize(std::size_t{a.element} + 1);
    w[a.element] = Writer{a.pc, a.workgroup, a.local, true};
  }
  void snapshot(const interp::MemoryView& m) {
    std::vector<Bytes> image;
    for (const auto& b : m.buffers) image.emplace_back(b.begin(), b.end());
    snapshots.back().push_back(std::move(image));
    if (cutoff && cutoff->first == launch_ && cutoff->second == fence_ && !stopped_) {
      stopped_ = true;
      if (target && context != nullptr)
        if (auto w = writer(target->first, target->second)) {
          target_writer = context->ids(w->workgroup, w->local);
          target_site = context->site(w->pc);
        }
    }
    ++fence_;
  }

  std::uint32_t launch_ = 0, fence_ = 0;
  bool stopped_ = false;
};

/// Names of the non-workgroup buffers in declaration order (R's memory image order).
std::vector<std::string> storage_names(const ir::Program& p) {
  std::vector<std::string> out;
  for (const ir::BufferDecl& b : p.buffers())
    if (b.access != ir::BufferAccess::Workgroup) out.emplace_back(p.name(b.name));
  return out;
}

struct LiveSnapshot {
  std::uint32_t pass = 0;
  std::size_t segment = 0;
  std::map<std::string, Bytes> live;
};

}  // namespace

void locate_first_divergence(const ir::Case& c, const OracleOptions& options, const planner::Profile& profile,
                             std::span<const Bytes> inputs, OracleOutcome& outcome) {
  const interp::RunOptions base = reference_run_options(c, options);
  std::vector<LiveSnapshot> trace;
  planner::RunOptions run_options;
  run_options.observer = [&](const planner::SegmentEvent& ev) {
    LiveSnapshot snap;
    snap.pass = ev.pass;
    snap.segment = ev.segment;
    for (const auto& [name, buffer] : *ev.live) snap.live.emplace(name, buffer.bytes());
    trace.push_back(std::move(snap));
  };
  InterpExecutor executor(base);
  const planner::RunConfig config{c.grid, std::nullopt, c.fixpoint};
  const planner::SplitRun run = planner::run_split(profile, c.program, inputs, config, executor, run_options);
  if (trace.empty()) return;
  const std::size_t segments = run.segment_count;

  ReferenceRecorder recorder;
  interp::RunOptions o = base;
  o.observers.push_back(&recorder);
  interp::run_case(c, o);
  const std::vector<std::string> names = storage_names(c.program);
  // Segment boundaries line up with R's fences only when every fence was hoisted to the top.
  for (const auto& launch : recorder.snapshots)
    if (launch.size() != segments) return;

  for (const LiveSnapshot& snap : trace) {
    if (snap.pass >= recorder.snapshots.size()) break;
    const std::vector<Bytes>& image = recorder.snapshots[snap.pass][snap.segment];
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto it = snap.live.find(names[i]);
      if (it == snap.live.end()) continue;
      const ir::BufferDecl* decl = c.program.find_buffer(names[i]);
      Bytes expected = image[i];
      if (decl && decl->output_byte_range && it->second.size() != expected.size()) {
        const auto& range = *decl->output_byte_range;
        const std::size_t begin = static_cast<std::size_t>(std::min<std::uint64_t>(range.begin, expected.size()));
        const std::size_t end = static_cast<std::size_t>(std::min<std::uint64_t>(range.end, expected.size()));
        expected = Bytes(expected.begin() + static_cast<std::ptrdiff_t>(begin),
                         expected.begin() + static_cast<std::ptrdiff_t>(std::max(begin, end)));
      }
      auto diff = compare(names[i], decl ? decl->element : ir::ScalarType::U32, expected, it->second, ComparisonRule{});
      if (!diff) continue;
      FirstDivergence fd = outcome.divergence.value_or(FirstDivergence{});
      fd.pass = snap.pass;
      fd.segment = snap.segment;
      fd.segment_diff = *diff;
      // The last writer as of that fence: record writers again, stopping at the fence.
      ReferenceRecorder writers;
      writers.cutoff = std::make_pair(snap.pass, static_cast<std::uint32_t>(snap.segment));
      writers.target = std::make_pair(static_cast<std::uint32_t>(i), diff->element_index);
      interp::RunOptions wo = base;
      wo.observers.push_back(&writers);
      interp::run_case(c, wo);
      fd.last_writer = writers.target_writer;
      fd.last_writer_site = writers.target_site;
      if (!outcome.divergence) fd.final_diff = *diff;
      outcome.divergence = fd;
      outcome.message = fd.describe();
      return;
    }
  }
}

}  // namespace gridcheck::props
