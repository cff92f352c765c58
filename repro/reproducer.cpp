#include "repro/reproducer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>

#include "gpu/glsl_lowering.hpp"
#include "gpu/kernel.hpp"
#include "interp/interpreter.hpp"
#include "ir/abi.hpp"
#include "ir/typecheck.hpp"
#include "planner/segment_plan.hpp"
#include "planner/split_dispatch.hpp"
#include "repro/interp_launch.hpp"

namespace gridcheck::repro {

std::string_view name_of(BufferKind kind) {
  switch (kind) {
    case BufferKind::Live: return "live";
    case BufferKind::Slot: return "slot";
    case BufferKind::Zero: return "zeros";
    case BufferKind::NoTrap: return "no-trap";
    case BufferKind::Trap: return "trap";
    case BufferKind::PushConstants: return "push-constants";
  }
  return "live";
}

ir::Diagnostic export_error(std::string code, std::string file, ir::SourceLoc loc, std::string message) {
  ir::Diagnostic d;
  d.code = std::move(code);
  d.file = std::move(file);
  d.loc = loc;
  d.message = std::move(message);
  return d;
}

Bytes case_bytes(const ir::Case& c, std::string_view name) {
  const ir::BufferDecl* decl = c.program.find_buffer(name);
  for (const ir::InputData& in : c.inputs) {
    if (in.buffer != name) continue;
    const std::vector<std::uint32_t> words = ir::materialize(in, decl ? decl->element : ir::ScalarType::U32, decl ? decl->count : 0);
    Bytes bytes(words.size() * 4);
    if (!words.empty()) std::memcpy(bytes.data(), words.data(), bytes.size());
    return bytes;
  }
  return Bytes(decl ? decl->static_byte_len() : 0, 0);
}

namespace {

ir::Diagnostic as_note(ir::Diagnostic d) {
  d.severity = ir::Severity::Note;
  return d;
}

std::string identifier(std::string_view text) {
  std::string out;
  for (char ch : text) out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(out.begin(), '_');
  return out;
}

/// Where the first byte of two vectors differs (or the shorter length).
std::size_t first_difference(const Bytes& a, const Bytes& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return i;
  return n;
}

class Builder {
 public:
  Builder(const ir::Case& c, ir::SourceLoc loc, gpu::LiteralPolicy literals) : c_(c), loc_(loc), literals_(literals) {}

  ir::Diagnostic error(std::string code, std::string message) const { return export_error(std::move(code), c_.file, loc_, std::move(message)); }

  Repro& repro() { return r_; }

  /// A live buffer that starts with `bytes` (before any step).
  void seed_live(const std::string& name, const Bytes& bytes) {
    const std::size_t b = live_version(name, bytes.size());
    r_.buffers[b].init = bytes;
    live_[name] = b;
  }

