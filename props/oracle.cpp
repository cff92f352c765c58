#include "props/oracle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "interp/observer.hpp"
#include "ir/abi.hpp"
#include "ir/equality.hpp"
#include "ir/typecheck.hpp"
#include "ir/walk.hpp"
#include "props/dag_oracle.hpp"
#include "props/interp_executor.hpp"

namespace gridcheck::props {
namespace {

using planner::Bytes;

std::uint32_t word_at(const Bytes& b, std::uint64_t element) {
  const std::uint64_t offset = element * 4;
  if (offset + 4 > b.size()) return 0;
  std::uint32_t w;
  std::memcpy(&w, b.data() + offset, 4);
  return w;
}

/// How f32 results are compared: exactly, or within `ulp` units in the last place when the program
/// uses an operation Vulkan does not define exactly (ir/ops.hpp F32Precision).
struct ComparisonRule {
  std::uint32_t ulp = 0;
  std::string inexact_ops;  ///< "div, sqrt"
  std::string describe() const {
    return ulp == 0 ? "exact" : fmt::format("f32 within {} ulp (uses {})", ulp, inexact_ops);
  }
};

ComparisonRule comparison_rule(const ir::Program& p) {
  ComparisonRule rule;
  const auto types = ir::typecheck(p);
  if (!types.ok()) return rule;
  std::set<std::string_view> names;
  ir::for_each_expr_in(p, p.entry(), [&](ir::ExprId id) {
    const ir::Expr& e = p.expr(id);
    ir::F32Precision precision;
    std::string_view name;
    if (e.kind == ir::ExprKind::Binary && (*types)[e.operands[0]] == ir::ScalarType::F32) {
      precision = ir::info(e.bin_op()).f32;
      name = ir::info(e.bin_op()).mnemonic;
    } else if (e.kind == ir::ExprKind::Unary && (*types)[e.operands[0]] == ir::ScalarType::F32) {
      precision = ir::info(e.un_op()).f32;
      name = ir::info(e.un_op()).mnemonic;
    } else {
      return;
    }
    if (precision.exact) return;
    rule.ulp = std::max(rule.ulp, precision.ulp);
    names.insert(name);
  });
  for (std::string_view n : names) rule.inexact_ops += (rule.inexact_ops.empty() ? "" : ", ") + std::string(n);
  return rule;
}

bool f32_within(std::uint32_t a, std::uint32_t b, std::uint32_t ulp) {
  if (a == b) return true;
  const float fa = std::bit_cast<float>(a), fb = std::bit_cast<float>(b);
  if (fa != fa || fb != fb) return false;  // one NaN (equal NaN words returned above)
  if (fa == fb) return true;               // +0 and -0
  // Distance in representable floats: map the sign-magnitude order onto integers.
  auto ordered = [](std::uint32_t w) -> std::int64_t {
    return (w & 0x80000000u) ? -static_cast<std::int64_t>(w & 0x7FFFFFFFu) : static_cast<std::int64_t>(w);
  };
  const std::int64_t d = ordered(a) - ordered(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d) <= ulp;
}

std::optional<ByteDiff> compare(std::string_view name, ir::ScalarType element, const Bytes& expected,
                                const Bytes& actual, const ComparisonRule& rule) {
  ByteDiff diff;
  diff.buffer = std::string(name);
  diff.element = element;
  diff.expected_bytes = expected.size();
  diff.actual_bytes = actual.size();
  const std::uint64_t elements = (std::max(expected.size(), actual.size()) + 3) / 4;
  bool found = false;
  for (std::uint64_t i = 0; i < elements; ++i) {
    const std::uint32_t e = word_at(expected, i), a = word_at(actual, i);
    const bool beyond = (i + 1) * 4 > expected.size() || (i + 1) * 4 > actual.size();
    bool equal = e == a && !beyond;
    if (!equal && !beyond && rule.ulp > 0 && element == ir::ScalarType::F32) equal = f32_within(e, a, rule.ulp);
    if (equal) continue;
    ++diff.differing_elements;
    if (!found) {
      found = true;
      diff.element_index = i;
      diff.expected_word = e;
      diff.actual_word = a;
      std::uint64_t byte = i * 4;
      for (std::uint64_t k = 0; k < 4; ++k) {
        const std::uint64_t at = i * 4 + k;
        const bool in_e = at < expected.size(), in_a = at < actual.size();
        if (in_e != in_a || (in_e && expected[at] != actual[at])) {
          byte = at;
          break;
        }
      }
      diff.first_byte = byte;
    }
  }
  if (!found && expected.size() == actual.size()) return std::nullopt;
  return diff;
}

std::string format_word(ir::ScalarType t, std::uint32_t w) {
  switch (t) {
    case ir::ScalarType::I32: return fmt::format("{}", static_cast<std::int32_t>(w));
    case ir::ScalarType::F32: return fmt::format("{} (0x{:08x})", std::bit_cast<float>(w), w);
    case ir::ScalarType::Bool: return w != 0 ? "true" : "false";
    case ir::ScalarType::U32: break;
  }
  return fmt::format("{}", w);
}

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

std::string ByteDiff::describe() const {
  std::string out;
  if (differing_elements > 0)
    out = fmt::format("'{}': {} value{} differed, first difference at byte {} (element {}): {} != {}", buffer,
                      differing_elements, differing_elements == 1 ? "" : "s", first_byte, element_index,
                      format_word(element, expected_word), format_word(element, actual_word));
  if (expected_bytes != actual_bytes)
    out += fmt::format("{}'{}': expected {} bytes, got {}", out.empty() ? "" : "; ", buffer, expected_bytes,
                       actual_bytes);
  return out;
}

std::string FirstDivergence::describe() const {
  std::string out = final_diff.describe();
  if (segment && segment_diff)
    out += fmt::format("; first divergent segment: pass {} segment {} ({})", *pass, *segment, segment_diff->describe());
  if (last_writer)
    out += fmt::format("; last written in R by {}{}", interp::to_string(*last_writer),
                       last_writer_site ? " at " + interp::to_string(*last_writer_site) : "");
  return out;
}

const SplitOutcome* CaseReport::find(std::string_view oracle, std::string_view profile) const {
  for (const SplitOutcome& s : splits)
    if (s.oracle == oracle && s.profile == profile) return &s;
  return nullptr;
}

bool CaseReport::agrees() const {
  if (reference_verdict == ir::Verdict::Invalid) return false;
  return std::all_of(splits.begin(), splits.end(), [](const SplitOutcome& s) {
    return s.verdict == ir::Verdict::Match || s.verdict == ir::Verdict::Refused;
  });
}

planner::Bytes case_bytes(const ir::Case& c, std::string_view name) {
  const ir::BufferDecl* decl = c.program.find_buffer(name);
  for (const ir::InputData& in : c.inputs) {
    if (in.buffer != name) continue;
    const std::vector<std::uint32_t> words =
        ir::materialize(in, decl ? decl->element : ir::ScalarType::U32, decl ? decl->count : 0);
    Bytes bytes(words.size() * 4);
    if (!words.empty()) std::memcpy(bytes.data(), words.data(), bytes.size());
    return bytes;
  }
  return Bytes(decl ? decl->static_byte_len() : 0, 0);
}

namespace {

class CaseEvaluator {
 public:
  CaseEvaluator(const ir::Case& c, const OracleOptions& options) : c_(c), options_(options) {}

