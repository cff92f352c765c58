#pragma once
// Type inference for expressions (implemented with the validator; spec §2.5, §3.5 type rules).

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

/// Infers every reachable expression's type with scoping (spec §3.2). Fails with diagnostics on an
/// undeclared variable or buffer, or on operand types the operator table rejects.
Result<TypeTable> typecheck(const Program& p, std::string_view file = {});

}  // namespace gridcheck::ir
