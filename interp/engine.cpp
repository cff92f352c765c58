#include "interp/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>
#include <numeric>

#include "ir/scalar_semantics.hpp"

namespace gridcheck::interp {
namespace {

static_assert(std::endian::native == std::endian::little, "buffers are little-endian words; add byte swaps");

inline std::uint32_t read_word(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline void write_word(std::uint8_t* p, std::uint32_t v) { std::memcpy(p, &v, 4); }

/// `v`, hidden from the optimiser: the blocking handlers index the lane arrays with it, so GCC does
/// not keep the lane switch's element addresses alive (spilled) across the whole execution loop.
inline std::uint32_t opaque(std::uint32_t v) {
  asm("" : "+r"(v));
  return v;
}

/// The bits of `v` in reverse order (ir::eval_unary's ReverseBits).
inline std::uint32_t reverse_bits(std::uint32_t v) {
  v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
  v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
  v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
  v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
  return (v >> 16) | (v << 16);
}
/// The number of set bits of `v` (std::popcount's value, without the library call GCC makes of it
/// for a target without a popcount instruction).
inline std::uint32_t popcount(std::uint32_t v) {
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  v = (v + (v >> 4)) & 0x0F0F0F0Fu;
  return (v * 0x01010101u) >> 24;
}
/// `v` saturated to the i32 range, as bits (ir::eval_binary's i32 saturating operators).
inline std::uint32_t saturate_i32(std::int64_t v) {
  if (v > INT32_MAX) return static_cast<std::uint32_t>(INT32_MAX);
  if (v < INT32_MIN) return static_cast<std::uint32_t>(INT32_MIN);
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
}

/// Superinstructions of the threaded code (Engine::run_lanes): an instruction followed by one of the
/// opcodes listed with it here gets a handler that
/// runs its own body and then goes straight (a direct jump) to the next instruction's handler: one
/// indirect jump for the pair instead of two, and a jump site per pair for the branch predictor.
/// Each instruction keeps its own fuel unit, index and reports; a jump to the second one of a pair
/// runs its plain handler. The pairs are the most frequent adjacent ones of the sound campaign
/// (bench/README.md, "Session 28: fewer dispatches"); the first one of each must be an opcode with
/// a GC_BODY_ (engine.cpp's loop): one that neither blocks nor traps (a divergence record may stop),
/// or a conditional jump, paired with the instruction it falls through to. Loads and stores come
/// second only: as the first they doubled the loop's code for no gain (GC_BODY_Load and
/// GC_BODY_Store are there to try again). Load stands for the three loads (one handler),
/// LoadUnwatched for a load the race detector's direct path does not watch (kLoadUnwatched's).
#define GC_FUSED_PAIRS(X) \
  X(MulAdd, MulAdd) \
  X(Mul, MulAdd) \
  X(Mul, Mul) \
  X(MulAdd, Load) \
  X(MulAdd, JnLtU) \
  X(LogNot, Jz) \
  X(MulAdd, Store) \
  X(Mov, Mov) \
  X(Select, Store) \
  X(ModU, JnEq) \
  X(MulAdd, Add) \
  X(ModU, Load) \
  X(Add, Load) \
  X(Mov, MulAdd) \
  X(Mov, Mul) \
  X(MulAdd, Sub) \
  X(ModU, JgeU) \
  X(Mul, DivU) \
  X(Mov, LogNot) \
  X(Sub, Mul) \
  X(LtU, RecordIf) \
  X(DivU, JgeU) \
  X(Xor, Store) \
  X(MinU, Store) \
  X(NeZero, Xor) \
  X(LtU, NeZero) \
  X(Add, MinU) \
  X(Mov, RecordLoop) \
  X(MulAdd, Mul) \
  X(Add, Store) \
  X(Mov, Load) \
  X(Inc, MulAdd) \
  X(Mov, ModU) \
  X(Select, ModU) \
  X(ModU, Add) \
  X(Add, JgeU) \
  X(Select, Select) \
  X(MulAdd, Mov) \
  X(Mov, Add) \
  X(Mov, Store) \
  X(MulAdd, LoadUnwatched) \
  X(ModU, LoadUnwatched) \
  X(Add, LoadUnwatched) \
  X(Mov, LoadUnwatched) \
  X(JnLtU, MulAdd) \
  X(RecordIf, Jz) \
  X(JgeU, Mul) \
  X(RecordLoop, JgeU) \
  X(JgeU, Mov)

/// The names of GC_FUSED_PAIRS: the opcodes, and LoadUnwatched (code kOpCount).
struct PairNames {
  using enum Op;
  static constexpr int LoadUnwatched = kOpCount;
};
constexpr int pair_code(Op op) { return static_cast<int>(op); }
constexpr int pair_code(int code) { return code; }
struct FusedPair {
  int first, second;
};
#define GC_PAIR_ENTRY(a, b) FusedPair{pair_code(PairNames::a), pair_code(PairNames::b)},
inline constexpr FusedPair kFusedPairs[] = {GC_FUSED_PAIRS(GC_PAIR_ENTRY)};
#undef GC_PAIR_ENTRY
/// kPairKey[code]: a small key per code that takes part in a pair (LoadBool and LoadF32 share
/// Load's: one handler), 0 for the others.
inline constexpr int kPairKeys = 32;
inline constexpr auto kPairKey = [] {
  std::array<std::uint8_t, kOpCount + 1> key{};
  std::uint8_t next = 1;
  for (const FusedPair& p : kFusedPairs)
    for (const int code : {p.first, p.second})
      if (key[code] == 0) key[code] = next++;
  key[static_cast<int>(Op::LoadBool)] = key[static_cast<int>(Op::Load)];
  key[static_cast<int>(Op::LoadF32)] = key[static_cast<int>(Op::Load)];
  return key;
}();
static_assert(std::ranges::max(kPairKey) < kPairKeys);
/// kPairOf[first key][second key]: 1 + the pair's position in kFusedPairs, 0 for none (key 0 never pairs).
inline constexpr auto kPairOf = [] {
  std::array<std::array<std::uint8_t, kPairKeys>, kPairKeys> t{};
  for (std::size_t i = 0; i < std::size(kFusedPairs); ++i)
    t[kPairKey[kFusedPairs[i].first]][kPairKey[kFusedPairs[i].second]] = static_cast<std::uint8_t>(i + 1);
  return t;
}();
static_assert(std::size(kFusedPairs) < 255);

// Diagnostic codes of run-time outcomes.
constexpr const char* kTrapCode = "R020";
constexpr const char* kOutOfFuelCode = "R021";
constexpr const char* kTimeoutCode = "R022";

/// The fuel an invocation's start or resumption costs on top of its instructions, so that the step
/// budget bounds a huge grid of short invocations too (docs/semantics.md §3.9).
constexpr std::int64_t kInvocationSwitchSteps = 4;
constexpr const char* kDivergenceCode = "R030";

std::string_view u32_use_text(U32Use use) {
  switch (use) {
    case U32Use::Index: return "index";
    case U32Use::AtomicOperand: return "atomic operand";
    case U32Use::LoopBound: return "loop bound";
  }
  return "value";
}

/// Engine::Storage's vectors: `mine` takes `kept`'s memory, empty (as a fresh vector).
template <class T>
void take(std::vector<T>& mine, std::vector<T>& kept) {
  mine.swap(kept);
  mine.clear();
}
/// The same for a vector whose every element the engine writes before it reads it: `mine` takes
/// `kept` with its contents, so sizing it (resize) writes only the elements it grows by.
template <class T>
void take_for_overwrite(std::vector<T>& mine, std::vector<T>& kept) {
  mine.swap(kept);
}
template <class T>
std::size_t capacity_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

}  // namespace

bool is_fused_pair(Op first, Op second) {
  return kPairOf[kPairKey[static_cast<int>(first)]][kPairKey[static_cast<int>(second)]] != 0;
}

InvocationIds LaunchContext::ids(std::uint32_t workgroup, std::uint32_t local) const {
  const auto size = program->workgroup_size;
  InvocationIds ids;
  ids.workgroup = {workgroup % grid[0], (workgroup / grid[0]) % grid[1], workgroup / (grid[0] * grid[1])};
  ids.local = {local % size[0], (local / size[0]) % size[1], local / (size[0] * size[1])};
  for (int a = 0; a < 3; ++a) ids.global[a] = ids.workgroup[a] * size[a] + ids.local[a];
  return ids;
}

std::uint64_t Engine::state_bytes(const CompiledProgram& program, Grid grid) {
  const std::uint64_t workgroups = std::uint64_t{grid[0]} * grid[1] * grid[2];
  const std::uint64_t lanes = program.invocations_per_workgroup();
  const std::uint64_t resident_groups = program.has_fence ? workgroups : 1;
  const std::uint64_t resident = resident_groups * lanes;
  // frame words + pc + status + two record counters, workgroup memory, orders
  return resident * (std::uint64_t{program.frame_words} * 4 + 4 + 1 + 8) +
         resident_groups * (std::uint64_t{program.workgroup_words} * 4 + 4) + workgroups * 4 + lanes * 16;
}

Engine::Engine(const CompiledProgram& program, const RunOptions& options, std::span<Observer* const> observers,
               RaceDetector* races, UninitDetector* uninit, Grid grid, std::span<Bytes> storage, RunResult& result,
               Storage* reuse)
    : prog_(program),
      opts_(options),
      observers_(observers),
      races_(races),
      uninit_(uninit),
      result_(result),
      grid_(grid),
      workgroups_(grid[0] * grid[1] * grid[2]),
      lanes_(program.invocations_per_workgroup()),
      resident_all_(program.has_fence),
      frame_words_(program.frame_words),
      orders_(options.schedule),
      fuel_(static_cast<std::int64_t>(std::min<std::uint64_t>(options.limits.fuel, INT64_MAX))),
      reserve_(0),
      deadline_(options.deadline),
      reuse_(reuse) {
  if (reuse_ != nullptr) {
    Storage& k = *reuse_;
    take(access_observers_, k.access_observers);
    take(threaded_, k.threaded);
    take(views_, k.views);
    take(storage_spans_, k.storage_spans);
    take_for_overwrite(workgroup_memory_, k.workgroup_memory);
    take_for_overwrite(frames_, k.frames);
    take_for_overwrite(pc_, k.pc);
    take_for_overwrite(status_, k.status);
    take_for_overwrite(record_wg_, k.record_wg);
    take_for_overwrite(record_grid_, k.record_grid);
    take_for_overwrite(alive_, k.alive);
    take(local_ids_, k.local_ids);
    take(wg_trace_, k.wg_trace);
    take(grid_trace_, k.grid_trace);
    take(lane_order_, k.lane_order);
    take(identity_slots_, k.identity_slots);
    take(shuffled_slots_, k.shuffled_slots);
    take(wg_order_, k.wg_order);
    take(oob_, k.oob);
  }
  for (Observer* o : observers_)
    if (o->watches_accesses()) access_observers_.push_back(o);
  GC_ASSERT(races_ == nullptr || access_observers_.empty());
  if (deadline_ && fuel_ > kDeadlineCheckSteps) {
    reserve_ = fuel_ - kDeadlineCheckSteps;
    fuel_ = kDeadlineCheckSteps;
  }
  ctx_.program = &prog_;
  ctx_.grid = grid_;
  ctx_.workgroup_count = workgroups_;
  const std::uint32_t resident_groups = resident_all_ ? workgroups_ : 1;
  const std::size_t resident = std::size_t{resident_groups} * lanes_;
  views_.resize(prog_.buffers.size());
  for (std::size_t b = 0; b < prog_.buffers.size(); ++b) {
    const CompiledBuffer& cb = prog_.buffers[b];
    if (cb.workgroup) {
      views_[b].count = cb.declared_count;
      views_[b].shadow_offset = cb.workgroup_offset;
    } else {
      Bytes& bytes = storage[cb.storage_index];
      views_[b] = View{bytes.data(), static_cast<std::uint32_t>(bytes.size() / 4)};
    }
  }
  for (const Bytes& bytes : storage) storage_spans_.emplace_back(bytes.data(), bytes.size());
  // Sized, not filled: each launch fills the workgroup memory, the statuses and the grid record
  // counters; start_workgroup writes pc, alive and the ids, launch the constants, run_workgroup the
  // workgroup record counters before any read; every other frame slot (a let, a loop's two, an
  // expression temporary) is written by its instruction before one reads it (compile.cpp). Without
  // a grid_sync the frames already pass from one workgroup to the next so.
  workgroup_memory_.resize(std::size_t{resident_groups} * prog_.workgroup_words);
  if (frames_.size() < resident * frame_words_) frames_.resize(resident * frame_words_);  // never shrunk: no size is read
  pc_.resize(resident);
  status_.resize(resident);
  record_wg_.resize(resident);
  record_grid_.resize(resident);
  alive_.resize(resident_groups);
  const auto size = prog_.workgroup_size;
  identity_slots_.resize(lanes_);
  shuffled_slots_.resize(lanes_);
  local_ids_.resize(lanes_);
  for (std::uint32_t l = 0; l < lanes_; ++l)
    local_ids_[l] = {l % size[0], (l / size[0]) % size[1], l / (size[0] * size[1])};
  oob_.resize(prog_.buffers.size());
}

Engine::~Engine() {
  if (reuse_ == nullptr) return;
  Storage& k = *reuse_;
  k.access_observers.swap(access_observers_);
  k.threaded.swap(threaded_);
  k.views.swap(views_);
  k.storage_spans.swap(storage_spans_);
  k.workgroup_memory.swap(workgroup_memory_);
  k.frames.swap(frames_);
  k.pc.swap(pc_);
  k.status.swap(status_);
  k.record_wg.swap(record_wg_);
  k.record_grid.swap(record_grid_);
  k.alive.swap(alive_);
  k.local_ids.swap(local_ids_);
  k.wg_trace.swap(wg_trace_);
  k.grid_trace.swap(grid_trace_);
  k.lane_order.swap(lane_order_);
  k.identity_slots.swap(identity_slots_);
  k.shuffled_slots.swap(shuffled_slots_);
  k.wg_order.swap(wg_order_);
  k.oob.swap(oob_);
}

std::size_t Engine::Storage::bytes() const {
  return capacity_bytes(access_observers) + capacity_bytes(threaded) + capacity_bytes(views) +
         capacity_bytes(storage_spans) + capacity_bytes(workgroup_memory) + capacity_bytes(frames) +
         capacity_bytes(pc) + capacity_bytes(status) + capacity_bytes(record_wg) + capacity_bytes(record_grid) +
         capacity_bytes(alive) + capacity_bytes(local_ids) + capacity_bytes(wg_trace) + capacity_bytes(grid_trace) +
         capacity_bytes(lane_order) + capacity_bytes(identity_slots) + capacity_bytes(shuffled_slots) +
         capacity_bytes(wg_order) + capacity_bytes(oob);
}

bool Engine::refuel(std::int64_t& fuel) {
  while (fuel <= 0 && reserve_ > 0) {
    const std::int64_t chunk = std::min(reserve_, kDeadlineCheckSteps);
    fuel += chunk;
    reserve_ -= chunk;
  }
  if (deadline_ && ir::Clock::now() >= *deadline_) {
    timed_out_ = true;
    return false;
  }
  return fuel > 0;
}

void Engine::run(std::uint32_t fixpoint) {
  const std::int64_t initial_fuel = fuel_ + reserve_;
  if (deadline_ && ir::Clock::now() >= *deadline_) {  // a split's later launch, after the time ran out
    timed_out_ = true;
    result_.status = RunStatus::OutOfFuel;
    result_.diagnostics.error(kTimeoutCode, opts_.file, {},
                              fmt::format("the case ran past its time limit of {:g} seconds before this dispatch "
                                          "started (--timeout)",
                                          opts_.limits.timeout_seconds));
  } else {
    for (std::uint32_t i = 0; i < fixpoint; ++i)
      if (!launch(i)) break;
  }
  // An invocation may overrun the budget by its straight-line tail before a check sees it.
  result_.steps += static_cast<std::uint64_t>(initial_fuel - std::max<std::int64_t>(fuel_, 0) - reserve_);
  for (std::size_t b = 0; b < oob_.size(); ++b) {
    const OobCounters& c = oob_[b];
    if (c.loads + c.stores + c.atomics == 0) continue;
    OobRecord rec;
    rec.buffer = prog_.buffers[b].name;
    rec.workgroup_memory = prog_.buffers[b].workgroup;
    rec.element_count = views_[b].count;
    rec.loads = c.loads;
    rec.stores = c.stores;
    rec.atomics = c.atomics;
    rec.first_kind = c.first_kind;
    rec.first_index = c.first_index;
    rec.first_site = prog_.site(c.first_pc);
    rec.first_invocation = ctx_.ids(c.first_wg, c.first_local);
    result_.oob.push_back(std::move(rec));
  }
}

bool Engine::launch(std::uint32_t index) {
  launch_index_ = index;
  ctx_.launch = index;
  // Constants into every resident frame; workgroup memory and invocation state start fresh. The
  // first frame's are written one by one; when they form one block (the grid, the literals, then
  // the buf_len slots, as compile lays them out) the other frames copy that block.
  const std::size_t resident = status_.size();
  const std::size_t literals_end = kFirstConstSlot + prog_.literal_values.size();
  bool one_block = true;
  for (std::size_t i = 0; i < prog_.buf_len_slots.size(); ++i)
    one_block = one_block && prog_.buf_len_slots[i].slot == literals_end + i;
  const std::size_t block_end = literals_end + prog_.buf_len_slots.size();
  for (std::size_t s = 0; s < resident; ++s) {
    std::uint32_t* r = frame(static_cast<std::uint32_t>(s));
    if (s > 0 && one_block) {
      std::memcpy(r + kSlotNumWorkgroups, frames_.data() + kSlotNumWorkgroups,
                  (block_end - kSlotNumWorkgroups) * sizeof(std::uint32_t));
      continue;
    }
    for (int a = 0; a < 3; ++a) {
      r[kSlotNumWorkgroups + a] = grid_[a];
      r[kSlotWorkgroupSize + a] = prog_.workgroup_size[a];
    }
    std::copy(prog_.literal_values.begin(), prog_.literal_values.end(), r + kFirstConstSlot);
    for (const auto& bl : prog_.buf_len_slots) r[bl.slot] = views_[bl.buffer].count;
  }
  std::fill(status_.begin(), status_.end(), Status::Finished);
  std::fill(workgroup_memory_.begin(), workgroup_memory_.end(), 0u);
  grid_trace_.clear();
  std::fill(record_grid_.begin(), record_grid_.end(), 0u);
  for (Observer* o : observers_) o->on_launch_begin(ctx_);
  if (races_ != nullptr) races_->on_launch_begin(ctx_);
  if (uninit_ != nullptr) uninit_->begin_launch(ctx_);

  std::uint32_t fence_index = 0;
  for (bool first = true;; first = false) {
    grid_at_fence_ = 0;
    if (orders_.is_identity() || workgroups_ <= 1) {
      for (std::uint32_t wg = 0; wg < workgroups_; ++wg)
        if (!run_workgroup(wg, first)) return false;
    } else {
      orders_.next(wg_order_, workgroups_);
      for (std::uint32_t wg : wg_order_)
        if (!run_workgroup(wg, first)) return false;
    }
    if (grid_at_fence_ == 0) break;  // every invocation finished
    // Release the grid_sync: everyone waits at the same one (checked on arrival).
    for (std::size_t s = 0; s < resident; ++s)
      if (status_[s] == Status::AtFence) status_[s] = Status::Ready;
    std::fill(record_grid_.begin(), record_grid_.end(), 0u);
    grid_trace_.clear();
    for (Observer* o : observers_) o->on_fence_release(fence_index, grid_fence_pc_, memory_view());
    if (races_ != nullptr) races_->on_fence_release(fence_index, grid_fence_pc_, memory_view());
    ++fence_index;
  }
  for (Observer* o : observers_) o->on_launch_end(index, memory_view());
  if (races_ != nullptr) races_->on_launch_end(index, memory_view());
  return true;
}

void Engine::start_workgroup(std::uint32_t workgroup, std::uint32_t base) {
  Grid wg_ids = {workgroup % grid_[0], (workgroup / grid_[0]) % grid_[1], workgroup / (grid_[0] * grid_[1])};
  const auto size = prog_.workgroup_size;
  const Grid first = {wg_ids[0] * size[0], wg_ids[1] * size[1], wg_ids[2] * size[2]};  // global id of lane 0
  // Locals only: the stores into the frames (uint32_t) could alias the members' arrays.
  const std::array<std::uint32_t, 3>* const lids = local_ids_.data();
  const std::size_t frame_words = frame_words_;
  const std::uint32_t lanes = lanes_;
  std::uint32_t* r = frame(base);
  for (std::uint32_t l = 0; l < lanes; ++l, r += frame_words) {
    const std::array<std::uint32_t, 3> lid = lids[l];
    for (int a = 0; a < 3; ++a) {
      r[kSlotLocalId + a] = lid[a];
      r[kSlotWorkgroupId + a] = wg_ids[a];
      r[kSlotGlobalId + a] = first[a] + lid[a];
    }
  }
  std::fill_n(pc_.begin() + base, lanes, 0u);
  std::fill_n(status_.begin() + base, lanes, Status::Ready);
  std::fill_n(record_grid_.begin() + base, lanes, 0u);
  const std::size_t words = prog_.workgroup_words;
  if (words > 0) {
    auto block = workgroup_memory_.begin() + static_cast<std::ptrdiff_t>((base / lanes_) * words);
    std::fill(block, block + static_cast<std::ptrdiff_t>(words), 0u);
  }
  alive_[base / lanes_] = lanes_;
}

bool Engine::on_stop(Stop stop, std::uint32_t slot, std::uint32_t workgroup, std::uint32_t local) {
  const std::uint32_t group_slot = slot / lanes_;
  switch (stop) {
    case Stop::Finished:
      status_[slot] = Status::Finished;
      --alive_[group_slot];
      return true;
    case Stop::Barrier: {
      status_[slot] = Status::AtBarrier;
      const std::uint32_t pc = pc_[slot] - 1;
      if (wg_at_fence_ > 0) {
        diverge(DivergenceKind::BarrierAndFence, false, wg_fence_pc_, workgroup, wg_fence_local_, pc, workgroup,
                local, "some invocations of a workgroup wait at a grid_sync while others wait at a workgroup barrier");
        return false;
      }
      if (wg_at_barrier_ == 0) {
        wg_barrier_pc_ = pc;
        wg_barrier_local_ = local;
      } else if (pc != wg_barrier_pc_) {
        diverge(DivergenceKind::DifferentBarriers, false, wg_barrier_pc_, workgroup, wg_barrier_local_, pc,
                workgroup, local, "invocations of one workgroup wait at different barriers");
        return false;
      }
      ++wg_at_barrier_;
      return true;
    }
    case Stop::Fence: {
      status_[slot] = Status::AtFence;
      const std::uint32_t pc = pc_[slot] - 1;
      if (wg_at_barrier_ > 0) {
        diverge(DivergenceKind::BarrierAndFence, false, wg_barrier_pc_, workgroup, wg_barrier_local_, pc, workgroup,
                local, "some invocations of a workgroup wait at a workgroup barrier while others wait at a grid_sync");
        return false;
      }
      if (grid_at_fence_ == 0) {
        grid_fence_pc_ = pc;
        grid_fence_wg_ = workgroup;
        grid_fence_local_ = local;
      } else if (pc != grid_fence_pc_) {
        diverge(DivergenceKind::DifferentBarriers, true, grid_fence_pc_, grid_fence_wg_, grid_fence_local_, pc,
                workgroup, local, "invocations of the grid wait at different grid_syncs");
        return false;
      }
      if (wg_at_fence_ == 0) {
        wg_fence_pc_ = pc;
        wg_fence_local_ = local;
      }
      ++wg_at_fence_;
      ++grid_at_fence_;
      return true;
    }
    case Stop::OutOfFuel: {
      result_.status = RunStatus::OutOfFuel;
      const Site site = prog_.site(pc_[slot]);
      const std::string where = fmt::format("{} of {}", site.what, to_string(ctx_.ids(workgroup, local)));
      if (timed_out_)
        result_.diagnostics.error(kTimeoutCode, opts_.file, site.loc,
                                  fmt::format("the case ran past its time limit of {:g} seconds here, at {} "
                                              "(--timeout)",
                                              opts_.limits.timeout_seconds, where));
      else
        result_.diagnostics.error(kOutOfFuelCode, opts_.file, site.loc,
                                  fmt::format("the run used its whole budget of {} steps here, at {} (an endless "
                                              "loop, or raise the budget with --fuel)",
                                              opts_.limits.fuel, where));
      return false;
    }
    case Stop::Trap:
    case Stop::Divergence: return false;
  }
  return false;
}

bool Engine::run_workgroup(std::uint32_t workgroup, bool fresh) {
  const std::uint32_t base = slot_base(workgroup);
  const std::uint32_t group_slot = base / lanes_;
  if (fresh) {
    start_workgroup(workgroup, base);
  } else if (alive_[group_slot] == 0) {
    return true;  // every invocation of it returned before this grid phase
  }
  // Bind the workgroup buffers to this workgroup's memory.
  if (prog_.workgroup_words > 0) {
    auto* block = reinterpret_cast<std::uint8_t*>(workgroup_memory_.data() + std::size_t{group_slot} * prog_.workgroup_words);
    for (std::size_t b = 0; b < prog_.buffers.size(); ++b)
      if (prog_.buffers[b].workgroup) views_[b].data = block + std::size_t{prog_.buffers[b].workgroup_offset} * 4;
  }
  std::fill_n(record_wg_.begin() + base, lanes_, 0u);
  wg_trace_.clear();
  wg_at_barrier_ = 0;
  wg_at_fence_ = 0;
  const Watch watch = !access_observers_.empty() ? Watch::Observers : races_ != nullptr ? Watch::Races : Watch::None;
  for (Observer* o : observers_) o->on_workgroup_enter(workgroup);
  if (races_ != nullptr) races_->on_workgroup_enter(workgroup);
  if (uninit_ != nullptr) {
    uninit_->enter_workgroup(workgroup);
    wg_shadow_ = uninit_->shadow(workgroup);
  }

  for (;;) {
    // The slots in schedule order: the identity order is filled once per base, a shuffled one
    // per round (one orders_.next per round, as the schedule's sequence of orders requires).
    const std::uint32_t* order;
    if (orders_.is_identity()) {
      if (identity_slots_base_ != base) {
        std::iota(identity_slots_.begin(), identity_slots_.begin() + lanes_, base);
        identity_slots_base_ = base;
      }
      order = identity_slots_.data();
    } else {
      orders_.next(lane_order_, lanes_);
      for (std::uint32_t l = 0; l < lanes_; ++l) shuffled_slots_[l] = base + lane_order_[l];
      order = shuffled_slots_.data();
    }
    bool going;
    if (uninit_ != nullptr) {
      going = watch == Watch::None    ? run_lanes<Watch::None, true>(workgroup, base, order)
              : watch == Watch::Races ? run_lanes<Watch::Races, true>(workgroup, base, order)
                                      : run_lanes<Watch::Observers, true>(workgroup, base, order);
    } else {
      going = watch == Watch::None    ? run_lanes<Watch::None, false>(workgroup, base, order)
              : watch == Watch::Races ? run_lanes<Watch::Races, false>(workgroup, base, order)
                                      : run_lanes<Watch::Observers, false>(workgroup, base, order);
    }
    if (!going) return false;
    if (wg_at_barrier_ == 0) break;
    // Every non-finished invocation waits at the same workgroup barrier (a lane at a grid_sync
    // would have been a divergence on arrival): release it. Branch-free; the record counters of
    // finished lanes are never read again in this launch, so all of them restart.
    Status* const status = status_.data() + base;
    for (std::uint32_t l = 0; l < lanes_; ++l)
      status[l] = status[l] == Status::AtBarrier ? Status::Ready : status[l];
    std::fill_n(record_wg_.begin() + base, lanes_, 0u);
    wg_trace_.clear();
    wg_at_barrier_ = 0;
    for (Observer* o : observers_) o->on_barrier_release(workgroup, wg_barrier_pc_);
    if (races_ != nullptr) races_->on_barrier_release(workgroup, wg_barrier_pc_);
  }
  for (Observer* o : observers_) o->on_workgroup_leave(workgroup);
  if (races_ != nullptr) races_->on_workgroup_leave(workgroup);
  return true;
}

// The execution loop: runs every ready invocation of the workgroup in schedule order until it
// blocks, switching invocations without leaving the loop (only the frame and pc change).
// Direct-threaded dispatch (GCC computed goto), one small handler per opcode: the code runs from a
// copy in which each instruction carries its handler's address (threaded_), so a dispatch is one
// load and one indirect jump, and each handler ends in its own jump (engine.cpp is compiled with
// -fno-crossjumping, interp/CMakeLists.txt), which the branch predictor tells apart.
// Every instruction costs one unit of fuel (a compare-and-jump two: it stands for a comparison and a Jz), and starting or resuming an invocation
// kInvocationSwitchSteps (so a huge grid of short invocations is bounded in time as a long loop is);
// the budget is checked where a run can go on for ever — at each loop back-edge and when an
// invocation starts — so straight-line code pays no branch for it.
// Handlers are listed in the order of enum Op.
template <Engine::Watch kWatch, bool kUninit>
bool Engine::run_lanes(std::uint32_t workgroup, std::uint32_t base, const std::uint32_t* order) {
  static constexpr void* kHandlers[] = {
      &&op_Mov,    &&op_Jmp,      &&op_Jz,       &&op_JgeU,   &&op_LoopNext,
      &&op_JnEq,   &&op_JnNe,     &&op_JnLtU,    &&op_JnLtS,  &&op_JnLeU,    &&op_JnLeS,  &&op_Add,    &&op_Sub,     &&op_Mul,
      &&op_And,    &&op_Or,       &&op_Xor,      &&op_Shl,    &&op_ShrU,     &&op_ShrS,   &&op_Eq,      &&op_Ne,
      &&op_LtU,    &&op_LtS,      &&op_LeU,      &&op_LeS,    &&op_DivU,     &&op_ModU,   &&op_DivS,    &&op_ModS,
      &&op_MinU,   &&op_MaxU,     &&op_MinS,     &&op_MaxS,   &&op_LogAnd,   &&op_LogOr,  &&op_LogNot,  &&op_MulAdd, &&op_Inc,
      &&op_Neg,    &&op_BitNot,   &&op_Popcount, &&op_Clz,    &&op_Ctz,      &&op_ReverseBits, &&op_AbsS, &&op_NeZero,
      &&op_SatAddU, &&op_SatSubS, &&op_RotlU,    &&op_MulHiU, &&op_AddF32,   &&op_SubF32, &&op_MulF32,
      &&op_Binary, &&op_Unary,    &&op_Cast,     &&op_Fma,    &&op_Select,   &&op_TruthyF32, &&op_CheckU32,
      &&op_Load,   &&op_LoadBool, &&op_LoadF32,  &&op_Store,  &&op_Atomic,   &&op_RecordIf, &&op_RecordLoop,
      &&op_Barrier, &&op_Fence,   &&op_Return,   &&op_Trap,
  };
  static_assert(std::size(kHandlers) == kOpCount, "one handler per opcode, in enum order");
#define GC_PAIR_ADDRESS(a, b) &&op_##a##_then_##b,
  static constexpr void* kPairHandlers[] = {GC_FUSED_PAIRS(GC_PAIR_ADDRESS)};
#undef GC_PAIR_ADDRESS
  // Watch::Races: the handler of a load the race detector does not watch (Op::Load's, less the call).
  [[maybe_unused]] static constexpr void* kLoadUnwatched = &&op_LoadUnwatched;

  if (threaded_table_ != kHandlers) {  // once per engine: one instantiation runs a whole dispatch
    // Backwards, so that each instruction's successor is known: a pair of kFusedPairs gets its
    // superinstruction's handler, which goes on at the successor's own label.
    const std::size_t n = prog_.code.size();
    threaded_.resize(n);
    std::uint8_t next_key = 0;
    for (std::size_t i = n; i-- > 0;) {
      Threaded& t = threaded_[i];
      t.in = prog_.code[i];
      int code = static_cast<int>(t.in.op);
      const void* handler = kHandlers[code];
      if constexpr (kWatch == Watch::Races) {
        // A load of a buffer the detector does not watch (never written: it cannot race) skips it;
        // the others carry their race site in `e` (unused by loads and stores).
        const bool load = t.in.op == Op::Load || t.in.op == Op::LoadBool || t.in.op == Op::LoadF32;
        if (load && !races_->watches(t.in.a)) {
          handler = kLoadUnwatched;
          code = PairNames::LoadUnwatched;
        }
        if (load || t.in.op == Op::Store) t.in.e = races_->site_of(static_cast<std::uint32_t>(i));
      }
      const std::uint8_t key = kPairKey[code];
      if (const std::uint8_t pair = kPairOf[key][next_key]) handler = kPairHandlers[pair - 1];
      t.handler = handler;
      next_key = key;
    }
    threaded_table_ = kHandlers;
  }
  const Threaded* const code = threaded_.data();
  View* const views = views_.data();
  [[maybe_unused]] std::uint64_t* const shadow = wg_shadow_;
  [[maybe_unused]] RaceDetector* const races = races_;
  // The detector's direct-path state, constant while this loop runs (race_detector.hpp, load).
  [[maybe_unused]] const auto race_state =
      races != nullptr ? races->direct_state() : decltype(races->direct_state()){};
  constexpr bool kObserved = kWatch == Watch::Observers;
  // The engine's arrays in locals: a store through a buffer pointer (memcpy) may alias any member,
  // so members would be reloaded after every store. The barrier bookkeeping stays in the members:
  // only the barrier handler reads it, with no store in between, and as locals GCC packed it into
  // vector registers and spilled the loop's pointers (callgrind: more instructions per switch).
  std::uint32_t* const frames = frames_.data();
  OobCounters* const oob = oob_.data();
  const std::size_t frame_words = frame_words_;
  Status* const status = status_.data();
  std::uint32_t* const pcs = pc_.data();
  std::uint32_t* const alive = alive_.data() + base / lanes_;
  const std::uint32_t* const order_end = order + lanes_;
  std::int64_t fuel = fuel_;
  std::uint32_t* r = nullptr;
  // The running instruction; its index (pc_of) is worked out only where a report or the barrier
  // bookkeeping needs it.
  const Threaded* ip = nullptr;
  auto pc_of = [code](const Threaded* at) { return static_cast<std::uint32_t>(at - code); };
  std::uint32_t slot = 0;
  const Instr* in = nullptr;
  Stop stop = Stop::Finished;

  // Out of line, with the values passed: the loop's locals stay in registers around the call.
  [[maybe_unused]] auto notify = [this, workgroup](AccessKind kind, std::uint32_t buffer, std::uint32_t element,
                                                   std::uint32_t value, std::uint32_t previous, std::uint32_t at,
                                                   std::uint32_t lane, bool cas_failed = false) {
    notify_access(kind, Access{buffer, element, at, workgroup, lane, value, previous, cas_failed});
  };

#define GC_DISPATCH()                          \
  do {                                         \
    --fuel;                                    \
    in = &ip->in;                              \
    goto* ip->handler;                         \
  } while (false)
#define GC_NEXT() \
  do {            \
    ++ip;         \
    GC_DISPATCH(); \
  } while (false)
// An out-of-bounds access: counted inline once its buffer has its first report (out_of_bounds
// keeps that one's details) unless observers watch accesses (they hear of each one).
#define GC_OUT_OF_BOUNDS(kind, counter, index)                                           \
  do {                                                                                   \
    OobCounters& c = oob[in->a];                                                         \
    if (kWatch != Watch::Observers && (c.loads | c.stores | c.atomics) != 0) [[likely]] \
      ++c.counter;                                                                       \
    else                                                                                 \
      out_of_bounds(kind, in->a, index, pc_of(ip), workgroup, slot - base);              \
  } while (false)
#define GC_BINARY(name, expr)                    \
  op_##name : {                                  \
    const std::uint32_t x = r[in->a], y = r[in->b]; \
    r[in->d] = (expr);                           \
    GC_NEXT();                                   \
  }

