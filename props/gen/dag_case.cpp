#include "props/gen/dag_case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <iterator>
#include <map>
#include <set>

#include "ir/builder.hpp"
#include "ir/equality.hpp"
#include "planner/program_copy.hpp"

namespace gridcheck::props {
namespace {

constexpr std::string_view kWavesKey = "dag_waves";
constexpr std::string_view kEdgesKey = "dag_edges";
constexpr std::string_view kOrderingKey = "dag_ordering_edges";
constexpr std::string_view kWavePrefix = "wave.";

/// More trailing fences than this past the last group are not materialised (a miscounting plan
/// may report any number).
constexpr std::size_t kMaxExtraFences = 8;

const std::string* meta(const ir::Case& c, std::string_view key) {
  for (const auto& [k, v] : c.meta)
    if (k == key) return &v;
  return nullptr;
}

/// K of a `region "wave.K"`; nullopt for any other statement.
std::optional<std::size_t> wave_of(const ir::Program& p, ir::StmtId id) {
  const ir::Stmt& s = p.stmt(id);
  if (s.kind != ir::StmtKind::Region) return std::nullopt;
  const std::string_view generator = p.name(s.names[0]);
  if (generator.substr(0, kWavePrefix.size()) != kWavePrefix) return std::nullopt;
  const std::string_view digits = generator.substr(kWavePrefix.size());
  std::size_t k = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) return std::nullopt;
  return k;
}

/// Every wave region under `list` (not descending into wave regions), in program order.
void collect_waves(const ir::Program& p, std::span<const ir::StmtId> list,
                   std::vector<std::pair<std::size_t, ir::StmtId>>& out) {
  for (ir::StmtId id : list) {
    if (auto k = wave_of(p, id)) {
      out.emplace_back(*k, id);
      continue;
    }
    const ir::Stmt& s = p.stmt(id);
    if (!s.has_body()) continue;
    collect_waves(p, p.list(s.body), out);
    collect_waves(p, p.list(s.otherwise), out);
  }
}

/// The statements inside the root region (or the raw entry when there is none).
std::span<const ir::StmtId> kernel_body(const ir::Program& p) {
  const auto entry = p.entry_stmts();
  if (entry.size() == 1) {
    const ir::Stmt& s = p.stmt(entry[0]);
    if (s.kind == ir::StmtKind::Region && p.name(s.names[0]) == ir::kRootRegionGenerator) return p.list(s.body);
  }
  return entry;
}

std::string join_ids(const std::vector<std::size_t>& ids) {
  std::string out;
  for (std::size_t k : ids) fmt::format_to(std::back_inserter(out), "{}{}", out.empty() ? "" : " ", k);
  return out;
}

ir::Diagnostic dag_error(const ir::Case& c, std::string code, std::string message) {
  return ir::Diagnostic{ir::Severity::Error, std::move(code), c.file, {}, std::move(message), {}};
}

}  // namespace

bool is_dag_case(const ir::Case& c) { return meta(c, kWavesKey) != nullptr; }

std::string describe_plan(const MegakernelPlan& plan) {
  if (!plan.ok()) {
    const ir::Diagnostic d = planner::to_diagnostic(plan.error());
    return fmt::format("{}: {}", d.code, d.message);
  }
  std::string groups;
  for (const planner::BarrierGroup& g : plan->groups)
    fmt::format_to(std::back_inserter(groups), "{}[{}]", groups.empty() ? "" : " ", join_ids(g.waves));
  return fmt::format("[{}] barriers {}", groups, plan->global_barriers);
}

