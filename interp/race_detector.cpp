#include "interp/race_detector.hpp"

#include <fmt/format.h>

namespace gridcheck::interp {
namespace {

constexpr std::uint32_t kEscalated = 0x80000000u;  // cell: the low bits index the pool
constexpr std::uint32_t kFlagRead = 0x40000000u;       // cell: the invocation read
constexpr std::uint32_t kFlagWrote = 0x20000000u;      // cell: the invocation wrote (plain store)
constexpr std::uint32_t kFlagAtomic = 0x10000000u;  // cell or record: atomic write
constexpr std::uint32_t kSegMask = 0x0FFFFFFFu;
constexpr std::uint32_t kSegLimit = kSegMask;           // intervals per grid phase before giving up
constexpr std::uint32_t kSegResetFloor = 1u << 20;  // intervals kept before a reset at a phase boundary
constexpr std::uint16_t kUnknownSite = 0xFFFF;

constexpr std::uint32_t seg_of(std::uint32_t tag) { return tag & kSegMask; }

std::vector<bool> written_buffers(const CompiledProgram& program) {
  std::vector<bool> written(program.buffers.size(), false);
  for (const Instr& in : program.code)
    if (in.op == Op::Store || in.op == Op::Atomic) written[in.a] = true;
  return written;
}

std::uint64_t element_count(const CompiledProgram& program, std::span<const Bytes> storage, std::size_t b) {
  const CompiledBuffer& cb = program.buffers[b];
  return cb.workgroup ? cb.declared_count : storage[cb.storage_index].size() / 4;
}

std::string_view kind_word(int kind) {
  switch (kind) {
    case 0: return "load";
    case 1: return "store";
    default: return "atomic";
  }
}

AccessKind access_kind(int kind) {
  switch (kind) {
    case 0: return AccessKind::Load;
    case 1: return AccessKind::Store;
    default: return AccessKind::Atomic;
  }
}

}  // namespace

std::uint64_t RaceDetector::shadow_bytes(const CompiledProgram& program, std::span<const Bytes> storage) {
  const auto written = written_buffers(program);
  std::uint64_t bytes = 0;
  for (std::size_t b = 0; b < program.buffers.size(); ++b)
    if (written[b]) bytes += element_count(program, storage, b) * sizeof(Rec);
  return bytes;
}

RaceDetector::RaceDetector(const CompiledProgram& program, std::span<const Bytes> storage, bool same_value_writes_race)
    : prog_(program), strict_same_value_(same_value_writes_race) {
  const auto written = written_buffers(program);
  shadow_.resize(program.buffers.size());
  for (std::size_t b = 0; b < program.buffers.size(); ++b) {
    if (!written[b]) continue;
    shadow_[b].assign(element_count(program, storage, b), Rec{});
    shadow_cells_ += shadow_[b].size();
  }
  site_of_pc_.assign(program.code.size(), kUnknownSite);
  for (std::uint32_t pc = 0; pc < program.code.size(); ++pc) {
    const Op op = program.code[pc].op;
    if (op != Op::Load && op != Op::LoadBool && op != Op::LoadF32 && op != Op::Store && op != Op::Atomic) continue;
    if (pc_of_site_.size() >= kUnknownSite) break;
    site_of_pc_[pc] = static_cast<std::uint16_t>(pc_of_site_.size());
    pc_of_site_.push_back(pc);
  }
  segs_.push_back({0, 0});  // interval 0 means "empty"
}

void RaceDetector::on_launch_begin(const LaunchContext& ctx) {
  ctx_ = ctx;
  next_epoch();
}

void RaceDetector::on_fence_release(std::uint32_t, std::uint32_t, const MemoryView&) { next_epoch(); }

void RaceDetector::next_epoch() {
  ++epoch_;
  // Everything recorded so far is ordered before what follows. Once the interval table outgrows the
  // shadow (or a floor), clear both, so that the table stays bounded over long runs; the clear
  // costs no more than the intervals it retires.
  if (cur_seg_ > std::max<std::uint64_t>(kSegResetFloor, shadow_cells_)) reset_shadow();
}

void RaceDetector::on_workgroup_enter(std::uint32_t workgroup) { new_interval(workgroup); }
void RaceDetector::on_barrier_release(std::uint32_t workgroup, std::uint32_t) { new_interval(workgroup); }

void RaceDetector::new_interval(std::uint32_t workgroup) {
  if (cur_seg_ + 1 >= kSegLimit) {
    incomplete_ = true;
    return;
  }
  ++cur_seg_;
  cur_wg_ = workgroup;
  segs_.push_back({epoch_, workgroup});
}

void RaceDetector::reset_shadow() {
  for (auto& cells : shadow_) std::fill(cells.begin(), cells.end(), Rec{});
  pool_.clear();
  free_.clear();
  segs_.resize(1);
  cur_seg_ = 0;
}

bool RaceDetector::stale(const Rec& rec, bool workgroup_memory) const {
  const std::uint32_t seg = seg_of(rec.tag);
  if (seg == 0) return true;
  const SegInfo& info = segs_[seg];
  return info.epoch != epoch_ || (workgroup_memory && info.workgroup != cur_wg_);
}

bool RaceDetector::unordered(const Rec& rec) const {
  const std::uint32_t seg = seg_of(rec.tag);
  return segs_[seg].workgroup != cur_wg_ || seg == cur_seg_;
}

bool RaceDetector::same_invocation(const Rec& rec, std::uint32_t local) const {
  return segs_[seg_of(rec.tag)].workgroup == cur_wg_ && rec.local == local;
}

std::uint32_t RaceDetector::allocate_full() {
  if (!free_.empty()) {
    const std::uint32_t i = free_.back();
    free_.pop_back();
    pool_[i] = Full{};
    return i;
  }
  pool_.push_back(Full{});
  return static_cast<std::uint32_t>(pool_.size() - 1);
}

void RaceDetector::on_load(const Access& a) { access(a, Kind::kRead); }
void RaceDetector::on_store(const Access& a) { access(a, Kind::kWrite); }
void RaceDetector::on_atomic(const Access& a) { access(a, Kind::kAtomic); }

void RaceDetector::access(const Access& a, Kind kind) {
  if (incomplete_) return;
  std::vector<Rec>& cells = shadow_[a.buffer];
  if (cells.empty()) return;  // never written: no race possible
  const bool workgroup_memory = prog_.buffers[a.buffer].workgroup;
  Rec& cell = cells[a.element];
  const std::uint16_t site = site_of_pc_[a.pc];
  const auto local = static_cast<std::uint16_t>(a.local);
  const std::uint32_t flag = kind == Kind::kRead ? kFlagRead : kind == Kind::kWrite ? kFlagWrote : kFlagAtomic;

  if ((cell.tag & kEscalated) == 0) {
    const std::uint32_t seg = seg_of(cell.tag);
    if (seg == 0 || stale(cell, workgroup_memory)) {
      cell = Rec{cur_seg_ | flag, local, site};
      return;
    }
    if (seg == cur_seg_ && cell.local == local) {  // the same invocation again
      cell.tag |= flag;
      if (kind != Kind::kRead) cell.site = site;
      return;
    }
    // A second invocation (or a later interval) touches the element: keep both in a pooled record.
    const Rec old = cell;
    const std::uint32_t index = allocate_full();
    Full& f = pool_[index];
    if (old.tag & (kFlagWrote | kFlagAtomic)) {
      const bool only_atomic = (old.tag & kFlagAtomic) && !(old.tag & kFlagWrote);
      f.w = Rec{seg | (only_atomic ? kFlagAtomic : 0u), old.local, old.site};
    }
    if (old.tag & kFlagRead) f.r = Rec{seg, old.local, old.site};
    cell.tag = kEscalated | index;
  }
  const std::uint32_t index = cell.tag & ~kEscalated;
  Full& f = pool_[index];
  for (Rec* rec : {&f.w, &f.r, &f.x})
    if (rec->tag != 0 && stale(*rec, workgroup_memory)) *rec = Rec{};
  if (f.w.tag == 0 && f.r.tag == 0 && f.x.tag == 0) {  // everything it held is ordered away
    free_.push_back(index);
    cell = Rec{cur_seg_ | flag, local, site};
    return;
  }
  check_full(f, a, kind, workgroup_memory);
}

void RaceDetector::check_full(Full& f, const Access& a, Kind kind, bool) {
  const auto local = static_cast<std::uint16_t>(a.local);
  const std::uint16_t site = site_of_pc_[a.pc];
  const bool w_atomic = (f.w.tag & kFlagAtomic) != 0;
  const bool w_conflicts = f.w.tag != 0 && unordered(f.w) && !same_invocation(f.w, local);
  if (kind == Kind::kRead) {
    if (w_conflicts) report(a, kind, f.w, w_atomic ? Kind::kAtomic : Kind::kWrite);
    for (const Rec* rec : {&f.r, &f.x})
      if (rec->tag != 0 && seg_of(rec->tag) == cur_seg_ && rec->local == local) return;  // already a reader
    // Readers of this workgroup's earlier intervals are ordered before every later access here, and
    // the new reader stands for them towards other workgroups.
    for (Rec* rec : {&f.r, &f.x})
      if (rec->tag != 0 && segs_[seg_of(rec->tag)].workgroup == cur_wg_ && seg_of(rec->tag) != cur_seg_) *rec = Rec{};
    const Rec reader{cur_seg_, local, site};
    if (f.r.tag == 0) {
      f.r = reader;
    } else if (f.x.tag == 0) {
      f.x = reader;
    } else if (segs_[seg_of(f.r.tag)].workgroup != cur_wg_) {
      f.x = reader;  // keep the other workgroup's reader in r
    } else {
      f.r = reader;  // x is the other workgroup's reader, or both are distinct readers of this interval
    }
    return;
  }
  if (w_conflicts) {
    const bool both_atomic = kind == Kind::kAtomic && w_atomic;
    const bool same_value = kind == Kind::kWrite && !w_atomic && !strict_same_value_ && a.value == a.previous;
    if (!both_atomic && !same_value) report(a, kind, f.w, w_atomic ? Kind::kAtomic : Kind::kWrite);
  }
  for (const Rec* rec : {&f.r, &f.x})
    if (rec->tag != 0 && unordered(*rec) && !same_invocation(*rec, local)) report(a, kind, *rec, Kind::kRead);
  f.w = Rec{cur_seg_ | (kind == Kind::kAtomic ? kFlagAtomic : 0u), local, site};
}

void RaceDetector::report(const Access& a, Kind kind, const Rec& other, Kind other_kind) {
  const std::uint16_t site = site_of_pc_[a.pc];
  const std::uint64_t key = (std::uint64_t{a.buffer & 0xFFFF} << 48) | (std::uint64_t{other.site} << 32) |
                            (std::uint64_t{site} << 16) | (std::uint64_t{other_kind} << 8) | kind;
  if (auto it = seen_.find(key); it != seen_.end()) {
    if (it->second < reports_.size()) ++reports_[it->second].occurrences;
    return;
  }
  if (reports_.size() >= kMaxReports) {
    seen_.emplace(key, reports_.size() + static_cast<std::size_t>(dropped_++));
    return;
  }
  const CompiledBuffer& buffer = prog_.buffers[a.buffer];
  RaceReport r;
  r.buffer = buffer.name;
  r.workgroup_memory = buffer.workgroup;
  r.element = a.element;
  r.launch = ctx_.launch;
  r.first.kind = access_kind(other_kind);
  r.first.site = other.site == kUnknownSite ? Site{{}, "?", "unknown site"} : prog_.site(pc_of_site_[other.site]);
  r.first.invocation = ctx_.ids(segs_[seg_of(other.tag)].workgroup, other.local);
  r.second.kind = access_kind(kind);
  r.second.site = prog_.site(a.pc);
  r.second.invocation = ctx_.ids(a.workgroup, a.local);
  r.message = fmt::format("data race on {}{}[{}]: {} by {} at {} and {} by {} at {} are not ordered by a barrier",
                          buffer.workgroup ? "workgroup memory " : "", buffer.name, a.element, kind_word(other_kind),
                          to_string(r.first.invocation), to_string(r.first.site), kind_word(kind),
                          to_string(r.second.invocation), to_string(r.second.site));
  seen_.emplace(key, reports_.size());
  reports_.push_back(std::move(r));
}

}  // namespace gridcheck::interp
