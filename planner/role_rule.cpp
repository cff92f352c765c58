#include "planner/role_rule.hpp"

#include <fmt/format.h>

#include "ir/abi.hpp"

namespace gridcheck::planner {

std::string_view name_of(FirstWriter f) {
  switch (f) {
    case FirstWriter::None: return "none";
    case FirstWriter::Earlier: return "earlier";
    case FirstWriter::This: return "this";
    case FirstWriter::Later: return "later";
  }
  GC_ICE("unknown FirstWriter");
}

std::string_view name_of(Disposition d) {
  switch (d) {
    case Disposition::Omit: return "omit";
    case Disposition::KeepUnchanged: return "keep";
    case Disposition::Rewrite: return "rewrite";
  }
  GC_ICE("unknown Disposition");
}

namespace {

ir::BufferDecl as_decl(const RoleFacts& f) {
  ir::BufferDecl d;
  d.access = f.access;
  d.is_output = f.is_output;
  d.pipeline_live_out = f.live_out;
  return d;
}

}  // namespace

bool RoleFacts::backend_allocated() const { return ir::is_backend_allocated_output(as_decl(*this)); }
bool RoleFacts::caller_input() const { return ir::is_dispatch_input(as_decl(*this)); }

bool is_consistent(const RoleFacts& f) {
  if (f.writes && f.first_writer != FirstWriter::Earlier && f.first_writer != FirstWriter::This) return false;
  if (!f.writes && f.first_writer == FirstWriter::This) return false;
  if (f.first_writer == FirstWriter::Later && !f.written_later) return false;
  if (f.last_segment && (f.read_later || f.written_later)) return false;
  return true;
}

void for_each_role_facts(const std::function<void(const RoleFacts&)>& fn) {
  for (int access = 0; access < ir::kBufferAccessCount; ++access)
    for (int bits = 0; bits < (1 << 4); ++bits)
      for (int first = 0; first < kFirstWriterCount; ++first)
        for (int later = 0; later < (1 << 3); ++later) {
          RoleFacts f;
          f.access = static_cast<ir::BufferAccess>(access);
          f.is_output = (bits & 8) != 0;
          f.live_out = (bits & 4) != 0;
          f.reads = (bits & 2) != 0;
          f.writes = (bits & 1) != 0;
          f.first_writer = static_cast<FirstWriter>(first);
          f.last_segment = (later & 4) != 0;
          f.read_later = (later & 2) != 0;
          f.written_later = (later & 1) != 0;
          if (is_consistent(f)) fn(f);
        }
}

std::vector<RoleFacts> enumerate_role_facts() {
  std::vector<RoleFacts> all;
  for_each_role_facts([&](const RoleFacts& f) { all.push_back(f); });
  return all;
}

bool RoleDecision::same_meaning(const RoleDecision& o) const {
  if (disposition != o.disposition) return false;
  if (disposition != Disposition::Rewrite) return true;
  return access == o.access && kind == o.kind && is_output == o.is_output && live_out == o.live_out;
}

ir::MemoryKind rederived_kind(ir::BufferAccess access) {
  switch (access) {
    case ir::BufferAccess::ReadOnly: return ir::MemoryKind::Readonly;
    case ir::BufferAccess::Uniform: return ir::MemoryKind::Uniform;
    case ir::BufferAccess::Workgroup: return ir::MemoryKind::Shared;
    case ir::BufferAccess::ReadWrite:
    case ir::BufferAccess::WriteOnly: return ir::MemoryKind::Global;
  }
  GC_ICE("unknown BufferAccess");
}

namespace {

RoleDecision rewrite(ir::BufferAccess access, std::string_view reason) {
  RoleDecision d;
  d.disposition = Disposition::Rewrite;
  d.access = access;
  d.kind = rederived_kind(access);
  d.is_output = false;  // never a program output inside the split: final values are reassembled by name
  d.live_out = false;
  d.reason = reason;
  return d;
}

}  // namespace

RoleDecision vyre_0_7_2_role(const RoleFacts& f) {
  using ir::BufferAccess;
  const bool passthrough = f.access == BufferAccess::ReadWrite && !f.is_output && !f.live_out && !f.reads && !f.writes;
  if (!f.reads && !f.writes && !passthrough) return RoleDecision{Disposition::Omit, {}, {}, false, false, "not referenced"};
  if (f.access == BufferAccess::Workgroup)
    return RoleDecision{Disposition::KeepUnchanged, {}, {}, false, false, "workgroup memory"};
  const bool is_source_output = f.is_output || f.live_out;
  const bool earlier_segment_wrote_output = is_source_output && f.first_writer == FirstWriter::Earlier;
  if (passthrough) return rewrite(BufferAccess::ReadWrite, "read-write passthrough");
  if (earlier_segment_wrote_output && f.writes) return rewrite(BufferAccess::ReadWrite, "accumulator");
  if (f.reads && f.writes) return rewrite(BufferAccess::ReadWrite, "read and written");
  if (f.reads) return rewrite(BufferAccess::ReadOnly, "read only");
  if (f.writes) return rewrite(BufferAccess::WriteOnly, "written only");
  return rewrite(BufferAccess::ReadWrite, "unreachable (not read, not written)");
}

RoleFacts role_facts(const ir::BufferDecl& source, bool reads, bool writes, FirstWriter first_writer,
                     bool last_segment, bool read_later, bool written_later) {
  RoleFacts f;
  f.access = source.access;
  f.is_output = source.is_output;
  f.live_out = source.pipeline_live_out;
  f.reads = reads;
  f.writes = writes;
  f.first_writer = first_writer;
  f.last_segment = last_segment;
  f.read_later = read_later;
  f.written_later = written_later;
  return f;
}

ir::BufferDecl apply_decision(const RoleDecision& decision, const ir::BufferDecl& source) {
  GC_ASSERT(decision.disposition != Disposition::Omit);
  ir::BufferDecl out = source;
  if (decision.disposition == Disposition::Rewrite) {
    out.access = decision.access;
    out.kind = decision.kind;
    out.is_output = decision.is_output;
    out.pipeline_live_out = decision.live_out;
  }
  return out;
}

std::string to_string(const RoleFacts& f) {
  return fmt::format(
      "access={} is_output={} live_out={} reads={} writes={} first_writer={} last_segment={} read_later={} "
      "written_later={}",
      ir::name_of(f.access), f.is_output, f.live_out, f.reads, f.writes, name_of(f.first_writer), f.last_segment,
      f.read_later, f.written_later);
}

std::string to_string(const RoleDecision& d) {
  if (d.disposition != Disposition::Rewrite) return fmt::format("{} ({})", name_of(d.disposition), d.reason);
  return fmt::format("rewrite access={} kind={} is_output={} live_out={} ({})", ir::name_of(d.access),
                     ir::name_of(d.kind), d.is_output, d.live_out, d.reason);
}

}  // namespace gridcheck::planner