  /// One launch of `program` with the split's by-name gather and refresh.
  std::optional<ir::Diagnostic> launch(std::size_t segment, const ir::Program& program, const planner::LaunchConfig& config,
                                       std::span<const std::string> input_names, std::span<const std::string> output_names,
                                       std::uint32_t pass, const std::string& label) {
    const auto decls = program.buffers();
    std::vector<std::uint64_t> sizes(decls.size(), 0);
    std::vector<std::optional<std::size_t>> sources(decls.size());
    std::size_t k_in = 0;
    for (std::size_t i = 0; i < decls.size(); ++i) {
      const ir::BufferDecl& b = decls[i];
      if (b.access == ir::BufferAccess::Workgroup) continue;
      if (ir::is_dispatch_input(b)) {
        if (k_in >= input_names.size())
          return error("E007", fmt::format("{} takes more inputs than the plan names", label));
        const std::string& name = input_names[k_in++];
        const auto it = live_.find(name);
        if (it == live_.end())
          return error("E007", fmt::format("{} gathers `{}`, which has no bytes in the export's model", label, name));
        sizes[i] = r_.buffers[it->second].init.size();
        if (b.count > 0 && sizes[i] != b.static_byte_len())
          return error("E007", fmt::format("{} gathers {} bytes for `{}`, whose declaration needs {}", label, sizes[i],
                                           program.name(b.name), b.static_byte_len()));
        sources[i] = it->second;
      } else {
        const std::optional<std::uint64_t> bytes = ir::backend_allocation_bytes(b);
        if (!bytes)
          return error("E008", fmt::format("{} needs buffer `{}` zero-filled, but it has neither a count nor an output_byte_range", label,
                                           program.name(b.name)));
        sizes[i] = *bytes;
      }
    }
    current_launch_ = r_.launch_count;
    ir::Result<std::size_t> p = pipeline(segment, program, config, sizes, label);
    if (!p) return p.diagnostics().all().front();
    ReproPipeline& pipe = r_.pipelines[*p];
    // Gather: copies into the slots (the host loop's copy-in), fresh zeros for every other buffer.
    for (std::size_t i = 0; i < decls.size(); ++i) {
      if (!pipe.decl_slots[i]) continue;
      const std::size_t slot = *pipe.decl_slots[i];
      if (sources[i]) {
        copy(*sources[i], slot, 0, sizes[i], fmt::format("gather {}", r_.buffers[*sources[i]].live_name));
      } else if (used_.count(slot)) {
        copy(zeros(sizes[i]), slot, 0, sizes[i], "zeros");
      }
      used_.insert(slot);
    }
    if (pipe.trap) {
      if (used_.count(*pipe.trap)) copy(no_trap(), *pipe.trap, 0, 8, "no trap");
      used_.insert(*pipe.trap);
    }
    ir::Result<std::array<std::uint32_t, 3>> grid = gpu::launch_grid(program, config);
    if (!grid) {
      ir::Diagnostic d = error("E005", fmt::format("{} has no launch grid", label));
      for (const ir::Diagnostic& n : grid.diagnostics()) d.notes.push_back(as_note(n));
      return d;
    }
    ReproStep dispatch;
    dispatch.kind = StepKind::Dispatch;
    dispatch.pipeline = *p;
    dispatch.grid = *grid;
    dispatch.repeat = config.fixpoint_iterations;
    dispatch.pass = pass;
    dispatch.launch = r_.launch_count;
    r_.steps.push_back(dispatch);
    if (pipe.trap) {
      ReproStep check = dispatch;
      check.kind = StepKind::CheckTrap;
      r_.steps.push_back(check);
    }
    r_.grid_of_last_launch = *grid;
    ++r_.launch_count;
    // Refresh: every dispatch output into the live buffer of its output name (sliced to its range).
    std::size_t k_out = 0;
    for (std::size_t i = 0; i < decls.size(); ++i) {
      const ir::BufferDecl& b = decls[i];
      if (!ir::is_dispatch_output(b)) continue;
      if (k_out >= output_names.size()) return error("E007", fmt::format("{} returns more outputs than the plan names", label));
      const std::string& name = output_names[k_out++];
      const std::size_t slot = *pipe.decl_slots[i];
      std::uint64_t begin = 0, end = sizes[i];
      if (b.output_byte_range) {
        begin = std::min<std::uint64_t>(b.output_byte_range->begin, sizes[i]);
        end = std::min<std::uint64_t>(std::max(b.output_byte_range->end, b.output_byte_range->begin), sizes[i]);
      }
      const std::size_t target = live_version(name, end - begin);
      copy(slot, target, begin, end - begin,
           b.output_byte_range ? fmt::format("refresh {} (bytes {}..{})", name, begin, end) : fmt::format("refresh {}", name));
      live_[name] = target;
    }
    return std::nullopt;
  }

