#pragma once
// The execution engine (internal to interp/): runs a CompiledProgram over caller-owned storage bytes.
//
// Scheduling (Oclgrind's run-until-blocked): a workgroup runs each ready invocation until it
// finishes, waits at a barrier or at a grid_sync, or stops the run (trap, divergence, fuel). When
// none is ready, a workgroup barrier releases if every non-finished invocation waits at the same
// one. A workgroup is left when each of its invocations finished or waits at a grid_sync; after all
// workgroups, the grid_sync releases if every non-finished invocation of the grid waits at the same
// one. Without grid_sync only one workgroup's invocations exist at a time (a reused frame pool);
// with grid_sync every invocation's frame and every workgroup's memory stay resident, so locals,
// workgroup memory and `return` survive the fence (true grid sync).
//
// Divergence: besides the arrival checks above (same barrier, no barrier/grid_sync mix), an `if` or
// `loop` whose body holds a barrier records its branch / trip count per invocation (RecordIf,
// RecordLoop, vyre's "if records the condition" rule); the k-th record of every invocation of the
// workgroup (workgroup barriers) or of the grid (grid_sync) must agree, until the next release.
//
// Speed (docs/engineering.md#lesson-10): one loop runs all ready invocations of a workgroup, switching frames
// in place; direct-threaded dispatch; observers cost nothing per access unless one watches accesses
// (a separate instantiation of the loop); the uninitialised-read check is inline in the loop (its own
// instantiation), a shadow bit per workgroup word, not an observer call per access; so is the race
// detector when no other observer watches accesses (its own instantiation: RaceDetector::load /
// store / atomic, whose common cases are inline, instead of a virtual call with an Access per access;
// loads of buffers it does not watch get a handler without it).
//
// Preconditions (checked by interpreter.cpp before constructing): the grid and buffers are within
// the resource limits, every storage buffer holds whole words up to 2^32-1 elements.

#include <cstdint>
#include <span>
#include <vector>

#include "interp/compiled_program.hpp"
#include "interp/interpreter.hpp"
#include "interp/observer.hpp"
#include "interp/race_detector.hpp"
#include "interp/result.hpp"
#include "interp/schedule.hpp"
#include "interp/uninit_detector.hpp"

namespace gridcheck::interp {

/// Whether the threaded code runs an instruction `first` followed by one `second` as one
/// superinstruction (engine.cpp, kFusedPairs); for tests.
bool is_fused_pair(Op first, Op second);

class Engine {
 public:
  struct Storage;

  /// `uninit` (may be null) is driven directly, not as an observer (uninit_detector.hpp). So is
  /// `races` (may be null; when given, no observer may watch accesses: a race detector that runs
  /// beside an observer of accesses is one of the observers, and gets its accesses through on_load /
  /// on_store / on_atomic).
  /// `reuse` (may be null): vectors kept from an earlier engine (Storage), handed back by the destructor.
  Engine(const CompiledProgram& program, const RunOptions& options, std::span<Observer* const> observers,
         RaceDetector* races, UninitDetector* uninit, Grid grid, std::span<Bytes> storage, RunResult& result,
         Storage* reuse = nullptr);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Runs `fixpoint` launches over the storage bytes and sets the result's status, trap,
  /// divergence, oob report and steps. The storage holds the final bytes afterwards.
  void run(std::uint32_t fixpoint);

  /// Bytes of interpreter state for a dispatch (frames, invocation state, workgroup memory), for the
  /// resource check before any allocation.
  static std::uint64_t state_bytes(const CompiledProgram& program, Grid grid);

 private:
  enum class Stop : std::uint8_t { Barrier, Fence, Finished, Trap, Divergence, OutOfFuel };
  enum class Status : std::uint8_t { Ready, AtBarrier, AtFence, Finished };
  /// Who watches the accesses of run_lanes' instantiation: nobody, the race detector alone (called
  /// directly), or the observers (notify_access).
  enum class Watch : std::uint8_t { None, Races, Observers };