  CaseReport run() {
    run_reference();
    if (report_.reference_verdict == ir::Verdict::Invalid) {
      for_each_profile([&](const planner::Profile& profile) {
        if (options_.cpu) report_.splits.push_back(invalid_outcome("H-cpu", profile));
        if (options_.gpu) report_.splits.push_back(invalid_outcome(options_.gpu_name, profile));
      });
      return std::move(report_);
    }
    rule_ = comparison_rule(c_.program);
    for_each_profile([&](const planner::Profile& profile) {
      const std::vector<Bytes> inputs = split_inputs(profile);
      // H-gpu's blame and its segment-race verdict come from H-cpu, so H-cpu runs whenever H-gpu
      // does; it is reported only when asked for.
      std::optional<SplitOutcome> cpu;
      if (options_.cpu || options_.gpu) {
        // Races inside a segment launch (e.g. a propagated let that re-reads what the segment
        // writes) make the split's own result schedule-dependent: report them as the split's failure.
        interp::RunOptions per_launch = interp_options();
        per_launch.detect_races = options_.detect_races;
        InterpExecutor executor(per_launch);
        cpu = judge("H-cpu", profile, run_split(profile, inputs, executor), nullptr);
        if (options_.cpu && cpu->verdict == ir::Verdict::Diverge && options_.locate_first_divergence)
          locate(profile, inputs, *cpu);
        if (options_.cpu) report_.splits.push_back(*cpu);
      }
      if (options_.gpu) {
        const planner::RunConfig config{c_.grid, std::nullopt, c_.fixpoint};
        const planner::SplitRun run = options_.gpu(profile, c_.program, inputs, config);
        SplitOutcome gpu = judge(options_.gpu_name, profile, run, &*cpu);
        gpu.comparison_rule = rule_.describe();
        if (options_.gpu_resident) check_resident_mode(profile, inputs, config, run, gpu);
        report_.splits.push_back(std::move(gpu));
      }
    });
    return std::move(report_);
  }

