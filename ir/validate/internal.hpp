#pragma once
// Shared by the validator's passes (structure.cpp, semantics.cpp, uniformity.cpp). Not a public header.

#include <optional>
#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "ir/diagnostic.hpp"
#include "ir/program.hpp"
#include "ir/typecheck.hpp"
#include "ir/validate/validator.hpp"

namespace gridcheck::ir::validation {

/// Collects diagnostics with the node they are about, so that positions can be resolved at the end
/// (SourceLoc when known, otherwise a note naming the statement's path).
class Sink {
 public:
  Sink(const Program& p, std::string_view file) : p_(p), file_(file) {}

  /// About statement `at` (and, when given, its sub-expression `expr`, whose location wins).
  Diagnostic& at(Severity severity, std::string_view code, StmtId at, std::string message,
                 ExprId expr = kNoExpr);
  /// About a buffer declaration.
  Diagnostic& at_buffer(Severity severity, std::string_view code, const BufferDecl& buffer, std::string message);
  /// About the program as a whole (no position).
  Diagnostic& at_program(Severity severity, std::string_view code, std::string message);
  /// Adds a note pointing at another statement to the last diagnostic.
  void note(StmtId at, std::string message);

  bool has_errors() const;
  std::size_t error_count() const;
  /// Resolves positions, orders the diagnostics by position (stable) and hands them over.
  Diagnostics finish();

  const Program& program() const { return p_; }
  const std::string& file() const { return file_; }

 private:
  struct Entry {
    Diagnostic diagnostic;
    std::optional<StmtId> stmt;
    std::vector<std::optional<StmtId>> note_stmts;
  };
  const Program& p_;
  std::string file_;
  std::vector<Entry> entries_;
};

/// Phase 1. Returns true when the program is structurally sound (phase 2 may run).
bool check_structure(const Program& p, Sink& sink);
/// Phase 2, part 1: scoping, types, buffer access, atomics, node rules.
void check_semantics(const Program& p, const PartialTypes& types, const ValidateOptions& options, Sink& sink);
/// Phase 2, part 2: barriers and uniformity (V010, V043, V055, G001-G003).
void check_uniformity(const Program& p, Sink& sink);

/// The statement that owns each reachable expression (by expression index). Needs a sound structure.
std::unordered_map<std::uint32_t, StmtId> expression_owners(const Program& p);

/// A short description of a statement for messages and notes: "barrier grid_sync", "store to 'out'".
std::string describe(const Program& p, StmtId id);

// Diagnostic helpers.
inline constexpr Severity kErr = Severity::Error;
inline constexpr Severity kWarn = Severity::Warning;

}  // namespace gridcheck::ir::validation
