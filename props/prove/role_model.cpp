#include "props/prove/role_model.hpp"

#include <fmt/format.h>

#include "ir/abi.hpp"
#include "ir/ice.hpp"
#include "props/prove/role_variants.hpp"

namespace gridcheck::props {

using planner::FirstWriter;
using planner::RoleFacts;

// ------------------------------------------------------------------ source declarations

std::string ModelDecl::name() const {
  std::string s(ir::name_of(access));
  if (is_output) s += "+output";
  if (live_out) s += "+live_out";
  return s;
}

ir::BufferDecl ModelDecl::as_decl() const {
  ir::BufferDecl d;
  d.access = access;
  d.is_output = is_output;
  d.pipeline_live_out = live_out;
  return d;
}

namespace {

constexpr ir::BufferAccess kModelAccesses[] = {ir::BufferAccess::ReadOnly, ir::BufferAccess::ReadWrite,
                                               ir::BufferAccess::WriteOnly, ir::BufferAccess::Uniform};

std::vector<ModelDecl> make_model_decls() {
  std::vector<ModelDecl> all;
  for (ir::BufferAccess access : kModelAccesses)
    for (int bits = 0; bits < 4; ++bits) {
      ModelDecl m;
      m.access = access;
      m.is_output = (bits & 2) != 0;
      m.live_out = (bits & 1) != 0;
      const ir::BufferDecl d = m.as_decl();
      m.caller_input = ir::is_dispatch_input(d);
      m.reference_input = ir::is_reference_input(d);
      m.backend_allocated = ir::is_backend_allocated_output(d);
      m.final_output = ir::is_dispatch_output(d);
      m.reference_output = ir::is_reference_output(d);
      m.writable = access == ir::BufferAccess::ReadWrite || access == ir::BufferAccess::WriteOnly;
      m.in_scope = m.caller_input == m.reference_input && m.final_output == m.reference_output;
      all.push_back(m);
    }
  GC_ASSERT(all.size() == kModelDeclCount);
  return all;
}

}  // namespace

std::span<const ModelDecl> model_decls() {
  static const std::vector<ModelDecl> decls = make_model_decls();
  return decls;
}

std::optional<std::uint32_t> model_decl_index(ir::BufferAccess access, bool is_output, bool live_out) {
  for (std::uint32_t a = 0; a < 4; ++a)
    if (kModelAccesses[a] == access) return a * 4 + (is_output ? 2 : 0) + (live_out ? 1 : 0);
  return std::nullopt;
}

// ------------------------------------------------------------------ the tabulated rule

RoleBits role_bits(const planner::RoleDecision& decision, const ModelDecl& source) {
  RoleBits bits;
  if (decision.disposition == planner::Disposition::Omit) return bits;
  const ir::BufferDecl segment_decl = planner::apply_decision(decision, source.as_decl());
  bits.declared = true;
  bits.input = segment_decl.access != ir::BufferAccess::Workgroup && ir::is_dispatch_input(segment_decl);
  bits.output = ir::is_dispatch_output(segment_decl);
  bits.writable =
      segment_decl.access == ir::BufferAccess::ReadWrite || segment_decl.access == ir::BufferAccess::WriteOnly;
  return bits;
}

RoleTable RoleTable::tabulate(const planner::RoleRule& rule) {
  RoleTable table;
  planner::for_each_role_facts([&](const RoleFacts& f) {
    if (f.access == ir::BufferAccess::Workgroup) return;
    const std::optional<std::uint32_t> decl = model_decl_index(f.access, f.is_output, f.live_out);
    GC_ASSERT(decl.has_value());
    const planner::RoleDecision decision = rule(f);
    const std::uint32_t key = facts_key(f);
    if (table.index_.size() <= key) table.index_.resize(key + 1, -1);
    table.index_[key] = static_cast<std::int32_t>(table.rows_.size());
    table.rows_.push_back(TabulatedRole{f, decision, role_bits(decision, model_decls()[*decl])});
  });
  return table;
}

const TabulatedRole* RoleTable::find(const RoleFacts& facts) const {
  const std::uint32_t key = facts_key(facts);
  if (key >= index_.size() || index_[key] < 0) return nullptr;
  const TabulatedRole& row = rows_[static_cast<std::size_t>(index_[key])];
  return row.facts == facts ? &row : nullptr;
}

std::string short_description(const planner::RoleDecision& d) {
  std::string s;
  switch (d.disposition) {
    case planner::Disposition::Omit: s = "omit"; break;
    case planner::Disposition::KeepUnchanged: s = "keep"; break;
    case planner::Disposition::Rewrite:
      s = std::string(ir::name_of(d.access));
      if (d.is_output) s += "+output";
      if (d.live_out) s += "+live_out";
      if (d.kind != planner::rederived_kind(d.access)) s += fmt::format(" kind={}", ir::name_of(d.kind));
      break;
  }
  if (!d.reason.empty()) s += fmt::format(" ({})", d.reason);
  return s;
}

namespace {

struct TableField {
  const char* name;
  int count;
  int (*get)(const RoleFacts&);
  std::string (*value)(int);
};

std::string bool_value(int v) { return v ? "1" : "0"; }
std::string fw_value(int v) { return std::string(planner::name_of(static_cast<FirstWriter>(v))); }

const TableField kTableFields[] = {
    {"r", 2, [](const RoleFacts& f) { return int(f.reads); }, bool_value},
    {"w", 2, [](const RoleFacts& f) { return int(f.writes); }, bool_value},
    {"fw", 4, [](const RoleFacts& f) { return int(f.first_writer); }, fw_value},
    {"last", 2, [](const RoleFacts& f) { return int(f.last_segment); }, bool_value},
    {"rl", 2, [](const RoleFacts& f) { return int(f.read_later); }, bool_value},
    {"wl", 2, [](const RoleFacts& f) { return int(f.written_later); }, bool_value},
};
constexpr std::size_t kTableFieldCount = std::size(kTableFields);

// Lines for the rows under a partial assignment: each line is the field columns from `level` on
// plus "-> decision".
std::vector<std::string> describe_rows(const std::vector<const TabulatedRole*>& rows, std::size_t level) {
  if (rows.empty()) return {};
  bool same = true;
  const std::string first = short_description(rows[0]->decision);
  for (const TabulatedRole* r : rows) same = same && short_description(r->decision) == first;
  if (same || level == kTableFieldCount) {
    std::string line;
    for (std::size_t i = level; i < kTableFieldCount; ++i) line += fmt::format("{}=* ", kTableFields[i].name);
    line.append("-> ").append(first);
    return {line};
  }
  const TableField& field = kTableFields[level];
  // Children by value, then values with identical children merged.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // values, lines
  for (int v = 0; v < field.count; ++v) {
    std::vector<const TabulatedRole*> sub;
    for (const TabulatedRole* r : rows)
      if (field.get(r->facts) == v) sub.push_back(r);
    std::vector<std::string> lines = describe_rows(sub, level + 1);
    if (lines.empty()) continue;  // no consistent facts with this value
    bool merged = false;
    for (auto& g : groups)
      if (g.second == lines) {
        g.first.append("|").append(field.value(v));
        merged = true;
      }
    if (!merged) groups.emplace_back(field.value(v), std::move(lines));
  }
  std::vector<std::string> out;
  for (const auto& [values, lines] : groups)
    for (const std::string& line : lines) out.push_back(fmt::format("{}={} {}", field.name, values, line));
  return out;
}

}  // namespace

std::vector<std::string> describe_table(const RoleTable& table) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // declaration names, lines
  for (std::uint32_t decl = 0; decl < kModelDeclCount; ++decl) {
    const ModelDecl& d = model_decls()[decl];
    std::vector<const TabulatedRole*> rows;
    for (const TabulatedRole& r : table.rows())
      if (model_decl_index(r.facts.access, r.facts.is_output, r.facts.live_out) == decl) rows.push_back(&r);
    std::vector<std::string> lines = describe_rows(rows, 0);
    const std::string name = fmt::format("{}{}", d.name(), d.in_scope ? "" : " [outside the model: G012]");
    bool merged = false;
    for (auto& g : groups)
      if (g.second == lines) {
        g.first.append(", ").append(name);
        merged = true;
      }
    if (!merged) groups.emplace_back(name, std::move(lines));
  }
  std::vector<std::string> out;
  for (const auto& [names, lines] : groups) {
    out.push_back(fmt::format("{}:", names));
    for (const std::string& line : lines) out.push_back(fmt::format("  {}", line));
  }
  return out;
}