  for (; order != order_end; ++order) {
  slot = *order;
  if (status[slot] != Status::Ready) continue;
  r = frames + slot * frame_words;
  ip = code + pcs[slot];
  fuel -= kInvocationSwitchSteps;  // starting or resuming an invocation costs about this many instructions
  if (fuel <= 0) goto no_fuel;
  GC_DISPATCH();

  // The bodies of the simple handlers, written once: each handler below and each superinstruction
  // that starts with one (kFusedPairs, after the stores) runs the same one.
#define GC_BODY_Mov r[in->d] = r[in->a]
#define GC_BODY_MulAdd r[in->d] = r[in->a] * r[in->b] + r[in->c]
#define GC_BODY_Mul r[in->d] = r[in->a] * r[in->b]
#define GC_BODY_Add r[in->d] = r[in->a] + r[in->b]
#define GC_BODY_Sub r[in->d] = r[in->a] - r[in->b]
#define GC_BODY_Xor r[in->d] = r[in->a] ^ r[in->b]
#define GC_BODY_ModU r[in->d] = ir::scalar::u32_mod(r[in->a], r[in->b])
#define GC_BODY_DivU r[in->d] = ir::scalar::u32_div(r[in->a], r[in->b])
#define GC_BODY_MinU r[in->d] = std::min(r[in->a], r[in->b])
#define GC_BODY_LtU r[in->d] = r[in->a] < r[in->b] ? 1u : 0u
#define GC_BODY_LogNot r[in->d] = r[in->a] == 0 ? 1u : 0u
#define GC_BODY_NeZero r[in->d] = r[in->a] != 0 ? 1u : 0u
#define GC_BODY_Select r[in->d] = r[in->a] != 0 ? r[in->b] : r[in->c]
#define GC_BODY_Inc ++r[in->d]
op_Mov:
  GC_BODY_Mov;
  GC_NEXT();
op_Jmp:
  ip = code + in->a;
  GC_DISPATCH();
op_Jz:
  ip = r[in->a] == 0 ? code + in->b : ip + 1;
  GC_DISPATCH();
op_JgeU:
  ip = r[in->a] >= r[in->b] ? code + in->c : ip + 1;
  GC_DISPATCH();
op_LoopNext : {
  const std::uint32_t v = ++r[in->d];
  ip = v < r[in->a] ? code + in->b : ip + 1;
  if (fuel <= 0) [[unlikely]] goto no_fuel;
  GC_DISPATCH();
}
  // A compare-and-jump stands for the comparison and the Jz it replaced: two steps (GC_DISPATCH takes one).
#define GC_COMPARE_JUMP(name, expr)                   \
  op_##name : {                                       \
    const std::uint32_t x = r[in->a], y = r[in->b];   \
    ip = (expr) ? ip + 1 : code + in->c;              \
    --fuel;                                           \
    GC_DISPATCH();                                    \
  }
  GC_COMPARE_JUMP(JnEq, x == y)
  GC_COMPARE_JUMP(JnNe, x != y)
  GC_COMPARE_JUMP(JnLtU, x < y)
  GC_COMPARE_JUMP(JnLtS, ir::scalar::i32_lt(x, y) != 0)
  GC_COMPARE_JUMP(JnLeU, x <= y)
  GC_COMPARE_JUMP(JnLeS, ir::scalar::i32_le(x, y) != 0)
#undef GC_COMPARE_JUMP
op_Inc:
  GC_BODY_Inc;
  GC_NEXT();
op_Add:
  GC_BODY_Add;
  GC_NEXT();
op_Sub:
  GC_BODY_Sub;
  GC_NEXT();
op_Mul:
  GC_BODY_Mul;
  GC_NEXT();
  GC_BINARY(And, x & y)
  GC_BINARY(Or, x | y)
op_Xor:
  GC_BODY_Xor;
  GC_NEXT();
  GC_BINARY(Shl, ir::scalar::shl(x, y))
  GC_BINARY(ShrU, ir::scalar::u32_shr(x, y))
  GC_BINARY(ShrS, ir::scalar::i32_shr(x, y))
  GC_BINARY(Eq, x == y ? 1u : 0u)
  GC_BINARY(Ne, x != y ? 1u : 0u)
op_LtU:
  GC_BODY_LtU;
  GC_NEXT();
  GC_BINARY(LtS, ir::scalar::i32_lt(x, y))
  GC_BINARY(LeU, x <= y ? 1u : 0u)
  GC_BINARY(LeS, ir::scalar::i32_le(x, y))
op_DivU:
  GC_BODY_DivU;
  GC_NEXT();
op_ModU:
  GC_BODY_ModU;
  GC_NEXT();
op_MinU:
  GC_BODY_MinU;
  GC_NEXT();
  GC_BINARY(MaxU, x > y ? x : y)
  GC_BINARY(MinS, ir::scalar::i32_lt(y, x) ? y : x)
  GC_BINARY(MaxS, ir::scalar::i32_lt(x, y) ? y : x)
  GC_BINARY(LogAnd, (x != 0 && y != 0) ? 1u : 0u)
  GC_BINARY(LogOr, (x != 0 || y != 0) ? 1u : 0u)
op_LogNot:
  GC_BODY_LogNot;
  GC_NEXT();
#define GC_UNARY(name, expr)                 \
  op_##name : {                              \
    const std::uint32_t x = r[in->a];        \
    r[in->d] = (expr);                       \
    GC_NEXT();                               \
  }
  GC_UNARY(Neg, 0u - x)
  GC_UNARY(BitNot, ~x)
  GC_UNARY(Popcount, popcount(x))
  GC_UNARY(Clz, static_cast<std::uint32_t>(std::countl_zero(x)))
  GC_UNARY(Ctz, static_cast<std::uint32_t>(std::countr_zero(x)))
  GC_UNARY(ReverseBits, reverse_bits(x))
  GC_UNARY(AbsS, static_cast<std::int32_t>(x) < 0 ? 0u - x : x)
#undef GC_UNARY
  GC_BINARY(SatAddU, x + y < x ? 0xFFFFFFFFu : x + y)
  GC_BINARY(SatSubS, saturate_i32(std::int64_t{static_cast<std::int32_t>(x)} - static_cast<std::int32_t>(y)))
  GC_BINARY(RotlU, std::rotl(x, static_cast<int>(y & 31u)))
  GC_BINARY(MulHiU, static_cast<std::uint32_t>((std::uint64_t{x} * y) >> 32))
  GC_BINARY(AddF32, ir::scalar::f32_out(ir::scalar::f32_in(x) + ir::scalar::f32_in(y)))
  GC_BINARY(SubF32, ir::scalar::f32_out(ir::scalar::f32_in(x) - ir::scalar::f32_in(y)))
  GC_BINARY(MulF32, ir::scalar::f32_out(ir::scalar::f32_in(x) * ir::scalar::f32_in(y)))
op_MulAdd:
  GC_BODY_MulAdd;
  GC_NEXT();
op_NeZero:
  GC_BODY_NeZero;
  GC_NEXT();
op_DivS:
op_ModS : {
  const std::uint32_t x = r[in->a], y = r[in->b];
  const ir::ScalarResult v = in->op == Op::DivS ? ir::scalar::i32_div(x, y) : ir::scalar::i32_mod(x, y);
  if (!v.ok()) [[unlikely]] {
    trap(v.trap, pc_of(ip), workgroup, slot - base,
         fmt::format("i32 {} {} {} has no defined value", static_cast<std::int32_t>(x), in->op == Op::DivS ? "/" : "%",
                     static_cast<std::int32_t>(y)));
    stop = Stop::Trap;
    goto done;
  }
  r[in->d] = v.bits;
  GC_NEXT();
}
op_Binary : {
  const ir::ScalarResult v =
      ir::eval_binary(static_cast<ir::BinOp>(in->sub), static_cast<ir::ScalarType>(in->type), r[in->a], r[in->b]);
  if (!v.ok()) [[unlikely]] {
    trap(v.trap, pc_of(ip), workgroup, slot - base, "the operation has no defined value");
    stop = Stop::Trap;
    goto done;
  }
  r[in->d] = v.bits;
  GC_NEXT();
}
op_Unary:
  r[in->d] = ir::eval_unary(static_cast<ir::UnOp>(in->sub), static_cast<ir::ScalarType>(in->type), r[in->a]).bits;
  GC_NEXT();
op_Cast:
  r[in->d] = ir::eval_cast(static_cast<ir::ScalarType>(in->sub), static_cast<ir::ScalarType>(in->type), r[in->a]);
  GC_NEXT();
op_Fma:
  r[in->d] = ir::eval_fma(r[in->a], r[in->b], r[in->c]);
  GC_NEXT();
op_Select:
  GC_BODY_Select;
  GC_NEXT();
op_TruthyF32:
  r[in->d] = ir::scalar::truthy(ir::ScalarType::F32, r[in->a]) ? 1u : 0u;
  GC_NEXT();
op_CheckU32:
  if (static_cast<std::int32_t>(r[in->a]) < 0) [[unlikely]] {
    trap(ir::TrapKind::NegativeToU32, pc_of(ip), workgroup, slot - base,
         fmt::format("negative i32 {} used as a u32 {}", static_cast<std::int32_t>(r[in->a]),
                     u32_use_text(static_cast<U32Use>(in->sub))));
    stop = Stop::Trap;
    goto done;
  }
  GC_NEXT();
// A load: the word, converted for LoadBool / LoadF32; `watched` says whether an observer or the race
// detector sees it. A macro, for the two handlers below and the superinstructions.
#define GC_LOAD_BODY(watched)                                                                          \
  do {                                                                                              \
    const View v = views[in->a];                                                                    \
    const std::uint32_t i = r[in->b];                                                               \
    if (i < v.count) [[likely]] {                                                                   \
      const std::uint32_t w = read_word(v.data + std::size_t{i} * 4);                               \
      r[in->d] = in->op == Op::Load       ? w                                                       \
                 : in->op == Op::LoadBool ? (w != 0 ? 1u : 0u)                                      \
                                          : ir::scalar::f32_canonical(w);                           \
      if constexpr (watched && kObserved) notify(AccessKind::Load, in->a, i, w, w, pc_of(ip), slot - base); \
      if constexpr (watched && kWatch == Watch::Races)                                              \
        races->load(race_state, in->a, i, static_cast<std::uint16_t>(in->e), slot - base, w, [ip, pc_of] { return pc_of(ip); }); \
      if constexpr (kUninit) {                                                                      \
        if (v.shadow_offset != kNoShadow) {                                                         \
          const std::uint32_t word = v.shadow_offset + i;                                           \
          if (((shadow[word / 64] >> (word % 64)) & 1u) == 0) [[unlikely]]                          \
            uninit_->report(Access{in->a, i, pc_of(ip), workgroup, slot - base, w, w, false});      \
        }                                                                                           \
      }                                                                                             \
    } else {                                                                                        \
      r[in->d] = 0;                                                                                 \
      GC_OUT_OF_BOUNDS(AccessKind::Load, loads, i);                                                 \
    }                                                                                               \
  } while (false)
op_Load:
op_LoadBool:
op_LoadF32:
  GC_LOAD_BODY(true);
  GC_NEXT();
op_LoadUnwatched:  // Watch::Races only (kLoadUnwatched)
  GC_LOAD_BODY(false);
  GC_NEXT();
// A store (a macro, for its handler and the superinstructions).
#define GC_STORE_BODY                                                                                    \
  {                                                                                                      \
  const View v = views[in->a];                                                                           \
  const std::uint32_t i = r[in->b];                                                                      \
  if (i < v.count) [[likely]] {                                                                          \
    std::uint8_t* p = v.data + std::size_t{i} * 4;                                                       \
    if constexpr (kObserved) {                                                                           \
      const std::uint32_t before = read_word(p);                                                         \
      write_word(p, r[in->c]);                                                                           \
      notify(AccessKind::Store, in->a, i, r[in->c], before, pc_of(ip), slot - base);                     \
    } else if constexpr (kWatch == Watch::Races) {                                                       \
      const std::uint32_t before = read_word(p);                                                         \
      const std::uint32_t value = r[in->c];                                                              \
      write_word(p, value);                                                                              \
      races->store(race_state, in->a, i, static_cast<std::uint16_t>(in->e), slot - base, value, before,  \
                   [ip, pc_of] { return pc_of(ip); });                                                   \
    } else {                                                                                             \
      write_word(p, r[in->c]);                                                                           \
    }                                                                                                    \
    if constexpr (kUninit) {                                                                             \
      if (v.shadow_offset != kNoShadow) {                                                                \
        const std::uint32_t word = v.shadow_offset + i;                                                  \
        shadow[word / 64] |= std::uint64_t{1} << (word % 64);                                            \
      }                                                                                                  \
    }                                                                                                    \
  } else {                                                                                               \
    GC_OUT_OF_BOUNDS(AccessKind::Store, stores, i);                                                      \
  }                                                                                                      \
  }
op_Store:
  GC_STORE_BODY;
  GC_NEXT();
  // The superinstructions (kFusedPairs): the first instruction's body, then its successor's handler
  // with that instruction in hand and its fuel unit taken, as GC_NEXT would, less the indirect jump.
// A conditional jump's pair is with the instruction it falls through to: the jump goes on at its
// target through the indirect jump, or falls through to the pair's second instruction.
#define GC_BODY_JnLtU                       \
  if (!(r[in->a] < r[in->b])) {             \
    ip = code + in->c;                      \
    --fuel;                                 \
    GC_DISPATCH();                          \
  }                                         \
  --fuel
#define GC_BODY_JgeU                        \
  if (r[in->a] >= r[in->b]) {               \
    ip = code + in->c;                      \
    GC_DISPATCH();                          \
  }
#define GC_BODY_RecordIf                                                                                          \
  {                                                                                                               \
    const auto scope = static_cast<RecordScope>(in->sub);                                                         \
    const std::uint32_t value = r[in->a] != 0 ? 1u : 0u;                                                          \
    const std::uint32_t pc = pc_of(ip);                                                                           \
    if (!record_agrees(scope, pc, value, opaque(slot)) && !record(scope, pc, value, slot, workgroup, slot - base)) { \
      stop = Stop::Divergence;                                                                                    \
      goto done;                                                                                                  \
    }                                                                                                             \
  }
#define GC_BODY_RecordLoop                                                                                        \
  {                                                                                                               \
    const auto scope = static_cast<RecordScope>(in->sub);                                                         \
    const std::uint32_t from = r[in->a], to = r[in->b];                                                           \
    const std::uint32_t value = to > from ? to - from : 0u;                                                       \
    const std::uint32_t pc = pc_of(ip);                                                                           \
    if (!record_agrees(scope, pc, value, opaque(slot)) && !record(scope, pc, value, slot, workgroup, slot - base)) { \
      stop = Stop::Divergence;                                                                                    \
      goto done;                                                                                                  \
    }                                                                                                             \
  }
#define GC_BODY_Load GC_LOAD_BODY(true)
#define GC_BODY_LoadUnwatched GC_LOAD_BODY(false)
#define GC_BODY_Store GC_STORE_BODY
#define GC_PAIR_HANDLER(a, b) \
  op_##a##_then_##b:          \
  GC_BODY_##a;                \
  ++ip;                       \
  --fuel;                     \
  in = &ip->in;               \
  goto op_##b;
  GC_FUSED_PAIRS(GC_PAIR_HANDLER)
#undef GC_PAIR_HANDLER
#undef GC_LOAD_BODY
#undef GC_STORE_BODY
op_Atomic : {
  const View v = views[in->a];
  const std::uint32_t i = r[in->b];
  if (i < v.count) [[likely]] {
    std::uint8_t* p = v.data + std::size_t{i} * 4;
    const std::uint32_t old = read_word(p);
    const ir::AtomicResult res = ir::eval_atomic(static_cast<ir::AtomicOp>(in->sub), old, r[in->c], r[in->e]);
    [[maybe_unused]] const bool cas_failed =
        static_cast<ir::AtomicOp>(in->sub) == ir::AtomicOp::CompareExchange && old != r[in->e];
    write_word(p, res.stored);
    r[in->d] = old;
    if constexpr (kObserved)
      notify(AccessKind::Atomic, in->a, i, res.stored, old, pc_of(ip), slot - base, cas_failed);
    if constexpr (kWatch == Watch::Races) races->atomic(in->a, i, pc_of(ip), slot - base, res.stored, old, cas_failed);
  } else {
    r[in->d] = 0;
    GC_OUT_OF_BOUNDS(AccessKind::Atomic, atomics, i);
  }
  GC_NEXT();
}
op_RecordIf:
  GC_BODY_RecordIf;
  GC_NEXT();
op_RecordLoop:
  GC_BODY_RecordLoop;
  GC_NEXT();
op_Barrier : {
  const std::uint32_t pc = pc_of(ip);
  // Fast path of on_stop: the first arrival, or one more at the same barrier.
  if (wg_at_fence_ == 0 && (wg_at_barrier_ == 0 || wg_barrier_pc_ == pc)) {
    if (wg_at_barrier_++ == 0) {
      wg_barrier_pc_ = pc;
      wg_barrier_local_ = slot - base;
    }
    const std::uint32_t s = opaque(slot);
    status[s] = Status::AtBarrier;
    pcs[s] = pc + 1;
    continue;
  }
  ++ip;
  stop = Stop::Barrier;
  goto done;
}
op_Fence : {
  const std::uint32_t pc = pc_of(ip);
  // Fast path of on_stop: one more arrival at the grid_sync this workgroup and the grid wait at.
  if (wg_at_barrier_ == 0 && wg_at_fence_ > 0 && grid_fence_pc_ == pc) {
    ++wg_at_fence_;
    ++grid_at_fence_;
    const std::uint32_t s = opaque(slot);
    status[s] = Status::AtFence;
    pcs[s] = pc + 1;
    continue;
  }
  ++ip;
  stop = Stop::Fence;
  goto done;
}
op_Return:
  status[opaque(slot)] = Status::Finished;
  --*alive;
  pcs[opaque(slot)] = pc_of(ip);
  continue;
op_Trap:
  trap(ir::TrapKind::TrapStatement, pc_of(ip), workgroup, slot - base, "the program executed a trap statement");
  stop = Stop::Trap;
  goto done;
no_fuel:
  if (refuel(fuel)) GC_DISPATCH();  // the next chunk of a budget with a deadline: go on at ip
  stop = Stop::OutOfFuel;
done:
  pcs[opaque(slot)] = pc_of(ip);
  if (!on_stop(stop, slot, workgroup, slot - base)) {
    fuel_ = fuel;
    return false;
  }
  }  // for each lane
