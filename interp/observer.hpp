#pragma once
// Observer hooks (docs/engineering.md#lesson-9): checks that watch a run without changing it. Every hook has an
// empty default. The engine calls observers only in its observed instantiation, so a run without
// observers pays nothing for them. The race detector is one observer; a "last writer per element"
// observer and per-fence snapshots (first-divergence reports) need exactly these hooks: every access
// carries the invocation, its instruction (→ source site) and the element; every fence release
// carries its index and a view of all storage buffers.
//
// Order of calls in one run:
//   on_launch_begin(L)
//     on_workgroup_enter(wg)           a workgroup starts or resumes (after a grid_sync) running
//       on_load / on_store / on_atomic / on_out_of_bounds ...
//       on_barrier_release(wg, pc)     a workgroup barrier released (a new workgroup interval)
//     on_workgroup_leave(wg)           every invocation of it finished or waits at a grid_sync
//     on_fence_release(index, pc, memory)  a grid_sync released (everyone is ordered after it)
//   on_launch_end(L, memory)
// Workgroups run one at a time between two grid phases: no two workgroups interleave there.

#include <cstdint>
#include <span>

#include "interp/compiled_program.hpp"
#include "interp/result.hpp"

namespace gridcheck::interp {

/// The storage buffers of the running dispatch, in the program's non-workgroup order.
struct MemoryView {
  std::span<const std::span<const std::uint8_t>> buffers;
};

/// What an observer can ask about the running launch.
struct LaunchContext {
  const CompiledProgram* program = nullptr;
  Grid grid = {1, 1, 1};
  std::uint32_t launch = 0;  ///< fixpoint iteration, 0-based
  std::uint32_t workgroup_count = 1;

  std::uint32_t invocations_per_workgroup() const { return program->invocations_per_workgroup(); }
  /// The ids of invocation `local` (linear) of workgroup `workgroup` (linear).
  InvocationIds ids(std::uint32_t workgroup, std::uint32_t local) const;
  Site site(std::uint32_t pc) const { return program->site(pc); }
};

/// One in-bounds memory access.
struct Access {
  std::uint32_t buffer = 0;    ///< index in CompiledProgram::buffers (declaration order)
  std::uint32_t element = 0;
  std::uint32_t pc = 0;        ///< instruction; LaunchContext::site(pc) gives the source site
  std::uint32_t workgroup = 0; ///< linear workgroup id
  std::uint32_t local = 0;     ///< linear local id
  std::uint32_t value = 0;     ///< the word read (load), written (store), or stored (atomic)
  std::uint32_t previous = 0;  ///< store/atomic: the word before (atomic: the value returned)
  bool compare_exchange_failed = false;  ///< atomic: a compare-exchange that stored nothing (an atomic read)
};

class Observer {
 public:
  virtual ~Observer() = default;
  /// False for an observer that leaves on_load, on_store, on_atomic and on_out_of_bounds empty: the
  /// engine does not call them on it, and when no observer watches accesses it runs its loop without
  /// per-access calls; every other hook is still called. Asked once, before the run.
  virtual bool watches_accesses() const { return true; }
  virtual void on_launch_begin(const LaunchContext&) {}
  virtual void on_workgroup_enter(std::uint32_t /*workgroup*/) {}
  virtual void on_load(const Access&) {}
  virtual void on_store(const Access&) {}
  virtual void on_atomic(const Access&) {}
  /// `index` is the out-of-range element index; nothing was read or written.
  virtual void on_out_of_bounds(AccessKind, std::uint32_t /*buffer*/, std::uint64_t /*index*/, std::uint32_t /*pc*/,
                                std::uint32_t /*workgroup*/, std::uint32_t /*local*/) {}
  virtual void on_barrier_release(std::uint32_t /*workgroup*/, std::uint32_t /*pc*/) {}
  virtual void on_workgroup_leave(std::uint32_t /*workgroup*/) {}
  /// `fence_index` counts grid_sync releases in this launch from 0.
  virtual void on_fence_release(std::uint32_t /*fence_index*/, std::uint32_t /*pc*/, const MemoryView&) {}
  virtual void on_launch_end(std::uint32_t /*launch*/, const MemoryView&) {}
};

}  // namespace gridcheck::interp