  static constexpr std::uint32_t kNoShadow = UINT32_MAX;
  struct View {
    std::uint8_t* data = nullptr;
    std::uint32_t count = 0;
    std::uint32_t shadow_offset = kNoShadow;  ///< workgroup buffers: first word in the uninit shadow
  };
  /// An instruction with the address of its handler in the running instantiation of run_lanes
  /// (direct-threaded code: a dispatch is one load and one indirect jump, no opcode table).
  /// The instruction first: its address is the Threaded's, so the loop keeps one pointer for both.
  struct Threaded {
    Instr in;
    const void* handler = nullptr;
  };
  struct TraceEntry {
    std::uint32_t pc;
    std::uint32_t value;
    std::uint32_t workgroup;
    std::uint32_t local;
  };

  bool launch(std::uint32_t index);
  bool run_phase();
  /// Runs one workgroup until it has no ready invocation left; false when the run stopped.
  bool run_workgroup(std::uint32_t workgroup, bool fresh);
  void start_workgroup(std::uint32_t workgroup, std::uint32_t base);
  /// Runs each ready invocation of the workgroup until it blocks, in the order of `order` (the
  /// workgroup's lanes_ slots, schedule order); false when the run stopped.
  template <Watch kWatch, bool kUninit>
  bool run_lanes(std::uint32_t workgroup, std::uint32_t base, const std::uint32_t* order);
  /// Books an invocation's stop (barrier/fence arrival checks); false when the run stopped.
  bool on_stop(Stop stop, std::uint32_t slot, std::uint32_t workgroup, std::uint32_t local);
  /// The running loop's fuel ran out (fuel <= 0): moves the next chunk of the reserve into it and
  /// checks the deadline. True when the loop may go on.
  bool refuel(std::int64_t& fuel);

  /// Every access observer's on_load / on_store / on_atomic.
  [[gnu::noinline]] void notify_access(AccessKind kind, const Access& a);
  bool record(RecordScope scope, std::uint32_t pc, std::uint32_t value, std::uint32_t slot, std::uint32_t workgroup,
              std::uint32_t local);
  /// record's common case, inline: the invocation's next record is already in the trace and
  /// agrees (counted); false means record decides (a first record, or a divergence).
  bool record_agrees(RecordScope scope, std::uint32_t pc, std::uint32_t value, std::uint32_t slot) {
    const bool grid = scope == RecordScope::Grid;
    const std::vector<TraceEntry>& trace = grid ? grid_trace_ : wg_trace_;
    std::uint32_t& k = grid ? record_grid_[slot] : record_wg_[slot];
    if (k >= trace.size() || trace[k].pc != pc || trace[k].value != value) return false;
    ++k;
    return true;
  }
  void trap(ir::TrapKind kind, std::uint32_t pc, std::uint32_t workgroup, std::uint32_t local, std::string message);
  void diverge(DivergenceKind kind, bool grid_scope, std::uint32_t pc_a, std::uint32_t wg_a, std::uint32_t local_a,
               std::uint32_t pc_b, std::uint32_t wg_b, std::uint32_t local_b, std::string message);
  /// Counts an out-of-bounds access (its first one per buffer in detail) and tells the observers.
  /// Without observers of accesses the loop counts a buffer's later ones itself (the same counts).
  [[gnu::cold]] void out_of_bounds(AccessKind kind, std::uint32_t buffer, std::uint64_t index, std::uint32_t pc,
                                   std::uint32_t workgroup, std::uint32_t local);
  /// out_of_bounds' observer calls, apart: without them out_of_bounds saves no registers.
  [[gnu::noinline]] void notify_out_of_bounds(AccessKind kind, std::uint32_t buffer, std::uint64_t index,
                                              std::uint32_t pc, std::uint32_t workgroup, std::uint32_t local);

  std::uint32_t* frame(std::uint32_t slot) { return frames_.data() + std::size_t{slot} * frame_words_; }
  std::uint32_t slot_base(std::uint32_t workgroup) const { return resident_all_ ? workgroup * lanes_ : 0; }
  MemoryView memory_view() const { return MemoryView{storage_spans_}; }

  const CompiledProgram& prog_;
  const RunOptions& opts_;
  std::span<Observer* const> observers_;
  RaceDetector* races_;
  std::vector<Observer*> access_observers_;  ///< those of observers_ that watch accesses
  UninitDetector* uninit_;
  std::uint64_t* wg_shadow_ = nullptr;  ///< the running workgroup's uninit shadow (with uninit_)
  RunResult& result_;
  LaunchContext ctx_;

