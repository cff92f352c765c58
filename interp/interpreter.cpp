#include "interp/interpreter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "interp/engine.hpp"
#include "interp/race_detector.hpp"
#include "interp/uninit_detector.hpp"
#include "ir/abi.hpp"
#include "ir/grid_inference.hpp"
#include "ir/typecheck.hpp"
#include "ir/validate/validator.hpp"

namespace gridcheck::interp {
namespace {

/// Per thread: the vectors of the last dispatch's engine and race detector (Engine::Storage,
/// RaceDetector::Storage), reused by the next dispatch instead of allocated again — a campaign runs
/// a dozen small dispatches per case. At most kMaxKeptBytes stay kept between dispatches; `busy`
/// while a dispatch holds them (a dispatch started inside another, by an observer, gets fresh ones).
struct DispatchCache {
  Engine::Storage engine;
  RaceDetector::Storage races;
  bool busy = false;
};
constexpr std::size_t kMaxKeptBytes = std::size_t{16} << 20;

/// Takes the thread's DispatchCache for one dispatch (null when a dispatch already holds it) and
/// releases it, trimmed to kMaxKeptBytes, when destroyed — after the engine and detector that
/// borrowed its vectors (declare it before them).
class CacheLease {
 public:
  CacheLease() {
    thread_local DispatchCache cache;
    if (!cache.busy) {
      cache_ = &cache;
      cache.busy = true;
    }
  }
  ~CacheLease() {
    if (cache_ == nullptr) return;
    if (cache_->engine.bytes() + cache_->races.bytes() > kMaxKeptBytes) {
      cache_->engine = {};
      cache_->races = {};
    }
    cache_->busy = false;
  }
  CacheLease(const CacheLease&) = delete;
  CacheLease& operator=(const CacheLease&) = delete;
  Engine::Storage* engine() const { return cache_ != nullptr ? &cache_->engine : nullptr; }
  RaceDetector::Storage* races() const { return cache_ != nullptr ? &cache_->races : nullptr; }

