#pragma once
// Type inference for expressions (implemented with the validator; docs/semantics.md §2.5, §3.5 type rules).

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/diagnostic.hpp"
#include "ir/program.hpp"

namespace gridcheck::ir {

/// The type of every expression reachable from a program's entry, indexed by ExprId.
/// Entries of unreachable expressions are unspecified.
struct TypeTable {
  std::vector<ScalarType> expr_types;
  ScalarType operator[](ExprId id) const { return expr_types[index_of(id)]; }
};

/// Infers every reachable expression's type with scoping (docs/semantics.md §3.2). Fails with diagnostics on an
/// undeclared variable or buffer, or on operand types the operator table rejects.
Result<TypeTable> typecheck(const Program& p, std::string_view file = {});

/// Type inference that always completes: the validator's entry point, so that one type error does not
/// hide the type-dependent checks of unrelated statements. `known[i]` is false for an expression whose
/// type could not be inferred (its `table` entry is then unspecified); `diagnostics` are typecheck's.
struct PartialTypes {
  /// What a diagnostic is about: an expression, or (an assignment) a statement.
  struct Subject {
    ExprId expr = kNoExpr;
    std::optional<StmtId> stmt;
  };
  TypeTable table;
  std::vector<std::uint8_t> known;  ///< by expression index: 1 when inferred (bytes: read once per check)
  Diagnostics diagnostics;
  std::vector<Subject> subjects;  ///< parallel to `diagnostics`
  bool has(ExprId id) const { return index_of(id) < known.size() && known[index_of(id)] != 0; }
};
PartialTypes typecheck_partial(const Program& p, std::string_view file = {});

}  // namespace gridcheck::ir