 private:
  template <typename Fn>
  void for_each_profile(Fn&& fn) {
    if (options_.profiles.empty()) {
      fn(planner::default_profile());
      return;
    }
    for (const planner::Profile* p : options_.profiles) fn(*p);
  }

  interp::RunOptions interp_options() const {
    interp::RunOptions o;
    o.fuel = options_.fuel;
    o.file = c_.file;
    return o;
  }

  void run_reference() {
    interp::RunOptions o = interp_options();
    o.detect_races = options_.detect_races;
    report_.reference = interp::run_case(c_, o);
    report_.reference_verdict = report_.reference.verdict();
    report_.reference_detail = report_.reference.detail();
    if (!report_.reference.ok() || !options_.check_schedules) return;
    interp::RunOptions reversed = interp_options();
    reversed.schedule = interp::Schedule::reversed();
    const interp::RunResult other = interp::run_case(c_, reversed);
    bool same = other.ok() && other.outputs.size() == report_.reference.outputs.size();
    for (std::size_t i = 0; same && i < other.outputs.size(); ++i)
      same = other.outputs[i].bytes == report_.reference.outputs[i].bytes;
    if (!same) {
      report_.schedule_dependent = true;
      report_.reference_verdict = ir::Verdict::Invalid;
      report_.reference_detail = "race";
    }
  }

  SplitOutcome invalid_outcome(std::string oracle, const planner::Profile& profile) const {
    SplitOutcome s;
    s.oracle = std::move(oracle);
    s.profile = profile.name;
    s.verdict = ir::Verdict::Invalid;
    s.detail = report_.reference_detail;
    s.message = report_.schedule_dependent ? "the reference result depends on the schedule (a race)"
                                           : "the reference refused or could not run the case";
    return s;
  }

  std::vector<Bytes> split_inputs(const planner::Profile& profile) const {
    std::vector<Bytes> inputs;
    for (const std::string& name : planner::split_input_names(profile, c_.program))
      inputs.push_back(case_bytes(c_, name));
    return inputs;
  }

  planner::SplitRun run_split(const planner::Profile& profile, const std::vector<Bytes>& inputs,
                              planner::Executor& executor, const planner::RunOptions& run_options = {}) const {
    const planner::RunConfig config{c_.grid, std::nullopt, c_.fixpoint};
    return planner::run_split(profile, c_.program, inputs, config, executor, run_options);
  }