ir::Case fuse_dag(const WaveDag& dag, const MegakernelPlan& plan, std::string_view planner_name, bool named) {
  const ir::Program& from = dag.base->program;
  const std::size_t n = dag.wave_count();
  // The kernel is built in a copy of the base's arena (copied in one piece: plain node vectors, the
  // name table, the same buffers): each wave slot holds the wave's own region, and only a wave placed
  // a second time gets a deep copy (a private subtree, as a node-by-node copy gave every slot). The
  // base's other nodes stay behind unreachable; everything that checks, runs, prints or hashes a
  // program walks its entry.
  ir::Builder b(from.workgroup_size());
  b.program() = from;
  std::vector<bool> placed(n, false);
  const auto wave = [&](std::size_t k) {
    if (placed[k]) return ir::S{planner::clone_stmt(b.program(), dag.waves[k])};
    placed[k] = true;
    return ir::S{dag.waves[k]};
  };

  std::vector<ir::S> entry;
  std::vector<bool> scheduled(n, false);
  std::size_t groups = 0;
  if (plan.ok()) {
    groups = plan->groups.size();
    for (std::size_t g = 0; g < groups; ++g) {
      for (std::size_t k : plan->groups[g].waves) {
        if (k >= n) continue;  // names no wave: nothing to run
        entry.push_back(wave(k));
        scheduled[k] = true;
      }
      if (g < plan->global_barriers) entry.push_back(b.grid_sync());
    }
    const std::size_t extra = plan->global_barriers > groups ? plan->global_barriers - groups : 0;
    for (std::size_t i = 0; i < std::min(extra, kMaxExtraFences); ++i) entry.push_back(b.grid_sync());
  }
  std::vector<ir::S> kept;
  for (std::size_t k = 0; k < n; ++k)
    if (!scheduled[k]) kept.push_back(wave(k));
  if (!kept.empty()) entry.push_back(b.if_(b.boolean(false), kept));

  ir::Case c;
  const ir::S root = b.region(ir::kRootRegionGenerator, entry);
  b.program().set_entry(std::span<const ir::StmtId>(&root.id, 1));
  c.program = std::move(b.program());  // not Builder::raw, which copies it
  c.grid = dag.base->grid;
  c.fixpoint = dag.base->fixpoint;
  c.oob = dag.base->oob;
  c.uninit = dag.base->uninit;
  c.inputs = dag.base->inputs;
  std::vector<std::size_t> ids(n);
  for (std::size_t k = 0; k < n; ++k) ids[k] = k;
  c.meta.emplace_back(kWavesKey, join_ids(ids));
  c.meta.emplace_back(kEdgesKey, format_edges(dag.edges));
  if (!dag.ordering_edges.empty()) c.meta.emplace_back(kOrderingKey, format_edges(dag.ordering_edges));
  c.meta.emplace_back("dag_shape", dag.shape);
  c.meta.emplace_back("dag_planner", std::string(planner_name));
  c.meta.emplace_back("dag_plan", describe_plan(plan));
  if (named)
    c.name = fmt::format("dag-{}-{:08x}", dag.shape, static_cast<std::uint32_t>(ir::content_hash(c.program)));
  c.description = fmt::format("{} waves, {} edges ({}) fused by {}: {}", n, dag.edges.size(), dag.shape,
                              planner_name, plan.ok() ? fmt::format("{} groups, {} barriers", groups,
                                                                    plan->global_barriers)
                                                      : std::string("plan refused"));
  return c;
}

namespace {

/// The statements fuse_dag writes around the waves, built once: the root region, a fence and the
/// `if false` block.
struct FusionFrame {
  ir::Program program;
  ir::StmtId root, fence, kept;
  FusionFrame() {
    ir::Builder b({1, 1, 1});
    const ir::S f = b.grid_sync();
    const ir::S k = b.if_(b.boolean(false), std::vector<ir::S>{});
    const ir::S r = b.region(ir::kRootRegionGenerator, {f, k});
    program = b.raw({r});
    root = r.id;
    fence = f.id;
    kept = k.id;
  }
};

bool same_name(const ir::Program& a, ir::NameId x, const ir::Program& b, ir::NameId y) {
  if (x == ir::kNoName || y == ir::kNoName) return x == y;
  return a.name(x) == b.name(y);
}

/// Equal canonical streams for two operand-free expressions (false also for any with operands).
bool same_leaf(const ir::Program& a, ir::ExprId x, const ir::Program& b, ir::ExprId y) {
  if (x == ir::kNoExpr || y == ir::kNoExpr) return x == y;
  const ir::Expr& ea = a.expr(x);
  const ir::Expr& eb = b.expr(y);
  for (const ir::Expr* e : {&ea, &eb})
    for (ir::ExprId operand : e->operands)
      if (operand != ir::kNoExpr) return false;
  if (ea.kind != eb.kind || ea.op != eb.op || ea.ordering != eb.ordering) return false;
  switch (ea.kind) {
    case ir::ExprKind::Var:
    case ir::ExprKind::Load:
    case ir::ExprKind::BufLen:
    case ir::ExprKind::Atomic: return same_name(a, ir::NameId{ea.payload}, b, ir::NameId{eb.payload});
    default: return ea.payload == eb.payload;
  }
}

/// Equal canonical streams for everything of two statements but their nested lists (ir/equality.cpp).
bool same_head(const ir::Program& a, ir::StmtId x, const ir::Program& b, ir::StmtId y) {
  const ir::Stmt& sa = a.stmt(x);
  const ir::Stmt& sb = b.stmt(y);
  if (sa.kind != sb.kind || sa.op != sb.op || sa.literal != sb.literal || sa.literal2 != sb.literal2) return false;
  for (std::size_t i = 0; i < sa.names.size(); ++i)
    if (!same_name(a, sa.names[i], b, sb.names[i])) return false;
  for (std::size_t i = 0; i < sa.exprs.size(); ++i)
    if (!same_leaf(a, sa.exprs[i], b, sb.exprs[i])) return false;
  return true;
}

}  // namespace

