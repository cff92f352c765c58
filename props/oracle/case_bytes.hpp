#pragma once
// The caller's bytes of a case's buffers, as every oracle hands them to a split.

#include <string_view>

#include "ir/case.hpp"
#include "planner/executor.hpp"

namespace gridcheck::props {

/// The caller's bytes for buffer `name` of a case: its input data, or zeros at the declared count.
planner::Bytes case_bytes(const ir::Case& c, std::string_view name);

}  // namespace gridcheck::props
