#include "planner/segment_plan.hpp"

#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace gridcheck::planner {

RawSplit split_on_grid_sync(const Profile& profile, const ir::Program& program) {
  const SplitRules& rules = profile.split;
  HostSplit split;
  split.work = program;
  Peeled peeled = rules.peel(split.work);
  split.wrappers = std::move(peeled.wrappers);
  split.hoisted = rules.hoist(split.work, peeled.inner);
  for (ir::StmtId id : split.hoisted) split.fence_count += split.work.stmt(id).is_fence() ? 1 : 0;

  RawSplit raw;
  raw.fence_count = split.fence_count;
  if (split.fence_count == 0) {
    raw.segments.push_back(program);
    raw.let_prefixes.emplace_back();
    return raw;
  }
  split.segments = rules.cut(split.work, split.hoisted);
  split.skeleton = make_segment_skeleton(program);
  rules.propagate_lets(split.work, split.hoisted, split.segments, rules.free_name_order);
  raw.segments.reserve(split.segments.size());
  for (const SegmentNodes& segment : split.segments) {
    raw.segments.push_back(rules.rewrap(program, split, segment));
    std::vector<std::string> names;
    for (ir::StmtId let : segment.let_prefix) names.emplace_back(split.work.name(split.work.stmt(let).names[0]));
    raw.let_prefixes.push_back(std::move(names));
  }
  return raw;
}

namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// Per source buffer (declaration order): what each segment's scan says about it, as flat arrays.
struct ScanTable {
  std::size_t buffers = 0;
  std::vector<std::uint8_t> reads;   // [segment * buffers + b]
  std::vector<std::uint8_t> writes;  // [segment * buffers + b]
  std::vector<std::size_t> first_writer, last_reader, last_writer;  // [b], kNone when none

  ScanTable(const ir::Program& source, std::span<const BufferAccessSet> scans, const FirstWriterMap& first)
      : buffers(source.buffers().size()),
        reads(scans.size() * buffers, 0),
        writes(scans.size() * buffers, 0),
        first_writer(buffers, kNone),
        last_reader(buffers, kNone),
        last_writer(buffers, kNone) {
    // First declaration of a spelling wins, as `find_buffer` does. Spellings are interned, so the
    // declaration is found by name index (kNone: no buffer of that name).
    std::vector<std::size_t> by_name(source.name_count(), kNone);
    for (std::size_t b = 0; b < buffers; ++b) {
      GC_ASSERT(ir::index_of(source.buffers()[b].name) < by_name.size());  // as Program::name would
      std::size_t& first_decl = by_name[ir::index_of(source.buffers()[b].name)];
      if (first_decl == kNone) first_decl = b;
    }
    const auto index = [&](std::string_view name) -> std::size_t {
      const std::optional<ir::NameId> id = source.find_name(name);
      return id ? by_name[ir::index_of(*id)] : kNone;
    };
    for (std::size_t k = 0; k < scans.size(); ++k) {
      auto mark = [&](const std::set<std::string, std::less<>>& names, std::vector<std::uint8_t>& bits,
                      std::vector<std::size_t>& last) {
        for (const std::string& name : names)
          if (const std::size_t b = index(name); b != kNone) {
            bits[k * buffers + b] = 1;
            last[b] = k;
          }
      };
      mark(scans[k].reads, reads, last_reader);
      mark(scans[k].writes, writes, last_writer);
    }
    for (const auto& [name, k] : first)
      if (const std::size_t b = index(name); b != kNone) first_writer[b] = k;
    // Duplicate declarations share the facts of their spelling.
    for (std::size_t b = 0; b < buffers; ++b) {
      const std::size_t canonical = by_name[ir::index_of(source.buffers()[b].name)];
      if (canonical == b) continue;
      first_writer[b] = first_writer[canonical];
      last_reader[b] = last_reader[canonical];
      last_writer[b] = last_writer[canonical];
      for (std::size_t k = 0; k < scans.size(); ++k) {
        reads[k * buffers + b] = reads[k * buffers + canonical];
        writes[k * buffers + b] = writes[k * buffers + canonical];
      }
    }
  }
};

FirstWriter relation(std::size_t first, std::size_t k) {
  if (first == kNone) return FirstWriter::None;
  return first < k ? FirstWriter::Earlier : first == k ? FirstWriter::This : FirstWriter::Later;
}

bool after(std::size_t last, std::size_t k) { return last != kNone && last > k; }