bool kernel_is_fusion(const WaveDag& dag, const MegakernelPlan& plan) {
  static const FusionFrame frame;
  const ir::Program& p = dag.base->program;
  const std::size_t n = dag.wave_count();
  const auto entry = p.entry_stmts();
  if (entry.size() != 1 || !same_head(p, entry[0], frame.program, frame.root)) return false;
  const ir::Stmt& root = p.stmt(entry[0]);
  if (root.otherwise.count != 0) return false;
  const auto items = p.list(root.body);
  std::size_t at = 0;
  const auto fence = [&] { return at < items.size() && same_head(p, items[at++], frame.program, frame.fence); };
  std::vector<bool> scheduled(n, false);
  if (plan.ok()) {
    const std::size_t groups = plan->groups.size();
    for (std::size_t g = 0; g < groups; ++g) {
      for (std::size_t k : plan->groups[g].waves) {
        if (k >= n) continue;
        if (at >= items.size() || items[at++] != dag.waves[k]) return false;
        scheduled[k] = true;
      }
      if (g < plan->global_barriers && !fence()) return false;
    }
    const std::size_t extra = plan->global_barriers > groups ? plan->global_barriers - groups : 0;
    for (std::size_t i = 0; i < std::min(extra, kMaxExtraFences); ++i)
      if (!fence()) return false;
  }
  std::vector<ir::StmtId> kept;
  for (std::size_t k = 0; k < n; ++k)
    if (!scheduled[k]) kept.push_back(dag.waves[k]);
  if (!kept.empty()) {
    if (at >= items.size() || !same_head(p, items[at], frame.program, frame.kept)) return false;
    const ir::Stmt& block = p.stmt(items[at++]);
    const auto body = p.list(block.body);
    if (block.otherwise.count != 0 || !std::equal(body.begin(), body.end(), kept.begin(), kept.end())) return false;
  }
  return at == items.size();
}

ir::Case fuse_dag(const WaveDag& dag, const planner::Profile& profile) {
  planner::BarrierScratch scratch;
  return fuse_dag(dag, profile, scratch);
}

ir::Case fuse_dag(const WaveDag& dag, const planner::Profile& profile, planner::BarrierScratch& scratch) {
  const MegakernelPlan plan = profile.megakernel(dag.wave_count(), dag.edges, scratch);
  return fuse_dag(dag, plan, profile.name);
}

ir::Result<WaveDag> read_dag(const ir::Case& c) {
  const std::string* waves_text = meta(c, kWavesKey);
  if (waves_text == nullptr) return dag_error(c, "G200", "the case has no dag_waves meta line");
  std::vector<std::size_t> ids;
  {
    const std::string_view text = *waves_text;
    std::size_t i = 0;
    while (i < text.size()) {
      if (text[i] == ' ') {
        ++i;
        continue;
      }
      std::size_t k = 0;
      const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), k);
      if (ec != std::errc() || (end != text.data() + text.size() && *end != ' '))
        return dag_error(c, "G200", fmt::format("dag_waves '{}' is not a list of wave ids", text));
      ids.push_back(k);
      i = static_cast<std::size_t>(end - text.data());
    }
  }
  const std::size_t n = ids.size();
  {
    std::vector<std::size_t> sorted = ids;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < n; ++k)
      if (sorted[k] != k) return dag_error(c, "G200", fmt::format("dag_waves must list the ids 0..{} once each", n));
  }
  WaveDag dag;
  for (std::string_view key : {kEdgesKey, kOrderingKey}) {
    const std::string* text = meta(c, key);
    if (text == nullptr) {
      if (key == kEdgesKey) return dag_error(c, "G201", "the case has no dag_edges meta line");
      continue;
    }
    auto edges = parse_edges(*text);
    if (!edges) return dag_error(c, "G201", fmt::format("{} '{}' is not a list of edges such as \"0>2 1>2\"", key, *text));
    for (const planner::WaveDependency& e : *edges)
      if (e.before >= n || e.after >= n)
        return dag_error(c, "G201", fmt::format("{} edge {}>{} names a wave outside 0..{}", key, e.before, e.after, n));
    (key == kEdgesKey ? dag.edges : dag.ordering_edges) = std::move(*edges);
  }
  if (!topological_order(n, dag.edges))
    return dag_error(c, "G204", "the dag_edges form a cycle (or a self-edge), so the waves have no order");

  std::vector<std::pair<std::size_t, ir::StmtId>> found;
  collect_waves(c.program, c.program.entry_stmts(), found);
  dag.waves.assign(n, ir::StmtId{});
  std::vector<bool> seen(n, false);
  for (const auto& [k, id] : found) {
    if (k >= n) return dag_error(c, "G203", fmt::format("region \"wave.{}\" names no wave of the {}-wave DAG", k, n));
    if (seen[k]) continue;
    seen[k] = true;
    dag.waves[k] = id;
  }
  for (std::size_t k = 0; k < n; ++k)
    if (!seen[k]) return dag_error(c, "G202", fmt::format("wave {} has no region \"wave.{}\" in the kernel", k, k));
  dag.base = DagBase::borrowing(c);
  if (const std::string* shape = meta(c, "dag_shape")) dag.shape = *shape;
  if (const std::string* history = meta(c, kScratchHistoryKey)) {
    auto inputs = parse_history(*history);
    if (!inputs)
      return dag_error(c, "G205", fmt::format("{} '{}' is not a list of planner inputs such as \"3:0>1 1>2; 5:\"",
                                              kScratchHistoryKey, *history));
    dag.scratch_history = std::move(*inputs);
  }
  return dag;
}

