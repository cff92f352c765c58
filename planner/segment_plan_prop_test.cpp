// Structural properties of plan_split on random programs (any nesting of let/store/if/loop/block/
// region/fence/barrier/return/atomics over buffers of every access and flag combination):
// fences are moved, never lost or duplicated; stores are neither lost nor duplicated; segment
// tables clear the output flags and re-derive kinds; names follow the tables.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <functional>

#include "ir/abi.hpp"
#include "ir/builder.hpp"
#include "ir/walk.hpp"
#include "planner/fence_split.hpp"
#include "planner/segment_plan.hpp"

namespace gridcheck::planner {
namespace {

using ir::Buf;
using ir::Builder;
using ir::S;

struct Gen {
  Builder& b;
  std::vector<Buf> buffers;
  int lets = 0;

  ir::E value(int depth) {
    const int pick = *rc::gen::inRange(0, depth > 0 ? 5 : 3);
    switch (pick) {
      case 0: return b.u32(*rc::gen::inRange<std::uint32_t>(0, 8));
      case 1: return b.gid();
      case 2: return lets > 0 ? b.var(fmt::format("v{}", *rc::gen::inRange(0, lets))) : b.u32(1);
      case 3: return b.load(buffers[*rc::gen::inRange<std::size_t>(0, buffers.size())], value(depth - 1));
      default: return value(depth - 1) + value(depth - 1);
    }
  }

  std::vector<S> body(int depth, int min = 0, int max = 5) {
    std::vector<S> out;
    const int n = *rc::gen::inRange(min, max);
    for (int i = 0; i < n; ++i) out.push_back(stmt(depth));
    return out;
  }

  S stmt(int depth) {
    const Buf buf = buffers[*rc::gen::inRange<std::size_t>(0, buffers.size())];
    switch (*rc::gen::inRange(0, depth > 0 ? 12 : 6)) {
      case 0: return b.let(fmt::format("v{}", lets++), value(2));
      case 1: return b.store(buf, value(1), value(2));
      case 2: return b.grid_sync();
      case 3: return b.barrier();
      case 4: return b.let(fmt::format("v{}", lets++), b.atomic_add(buf, value(1), b.u32(1)));
      case 5: return b.store(buf, b.gid(), b.buf_len(buf));
      case 6: return b.block(body(depth - 1));
      case 7: return b.region("r", body(depth - 1));
      case 8: return b.if_(value(1) == b.u32(0), body(depth - 1), body(depth - 1));
      case 9: return b.loop(fmt::format("i{}", lets++), b.u32(0), b.u32(2), body(depth - 1));
      default: return b.grid_sync();
    }
  }
};

ir::Program random_program() {
  Builder b({*rc::gen::inRange<std::uint32_t>(1, 5), 1, 1});
  Gen g{b, {}, 0};
  const int count = *rc::gen::inRange(1, 6);
  for (int i = 0; i < count; ++i) {
    const auto access = static_cast<ir::BufferAccess>(*rc::gen::inRange(0, ir::kBufferAccessCount));
    Buf buf = b.storage(fmt::format("b{}", i), static_cast<std::uint32_t>(i), access, ir::ScalarType::U32,
                        *rc::gen::inRange<std::uint32_t>(1, 5));
    b.decl(buf).is_output = *rc::gen::arbitrary<bool>();
    b.decl(buf).pipeline_live_out = *rc::gen::arbitrary<bool>();
    g.buffers.push_back(buf);
  }
  // Explicit top-level fences (some inside blocks/regions to exercise hoisting) plus random ones.
  std::vector<S> entry = g.body(3, 0, 4);
  const int fences = *rc::gen::inRange(0, 4);
  for (int f = 0; f < fences; ++f) {
    switch (*rc::gen::inRange(0, 3)) {
      case 0: entry.push_back(b.grid_sync()); break;
      case 1: entry.push_back(b.block({g.stmt(1), b.grid_sync(), g.stmt(1)})); break;
      default: entry.push_back(b.region("f", {b.block({b.grid_sync()}), g.stmt(1)})); break;
    }
    for (S s : g.body(3, 0, 4)) entry.push_back(s);
  }
  return *rc::gen::arbitrary<bool>() ? b.wrapped(entry) : b.raw(entry);
}

std::size_t count_kind(const ir::Program& p, ir::StmtKind kind) {
  std::size_t n = 0;
  ir::for_each_stmt(p, p.entry(), [&](ir::StmtId id) { n += p.stmt(id).kind == kind ? 1 : 0; });
  return n;
}

RC_GTEST_PROP(Planner_SplitProps, FencesAndStoresAreMovedNeverLostOrDuplicated, ()) {
  const ir::Program program = random_program();
  const ir::Result<SplitPlan> plan = plan_split(vyre_0_7_2(), program);
  RC_ASSERT(plan.ok());
  const std::size_t n = plan->segments.size();
  RC_ASSERT(n == (plan->fence_count == 0 ? 1 : plan->fence_count + 1));
  RC_ASSERT(plan->contains_fence == (count_fences(program, program.entry()) > 0));
  std::size_t fences = 0;
  std::size_t stores = 0;
  for (const PlannedSegment& s : plan->segments) {
    fences += count_fences(s.program, s.program.entry());
    stores += count_kind(s.program, ir::StmtKind::Store);
  }
  RC_ASSERT(fences + plan->fence_count == count_fences(program, program.entry()));
  RC_ASSERT(stores == count_kind(program, ir::StmtKind::Store));
}

RC_GTEST_PROP(Planner_SplitProps, SegmentTablesFollowTheRoleRuleAndNamesFollowTheTables, ()) {
  const ir::Program program = random_program();
  const ir::Result<SplitPlan> plan = plan_split(vyre_0_7_2(), program);
  RC_ASSERT(plan.ok());
  for (const PlannedSegment& s : plan->segments) {
    RC_ASSERT(s.roles.size() == program.buffers().size());
    std::size_t kept = 0;
    for (const BufferRoleRow& row : s.roles) {
      RC_ASSERT(is_consistent(row.facts));
      kept += row.decision.disposition == Disposition::Omit ? 0 : 1;
    }
    RC_ASSERT(kept == s.program.buffers().size());
    std::vector<std::string> inputs, outputs;
    for (const ir::BufferDecl& d : s.program.buffers()) {
      if (d.access != ir::BufferAccess::Workgroup) {
        RC_ASSERT(!d.is_output && !d.pipeline_live_out);
        RC_ASSERT(d.kind == rederived_kind(d.access));
        RC_ASSERT(d.access != ir::BufferAccess::Uniform);
      }
      const std::string name(s.program.name(d.name));
      if (d.access == ir::BufferAccess::ReadOnly || d.access == ir::BufferAccess::ReadWrite) inputs.push_back(name);
      if (d.access == ir::BufferAccess::ReadWrite || d.access == ir::BufferAccess::WriteOnly) outputs.push_back(name);
    }
    RC_ASSERT(s.input_names == inputs);
    RC_ASSERT(s.output_names == outputs);
  }
  std::vector<std::string> finals;
  for (const ir::BufferDecl& d : program.buffers())
    if (ir::is_dispatch_output(d)) finals.emplace_back(program.name(d.name));
  RC_ASSERT(plan->final_outputs == finals);
}

}  // namespace
}  // namespace gridcheck::planner
