#include "props/prove/counterexample_program.hpp"

#include <fmt/format.h>

#include "ir/builder.hpp"
#include "ir/ice.hpp"

namespace gridcheck::props {

namespace {

using Grid2 = std::vector<std::vector<bool>>;

Grid2 every_pass(const Pattern& p, const std::vector<bool>& per_segment) {
  return Grid2(p.passes, per_segment);
}

/// obs (a plain read_write buffer read and written by every segment) under the table: its counter
/// element (read and written every launch) and each slot (written by exactly one launch, never read)
/// must come through the split unchanged for the split's obs words to be predictable.
bool observation_exact(const RoleTable& table, std::uint32_t segments, std::uint32_t passes) {
  const std::uint32_t decl = *model_decl_index(ir::BufferAccess::ReadWrite, false, false);
  Pattern obs = Pattern::empty(decl, segments, passes);
  obs.reads.assign(segments, true);
  obs.writes.assign(segments, true);
  const Grid2 all(passes, std::vector<bool>(segments, true));
  const Grid2 none(passes, std::vector<bool>(segments, false));
  if (simulate_element(table, obs, 0, all, all).first) return false;
  if (simulate_element(table, obs, 1, none, none).first) return false;
  for (std::uint32_t p = 0; p < passes; ++p)
    for (std::uint32_t k = 0; k < segments; ++k) {
      Grid2 once = none;
      once[p][k] = true;
      if (simulate_element(table, obs, 1, none, once).first) return false;
    }
  return true;
}

}  // namespace

Prediction predict(const RoleTable& table, const Pattern& pattern) {
  GC_ASSERT(pattern.valid());
  const ModelDecl& d = pattern.declaration();
  const ElementRun e0 = simulate(table, pattern);
  const ElementRun e1 =
      simulate_element(table, pattern, 1, every_pass(pattern, pattern.reads), every_pass(pattern, pattern.writes));
  Prediction out;
  out.buf_is_output = d.reference_output;
  out.reference_buf = {e0.true_final, e1.true_final};
  const std::uint32_t launches = pattern.passes * pattern.segments;
  out.reference_obs.assign(1 + launches, kUnreadSlot);
  out.reference_obs[0] = launches;
  for (std::uint32_t p = 0; p < pattern.passes; ++p)
    for (std::uint32_t k = 0; k < pattern.segments; ++k)
      if (e0.true_reads[p][k]) out.reference_obs[1 + p * pattern.segments + k] = *e0.true_reads[p][k];

  GC_ASSERT(e0.split_error.has_value() == e1.split_error.has_value());  // errors are buffer-level
  out.split_fails = e0.split_error.has_value();
  if (out.split_fails) {
    out.split_code = std::string(split_code(e0.split_error->kind));
    out.diverges = true;
    return out;
  }
  if (d.final_output) out.split_buf = {e0.split_final.value_or(0), e1.split_final.value_or(0)};
  out.split_obs_exact = observation_exact(table, pattern.segments, pattern.passes);
  if (out.split_obs_exact) {
    out.split_obs.assign(1 + launches, kUnreadSlot);
    out.split_obs[0] = launches;
    for (std::uint32_t p = 0; p < pattern.passes; ++p)
      for (std::uint32_t k = 0; k < pattern.segments; ++k)
        if (e0.split_reads[p][k]) out.split_obs[1 + p * pattern.segments + k] = *e0.split_reads[p][k];
  }
  out.diverges = (d.final_output && out.split_buf != out.reference_buf) ||
                 (out.split_obs_exact && out.split_obs != out.reference_obs) || !out.split_obs_exact;
  return out;
}

ir::Case render_counterexample(const RoleTable& table, const Pattern& pattern, const RenderOptions& options) {
  GC_ASSERT(pattern.valid());
  const ModelDecl& d = pattern.declaration();
  const std::uint32_t n_seg = pattern.segments, n_pass = pattern.passes;
  using ir::ScalarType;

  ir::Builder b({1, 1, 1});
  const ir::Buf buf = b.storage("buf", 0, d.access, ScalarType::U32, 2);
  b.decl(buf).is_output = d.is_output;
  b.decl(buf).pipeline_live_out = d.live_out;
  const ir::Buf obs = b.read_write("obs", 1, ScalarType::U32, 1 + n_seg * n_pass);

  std::vector<ir::S> entry;
  for (std::uint32_t k = 0; k < n_seg; ++k) {
    if (k > 0) entry.push_back(b.grid_sync());
    const std::string n = fmt::format("n{}", k);
    entry.push_back(b.let(n, b.load(obs, b.u32(0))));
    if (pattern.reads[k]) entry.push_back(b.let(fmt::format("r{}", k), b.load(buf, b.u32(1))));
    // Element 0: group the passes by what the segment does to it.
    for (int shape = 1; shape <= 3; ++shape) {
      const bool reads = (shape & 1) != 0, writes = (shape & 2) != 0;
      std::vector<std::uint32_t> passes;
      for (std::uint32_t p = 0; p < n_pass; ++p)
        if (pattern.element_read[p][k] == reads && pattern.element_write[p][k] == writes) passes.push_back(p);
      if (passes.empty()) continue;
      std::vector<ir::S> body;
      // The launch number n<k> = p·K + k picks the slot and the written literal (role_model.hpp).
      if (reads) body.push_back(b.store(obs, b.var(n) + b.u32(1), b.load(buf, b.u32(0))));
      if (writes) body.push_back(b.store(buf, b.u32(0), b.var(n) + b.u32(written_word(0, 0, 0, n_seg))));
      if (passes.size() == n_pass) {
        for (const ir::S& s : body) entry.push_back(s);
      } else {
        ir::E cond = b.var(n) == b.u32(passes[0] * n_seg + k);
        for (std::size_t i = 1; i < passes.size(); ++i) cond = cond || (b.var(n) == b.u32(passes[i] * n_seg + k));
        entry.push_back(b.if_(cond, body));
      }
    }
    if (pattern.writes[k]) entry.push_back(b.store(buf, b.u32(1), b.var(n) + b.u32(written_word(1, 0, 0, n_seg))));
    entry.push_back(b.store(obs, b.u32(0), b.var(n) + b.u32(1)));
  }

  ir::Case c;
  c.program = b.wrapped(entry);
  c.grid = std::array<std::uint32_t, 3>{1, 1, 1};
  c.fixpoint = n_pass;
  if (d.reference_input) {
    ir::InputData in;
    in.buffer = "buf";
    in.values = {caller_word(0), caller_word(1)};
    c.inputs.push_back(in);
  }
  {
    ir::InputData in;
    in.buffer = "obs";
    in.values.assign(1 + n_seg * n_pass, kUnreadSlot);
    in.values[0] = 0;
    c.inputs.push_back(in);
  }

  const Prediction pred = predict(table, pattern);
  const ElementRun e0 = simulate(table, pattern);
  c.name = options.name.empty() ? fmt::format("prove-{}-{}-k{}-n{}", options.profile, d.name(), n_seg, n_pass)
                                : options.name;
  for (char& ch : c.name)
    if (ch == '+') ch = '-';
  c.description = options.title;
  c.header_comments.push_back(
      fmt::format("Generated by `gridcheck prove` from a counterexample of the buffer-role model (docs/proof.md)."));
  c.header_comments.push_back(fmt::format("pattern: {}", pattern.to_string()));
  for (std::uint32_t k = 0; k < n_seg; ++k) {
    const planner::RoleFacts f = segment_facts(pattern, k);
    const TabulatedRole* row = table.find(f);
    GC_ASSERT(row != nullptr);
    c.header_comments.push_back(fmt::format("segment {}: buf reads={} writes={} first_writer={} last={} read_later={} "
                                            "written_later={} -> {}",
                                            k, f.reads, f.writes, planner::name_of(f.first_writer), f.last_segment,
                                            f.read_later, f.written_later, planner::to_string(row->decision)));
  }
  c.header_comments.push_back(fmt::format("violation: {}", e0.first.to_string()));
  c.meta.emplace_back("origin", "gridcheck prove");
  c.meta.emplace_back("declaration", d.name());
  for (const auto& kv : options.meta) c.meta.push_back(kv);

  using ir::Oracle;
  using ir::Verdict;
  c.expectations.push_back(ir::Expectation{Oracle::Reference, "", Verdict::Ok, "", {}});
  if (pred.buf_is_output)
    c.outputs.push_back(ir::ExpectedOutput{Oracle::Reference, "", "buf", pred.reference_buf, std::nullopt, {}});
  c.outputs.push_back(ir::ExpectedOutput{Oracle::Reference, "", "obs", pred.reference_obs, std::nullopt, {}});
  c.expectations.push_back(
      ir::Expectation{Oracle::SplitCpu, options.profile, pred.diverges ? Verdict::Diverge : Verdict::Match,
                      pred.diverges ? "planner" : "", {}});
  if (!pred.split_fails) {
    if (pred.buf_is_output)
      c.outputs.push_back(ir::ExpectedOutput{Oracle::SplitCpu, options.profile, "buf", pred.split_buf, std::nullopt, {}});
    if (pred.split_obs_exact)
      c.outputs.push_back(ir::ExpectedOutput{Oracle::SplitCpu, options.profile, "obs", pred.split_obs, std::nullopt, {}});
  } else {
    c.meta.emplace_back("split_error", pred.split_code);
  }
  return c;
}

}  // namespace gridcheck::props
