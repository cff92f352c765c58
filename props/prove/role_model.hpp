#pragma once
// The slot-level model of the buffer-role rewrite (docs/proof.md §2): what one element of one
// storage buffer holds under true grid sync and under the host split, for K segments and N whole-
// sequence fixpoint passes. This header is the concrete side — the model's vocabulary, a role rule
// tabulated over its whole finite domain, and a direct simulator of the model's semantics. The Z3
// encoding of the same semantics is in bounded_encoding.hpp; tests check that both agree.
//
// Scope: storage buffers (read, read_write, write_only, uniform) with a static element count; one
// invocation's view of element order is irrelevant because the role rule is per buffer and elements
// do not interact. Out of scope: workgroup memory (docs/vyre-0.7.2.md#s10-c), output_byte_range slicing (G3),
// runtime-sized buffers (A5), let propagation (docs/vyre-0.7.2.md#s10-d), per-segment grid inference (G1), the
// convergence early exit (every pass runs; H3/F3 are about the fingerprint, not roles).

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "planner/role_rule.hpp"

namespace gridcheck::props {

// ------------------------------------------------------------------ source declarations

/// A source declaration class: access (not workgroup), is_output, pipeline_live_out, and what the
/// ABI predicates of ir/abi.hpp say about it.
struct ModelDecl {
  ir::BufferAccess access = ir::BufferAccess::ReadOnly;
  bool is_output = false;
  bool live_out = false;

  bool caller_input = false;       ///< ir::is_dispatch_input: the split gets the caller's bytes
  bool reference_input = false;    ///< ir::is_reference_input: R gets the caller's bytes
  bool backend_allocated = false;  ///< ir::is_backend_allocated_output: starts zero, seeded by the split
  bool final_output = false;       ///< ir::is_dispatch_output: the split's final outputs
  bool reference_output = false;   ///< ir::is_reference_output: R's outputs
  /// A valid program writes only read_write / write_only storage (V063 stores, V009 atomics).
  bool writable = false;
  /// The ABI predicates agree (caller_input == reference_input, final_output == reference_output).
  /// False exactly for read / uniform + live_out without is_output (validation warning G012): the
  /// caller's bytes reach R but never the split, whatever the role rule does.
  bool in_scope = false;

  /// "read_write", "read_write+output", "write_only+live_out", ...
  std::string name() const;
  ir::BufferDecl as_decl() const;
};

inline constexpr std::uint32_t kModelDeclCount = 16;
/// All 16 classes; index = access * 4 + is_output * 2 + live_out for access in read, read_write,
/// write_only, uniform (the ir::BufferAccess order).
std::span<const ModelDecl> model_decls();
/// The index of a class; nullopt for workgroup memory.
std::optional<std::uint32_t> model_decl_index(ir::BufferAccess access, bool is_output, bool live_out);

// ------------------------------------------------------------------ the tabulated rule

/// What a decision means for the split's treatment of the buffer in one segment (the declaration
/// apply_decision gives, read through the ABI predicates vyre's input/output names use).
struct RoleBits {
  bool declared = false;  ///< the segment program declares the buffer (not Omit)
  bool input = false;     ///< an input name: gathered from the live map (absent -> S007)
  bool output = false;    ///< an output name: its bytes after the launch replace the live entry
  bool writable = false;  ///< the segment's declaration may be stored to (read_write / write_only)
  friend bool operator==(const RoleBits&, const RoleBits&) = default;
};
RoleBits role_bits(const planner::RoleDecision& decision, const ModelDecl& source);

struct TabulatedRole {
  planner::RoleFacts facts;
  planner::RoleDecision decision;
  RoleBits bits;
};

/// A role rule evaluated on every consistent non-workgroup RoleFacts (planner::for_each_role_facts):
/// the production code, called, never re-typed.
class RoleTable {
 public:
  static RoleTable tabulate(const planner::RoleRule& rule);
  std::span<const TabulatedRole> rows() const { return rows_; }
  /// nullptr for inconsistent facts and workgroup memory.
  const TabulatedRole* find(const planner::RoleFacts& facts) const;