  /// Judges one split run against R (and, for H-gpu, against the H-cpu outcome for blame).
  SplitOutcome judge(std::string oracle, const planner::Profile& profile, const planner::SplitRun& run,
                     const SplitOutcome* cpu) const {
    SplitOutcome s;
    s.oracle = std::move(oracle);
    s.profile = profile.name;
    s.output_names = run.output_names;
    s.outputs = run.outputs;
    s.launches = run.launch_count();
    s.comparison_rule = s.oracle == "H-cpu" ? "exact" : rule_.describe();
    const bool gpu = cpu != nullptr;
    const std::string blame = gpu && cpu->verdict == ir::Verdict::Match ? "lowering/driver" : "planner";
    const interp::RunResult& r = report_.reference;

    // A data race inside a segment launch is a property of the planned segments, not of the
    // backend: the GPU's bytes are merely one schedule's. H-gpu inherits H-cpu's race verdict.
    if (gpu && cpu->failure && cpu->failure->launch_error &&
        cpu->failure->launch_error->kind == planner::LaunchErrorKind::Race) {
      s.verdict = ir::Verdict::Diverge;
      s.detail = "planner";
      s.message = "a segment launch of the split races (found by H-cpu's race detector): " +
                  cpu->failure->launch_error->message;
      return s;
    }

    if (!run.ok()) {
      s.failure = run.failure;
      const ir::Diagnostic& d = run.failure->diagnostic;
      if (d.code == "S000" || d.code.rfind("SR", 0) == 0) {  // a profile's refusal before running
        s.verdict = ir::Verdict::Refused;
        s.detail = d.code;
        s.message = d.message;
        return s;
      }
      const auto& le = run.failure->launch_error;
      const bool r_failed_alike =
          le && ((r.status == interp::RunStatus::Trap && le->kind == planner::LaunchErrorKind::Trap) ||
                 (r.status == interp::RunStatus::OutOfFuel && le->kind == planner::LaunchErrorKind::OutOfFuel));
      if (r_failed_alike) {
        s.verdict = ir::Verdict::Match;
        s.message = fmt::format("both trapped: {}", le->message);
        return s;
      }
      if (le && le->kind == planner::LaunchErrorKind::Backend && gpu) {
        s.verdict = ir::Verdict::Error;
        s.detail = "backend";
        s.message = le->message;
        return s;
      }
      s.verdict = ir::Verdict::Diverge;
      s.detail = blame;
      s.message = fmt::format("R {} but the split failed: {} [{}]", r.ok() ? "succeeded" : interp::name_of(r.status),
                              d.message, d.code);
      return s;
    }
    if (!r.ok()) {
      s.verdict = ir::Verdict::Diverge;
      s.detail = blame;
      s.message = fmt::format("R ended with {} but the split succeeded", interp::name_of(r.status));
      return s;
    }
    const ComparisonRule rule = s.oracle == "H-cpu" ? ComparisonRule{} : rule_;
    for (const interp::OutputBuffer& expected : r.outputs) {
      const Bytes* actual = run.output(expected.name);
      if (actual == nullptr) {
        s.verdict = ir::Verdict::Diverge;
        s.detail = blame;
        s.message = fmt::format("the split returned no output '{}'", expected.name);
        return s;
      }
      if (auto diff = compare(expected.name, expected.element, expected.bytes, *actual, rule)) {
        s.verdict = ir::Verdict::Diverge;
        s.detail = blame;
        FirstDivergence fd;
        fd.final_diff = *diff;
        s.message = diff->describe();
        s.divergence = fd;
        return s;
      }
    }
    s.verdict = ir::Verdict::Match;
    s.message = fmt::format("{} output{} equal ({})", r.outputs.size(), r.outputs.size() == 1 ? "" : "s",
                            rule.describe());
    return s;
  }

  /// Resident mode must reproduce host mode exactly: same success or failure, same bytes.
  void check_resident_mode(const planner::Profile& profile, const std::vector<Bytes>& inputs,
                           const planner::RunConfig& config, const planner::SplitRun& host, SplitOutcome& outcome) const {
    const planner::SplitRun resident = options_.gpu_resident(profile, c_.program, inputs, config);
    std::string difference;
    if (host.ok() != resident.ok()) {
      difference = fmt::format("host mode {} but resident mode {}", host.ok() ? "succeeded" : "failed",
                               resident.ok() ? "succeeded" : "failed: " + resident.failure->diagnostic.message);
    } else if (host.ok()) {
      for (std::size_t i = 0; i < host.output_names.size() && difference.empty(); ++i) {
        const Bytes* r = resident.output(host.output_names[i]);
        if (r == nullptr) {
          difference = fmt::format("resident mode returned no '{}'", host.output_names[i]);
        } else if (auto diff = compare(host.output_names[i], ir::ScalarType::U32, host.outputs[i], *r, ComparisonRule{})) {
          difference = "resident mode differs from host mode: " + diff->describe();
        }
      }
    }
    if (difference.empty()) return;
    outcome.verdict = ir::Verdict::Diverge;
    outcome.detail = "lowering/driver";
    outcome.message = difference;
  }