#undef GC_BINARY
#undef GC_OUT_OF_BOUNDS
#undef GC_BODY_Mov
#undef GC_BODY_MulAdd
#undef GC_BODY_Mul
#undef GC_BODY_Add
#undef GC_BODY_Sub
#undef GC_BODY_Xor
#undef GC_BODY_ModU
#undef GC_BODY_DivU
#undef GC_BODY_MinU
#undef GC_BODY_LtU
#undef GC_BODY_LogNot
#undef GC_BODY_NeZero
#undef GC_BODY_Select
#undef GC_BODY_Inc
#undef GC_BODY_Load
#undef GC_BODY_JnLtU
#undef GC_BODY_JgeU
#undef GC_BODY_RecordIf
#undef GC_BODY_RecordLoop
#undef GC_BODY_LoadUnwatched
#undef GC_BODY_Store
#undef GC_NEXT
#undef GC_DISPATCH
  fuel_ = fuel;
  return true;
}

void Engine::notify_access(AccessKind kind, const Access& a) {
  for (Observer* o : access_observers_) {
    switch (kind) {
      case AccessKind::Load: o->on_load(a); break;
      case AccessKind::Store: o->on_store(a); break;
      case AccessKind::Atomic: o->on_atomic(a); break;
    }
  }
}

bool Engine::record(RecordScope scope, std::uint32_t pc, std::uint32_t value, std::uint32_t slot,
                    std::uint32_t workgroup, std::uint32_t local) {
  const bool grid = scope == RecordScope::Grid;
  std::vector<TraceEntry>& trace = grid ? grid_trace_ : wg_trace_;
  std::uint32_t& k = grid ? record_grid_[slot] : record_wg_[slot];
  if (k < trace.size()) {
    const TraceEntry t = trace[k];
    if (t.pc != pc || t.value != value) {
      const Op op = prog_.code[pc].op;
      const bool is_loop = op == Op::RecordLoop;
      std::string message;
      if (t.pc != pc) {
        message = "invocations reach different statements that hold a barrier";
      } else if (is_loop) {
        message = fmt::format("a loop that holds a {} runs {} iterations in {} but {} in {}",
                              grid ? "grid_sync" : "barrier", t.value, to_string(ctx_.ids(t.workgroup, t.local)), value,
                              to_string(ctx_.ids(workgroup, local)));
      } else {
        message = fmt::format("an if that holds a {} takes the {} branch in {} but the {} branch in {}",
                              grid ? "grid_sync" : "barrier", t.value ? "then" : "else",
                              to_string(ctx_.ids(t.workgroup, t.local)), value ? "then" : "else",
                              to_string(ctx_.ids(workgroup, local)));
      }
      diverge(is_loop ? DivergenceKind::TripCountMismatch : DivergenceKind::BranchMismatch, grid, t.pc, t.workgroup,
              t.local, pc, workgroup, local, std::move(message));
      return false;
    }
  } else {
    trace.push_back({pc, value, workgroup, local});
  }
  ++k;
  return true;
}