 private:
  DispatchCache* cache_ = nullptr;
};

// Refusals before a run (engineering.md: R = interpreter).
constexpr const char* kGridDimensionZero = "R010";
constexpr const char* kTooManyInvocations = "R011";
constexpr const char* kBufferTooLarge = "R012";
constexpr const char* kTooMuchMemory = "R013";
constexpr const char* kBufferCount = "R014";
constexpr const char* kInputTooShort = "R015";
constexpr const char* kNoStaticSize = "R016";
constexpr const char* kRangeOutside = "R017";
constexpr const char* kFixpointZero = "R018";
constexpr const char* kBadCaseInput = "R019";
constexpr const char* kRaceCode = "R040";
constexpr const char* kRaceIncomplete = "R041";
constexpr const char* kOutOfBounds = "R042";
constexpr const char* kUninitializedRead = "R043";

ir::MemoryCheck oob_check(const RunOptions& o) { return o.oob.value_or(ir::MemoryCheck::Error); }
ir::MemoryCheck uninit_check(const RunOptions& o) { return o.uninit.value_or(ir::MemoryCheck::Error); }
bool checks_uninit(const CompiledProgram& p, const RunOptions& o) {
  return p.workgroup_words > 0 && uninit_check(o) != ir::MemoryCheck::Defined;
}

/// One diagnostic per buffer with out-of-bounds accesses, at its first one.
void report_out_of_bounds(RunResult& result, const RunOptions& o) {
  const ir::Severity severity = oob_check(o) == ir::MemoryCheck::Error ? ir::Severity::Error : ir::Severity::Warning;
  for (const OobRecord& r : result.oob) {
    const std::uint64_t others = r.total() - 1;
    result.diagnostics.add(
        {severity, kOutOfBounds, o.file, r.first_site.loc,
         fmt::format("out-of-bounds {} of {} '{}'[{}] (it has {} elements) by {}{}", name_of(r.first_kind),
                     r.workgroup_memory ? "workgroup buffer" : "buffer", r.buffer, r.first_index, r.element_count,
                     to_string(r.first_invocation),
                     others == 0 ? std::string() : fmt::format("; {} more out-of-bounds accesses of '{}'", others, r.buffer)),
         {}});
  }
  if (severity == ir::Severity::Error && !result.oob.empty() && result.status == RunStatus::Ok)
    result.status = RunStatus::OutOfBounds;
}

/// One diagnostic per (buffer, site, launch) that read workgroup memory before any write.
void report_uninitialized(RunResult& result, const RunOptions& o) {
  const ir::Severity severity = uninit_check(o) == ir::MemoryCheck::Error ? ir::Severity::Error : ir::Severity::Warning;
  for (const UninitReport& r : result.uninit) {
    result.diagnostics.add(
        {severity, kUninitializedRead, o.file, r.site.loc,
         fmt::format("read of workgroup buffer '{}'[{}] before any write to it in launch {}, by {} (R reads the "
                     "zero it fills workgroup memory with; a GPU leaves it undefined){}",
                     r.buffer, r.first_element, r.launch, to_string(r.first_invocation),
                     r.occurrences == 1 ? std::string() : fmt::format("; {} such reads at this site", r.occurrences)),
         {}});
  }
  if (severity == ir::Severity::Error && !result.uninit.empty() && result.status == RunStatus::Ok)
    result.status = RunStatus::Uninitialized;
}

RunResult refused(ir::Diagnostics diagnostics) {
  RunResult r;
  r.status = RunStatus::Invalid;
  r.diagnostics = std::move(diagnostics);
  return r;
}

RunResult refused(const RunOptions& o, const char* code, ir::SourceLoc loc, std::string message) {
  ir::Diagnostics ds;
  ds.error(code, o.file, loc, std::move(message));
  return refused(std::move(ds));
}

/// a * b saturating at UINT64_MAX.
std::uint64_t mul_sat(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

/// The checks that must pass before the engine allocates anything.
std::optional<RunResult> check_resources(const CompiledProgram& program, std::span<const Bytes> buffers, Grid grid,
                                         const RunOptions& o) {
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return refused(o, kGridDimensionZero, {},
                   fmt::format("the dispatch grid {}x{}x{} has a zero dimension", grid[0], grid[1], grid[2]));
  const auto wg = program.workgroup_size;
  const std::uint64_t lanes = mul_sat(mul_sat(wg[0], wg[1]), wg[2]);
  if (lanes == 0)
    return refused(o, kGridDimensionZero, {}, fmt::format("the workgroup size {}x{}x{} has a zero dimension", wg[0], wg[1], wg[2]));
  if (lanes > o.limits.max_workgroup_invocations || lanes > 0xFFFFu + 1)
    return refused(o, kTooManyInvocations, {},
                   fmt::format("a workgroup of {} invocations exceeds the limit of {}", lanes,
                               std::min<std::uint64_t>(o.limits.max_workgroup_invocations, 0x10000)));
  const std::uint64_t workgroups = mul_sat(mul_sat(grid[0], grid[1]), grid[2]);
  const std::uint64_t invocations = mul_sat(workgroups, lanes);
  if (invocations > o.limits.max_invocations || invocations > 0xFFFFFFFFu)
    return refused(o, kTooManyInvocations, {},
                   fmt::format("the dispatch of {}x{}x{} workgroups of {} invocations exceeds the limit of {} invocations",
                               grid[0], grid[1], grid[2], lanes, o.limits.max_invocations));
  std::uint64_t total = 0;
  for (std::size_t b = 0; b < program.buffers.size(); ++b) {
    const CompiledBuffer& cb = program.buffers[b];
    if (cb.workgroup) continue;
    const std::uint64_t bytes = buffers[cb.storage_index].size();
    if (bytes > o.limits.max_buffer_bytes || bytes / 4 > 0xFFFFFFFFu)
      return refused(o, kBufferTooLarge, {},
                     fmt::format("buffer '{}' of {} bytes exceeds the limit of {} bytes", cb.name, bytes,
                                 o.limits.max_buffer_bytes));
    total += bytes;
  }
  total += Engine::state_bytes(program, grid);
  if (o.detect_races) total += RaceDetector::shadow_bytes(program, buffers);
  if (checks_uninit(program, o)) total += UninitDetector::shadow_bytes(program, workgroups);
  if (total > o.limits.max_memory)
    return refused(o, kTooMuchMemory, {},
                   fmt::format("the dispatch needs about {} (buffers, interpreter state{}), more than the memory limit "
                               "of {} (--max-memory)",
                               ir::format_bytes(total), o.detect_races ? ", race shadow" : "",
                               ir::format_bytes(o.limits.max_memory)));
  return std::nullopt;
}

}  // namespace

namespace {

/// prepare's body: `given` is a caller's type table of `program` (nullptr: none).
ir::Result<PreparedProgram> prepare_with(const ir::Program& program, const RunOptions& options,
                                         const ir::TypeTable* given) {
  PreparedProgram out;
  std::optional<ir::TypeTable> types;  // the validator's, when it validated
  if (options.validate) {
    ir::Diagnostics ds = ir::validate(program, options.file, {}, types);
    if (ds.has_errors()) return ds;
    out.warnings = std::move(ds);
    given = nullptr;
  }
  if (!types && given == nullptr) {
    auto checked = ir::typecheck(program, options.file);
    if (!checked) return checked.diagnostics();
    types = std::move(*checked);
  }
  auto compiled = compile(program, given != nullptr ? *given : *types, options.file);
  if (!compiled) return compiled.diagnostics();
  out.compiled = std::move(*compiled);
  out.buffers.assign(program.buffers().begin(), program.buffers().end());
  return out;
}

}  // namespace

ir::Result<PreparedProgram> prepare(const ir::Program& program, const RunOptions& options) {
  return prepare_with(program, options, nullptr);
}

ir::Result<PreparedProgram> prepare(const ir::Program& program, const RunOptions& options,
                                    const ir::TypeTable& checked) {
  return prepare_with(program, options, &checked);
}

RunResult execute(const PreparedProgram& prepared, std::span<Bytes> buffers, Grid grid, std::uint32_t fixpoint,
                  const RunOptions& options) {
  const CompiledProgram& program = prepared.compiled;
  if (buffers.size() != program.storage_buffer_count)
    return refused(options, kBufferCount, {},
                   fmt::format("the program has {} non-workgroup buffers but {} byte vectors were given",
                               program.storage_buffer_count, buffers.size()));
  if (fixpoint == 0) return refused(options, kFixpointZero, {}, "fixpoint must be at least 1");
  if (auto refusal = check_resources(program, buffers, grid, options)) return std::move(*refusal);

  RunResult result;
  result.grid = grid;
  const CacheLease kept;  // before the detector and engine: outlives them
  std::unique_ptr<RaceDetector> races;
  std::vector<Observer*> observers = options.observers;
  if (options.detect_races) {
    races = std::make_unique<RaceDetector>(program, buffers, options.same_value_writes_race, kept.races());
    observers.push_back(races.get());
  }
  std::unique_ptr<UninitDetector> uninit;
  if (checks_uninit(program, options)) {
    uninit = std::make_unique<UninitDetector>(program);
  }
  // The race detector is driven directly (engine.hpp) unless another observer watches accesses; then
  // it is one of the observers.
  const bool others_watch = std::any_of(options.observers.begin(), options.observers.end(),
                                        [](const Observer* o) { return o->watches_accesses(); });
  RaceDetector* const direct_races = others_watch ? nullptr : races.get();
  if (direct_races != nullptr) observers.pop_back();
  Engine engine(program, options, observers, direct_races, uninit.get(), grid, buffers, result, kept.engine());
  engine.run(fixpoint);
  if (races) {
    result.races = races->take_reports();
    if (races->incomplete())
      result.diagnostics.add({ir::Severity::Warning, kRaceIncomplete, options.file, {},
                              "race detection stopped early: too many barrier intervals between two grid_syncs", {}});
    for (const RaceReport& r : result.races) {
      auto& d = result.diagnostics.error(kRaceCode, options.file, r.second.site.loc, r.message);
      if (r.first.site.loc.known()) d.notes.push_back({ir::Severity::Note, {}, options.file, r.first.site.loc, "the other access", {}});
    }
    if (result.status == RunStatus::Ok && !result.races.empty()) result.status = RunStatus::Race;
  }
  if (oob_check(options) != ir::MemoryCheck::Defined) report_out_of_bounds(result, options);
  if (uninit) {
    result.uninit = uninit->take_reports();
    report_uninitialized(result, options);
  }
  return result;
}

RunResult execute(const ir::Program& program, std::span<Bytes> buffers, Grid grid, std::uint32_t fixpoint,
                  const RunOptions& options) {
  auto prepared = prepare(program, options);
  if (!prepared) return refused(prepared.diagnostics());
  return execute(*prepared, buffers, grid, fixpoint, options);
}

RunResult run_reference(const ir::Program& program, std::span<const Bytes> inputs, std::optional<Grid> grid,
                        std::uint32_t fixpoint, const RunOptions& options) {
  auto prepared = prepare(program, options);
  if (!prepared) return refused(prepared.diagnostics());
  const auto decls = program.buffers();

  // The bytes of every non-workgroup buffer: caller inputs, or zero-filled backend allocations.
  std::size_t expected_inputs = 0;
  for (const ir::BufferDecl& d : decls) expected_inputs += ir::is_reference_input(d) ? 1 : 0;
  if (inputs.size() != expected_inputs)
    return refused(options, kBufferCount, {},
                   fmt::format("the program has {} reference inputs but {} byte vectors were given", expected_inputs,
                               inputs.size()));
  // Everything this function allocates, checked against the limit before any of it is.
  std::uint64_t planned = 0;
  {
    std::size_t i = 0;
    for (const ir::BufferDecl& d : decls) {
      if (d.access == ir::BufferAccess::Workgroup) continue;
      planned += ir::is_reference_input(d) ? inputs[i++].size() : ir::backend_allocation_bytes(d).value_or(0);
    }
  }
  if (planned > options.limits.max_memory)
    return refused(options, kTooMuchMemory, {},
                   fmt::format("the dispatch's buffers need {}, more than the memory limit of {} (--max-memory)",
                               ir::format_bytes(planned), ir::format_bytes(options.limits.max_memory)));
  std::size_t next_input = 0;
  std::vector<Bytes> storage;
  std::vector<std::uint64_t> element_counts;
  for (const ir::BufferDecl& d : decls) {
    const std::string_view name = program.name(d.name);
    if (d.access == ir::BufferAccess::Workgroup) {
      element_counts.push_back(d.count);
      continue;
    }
    if (ir::is_reference_input(d)) {
      const Bytes& in = inputs[next_input++];
      if (in.size() < d.static_byte_len())
        return refused(options, kInputTooShort, d.loc,
                       fmt::format("input '{}' has {} bytes but the buffer declares {} elements ({} bytes)", name,
                                   in.size(), d.count, d.static_byte_len()));
      if (in.size() > options.limits.max_buffer_bytes)
        return refused(options, kBufferTooLarge, d.loc, fmt::format("input '{}' of {} bytes exceeds the limit", name, in.size()));
      storage.push_back(in);
    } else {
      const auto bytes = ir::backend_allocation_bytes(d);
      if (!bytes)
        return refused(options, kNoStaticSize, d.loc,
                       fmt::format("output '{}' has no count and no output_byte_range, so it has no size", name));
      if (*bytes > options.limits.max_buffer_bytes)
        return refused(options, kBufferTooLarge, d.loc,
                       fmt::format("output '{}' of {} bytes exceeds the limit of {} bytes", name, *bytes,
                                   options.limits.max_buffer_bytes));
      storage.emplace_back(static_cast<std::size_t>(*bytes), std::uint8_t{0});
    }
    element_counts.push_back(storage.back().size() / 4);
    if (d.output_byte_range && ir::is_reference_output(d) &&
        (d.output_byte_range->begin > d.output_byte_range->end || d.output_byte_range->end > storage.back().size()))
      return refused(options, kRangeOutside, d.loc,
                     fmt::format("output_byte_range {}..{} of '{}' lies outside its {} bytes",
                                 d.output_byte_range->begin, d.output_byte_range->end, name, storage.back().size()));
  }
  Grid dispatch;
  if (grid) {
    dispatch = *grid;
  } else {
    auto inferred = ir::reference_grid(program, element_counts);
    if (!inferred) return refused(inferred.diagnostics());
    dispatch = *inferred;
  }

  RunResult result = execute(*prepared, storage, dispatch, fixpoint, options);
  if (result.status != RunStatus::Ok && result.status != RunStatus::Race && result.status != RunStatus::OutOfBounds &&
      result.status != RunStatus::Uninitialized)
    return result;
  std::size_t s = 0;
  for (const ir::BufferDecl& d : decls) {
    if (d.access == ir::BufferAccess::Workgroup) continue;
    Bytes& bytes = storage[s++];
    if (!ir::is_reference_output(d)) continue;
    OutputBuffer out;
    out.name = std::string(program.name(d.name));
    out.element = d.element;
    if (d.output_byte_range) {
      const auto begin = static_cast<std::ptrdiff_t>(d.output_byte_range->begin);
      const auto end = static_cast<std::ptrdiff_t>(d.output_byte_range->end);
      out.bytes.assign(bytes.begin() + begin, bytes.begin() + end);
    } else {
      out.bytes = std::move(bytes);
    }
    result.outputs.push_back(std::move(out));
  }
  return result;
}

ir::Result<std::vector<Bytes>> case_inputs(const ir::Case& c) {
  const ir::Program& p = c.program;
  ir::Diagnostics ds;
  std::vector<const ir::InputData*> data(p.buffers().size(), nullptr);
  for (const ir::InputData& in : c.inputs) {
    const auto index = p.find_name(in.buffer) ? p.buffer_index(*p.find_name(in.buffer)) : std::nullopt;
    if (!index) {
      ds.error(kBadCaseInput, c.file, in.loc, fmt::format("input data for '{}', which is not a buffer", in.buffer));
      continue;
    }
    const ir::BufferDecl& d = p.buffers()[*index];
    if (!ir::is_reference_input(d)) {
      ds.error(kBadCaseInput, c.file, in.loc,
               fmt::format("input data for '{}', which takes no input ({})", in.buffer,
                           d.access == ir::BufferAccess::Workgroup ? "workgroup memory" : "backend-allocated output"));
      continue;
    }
    if (data[*index] != nullptr) {
      ds.error(kBadCaseInput, c.file, in.loc, fmt::format("second input data for '{}'", in.buffer));
      continue;
    }
    data[*index] = &in;
  }
  std::vector<Bytes> inputs;
  for (std::size_t i = 0; i < p.buffers().size(); ++i) {
    const ir::BufferDecl& d = p.buffers()[i];
    if (!ir::is_reference_input(d)) continue;
    std::vector<std::uint32_t> words;
    if (data[i] != nullptr) {
      words = ir::materialize(*data[i], d.element, d.count);
    } else if (d.count > 0) {
      words.assign(d.count, 0u);
    } else {
      ds.error(kBadCaseInput, c.file, d.loc,
               fmt::format("runtime-sized input '{}' needs input data", p.name(d.name)));
      continue;
    }
    Bytes bytes(words.size() * 4);
    for (std::size_t w = 0; w < words.size(); ++w)
      for (int k = 0; k < 4; ++k) bytes[w * 4 + k] = static_cast<std::uint8_t>(words[w] >> (8 * k));
    inputs.push_back(std::move(bytes));
  }
  if (ds.has_errors()) return ds;
  return inputs;
}

RunResult run_case(const ir::Case& c, const RunOptions& options) {
  RunOptions o = options;
  if (o.file.empty()) o.file = c.file;
  if (!o.oob) o.oob = c.oob;
  if (!o.uninit) o.uninit = c.uninit;
  // The case's buffers against the memory budget before its inputs are decoded (R023).
  const double copies = o.detect_races ? ir::MemoryCopies::kReferenceWithRaces : ir::MemoryCopies::kReference;
  if (auto too_large = ir::check_case_memory(c, copies, o.limits, "R", o.file)) {
    ir::Diagnostics ds;
    ds.add(std::move(*too_large));
    return refused(std::move(ds));
  }
  auto inputs = case_inputs(c);
  if (!inputs) return refused(inputs.diagnostics());
  return run_reference(c.program, *inputs, c.grid, c.fixpoint, o);
}

}  // namespace gridcheck::interp
