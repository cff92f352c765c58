#include "planner/plan_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "planner/fence_split.hpp"

namespace gridcheck::planner {
namespace {

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string join(const std::vector<std::string>& names) {
  if (names.empty()) return "(none)";
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string indent(std::string_view text, std::string_view prefix) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (!line.empty()) out += prefix;
    out += line;
    out += '\n';
    start = end + 1;
  }
  return out;
}

const BufferRoleRow* row_for(const PlannedSegment& segment, std::string_view name) {
  for (const BufferRoleRow& r : segment.roles)
    if (r.name == name) return &r;
  return nullptr;
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }

// "2 per invocation", "64 per workgroup"
std::string scratch_size(const ScratchBuffer& s) {
  std::string out;
  if (s.words_per_invocation != 0) out = fmt::format("{} per invocation", s.words_per_invocation);
  if (s.words_per_workgroup != 0)
    out += fmt::format("{}{} per workgroup", out.empty() ? "" : " + ", s.words_per_workgroup);
  return out;
}

void render_table(std::string& out, const PlannedSegment& segment) {
  constexpr std::array<std::string_view, 8> kHeader = {"buffer", "binding", "access", "kind",
                                                       "count",  "input",   "output", "rule"};
  std::vector<std::array<std::string, 8>> rows;
  for (const ir::BufferDecl& d : segment.program.buffers()) {
    const std::string name(segment.program.name(d.name));
    const BufferRoleRow* role = row_for(segment, name);
    rows.push_back({name, d.access == ir::BufferAccess::Workgroup ? "-" : std::to_string(d.binding),
                    std::string(ir::name_of(d.access)), std::string(ir::name_of(d.kind)),
                    d.count == 0 ? "runtime" : std::to_string(d.count), yes_no(contains(segment.input_names, name)),
                    yes_no(contains(segment.output_names, name)), role ? std::string(role->decision.reason) : "?"});
  }
  std::array<std::size_t, 8> width{};
  for (std::size_t c = 0; c < 8; ++c) {
    width[c] = kHeader[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](auto cell) {
    std::string l = "    ";
    for (std::size_t c = 0; c < 8; ++c) {
      const std::string text(cell(c));
      l += text;
      if (c + 1 < 8) l += std::string(width[c] - text.size() + 2, ' ');
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line([&](std::size_t c) { return kHeader[c]; });
  for (const auto& r : rows) line([&](std::size_t c) { return std::string_view(r[c]); });
}

}  // namespace

std::string render_plan_text(const SplitPlan& plan, const RenderOptions& options) {
  std::string out;
  const std::size_t n = plan.segments.size();
  out += fmt::format("plan ({}): {} fence{}, {} segment{}", plan.profile, plan.fence_count,
                     plan.fence_count == 1 ? "" : "s", n, n == 1 ? "" : "s");
  if (!plan.contains_fence)
    out += "; no grid_sync fence, so a dispatch runs the program unsplit";
  else if (plan.fence_count == 0 && n == 1 && contains_grid_sync(plan.segments[0].program))
    out += "; every fence is nested under if/loop and stays inside the single segment";
  out += "\n";
  out += fmt::format("caller inputs: {}\nfinal outputs: {}\n", join(plan.caller_inputs), join(plan.final_outputs));
  for (const ScratchBuffer& s : plan.scratch)
    out += fmt::format("scratch: {} ({}[{}]: {})\n", s.name, ir::name_of(s.element), scratch_size(s), s.purpose);
  for (std::size_t k = 0; k < n; ++k) {
    const PlannedSegment& s = plan.segments[k];
    out += fmt::format("\nsegment {} of {}\n", k, n);
    out += fmt::format("  inputs:  {}\n  outputs: {}\n  lets:    {}\n", join(s.input_names), join(s.output_names),
                       join(s.let_prefix));
    if (s.program.buffers().empty())
      out += "  buffers: (none)\n";
    else {
      out += "  buffers:\n";
      render_table(out, s);
    }
    std::vector<std::string> omitted;
    for (const BufferRoleRow& r : s.roles)
      if (r.decision.disposition == Disposition::Omit) omitted.push_back(r.name);
    if (!omitted.empty()) out += fmt::format("  omitted: {}\n", join(omitted));
    if (options.print_program) out += "  ir:\n" + indent(options.print_program(s.program), "    ");
  }
  return out;
}

namespace {

nlohmann::json facts_json(const RoleFacts& f) {
  return {{"access", ir::name_of(f.access)},      {"is_output", f.is_output},
          {"live_out", f.live_out},               {"reads", f.reads},
          {"writes", f.writes},                   {"first_writer", name_of(f.first_writer)},
          {"last_segment", f.last_segment},       {"read_later", f.read_later},
          {"written_later", f.written_later},     {"backend_allocated", f.backend_allocated()}};
}

nlohmann::json decision_json(const RoleDecision& d) {
  nlohmann::json j = {{"disposition", name_of(d.disposition)}, {"rule", d.reason}};
  if (d.disposition == Disposition::Rewrite) {
    j["access"] = ir::name_of(d.access);
    j["kind"] = ir::name_of(d.kind);
    j["is_output"] = d.is_output;
    j["live_out"] = d.live_out;
  }
  return j;
}

}  // namespace

nlohmann::json plan_to_json(const SplitPlan& plan, const RenderOptions& options) {
  nlohmann::json segments = nlohmann::json::array();
  for (std::size_t k = 0; k < plan.segments.size(); ++k) {
    const PlannedSegment& s = plan.segments[k];
    nlohmann::json buffers = nlohmann::json::array();
    for (const ir::BufferDecl& d : s.program.buffers()) {
      const std::string name(s.program.name(d.name));
      const BufferRoleRow* role = row_for(s, name);
      buffers.push_back({{"name", name},
                         {"binding", d.binding},
                         {"access", ir::name_of(d.access)},
                         {"kind", ir::name_of(d.kind)},
                         {"element", ir::name_of(d.element)},
                         {"count", d.count},
                         {"is_output", d.is_output},
                         {"pipeline_live_out", d.pipeline_live_out},
                         {"output_byte_range", d.output_byte_range
                                                   ? nlohmann::json::array({d.output_byte_range->begin,
                                                                            d.output_byte_range->end})
                                                   : nlohmann::json(nullptr)},
                         {"consumes_input", contains(s.input_names, name)},
                         {"produces_output", contains(s.output_names, name)},
                         {"rule", role ? std::string(role->decision.reason) : std::string()}});
    }
    nlohmann::json roles = nlohmann::json::array();
    for (const BufferRoleRow& r : s.roles)
      roles.push_back({{"name", r.name}, {"facts", facts_json(r.facts)}, {"decision", decision_json(r.decision)}});
    nlohmann::json seg = {{"index", k},          {"inputs", s.input_names}, {"outputs", s.output_names},
                          {"let_prefix", s.let_prefix}, {"buffers", buffers},   {"roles", roles}};
    if (options.print_program) seg["ir"] = options.print_program(s.program);
    segments.push_back(std::move(seg));
  }
  nlohmann::json scratch = nlohmann::json::array();
  for (const ScratchBuffer& s : plan.scratch)
    scratch.push_back({{"name", s.name},
                       {"element", ir::name_of(s.element)},
                       {"words_per_invocation", s.words_per_invocation},
                       {"words_per_workgroup", s.words_per_workgroup},
                       {"purpose", s.purpose}});
  return {{"profile", plan.profile},
          {"scratch", scratch},
          {"contains_fence", plan.contains_fence},
          {"fence_count", plan.fence_count},
          {"caller_inputs", plan.caller_inputs},
          {"final_outputs", plan.final_outputs},
          {"segments", segments}};
}

}  // namespace gridcheck::planner