// ------------------------------------------------------------------ patterns

Pattern Pattern::empty(std::uint32_t decl, std::uint32_t segments, std::uint32_t passes) {
  Pattern p;
  p.decl = decl;
  p.segments = segments;
  p.passes = passes;
  p.reads.assign(segments, false);
  p.writes.assign(segments, false);
  p.element_read.assign(passes, std::vector<bool>(segments, false));
  p.element_write.assign(passes, std::vector<bool>(segments, false));
  return p;
}

bool Pattern::valid() const {
  if (decl >= kModelDeclCount || segments == 0 || passes == 0) return false;
  if (!declaration().in_scope) return false;
  if (reads.size() != segments || writes.size() != segments) return false;
  if (element_read.size() != passes || element_write.size() != passes) return false;
  for (std::uint32_t k = 0; k < segments; ++k)
    if (writes[k] && !declaration().writable) return false;
  for (std::uint32_t p = 0; p < passes; ++p) {
    if (element_read[p].size() != segments || element_write[p].size() != segments) return false;
    for (std::uint32_t k = 0; k < segments; ++k) {
      if (element_read[p][k] && !reads[k]) return false;
      if (element_write[p][k] && !writes[k]) return false;
    }
  }
  return true;
}

std::string Pattern::to_string() const {
  std::string s = fmt::format("{} K={} N={}", declaration().name(), segments, passes);
  for (std::uint32_t k = 0; k < segments; ++k) {
    s += fmt::format(" | seg{} {}{}", k, reads[k] ? "r" : "-", writes[k] ? "w" : "-");
    for (std::uint32_t p = 0; p < passes; ++p) {
      const bool r = element_read[p][k], w = element_write[p][k];
      s += fmt::format(" p{}:{}", p, r && w ? "rw" : r ? "r" : w ? "w" : "-");
    }
  }
  return s;
}

