#pragma once
// The per-segment buffer-role decision (docs/vyre-0.7.2.md §6.7, seed 000 `rewrite_segment_buffers_for_host_split`)
// as a pure function of a finite set of per-buffer facts. `for_each_role_facts` enumerates the
// whole (consistent) domain, so a solver can tabulate a rule straight from this code — there is no
// second, hand-written copy of the table.
//
// The vyre 0.7.2 rule, first match wins (r = the segment reads B, w = it writes B):
//   access == read_write, not is_output, not live_out, not r, not w  -> keep, read_write (passthrough)
//   not r and not w                                                  -> omit
//   access == workgroup                                              -> keep the declaration unchanged
//   (is_output or live_out) and an earlier segment wrote B and w     -> read_write (accumulator)
//   r and w -> read_write;  r only -> read;  w only -> write_only
// then kind re-derived from the new access (read -> readonly, read_write/write_only -> global) and
// is_output = pipeline_live_out = false. Two 0.7.2 bugs live here: F1 (the accumulator keys on
// is_output/live_out, not on backend allocation: a plain write_only buffer written in two segments
// is zeroed again) and docs/vyre-0.7.2.md#s10-a (a read_write buffer written but not read becomes write_only).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/program.hpp"

namespace gridcheck::planner {

/// Where the first segment that writes the buffer lies, relative to the segment being planned.
enum class FirstWriter : std::uint8_t { None, Earlier, This, Later };
inline constexpr int kFirstWriterCount = 4;
std::string_view name_of(FirstWriter f);

/// Everything a role rule may look at. Source facts: access, is_output, live_out. Segment facts:
/// reads, writes (this segment's scan), first_writer, last_segment, read_later / written_later
/// (some later segment's scan reads / writes it). vyre 0.7.2 uses only the first six; the others
/// are in the domain for other profiles.
struct RoleFacts {
  ir::BufferAccess access = ir::BufferAccess::ReadOnly;
  bool is_output = false;
  bool live_out = false;
  bool reads = false;
  bool writes = false;
  FirstWriter first_writer = FirstWriter::None;
  bool last_segment = false;
  bool read_later = false;
  bool written_later = false;

  /// ir::is_backend_allocated_output of the source declaration.
  bool backend_allocated() const;
  /// ir::is_dispatch_input of the source declaration (the split's consumes_input).
  bool caller_input() const;
  friend bool operator==(const RoleFacts&, const RoleFacts&) = default;
};

/// Whether the facts can occur together: w implies first_writer ∈ {Earlier, This}; without w it
/// is never This; Later implies written_later; the last segment has nothing later.
bool is_consistent(const RoleFacts& facts);

/// Calls fn(facts) for every consistent combination, in a fixed order (access outermost, then the
/// fields in declaration order, false before true).
void for_each_role_facts(const std::function<void(const RoleFacts&)>& fn);
std::vector<RoleFacts> enumerate_role_facts();

enum class Disposition : std::uint8_t {
  Omit,           ///< the segment does not declare the buffer
  KeepUnchanged,  ///< the source declaration as is (workgroup memory)
  Rewrite,        ///< the source declaration with access, kind and flags replaced
};
std::string_view name_of(Disposition d);

struct RoleDecision {
  Disposition disposition = Disposition::Omit;
  ir::BufferAccess access = ir::BufferAccess::ReadOnly;  ///< Rewrite only
  ir::MemoryKind kind = ir::MemoryKind::Readonly;        ///< Rewrite only
  bool is_output = false;                                ///< Rewrite only
  bool live_out = false;                                 ///< Rewrite only
  /// Which row of the rule fired, for plans and reports. Not part of the decision's meaning.
  std::string_view reason;

  /// Equal meaning: the same disposition and, for Rewrite, the same access, kind and flags.
  bool same_meaning(const RoleDecision& other) const;
};

using RoleRule = std::function<RoleDecision(const RoleFacts&)>;

/// The vyre 0.7.2 rule (see the file comment).
RoleDecision vyre_0_7_2_role(const RoleFacts& facts);

/// vyre `rewrite_segment_buffer_access`: read -> readonly, uniform -> uniform, workgroup -> shared,
/// anything else -> global (so Persistent/Push/Local kinds become global).
ir::MemoryKind rederived_kind(ir::BufferAccess access);

/// The facts of `source` in segment k of n, given the scans.
RoleFacts role_facts(const ir::BufferDecl& source, bool reads, bool writes, FirstWriter first_writer,
                     bool last_segment, bool read_later, bool written_later);

/// The segment declaration a Rewrite/KeepUnchanged decision gives (GC_ASSERT: not Omit).
ir::BufferDecl apply_decision(const RoleDecision& decision, const ir::BufferDecl& source);

std::string to_string(const RoleFacts& facts);
std::string to_string(const RoleDecision& decision);

}  // namespace gridcheck::planner