// A scratch buffer (SplitPlan::scratch) is the planner's own: declared read_write where a segment
// references it (read only where it only restores), omitted elsewhere. Not a role rule: the facts of a source buffer do not apply.
RoleDecision scratch_role(const RoleFacts& f) {
  if (!f.reads && !f.writes) return RoleDecision{Disposition::Omit, {}, {}, false, false, "scratch, not referenced"};
  RoleDecision d;
  d.disposition = Disposition::Rewrite;
  // Written: other invocations' slots must survive, so the segment consumes the live bytes.
  d.access = f.writes ? ir::BufferAccess::ReadWrite : ir::BufferAccess::ReadOnly;
  d.kind = rederived_kind(d.access);
  d.reason = f.reads && f.writes ? "scratch: restore and spill" : f.writes ? "scratch: spill" : "scratch: restore";
  return d;
}

}  // namespace

ir::Result<SplitPlan> plan_split(const Profile& profile, const ir::Program& source) {
  return profile.plan(profile, source);
}

ir::Result<SplitPlan> compose_split_plan(const Profile& profile, const ir::Program& source) {
  SplitPlan plan;
  plan.profile = profile.name;
  plan.contains_fence = profile.split.contains_fence(source);
  ir::Result<LoweredSource> lowered = profile.split.lower(source);
  if (!lowered) return lowered.diagnostics();
  // The program that is cut: the source, or its lowered copy whose buffer table is the source's
  // followed by the scratch buffers.
  const ir::Program& program = lowered->program ? *lowered->program : source;
  const std::size_t source_buffers = source.buffers().size();
  GC_ASSERT(program.buffers().size() == source_buffers + lowered->scratch.size());
  plan.scratch = std::move(lowered->scratch);
  RawSplit raw = split_on_grid_sync(profile, program);
  plan.fence_count = raw.fence_count;

  std::vector<BufferAccessSet> scans;
  scans.reserve(raw.segments.size());
  for (const ir::Program& segment : raw.segments) scans.push_back(profile.table.scan(segment));
  const FirstWriterMap first_writer = profile.table.first_writer(scans);
  const ScanTable table(program, scans, first_writer);
  const std::size_t n = raw.segments.size();

  plan.segments.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    PlannedSegment planned;
    planned.roles.reserve(table.buffers);
    std::vector<ir::BufferDecl> decls;
    decls.reserve(table.buffers);
    const std::span<const ir::BufferDecl> raw_decls = raw.segments[k].buffers();
    for (std::size_t b = 0; b < table.buffers; ++b) {
      const ir::BufferDecl& declared = program.buffers()[b];
      const std::string_view name = program.name(declared.name);
      const RoleFacts facts = role_facts(declared, table.reads[k * table.buffers + b] != 0,
                                         table.writes[k * table.buffers + b] != 0, relation(table.first_writer[b], k),
                                         k + 1 == n, after(table.last_reader[b], k), after(table.last_writer[b], k));
      RoleDecision decision = b < source_buffers ? profile.table.role(facts) : scratch_role(facts);
      if (decision.disposition != Disposition::Omit) {
        // The raw segment declares the source table in order; re-resolve by spelling otherwise.
        ir::BufferDecl decl = apply_decision(decision, declared);
        decl.name = b < raw_decls.size() && raw.segments[k].name(raw_decls[b].name) == name
                        ? raw_decls[b].name
                        : raw.segments[k].intern(name);
        decls.push_back(decl);
      }
      planned.roles.push_back(BufferRoleRow{std::string(name), facts, decision});
    }
    ir::Program segment_program = std::move(raw.segments[k]);
    segment_program.mutable_buffers() = std::move(decls);
    planned.program = std::move(segment_program);
    planned.input_names = profile.table.input_names(planned.program);
    planned.output_names = profile.table.output_names(planned.program);
    planned.let_prefix = std::move(raw.let_prefixes[k]);
    plan.segments.push_back(std::move(planned));
  }
  plan.caller_inputs = profile.table.input_names(source);
  plan.final_outputs = profile.table.output_names(source);
  if (ir::Diagnostics refusals = profile.table.check(source, plan); refusals.has_errors()) return refusals;
  return plan;
}

ir::Result<std::vector<ir::Program>> plan_segment_programs(const Profile& profile, const ir::Program& program) {
  ir::Result<SplitPlan> plan = plan_split(profile, program);
  if (!plan) return plan.diagnostics();
  std::vector<ir::Program> programs;
  for (PlannedSegment& segment : plan.value().segments) programs.push_back(std::move(segment.program));
  return programs;
}

}  // namespace gridcheck::planner