void Engine::trap(ir::TrapKind kind, std::uint32_t pc, std::uint32_t workgroup, std::uint32_t local,
                  std::string message) {
  TrapInfo t;
  t.kind = kind;
  t.site = prog_.site(pc);
  t.invocation = ctx_.ids(workgroup, local);
  t.launch = launch_index_;
  t.message = std::move(message);
  result_.status = RunStatus::Trap;
  auto& d = result_.diagnostics.error(kTrapCode, opts_.file, t.site.loc,
                                      fmt::format("trap ({}) in {}: {}", ir::name_of(kind), to_string(t.invocation),
                                                  t.message));
  if (!t.site.loc.known()) d.notes.push_back({ir::Severity::Note, {}, opts_.file, {}, "at " + to_string(t.site), {}});
  result_.trap = std::move(t);
}

void Engine::diverge(DivergenceKind kind, bool grid_scope, std::uint32_t pc_a, std::uint32_t wg_a,
                     std::uint32_t local_a, std::uint32_t pc_b, std::uint32_t wg_b, std::uint32_t local_b,
                     std::string message) {
  DivergenceInfo d;
  d.kind = kind;
  d.grid_scope = grid_scope;
  d.first = ctx_.ids(wg_a, local_a);
  d.second = ctx_.ids(wg_b, local_b);
  d.launch = launch_index_;
  if (kind == DivergenceKind::BranchMismatch || kind == DivergenceKind::TripCountMismatch) {
    // Both invocations stand at the same if/loop when the records differ only in value; name the
    // statement and the barrier it guards.
    d.first_site = prog_.site(pc_a);
    d.second_site = pc_a == pc_b ? prog_.site(prog_.origins[pc_a].guarded_barrier_pc) : prog_.site(pc_b);
  } else {
    d.first_site = prog_.site(pc_a);
    d.second_site = prog_.site(pc_b);
  }
  d.message = std::move(message);
  result_.status = RunStatus::Divergence;
  auto& diag = result_.diagnostics.error(kDivergenceCode, opts_.file, d.first_site.loc,
                                         fmt::format("barrier divergence: {}", d.message));
  diag.notes.push_back({ir::Severity::Note, {}, opts_.file, d.first_site.loc,
                        fmt::format("{} is at {}", to_string(d.first), to_string(d.first_site)), {}});
  diag.notes.push_back({ir::Severity::Note, {}, opts_.file, d.second_site.loc,
                        fmt::format("{} is at {}", to_string(d.second), to_string(d.second_site)), {}});
  result_.divergence = std::move(d);
}

void Engine::out_of_bounds(AccessKind kind, std::uint32_t buffer, std::uint64_t index, std::uint32_t pc,
                           std::uint32_t workgroup, std::uint32_t local) {
  OobCounters& c = oob_[buffer];
  if (c.loads + c.stores + c.atomics == 0) {
    c.first_kind = kind;
    c.first_index = index;
    c.first_pc = pc;
    c.first_wg = workgroup;
    c.first_local = local;
  }
  switch (kind) {
    case AccessKind::Load: ++c.loads; break;
    case AccessKind::Store: ++c.stores; break;
    case AccessKind::Atomic: ++c.atomics; break;
  }
  // Not races_: the race detector keeps Observer's empty on_out_of_bounds (nothing was read or written).
  if (!access_observers_.empty()) notify_out_of_bounds(kind, buffer, index, pc, workgroup, local);
}

void Engine::notify_out_of_bounds(AccessKind kind, std::uint32_t buffer, std::uint64_t index, std::uint32_t pc,
                                  std::uint32_t workgroup, std::uint32_t local) {
  for (Observer* o : access_observers_) o->on_out_of_bounds(kind, buffer, index, pc, workgroup, local);
}

}  // namespace gridcheck::interp