  Grid grid_;
  std::uint32_t workgroups_;
  std::uint32_t lanes_;  ///< invocations per workgroup
  bool resident_all_;    ///< the program has a grid_sync: every invocation stays resident
  std::uint32_t frame_words_;

  std::vector<Threaded> threaded_;               ///< prog_.code with handlers, built by the first run_lanes
  const void* const* threaded_table_ = nullptr;  ///< the handler table threaded_ was built from
  std::vector<View> views_;
  std::vector<std::span<const std::uint8_t>> storage_spans_;
  std::vector<std::uint32_t> workgroup_memory_;
  std::vector<std::uint32_t> frames_;
  std::vector<std::uint32_t> pc_;
  std::vector<Status> status_;
  std::vector<std::uint32_t> record_wg_;
  std::vector<std::uint32_t> record_grid_;
  std::vector<std::uint32_t> alive_;  ///< per resident workgroup: invocations not finished
  std::vector<std::array<std::uint32_t, 3>> local_ids_;

  std::vector<TraceEntry> wg_trace_;
  std::vector<TraceEntry> grid_trace_;

  OrderGenerator orders_;
  std::vector<std::uint32_t> lane_order_;
  std::vector<std::uint32_t> identity_slots_;   ///< base + 0, ..., base + lanes_ - 1 (run_lanes' order)
  std::uint32_t identity_slots_base_ = UINT32_MAX;  ///< the base identity_slots_ holds
  std::vector<std::uint32_t> shuffled_slots_;   ///< base + lane_order_[l] (run_lanes' order)
  std::vector<std::uint32_t> wg_order_;

  // Barrier bookkeeping of the running workgroup and grid phase.
  std::uint32_t wg_at_barrier_ = 0, wg_barrier_pc_ = 0, wg_barrier_local_ = 0;
  std::uint32_t wg_at_fence_ = 0, wg_fence_pc_ = 0, wg_fence_local_ = 0;
  std::uint32_t grid_at_fence_ = 0, grid_fence_pc_ = 0, grid_fence_wg_ = 0, grid_fence_local_ = 0;

  // The step budget. With a deadline it is handed to the loop in chunks of kDeadlineCheckSteps, so
  // the clock is read once per chunk and the hot loop checks nothing more than without one.
  std::int64_t fuel_;     ///< the loop's share; may go negative by an invocation's straight-line tail
  std::int64_t reserve_;  ///< budget not yet handed to the loop
  ir::Deadline deadline_;
  bool timed_out_ = false;
  std::uint32_t launch_index_ = 0;

  struct OobCounters {
    std::uint64_t loads = 0, stores = 0, atomics = 0;
    AccessKind first_kind = AccessKind::Load;
    std::uint64_t first_index = 0;
    std::uint32_t first_pc = 0, first_wg = 0, first_local = 0;
  };
  std::vector<OobCounters> oob_;
  Storage* reuse_ = nullptr;

 public:
  /// The vectors of an engine, kept between dispatches by a caller that runs many (interpreter.cpp's
  /// per-thread cache): an engine given a Storage takes its vectors at construction, emptied with
  /// their capacity kept (those whose every element it writes before reading it, frames included,
  /// keep their old contents: sizing them fills nothing), and moves them back at destruction, so a
  /// dispatch reuses their memory instead of allocating and clearing it. Their contents mean nothing
  /// between engines; an engine behaves exactly as with fresh vectors.
  struct Storage {
    std::vector<Observer*> access_observers;
    std::vector<Threaded> threaded;
    std::vector<View> views;
    std::vector<std::span<const std::uint8_t>> storage_spans;
    std::vector<std::uint32_t> workgroup_memory, frames, pc, record_wg, record_grid, alive;
    std::vector<Status> status;
    std::vector<std::array<std::uint32_t, 3>> local_ids;
    std::vector<TraceEntry> wg_trace, grid_trace;
    std::vector<std::uint32_t> lane_order, identity_slots, shuffled_slots, wg_order;
    std::vector<OobCounters> oob;
    /// Bytes held (capacities), for a cache's bound on what it keeps.
    std::size_t bytes() const;
  };
};

}  // namespace gridcheck::interp