  /// Re-runs R and H-cpu with observers to find the first segment whose end state differs from R's
  /// memory at the matching fence, and the invocation that last wrote the differing element in R.
  void locate(const planner::Profile& profile, const std::vector<Bytes>& inputs, SplitOutcome& outcome) const {
    std::vector<LiveSnapshot> trace;
    planner::RunOptions run_options;
    run_options.observer = [&](const planner::SegmentEvent& ev) {
      LiveSnapshot snap;
      snap.pass = ev.pass;
      snap.segment = ev.segment;
      for (const auto& [name, buffer] : *ev.live) snap.live.emplace(name, buffer.bytes());
      trace.push_back(std::move(snap));
    };
    InterpExecutor executor(interp_options());
    const planner::SplitRun run = run_split(profile, inputs, executor, run_options);
    if (trace.empty()) return;
    const std::size_t segments = run.segment_count;

    ReferenceRecorder recorder;
    interp::RunOptions o = interp_options();
    o.observers.push_back(&recorder);
    interp::run_case(c_, o);
    const std::vector<std::string> names = storage_names(c_.program);
    // Segment boundaries line up with R's fences only when every fence was hoisted to the top.
    for (const auto& launch : recorder.snapshots)
      if (launch.size() != segments) return;

    for (const LiveSnapshot& snap : trace) {
      if (snap.pass >= recorder.snapshots.size()) break;
      const std::vector<Bytes>& image = recorder.snapshots[snap.pass][snap.segment];
      for (std::size_t i = 0; i < names.size(); ++i) {
        const auto it = snap.live.find(names[i]);
        if (it == snap.live.end()) continue;
        const ir::BufferDecl* decl = c_.program.find_buffer(names[i]);
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
        interp::RunOptions wo = interp_options();
        wo.observers.push_back(&writers);
        interp::run_case(c_, wo);
        fd.last_writer = writers.target_writer;
        fd.last_writer_site = writers.target_site;
        if (!outcome.divergence) fd.final_diff = *diff;
        outcome.divergence = fd;
        outcome.message = fd.describe();
        return;
      }
    }
  }