 private:
  std::vector<TabulatedRole> rows_;
  std::vector<std::int32_t> index_;  ///< facts key -> row, -1 when absent
};

/// "read_write (accumulator)", "omit (not referenced)", "write_only+output (...)": the decision's
/// meaning (access, flags, kind when it is not the re-derived one) and the row that fired.
std::string short_description(const planner::RoleDecision& decision);

/// The table, compactly: declaration classes with identical sub-tables share a heading, and inside
/// one, fact values that lead to the same decisions are merged ("fw=none|later", "*" for any).
/// Facts: r, w (this segment reads / writes), fw (first writer), last (last segment), rl / wl (a
/// later segment reads / writes).
std::vector<std::string> describe_table(const RoleTable& table);

// ------------------------------------------------------------------ patterns

/// One scenario of the bounded model: a buffer of class `decl` in K segments run for N passes.
/// `reads[k]` / `writes[k]` are the segment's buffer-level scan facts (static: the same program every
/// pass); `element_read[p][k]` / `element_write[p][k]` what the segment does to the observed element
/// in pass p (a read happens before the segment's own write). Valid: element_read ⇒ reads,
/// element_write ⇒ writes, writes ⇒ decl writable, decl in scope, K ≥ 1, N ≥ 1.
struct Pattern {
  std::uint32_t decl = 0;
  std::uint32_t segments = 1;
  std::uint32_t passes = 1;
  std::vector<bool> reads, writes;
  std::vector<std::vector<bool>> element_read, element_write;

  /// All false, sized for K and N.
  static Pattern empty(std::uint32_t decl, std::uint32_t segments, std::uint32_t passes);
  bool valid() const;
  const ModelDecl& declaration() const { return model_decls()[decl]; }
  /// "K=2 N=1 seg0: r- w+ (pass0: -w) ..." compact text.
  std::string to_string() const;
};

/// Calls fn on every valid pattern of `decl` with K segments and N passes: the whole finite domain
/// that the bounded model quantifies over, for tests that check it by execution.
void for_each_pattern(std::uint32_t decl, std::uint32_t segments, std::uint32_t passes,
                      const std::function<void(const Pattern&)>& fn);

/// The facts the planner computes for the buffer in segment k (as plan_split does from the scans).
planner::RoleFacts segment_facts(const Pattern& pattern, std::uint32_t segment);

// ------------------------------------------------------------------ the model's semantics

enum class ViolationKind : std::uint8_t {
  None,
  WrongRead,            ///< an element read in the split sees another value than under true sync
  UndeclaredReference,  ///< the rule omits a buffer the segment references (the launch fails, S011)
  WriteNotWritable,     ///< the segment writes a buffer its declaration makes read-only (S011)
  NoBytes,              ///< a segment input without a live value (S007, docs/vyre-0.7.2.md §6.13 item 7)
  FinalMissing,         ///< a final output no segment produced (S009, docs/vyre-0.7.2.md#b1)
  FinalWrong,           ///< a final output differs from its true final value
};
std::string_view name_of(ViolationKind kind);
/// The split diagnostic the violation surfaces as ("S011", "S007", "S009"); "" for wrong values.
std::string_view split_code(ViolationKind kind);

struct Violation {
  ViolationKind kind = ViolationKind::None;
  std::uint32_t pass = 0;
  std::uint32_t segment = 0;
  explicit operator bool() const { return kind != ViolationKind::None; }
  std::string to_string() const;
};

/// The words the model (and the rendered programs) use: caller bytes of element e, and the distinct
/// literal segment k writes to element e in pass p. None is zero.
std::uint32_t caller_word(std::uint32_t element);
std::uint32_t written_word(std::uint32_t element, std::uint32_t pass, std::uint32_t segment, std::uint32_t segments);

/// One element's run under both semantics. Buffer-level errors stop the split at (pass, segment).
struct ElementRun {
  Violation first;  ///< the first violation in execution order (buffer errors before wrong values)
  /// [pass][segment]: the value the element read saw, when it reads (nullopt: no read, or the split
  /// stopped before).
  std::vector<std::vector<std::optional<std::uint32_t>>> true_reads, split_reads;
  std::uint32_t true_final = 0;
  std::optional<std::uint32_t> split_final;  ///< the live value at the end; nullopt when absent
  /// The error the split stopped with (UndeclaredReference, WriteNotWritable, NoBytes, FinalMissing).
  std::optional<Violation> split_error;
};

/// Runs one element with the given per-(pass, segment) read/write pattern (element_read/-write of
/// `pattern` for element 0; pass other vectors for other elements).
ElementRun simulate_element(const RoleTable& table, const Pattern& pattern, std::uint32_t element,
                            const std::vector<std::vector<bool>>& element_read,
                            const std::vector<std::vector<bool>>& element_write);
/// Element 0 of the pattern.
ElementRun simulate(const RoleTable& table, const Pattern& pattern);

}  // namespace gridcheck::props