ir::Result<WaveDag> read_dag(ir::Case&& c) {
  ir::Result<WaveDag> dag = read_dag(static_cast<const ir::Case&>(c));
  if (dag.ok()) dag.value().base = DagBase(std::move(c));  // the same program: `waves` stay valid
  return dag;
}

FusedSchedule fused_schedule(const ir::Case& c) {
  const ir::Program& p = c.program;
  FusedSchedule s;
  std::vector<std::size_t> current;
  for (ir::StmtId id : kernel_body(p)) {
    if (auto k = wave_of(p, id)) {
      current.push_back(*k);
      continue;
    }
    const ir::Stmt& stmt = p.stmt(id);
    if (stmt.is_fence()) {
      s.phases.push_back(std::move(current));
      current.clear();
      ++s.fences;
      continue;
    }
    std::vector<std::pair<std::size_t, ir::StmtId>> nested;
    collect_waves(p, std::span<const ir::StmtId>(&id, 1), nested);
    for (const auto& [k, unused] : nested) s.unscheduled.push_back(k);
  }
  s.phases.push_back(std::move(current));
  return s;
}

std::vector<PlanProblem> plan_problems(const FusedSchedule& schedule, std::size_t wave_count,
                                       const std::vector<planner::WaveDependency>& edges) {
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> phase_of(wave_count, kNone), count(wave_count, 0);
  for (std::size_t ph = 0; ph < schedule.phases.size(); ++ph)
    for (std::size_t k : schedule.phases[ph]) {
      if (k >= wave_count) continue;
      if (phase_of[k] == kNone) phase_of[k] = ph;
      ++count[k];
    }
  std::vector<PlanProblem> same, reversed, missing, duplicated;
  std::set<std::pair<std::size_t, std::size_t>> seen;
  for (const planner::WaveDependency& e : edges) {
    if (e.before >= wave_count || e.after >= wave_count || !seen.insert({e.before, e.after}).second) continue;
    const std::size_t pb = phase_of[e.before], pa = phase_of[e.after];
    if (pb == kNone || pa == kNone) continue;
    if (pb == pa) same.push_back({"same-phase", fmt::format("{}>{}", e.before, e.after)});
    if (pb > pa) reversed.push_back({"reversed", fmt::format("{}>{}", e.before, e.after)});
  }
  for (std::size_t k = 0; k < wave_count; ++k) {
    if (count[k] == 0) missing.push_back({"missing", std::to_string(k)});
    if (count[k] > 1) duplicated.push_back({"duplicated", std::to_string(k)});
  }
  std::vector<PlanProblem> out;
  for (auto* list : {&same, &reversed, &missing, &duplicated}) out.insert(out.end(), list->begin(), list->end());
  return out;
}

std::vector<std::string> problem_kinds(const std::vector<PlanProblem>& problems) {
  std::vector<std::string> kinds;
  for (const PlanProblem& p : problems)
    if (kinds.empty() || kinds.back() != p.kind) kinds.push_back(p.kind);
  return kinds;
}

std::string describe(const std::vector<PlanProblem>& problems) {
  if (problems.empty()) return "none";
  std::string out;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    if (i == 0 || problems[i].kind != problems[i - 1].kind) out += fmt::format("{}{}", i == 0 ? "" : "; ", problems[i].kind);
    out += " " + problems[i].text;
  }
  return out;
}

}  // namespace gridcheck::props
