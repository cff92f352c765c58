#include "planner/segment_plan.hpp"

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

// For each name, the last segment index whose scan reads (writes) it.
std::map<std::string, std::size_t, std::less<>> last_index(std::span<const BufferAccessSet> scans, bool writes) {
  std::map<std::string, std::size_t, std::less<>> last;
  for (std::size_t k = 0; k < scans.size(); ++k)
    for (const std::string& name : writes ? scans[k].writes : scans[k].reads) last[name] = k;
  return last;
}

}  // namespace

ir::Result<SplitPlan> plan_split(const Profile& profile, const ir::Program& program) {
  SplitPlan plan;
  plan.profile = profile.name;
  plan.contains_fence = profile.split.contains_fence(program);
  RawSplit raw = split_on_grid_sync(profile, program);
  plan.fence_count = raw.fence_count;

  std::vector<BufferAccessSet> scans;
  scans.reserve(raw.segments.size());
  for (const ir::Program& segment : raw.segments) scans.push_back(profile.table.scan(segment));
  const FirstWriterMap first_writer = profile.table.first_writer(scans);
  const auto last_reader = last_index(scans, false);
  const auto last_writer = last_index(scans, true);
  const std::size_t n = raw.segments.size();

  plan.segments.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    PlannedSegment planned;
    std::vector<ir::BufferDecl> table;
    table.reserve(program.buffers().size());
    for (const ir::BufferDecl& source : program.buffers()) {
      const std::string_view name = program.name(source.name);
      FirstWriter first = FirstWriter::None;
      if (const auto it = first_writer.find(name); it != first_writer.end())
        first = it->second < k ? FirstWriter::Earlier : it->second == k ? FirstWriter::This : FirstWriter::Later;
      const auto reader = last_reader.find(name);
      const auto writer = last_writer.find(name);
      const RoleFacts facts =
          role_facts(source, scans[k].reads_buffer(name), scans[k].writes_buffer(name), first, k + 1 == n,
                     reader != last_reader.end() && reader->second > k, writer != last_writer.end() && writer->second > k);
      RoleDecision decision = profile.table.role(facts);
      if (decision.disposition != Disposition::Omit) {
        // Segment programs intern the source buffer names first, so the declaration's NameId is
        // re-resolved by spelling.
        ir::BufferDecl decl = apply_decision(decision, source);
        decl.name = raw.segments[k].intern(name);
        table.push_back(decl);
      }
      planned.roles.push_back(BufferRoleRow{std::string(name), facts, decision});
    }
    ir::Program segment_program = std::move(raw.segments[k]);
    segment_program.mutable_buffers() = std::move(table);
    planned.program = std::move(segment_program);
    planned.input_names = profile.table.input_names(planned.program);
    planned.output_names = profile.table.output_names(planned.program);
    planned.let_prefix = std::move(raw.let_prefixes[k]);
    plan.segments.push_back(std::move(planned));
  }
  plan.caller_inputs = profile.table.input_names(program);
  plan.final_outputs = profile.table.output_names(program);
  if (ir::Diagnostics refusals = profile.table.check(program, plan); refusals.has_errors()) return refusals;
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