  std::optional<std::size_t> live_of(const std::string& name) const {
    const auto it = live_.find(name);
    if (it == live_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::string unique(std::string_view base) {
    std::string name = identifier(base);
    if (names_.insert(name).second) return name;
    for (std::size_t n = 2;; ++n) {
      std::string candidate = fmt::format("{}_{}", name, n);
      if (names_.insert(candidate).second) return candidate;
    }
  }

  std::size_t add_buffer(BufferKind kind, std::string_view base, std::string live_name, Bytes init) {
    r_.buffers.push_back(ReproBuffer{unique(base), kind, std::move(live_name), std::move(init)});
    return r_.buffers.size() - 1;
  }

  std::size_t live_version(const std::string& name, std::uint64_t size) {
    const auto key = std::make_pair(name, size);
    if (auto it = versions_.find(key); it != versions_.end()) return it->second;
    bool first = true;
    for (const auto& [k, v] : versions_) first = first && k.first != name;
    const std::string base = first ? name : fmt::format("{}_{}b", name, size);
    const std::size_t b = add_buffer(BufferKind::Live, base, name, Bytes(static_cast<std::size_t>(size), 0));
    versions_.emplace(key, b);
    return b;
  }

  std::size_t zeros(std::uint64_t size) {
    if (auto it = zeros_.find(size); it != zeros_.end()) return it->second;
    const std::size_t b = add_buffer(BufferKind::Zero, fmt::format("gc_zero_{}b", size), "", Bytes(static_cast<std::size_t>(size), 0));
    zeros_.emplace(size, b);
    return b;
  }

  std::size_t no_trap() {
    if (!no_trap_) no_trap_ = add_buffer(BufferKind::NoTrap, "gc_no_trap", "", Bytes(8, 0xFF));
    return *no_trap_;
  }

  void copy(std::size_t from, std::size_t to, std::uint64_t offset, std::uint64_t bytes, std::string why) {
    ReproStep s;
    s.kind = StepKind::Copy;
    s.from = from;
    s.to = to;
    s.from_offset = offset;
    s.bytes = bytes;
    s.why = std::move(why);
    s.launch = current_launch_;
    r_.steps.push_back(std::move(s));
  }

  ir::Result<std::size_t> pipeline(std::size_t segment, const ir::Program& program, const planner::LaunchConfig& config,
                                   const std::vector<std::uint64_t>& sizes, const std::string& label) {
    const auto key = std::make_pair(segment, sizes);
    if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;
    std::size_t instances = 0;
    for (const auto& [k, v] : pipelines_) instances += k.first == segment ? 1 : 0;
    const std::string seg = segment == ReproPipeline::kUnsplit ? "kernel" : fmt::format("seg{}", segment);
    ReproPipeline p;
    p.name = unique(instances == 0 ? seg : fmt::format("{}_v{}", seg, instances + 1));
    p.segment = segment;
    p.label = label;
    ir::Result<ir::TypeTable> types = ir::typecheck(program);
    if (!types) {
      ir::Diagnostic d = error("E005", fmt::format("{} does not type-check", label));
      for (const ir::Diagnostic& n : types.diagnostics()) d.notes.push_back(as_note(n));
      return d;
    }
    gpu::LoweringOptions lo;
    lo.workgroup_size = config.workgroup_override;
    lo.label = label;
    lo.literals = literals_;
    ir::Result<gpu::LoweredShader> shader = gpu::lower_to_glsl(program, *types, lo);
    if (!shader) {
      ir::Diagnostic d = error("E005", fmt::format("{} cannot be lowered to GLSL", label));
      for (const ir::Diagnostic& n : shader.diagnostics()) d.notes.push_back(as_note(n));
      return d;
    }
    ir::Result<gpu::Spirv> spirv = gpu::compile_glsl(shader->glsl, label);
    if (!spirv) {
      ir::Diagnostic d = error("E005", fmt::format("{} does not compile to SPIR-V", label));
      for (const ir::Diagnostic& n : spirv.diagnostics()) d.notes.push_back(as_note(n));
      return d;
    }
    p.glsl = shader->glsl;
    p.spirv = std::move(spirv).value();
    p.workgroup_size = shader->workgroup_size;
    p.needs_float64 = shader->needs_float64;
    p.needs_int64_atomics = shader->needs_int64_atomics;
    p.program = program;
    if (config.workgroup_override) p.program.set_workgroup_size(*config.workgroup_override);
    const auto decls = program.buffers();
    p.decl_slots.resize(decls.size());
    for (std::size_t i = 0; i < decls.size(); ++i) {
      if (decls[i].access == ir::BufferAccess::Workgroup) continue;
      const std::string decl = std::string(program.name(decls[i].name));
      p.decl_slots[i] = add_buffer(BufferKind::Slot, fmt::format("{}_{}", p.name, decl), decl, Bytes(static_cast<std::size_t>(sizes[i]), 0));
    }
    p.push_words.assign(shader->push_constant_words, 0);
    for (const gpu::BufferBinding& bb : shader->buffers) {
      p.bindings.push_back(ReproBinding{bb.binding, *p.decl_slots[bb.decl_index]});
      if (bb.length_push_word) p.push_words[*bb.length_push_word] = static_cast<std::uint32_t>(sizes[bb.decl_index] / 4);
    }
    if (shader->trap_binding) {
      p.trap = add_buffer(BufferKind::Trap, fmt::format("{}_trap", p.name), "", Bytes(8, 0xFF));
      p.bindings.push_back(ReproBinding{*shader->trap_binding, *p.trap});
    }
    if (!p.push_words.empty()) {
      Bytes words(p.push_words.size() * 4);
      std::memcpy(words.data(), p.push_words.data(), words.size());
      p.push_buffer = add_buffer(BufferKind::PushConstants, fmt::format("{}_pc", p.name), "", std::move(words));
    }
    r_.pipelines.push_back(std::move(p));
    pipelines_.emplace(key, r_.pipelines.size() - 1);
    return r_.pipelines.size() - 1;
  }

  const ir::Case& c_;
  ir::SourceLoc loc_;
  gpu::LiteralPolicy literals_ = gpu::LiteralPolicy::HiddenValues;
  Repro r_;
  std::set<std::string> names_;
  std::map<std::string, std::size_t> live_;
  std::map<std::pair<std::string, std::uint64_t>, std::size_t> versions_;
  std::map<std::uint64_t, std::size_t> zeros_;
  std::optional<std::size_t> no_trap_;
  std::set<std::size_t> used_;
  std::size_t current_launch_ = 0;
  std::map<std::pair<std::size_t, std::vector<std::uint64_t>>, std::size_t> pipelines_;
};

std::string status_text(const interp::RunResult& r) {
  std::string detail = r.detail();
  return detail.empty() ? std::string(ir::name_of(r.verdict())) : fmt::format("{} ({})", ir::name_of(r.verdict()), detail);
}

}  // namespace

ir::Result<Repro> build_repro(const ir::Case& c, const planner::Profile& profile, ir::SourceLoc case_loc,
                              gpu::LiteralPolicy literals) {
  Builder builder(c, case_loc, literals);
  // R: the expected bytes, and they must not depend on the schedule.
  interp::RunOptions ro;
  ro.file = c.file;
  const interp::RunResult reference = interp::run_case(c, ro);
  if (!reference.ok() || reference.verdict() != ir::Verdict::Ok) {
    ir::Diagnostic d = builder.error("E001", fmt::format("the reference run of case `{}` is {}, so there are no expected bytes to export",
                                                         c.name, status_text(reference)));
    for (const ir::Diagnostic& n : reference.diagnostics)
      if (n.severity == ir::Severity::Error) d.notes.push_back(as_note(n));
    return d;
  }
  interp::RunOptions reversed = ro;
  reversed.schedule = interp::Schedule::reversed();
  const interp::RunResult again = interp::run_case(c, reversed);
  bool same = again.ok() && again.outputs.size() == reference.outputs.size();
  for (std::size_t i = 0; same && i < again.outputs.size(); ++i) same = again.outputs[i].bytes == reference.outputs[i].bytes;
  if (!same)
    return builder.error("E002", fmt::format("the reference bytes of case `{}` depend on the schedule (a race): nothing stable to expect",
                                             c.name));

  // The split itself (H-cpu): how many passes it runs and what it returns.
  std::vector<Bytes> inputs;
  const std::vector<std::string> input_names = planner::split_input_names(profile, c.program);
  for (const std::string& name : input_names) inputs.push_back(case_bytes(c, name));
  const planner::RunConfig run_config{c.grid, std::nullopt, c.fixpoint};
  InterpLaunch executor;
  const planner::SplitRun run = planner::run_split(profile, c.program, inputs, run_config, executor);
  if (!run.ok()) {
    if (run.split && run.launches.empty()) {
      ir::Result<planner::SplitPlan> plan = planner::plan_split(profile, c.program);
      if (!plan) {
        ir::Diagnostic d = builder.error("E003", fmt::format("profile `{}` refuses case `{}`: nothing is launched", profile.name, c.name));
        for (const ir::Diagnostic& n : plan.diagnostics()) d.notes.push_back(as_note(n));
        return d;
      }
    }
    ir::Diagnostic d = builder.error("E004", fmt::format("the split of case `{}` under profile `{}` fails before it returns outputs",
                                                         c.name, profile.name));
    d.notes.push_back(as_note(run.failure->diagnostic));
    return d;
  }

  Repro& r = builder.repro();
  r.case_name = c.name;
  r.case_file = c.file;
  r.profile = profile.name;
  r.split = run.split;
  r.segment_count = run.segment_count;
  r.passes = run.passes;
  r.converged_early = run.converged_early;
  r.caller_inputs = input_names;

  if (!run.split) {
    // Step 1 of the dispatch loop: one launch by declaration names.
    for (std::size_t i = 0; i < input_names.size(); ++i) builder.seed_live(input_names[i], inputs[i]);
    const planner::LaunchConfig launch = run.launches.front().config;
    const std::vector<std::string> outs = profile.table.output_names(c.program);
    if (auto e = builder.launch(ReproPipeline::kUnsplit, c.program, launch, input_names, outs, 0, "the unsplit launch")) return *e;
    r.pass_budget = 1;
  } else {
    ir::Result<planner::SplitPlan> plan = planner::plan_split(profile, c.program);
    if (!plan) {
      ir::Diagnostic d = builder.error("E003", fmt::format("profile `{}` refuses case `{}`", profile.name, c.name));
      for (const ir::Diagnostic& n : plan.diagnostics()) d.notes.push_back(as_note(n));
      return d;
    }
    // Steps 4-5 as the dispatch loop does them: caller inputs, the profile's own buffers, zero seeds.
    planner::LiveMap live;
    for (std::size_t i = 0; i < inputs.size(); ++i) live.insert_or_assign(plan->caller_inputs[i], planner::LiveBuffer::borrowed(inputs[i]));
    planner::RunConfig config = run_config;
    if (auto e = profile.dispatch.prepare_launches(c.program, *plan, config, live)) return builder.error("E004", e->message);
    if (auto e = profile.dispatch.seed_inputs(c.program, *plan, live)) return builder.error("E004", e->message);
    for (const auto& [name, buffer] : live) builder.seed_live(name, buffer.bytes());
    const planner::PassSchedule schedule = profile.dispatch.schedule(config.fixpoint_iterations.value_or(1));
    r.pass_budget = schedule.passes;
    std::size_t launch_index = 0;
    for (std::uint32_t pass = 0; pass < run.passes; ++pass) {
      for (std::size_t k = 0; k < plan->segments.size(); ++k) {
        const planner::PlannedSegment& segment = plan->segments[k];
        const planner::LaunchConfig launch = profile.dispatch.segment_launch(config, c.program, segment, schedule.segment_fixpoint);
        if (launch_index < run.launches.size()) {
          const planner::LaunchConfig& seen = run.launches[launch_index].config;
          if (seen.grid_override != launch.grid_override || seen.workgroup_override != launch.workgroup_override ||
              seen.fixpoint_iterations != launch.fixpoint_iterations)
            return builder.error("E007", fmt::format("launch {} of the split uses another launch config than the export's model", launch_index));
        }
        ++launch_index;
        const std::string label = fmt::format("segment {} of {}", k + 1, plan->segments.size());
        if (auto e = builder.launch(k, segment.program, launch, segment.input_names, segment.output_names, pass, label)) return *e;
      }
    }
    if (launch_index != run.launches.size())
      return builder.error("E007", fmt::format("the split ran {} launches but the export's model has {}", run.launches.size(), launch_index));
  }

  // The model on the interpreter must give the split's own bytes; the final outputs are live
  // buffers, whole or sliced to the source's output_byte_range (the sound profile's reassembly).
  ir::Result<std::vector<Bytes>> replayed = replay_on_interpreter(r);
  if (!replayed) return replayed.diagnostics();
  r.split_matches_reference = true;
  for (std::size_t i = 0; i < run.output_names.size(); ++i) {
    const std::string& name = run.output_names[i];
    const Bytes& split_bytes = run.outputs[i];
    const std::optional<std::size_t> buffer = builder.live_of(name);
    if (!buffer) return builder.error("E007", fmt::format("final output `{}` is no live buffer of the export's model", name));
    const Bytes& held = (*replayed)[*buffer];
    std::optional<std::uint64_t> offset;
    if (held == split_bytes) offset = 0;
    const ir::BufferDecl* decl = c.program.find_buffer(name);
    if (!offset && decl != nullptr && decl->output_byte_range) {
      const std::size_t begin = static_cast<std::size_t>(std::min<std::uint64_t>(decl->output_byte_range->begin, held.size()));
      const std::size_t end = static_cast<std::size_t>(
          std::min<std::uint64_t>(std::max(decl->output_byte_range->end, decl->output_byte_range->begin), held.size()));
      if (Bytes(held.begin() + static_cast<std::ptrdiff_t>(begin), held.begin() + static_cast<std::ptrdiff_t>(end)) == split_bytes) offset = begin;
    }
    if (!offset)
      return builder.error("E007", fmt::format("replaying the exported launches gives other bytes for final output `{}` than the split "
                                               "(first difference at byte {}): profile `{}` does something the export cannot express",
                                               name, first_difference(held, split_bytes), profile.name));
    const interp::OutputBuffer* expected = reference.output(name);
    if (expected == nullptr)
      return builder.error("E006", fmt::format("final output `{}` of the split is not an output of the reference run", name));
    ReproExpect e;
    e.name = name;
    e.element = decl ? decl->element : ir::ScalarType::U32;
    e.buffer = *buffer;
    e.offset = *offset;
    e.reference = expected->bytes;
    e.split = split_bytes;
    r.split_matches_reference = r.split_matches_reference && e.reference == e.split;
    r.expects.push_back(std::move(e));
  }
  for (const interp::OutputBuffer& out : reference.outputs)
    if (std::find(run.output_names.begin(), run.output_names.end(), out.name) == run.output_names.end())
      r.split_matches_reference = false;  // R returns a buffer the split does not: a divergence the expects cannot show
  return std::move(r);
}

ir::Result<std::vector<Bytes>> replay_on_interpreter(const Repro& repro) {
  std::vector<Bytes> memory;
  memory.reserve(repro.buffers.size());
  for (const ReproBuffer& b : repro.buffers) memory.push_back(b.init);
  for (const ReproStep& s : repro.steps) {
    switch (s.kind) {
      case StepKind::Copy: {
        const Bytes& from = memory[s.from];
        Bytes& to = memory[s.to];
        if (s.from_offset + s.bytes > from.size() || s.bytes > to.size())
          return export_error("E007", repro.case_file, {},
                              fmt::format("copy of {} bytes from `{}` to `{}` leaves a buffer", s.bytes, repro.buffers[s.from].name,
                                          repro.buffers[s.to].name));
        std::copy_n(from.begin() + static_cast<std::ptrdiff_t>(s.from_offset), static_cast<std::ptrdiff_t>(s.bytes), to.begin());
        break;
      }
      case StepKind::Dispatch: {
        const ReproPipeline& p = repro.pipelines[s.pipeline];
        std::vector<interp::Bytes> bytes;
        for (const auto& slot : p.decl_slots)
          if (slot) bytes.push_back(memory[*slot]);
        if (std::optional<std::string> e = execute_in_place(p.program, bytes, s.grid, s.repeat))
          return export_error("E007", repro.case_file, {},
                              fmt::format("launch {} ({}) of the export's model fails on the interpreter: {}", s.launch, p.label, *e));
        std::size_t k = 0;
        for (const auto& slot : p.decl_slots)
          if (slot) memory[*slot] = std::move(bytes[k++]);
        break;
      }
      case StepKind::CheckTrap: break;  // the interpreter reports a trap as a failed launch
    }
  }
  return memory;
}

}  // namespace gridcheck::repro
