#pragma once
// Statement-tree rewrites of a program, for mutants that change what a lowering step produces
// (mutant_catalogue_shapes.cpp wraps `split.lower`). The arena only grows: a changed statement is
// a new node, every list above it is rebuilt, and subtrees that did not change keep their ids.

#include <functional>
#include <optional>

#include "ir/program.hpp"

namespace gridcheck::props {

/// A replacement for statement `id` of `p` (whose nested lists are already rewritten), or nullopt
/// to keep it. May add nodes to `p`.
using StmtRewrite = std::function<std::optional<ir::StmtId>(ir::Program& p, ir::StmtId id)>;

/// Applies `change` to every statement reachable from `p`'s entry, innermost first, and makes the
/// rewritten list the entry. Returns whether any statement changed.
bool rewrite_statements(ir::Program& p, const StmtRewrite& change);

}  // namespace gridcheck::props
