#pragma once
// Which program literals the lowering may leave to the driver's constant folding when literals are hidden
// (docs/gpu.md#literals, `--gpu-literals hidden`).
//
// A literal is *foldable* when every way its word can travel ends in a buffer index or a branch decision
// and passes only through integer operations on the way: the index of a load, store or atomic; the
// condition of an `if` or a `select` (not its arms); the value of a local (a `let`, an assignment, a loop's bounds) that is itself only
// used that way. Such a word
// never becomes a stored, selected, converted or float value, so a driver that folds it can only change
// which element is addressed or which way a branch goes, both of which the driver must get right for any
// shader at all. Every other literal (stored values, select arms, cast operands, anything that reaches
// f32 arithmetic) stays hidden: that is where Mesa 22.3 has been seen to fold words with float
// rules. The workgroup-size builtin counts as a literal here.
//
// Contract: the result is conservative. An expression reachable from the program's entry in more than one
// place is foldable only when every place is; a local's name used anywhere outside those contexts keeps
// what every local of that name is given hidden.

#include <vector>

#include "ir/program.hpp"
#include "ir/typecheck.hpp"

namespace gridcheck::gpu {

/// One flag per expression of `program` (indexed by ExprId): true for the literals and workgroup-size
/// builtins that may reach the driver as constants. `types` is the program's type table.
std::vector<bool> foldable_literals(const ir::Program& program, const ir::TypeTable& types);

}  // namespace gridcheck::gpu