void for_each_pattern(std::uint32_t decl, std::uint32_t segments, std::uint32_t passes,
                      const std::function<void(const Pattern&)>& fn) {
  const bool writable = model_decls()[decl].writable;
  const std::uint32_t scan_bits = 2 * segments, element_bits = 2 * segments * passes;
  for (std::uint32_t scan = 0; scan < (1u << scan_bits); ++scan) {
    Pattern p = Pattern::empty(decl, segments, passes);
    bool ok = true;
    for (std::uint32_t k = 0; k < segments; ++k) {
      p.reads[k] = (scan >> (2 * k)) & 1;
      p.writes[k] = (scan >> (2 * k + 1)) & 1;
      ok = ok && (writable || !p.writes[k]);
    }
    if (!ok) continue;
    for (std::uint32_t el = 0; el < (1u << element_bits); ++el) {
      bool fits = true;
      for (std::uint32_t pass = 0; pass < passes; ++pass)
        for (std::uint32_t k = 0; k < segments; ++k) {
          const std::uint32_t bit = 2 * (pass * segments + k);
          p.element_read[pass][k] = (el >> bit) & 1;
          p.element_write[pass][k] = (el >> (bit + 1)) & 1;
          fits = fits && (!p.element_read[pass][k] || p.reads[k]) && (!p.element_write[pass][k] || p.writes[k]);
        }
      if (fits) fn(p);
    }
  }
}

RoleFacts segment_facts(const Pattern& pattern, std::uint32_t k) {
  GC_ASSERT(k < pattern.segments);
  const ModelDecl& d = pattern.declaration();
  std::optional<std::uint32_t> first;
  for (std::uint32_t j = 0; j < pattern.segments && !first; ++j)
    if (pattern.writes[j]) first = j;
  FirstWriter fw = FirstWriter::None;
  if (first) fw = *first < k ? FirstWriter::Earlier : *first == k ? FirstWriter::This : FirstWriter::Later;
  bool read_later = false, written_later = false;
  for (std::uint32_t j = k + 1; j < pattern.segments; ++j) {
    read_later = read_later || pattern.reads[j];
    written_later = written_later || pattern.writes[j];
  }
  return planner::role_facts(d.as_decl(), pattern.reads[k], pattern.writes[k], fw, k + 1 == pattern.segments,
                             read_later, written_later);
}

// ------------------------------------------------------------------ the model's semantics

std::string_view name_of(ViolationKind kind) {
  switch (kind) {
    case ViolationKind::None: return "none";
    case ViolationKind::WrongRead: return "wrong-read";
    case ViolationKind::UndeclaredReference: return "undeclared-reference";
    case ViolationKind::WriteNotWritable: return "write-not-writable";
    case ViolationKind::NoBytes: return "no-bytes";
    case ViolationKind::FinalMissing: return "final-missing";
    case ViolationKind::FinalWrong: return "final-wrong";
  }
  GC_ICE("unknown ViolationKind");
}

std::string_view split_code(ViolationKind kind) {
  switch (kind) {
    case ViolationKind::UndeclaredReference:
    case ViolationKind::WriteNotWritable: return "S011";
    case ViolationKind::NoBytes: return "S007";
    case ViolationKind::FinalMissing: return "S009";
    default: return "";
  }
}