  const ir::Case& c_;
  const OracleOptions& options_;
  CaseReport report_;
  ComparisonRule rule_;
};

}  // namespace

CaseReport evaluate_case(const ir::Case& c, const OracleOptions& options) {
  CaseReport report = CaseEvaluator(c, options).run();
  if (options.waves) append_wave_outcomes(c, options, report);
  return report;
}

std::optional<ByteDiff> diff_bytes(std::string_view buffer, ir::ScalarType element, const Bytes& expected,
                                   const Bytes& actual) {
  return compare(buffer, element, expected, actual, ComparisonRule{});
}

namespace {

ir::ExpectedOutput expected_output(ir::Oracle oracle, const std::string& profile, const std::string& name,
                                   const Bytes& bytes) {
  ir::ExpectedOutput e;
  e.oracle = oracle;
  e.profile = profile;
  e.buffer = name;
  if (bytes.size() <= 64 * 4 && bytes.size() % 4 == 0) {
    std::vector<std::uint32_t> words(bytes.size() / 4);
    for (std::size_t i = 0; i < words.size(); ++i) words[i] = word_at(bytes, i);
    e.words = std::move(words);
  } else {
    e.hash = ir::fnv1a64(bytes.data(), bytes.size());
  }
  return e;
}

/// A split expectation without a profile means vyre-0.7.2; R-waves without one means the kernel itself.
std::string default_profile(ir::Oracle oracle, const std::string& profile) {
  if (!profile.empty() || oracle == ir::Oracle::Waves) return profile;
  return std::string(planner::vyre_0_7_2().name);
}

}  // namespace

void record_expectations(ir::Case& c, const CaseReport& report) {
  c.expectations.clear();
  c.outputs.clear();
  c.expectations.push_back({ir::Oracle::Reference, "", report.reference_verdict,
                            report.reference_verdict == ir::Verdict::Ok ? "" : report.reference_detail, {}});
  if (report.reference.ok())
    for (const interp::OutputBuffer& o : report.reference.outputs)
      c.outputs.push_back(expected_output(ir::Oracle::Reference, "", o.name, o.bytes));
  for (const SplitOutcome& s : report.splits) {
    const auto oracle = ir::oracle_from_name(s.oracle);
    if (!oracle) continue;
    c.expectations.push_back({*oracle, s.profile, s.verdict, s.verdict == ir::Verdict::Match ? "" : s.detail, {}});
    if (s.verdict == ir::Verdict::Diverge)
      for (std::size_t i = 0; i < s.output_names.size() && i < s.outputs.size(); ++i)
        c.outputs.push_back(expected_output(*oracle, s.profile, s.output_names[i], s.outputs[i]));
  }
}

std::vector<ExpectationFailure> check_expectations(const ir::Case& c, const CaseReport& report) {
  std::vector<ExpectationFailure> failures;
  for (const ir::Expectation& e : c.expectations) {
    ir::Verdict actual;
    std::string detail;
    if (e.oracle == ir::Oracle::Reference) {
      actual = report.reference_verdict;
      detail = report.reference_detail;
    } else {
      const std::string_view oracle = ir::name_of(e.oracle);
      const std::string profile = default_profile(e.oracle, e.profile);
      const SplitOutcome* s = report.find(oracle, profile);
      if (s == nullptr) continue;  // that oracle did not run (no GPU, profile not selected)
      actual = s->verdict;
      detail = s->detail;
    }
    const bool detail_ok = e.detail.empty() || detail.rfind(e.detail, 0) == 0;
    if (actual != e.verdict || !detail_ok)
      failures.push_back({e.loc, fmt::format("expected {}{}: {}{}{}, got {}{}{}", ir::name_of(e.oracle),
                                             e.profile.empty() ? "" : " " + e.profile, ir::name_of(e.verdict),
                                             e.detail.empty() ? "" : " ", e.detail, ir::name_of(actual),
                                             detail.empty() ? "" : " ", detail)});
  }
  for (const ir::ExpectedOutput& o : c.outputs) {
    const Bytes* actual = nullptr;
    Bytes holder;
    if (o.oracle == ir::Oracle::Reference) {
      if (const interp::OutputBuffer* b = report.reference.output(o.buffer)) actual = &b->bytes;
    } else {
      const std::string profile = default_profile(o.oracle, o.profile);
      const SplitOutcome* s = report.find(ir::name_of(o.oracle), profile);
      if (s == nullptr) continue;
      for (std::size_t i = 0; i < s->output_names.size() && i < s->outputs.size(); ++i)
        if (s->output_names[i] == o.buffer) actual = &s->outputs[i];
      if (actual == nullptr && s->verdict != ir::Verdict::Match && s->verdict != ir::Verdict::Diverge) continue;
    }
    if (actual == nullptr) {
      failures.push_back({o.loc, fmt::format("expected output '{}' from {} but there is none", o.buffer,
                                             ir::name_of(o.oracle))});
      continue;
    }
    if (o.hash) {
      const std::uint64_t h = ir::fnv1a64(actual->data(), actual->size());
      if (h != *o.hash)
        failures.push_back({o.loc, fmt::format("output '{}' hashes to 0x{:016x}, expected 0x{:016x}", o.buffer, h, *o.hash)});
    } else if (o.words) {
      Bytes expected(o.words->size() * 4);
      if (!o.words->empty()) std::memcpy(expected.data(), o.words->data(), expected.size());
      const ir::BufferDecl* decl = c.program.find_buffer(o.buffer);
      if (auto diff = compare(o.buffer, decl ? decl->element : ir::ScalarType::U32, expected, *actual, ComparisonRule{}))
        failures.push_back({o.loc, fmt::format("{}: {}", ir::name_of(o.oracle), diff->describe())});
    }
  }
  return failures;
}

}  // namespace gridcheck::props
