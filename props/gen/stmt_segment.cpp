#include "props/gen/stmt_generator.hpp"

#include <string>
#include <vector>

#include "props/gen/case_storage.hpp"

namespace gridcheck::props::casegen {

using ir::E;
using ir::S;

std::vector<S> StmtGenerator::generate_segment() {
  s_.loaded.assign(s_.buffers.size(), false);
  s_.stored.assign(s_.buffers.size(), false);
  s_.workgroup_written = false;
  std::vector<S> ops;
  s_.scopes.emplace_back();  // segment-level lets live in the root region scope (popped at the end)
  if (s_.has_role(Role::Workgroup) && !(on(Feature::WorkgroupAcrossFence) && s_.segment > 0 && c_.chance(2, 3)))
    initialise_workgroup_memory(ops);
  if (on(Feature::LongFixpoint) && s_.segment == s_.converging_segment) converging_statement(ops);
  const std::uint32_t count = c_.below(config_.max_ops_per_segment + 1);
  const bool fenced_construct_here = on(Feature::FenceUnderControlFlow) && s_.segment == s_.segments - 1;
  for (std::uint32_t i = 0; i < count; ++i) generate_op(Context{}, ops);
  if (fenced_construct_here) ops.push_back(fenced_construct());
  fulfil_obligations(ops);
  // Locals of this segment stay visible to later segments (they share the root region scope).
  s_.root_locals.insert(s_.root_locals.end(), s_.scopes.back().begin(), s_.scopes.back().end());
  s_.scopes.pop_back();
  return ops;
}

void StmtGenerator::initialise_workgroup_memory(std::vector<S>& ops) {
  const BufferInfo& sh = s_.buffers[s_.index_of_role(Role::Workgroup)];
  s_.workgroup_written = true;
  if (!on(Feature::WorkgroupTail)) {
    for (std::uint32_t k = 0; k < sh.slots; ++k)
      ops.push_back(b_.store(sh.buf, ex_.own_workgroup_slot(k), ex_.zero(sh.element)));
    return;
  }
  // The own-slot loop with a tail: loop k in 0..slots { if lid + k·wg < count { sh[lid + k·wg] = 0 } }.
  const std::string k = s_.fresh("k");
  const E slot = ex_.linear_lid() + b_.var(k) * b_.u32(s_.wg);
  ops.push_back(b_.loop(k, b_.u32(0), b_.u32(sh.slots),
                        {b_.if_(slot < b_.u32(sh.count), {b_.store(sh.buf, slot, ex_.zero(sh.element))})}));
}

void StmtGenerator::converging_statement(std::vector<S>& ops) {
  const std::size_t i = s_.index_of_role(Role::Converging);
  const BufferInfo& late = s_.buffers[i];
  const E bound = b_.u32(s_.converge_bound);
  const std::string c = s_.fresh("c");
  ops.push_back(b_.let(c, b_.load(late.buf, ex_.own_slot(0))));
  ops.push_back(b_.store(late.buf, ex_.own_slot(0), b_.bin(ir::BinOp::Min, b_.var(c) + b_.u32(1), bound)));
  ops.push_back(b_.store(late.buf, ex_.own_slot(1),
                         b_.bin(ir::BinOp::BitXor, b_.load(late.buf, ex_.own_slot(1)),
                                b_.cast(ir::ScalarType::U32, b_.var(c) < bound))));
  s_.loaded[i] = true;
  s_.stored[i] = true;
}

void StmtGenerator::fulfil_obligations(std::vector<S>& ops) {
  for (std::size_t i = 0; i < s_.buffers.size(); ++i) {
    const BufferInfo& info = s_.buffers[i];
    if (s_.must_write[s_.segment][i] && !s_.stored[i]) {
      if (info.role == Role::Counter)
        ops.push_back(atomic_op(i));
      else
        ops.push_back(store_op(i, Context{}));
    }
    if (s_.written[s_.segment][i] && s_.stored[i] && needs_read(s_, i) && !s_.loaded[i]) {
      s_.loaded[i] = true;
      ops.push_back(b_.let(s_.fresh("r"), b_.load(info.buf, ex_.own_slot(0))));
    }
  }
}

}  // namespace gridcheck::props::casegen