std::string Violation::to_string() const {
  switch (kind) {
    case ViolationKind::None: return "none";
    case ViolationKind::FinalMissing: return "final output never produced (S009)";
    case ViolationKind::FinalWrong: return "final output differs from the true final value";
    case ViolationKind::WrongRead:
      return fmt::format("pass {} segment {}: the element read sees another value than under true grid sync", pass,
                         segment);
    case ViolationKind::UndeclaredReference:
      return fmt::format("pass {} segment {}: the buffer is referenced but omitted from the segment (S011)", pass,
                         segment);
    case ViolationKind::WriteNotWritable:
      return fmt::format("pass {} segment {}: the buffer is written but declared read-only in the segment (S011)", pass,
                         segment);
    case ViolationKind::NoBytes:
      return fmt::format("pass {} segment {}: segment input has no bytes (S007)", pass, segment);
  }
  GC_ICE("unknown ViolationKind");
}

std::uint32_t caller_word(std::uint32_t element) { return 0xC0DE0 + element; }

std::uint32_t written_word(std::uint32_t element, std::uint32_t pass, std::uint32_t segment, std::uint32_t segments) {
  return 0x1000 * (element + 1) + pass * segments + segment + 1;
}

ElementRun simulate_element(const RoleTable& table, const Pattern& pattern, std::uint32_t element,
                            const std::vector<std::vector<bool>>& element_read,
                            const std::vector<std::vector<bool>>& element_write) {
  GC_ASSERT(pattern.valid());
  const ModelDecl& d = pattern.declaration();
  const std::uint32_t n_seg = pattern.segments;
  std::vector<RoleBits> bits(n_seg);
  bool consumed_anywhere = false;
  for (std::uint32_t k = 0; k < n_seg; ++k) {
    const TabulatedRole* row = table.find(segment_facts(pattern, k));
    GC_ASSERT(row != nullptr);
    bits[k] = row->bits;
    consumed_anywhere = consumed_anywhere || (bits[k].declared && bits[k].input);
  }

  ElementRun run;
  run.true_reads.assign(pattern.passes, std::vector<std::optional<std::uint32_t>>(n_seg));
  run.split_reads = run.true_reads;
  // Step 4 (caller bytes) and step 5 (zero seeds of backend-allocated segment inputs).
  bool present = d.caller_input || (d.backend_allocated && consumed_anywhere);
  std::uint32_t live = d.caller_input ? caller_word(element) : 0;
  std::uint32_t truth = d.reference_input ? caller_word(element) : 0;
  auto note = [&](ViolationKind kind, std::uint32_t p, std::uint32_t k) {
    if (!run.first) run.first = Violation{kind, p, k};
  };

  for (std::uint32_t p = 0; p < pattern.passes; ++p)
    for (std::uint32_t k = 0; k < n_seg; ++k) {
      const bool er = element_read[p][k], ew = element_write[p][k];
      const std::uint32_t value = written_word(element, p, k, n_seg);
      if (!run.split_error) {
        const RoleBits& b = bits[k];
        const bool referenced = pattern.reads[k] || pattern.writes[k];
        ViolationKind error = ViolationKind::None;
        if (!b.declared && referenced) error = ViolationKind::UndeclaredReference;
        else if (b.declared && pattern.writes[k] && !b.writable) error = ViolationKind::WriteNotWritable;
        else if (b.declared && b.input && !present) error = ViolationKind::NoBytes;
        if (error != ViolationKind::None) {
          run.split_error = Violation{error, p, k};
          note(error, p, k);
        } else if (b.declared) {
          std::uint32_t x = b.input ? live : 0;  // not an input: a zero-filled allocation
          if (er) run.split_reads[p][k] = x;
          if (ew) x = value;
          if (b.output) {
            present = true;
            live = x;
          }
        }
      }
      if (er) run.true_reads[p][k] = truth;
      if (ew) truth = value;
      if (er && !run.split_error && run.split_reads[p][k] != run.true_reads[p][k]) note(ViolationKind::WrongRead, p, k);
    }
  run.true_final = truth;
  if (present) run.split_final = live;
  if (!run.split_error && d.final_output) {
    if (!present) {
      run.split_error = Violation{ViolationKind::FinalMissing, pattern.passes - 1, n_seg - 1};
      note(ViolationKind::FinalMissing, pattern.passes - 1, n_seg - 1);
    } else if (live != truth) {
      note(ViolationKind::FinalWrong, pattern.passes - 1, n_seg - 1);
    }
  }
  return run;
}

ElementRun simulate(const RoleTable& table, const Pattern& pattern) {
  return simulate_element(table, pattern, 0, pattern.element_read, pattern.element_write);
}

}  // namespace gridcheck::props
