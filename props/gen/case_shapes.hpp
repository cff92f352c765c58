#pragma once
// Which planner-relevant shapes a case has (issue 17): read off the case itself, so it works for
// generated, fused DAG and hand-written cases alike. Used by `gridcheck gen`'s summary and the
// generator's shape tests.

#include <cstdint>
#include <string>
#include <vector>

#include "ir/case.hpp"

namespace gridcheck::props {

struct CaseShapes {
  bool workgroup_y = false;             ///< workgroup_size y > 1
  bool workgroup_z = false;             ///< workgroup_size z > 1
  bool grid_y = false;                  ///< explicit grid y > 1
  bool grid_z = false;                  ///< explicit grid z > 1
  bool workgroup_tail = false;          ///< a workgroup buffer whose count is not a multiple of the workgroup size
  bool fenced_loop_start = false;       ///< a loop holding a fence whose start is a literal > 0
  bool loop_start = false;              ///< any loop whose start is not the literal 0
  bool fenced_else = false;             ///< an if holding a fence with a non-empty else
  bool fenced_else_unequal = false;     ///< ... whose branches hold different numbers of fences
  bool fixpoint_4 = false;              ///< fixpoint ≥ 4
  std::uint32_t max_fixpoint = 1;
};

CaseShapes shapes_of(const ir::Case& c);

/// The names of the shapes that are present ("workgroup_z", "grid_y", ...), in a fixed order.
std::vector<std::string> shape_names(const CaseShapes& s);
/// Every shape name shape_names can return, in that order.
std::vector<std::string> all_shape_names();

}  // namespace gridcheck::props
