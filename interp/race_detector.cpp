#include "interp/race_detector.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ir/ice.hpp"

namespace gridcheck::interp {
namespace {

constexpr std::uint32_t kFlagOf[RaceDetector::kKinds] = {
    RaceDetector::flag_of(RaceDetector::kRead), RaceDetector::flag_of(RaceDetector::kWrite),
    RaceDetector::flag_of(RaceDetector::kAtomicWrite), RaceDetector::flag_of(RaceDetector::kAtomicRead)};
constexpr std::uint32_t kResetFloor = 1u << 20;  // intervals kept before a reset at a phase boundary
constexpr std::uint16_t kUnknownSite = 0xFFFF;

using Kind = RaceDetector::Kind;

/// Which recorded kinds an access of each kind conflicts with (bit k = Kind k).
constexpr std::uint8_t kConflicts[RaceDetector::kKinds] = {
    /* read */ (1 << Kind::kWrite) | (1 << Kind::kAtomicWrite),
    /* write */ 0xF,
    /* atomic write */ (1 << Kind::kWrite) | (1 << Kind::kRead),
    /* atomic read */ (1 << Kind::kWrite),
};

constexpr int site_rank(Kind k) { return RaceDetector::site_rank(k); }
constexpr int best_rank(std::uint32_t tag) {
  int rank = 0;
  for (int k = 0; k < RaceDetector::kKinds; ++k)
    if (tag & kFlagOf[k]) rank = std::max(rank, site_rank(static_cast<Kind>(k)));
  return rank;
}
/// The direct path's table is best_rank by the flags.
constexpr bool best_rank_table_agrees() {
  for (std::uint32_t f = 0; f < 16; ++f)
    if (RaceDetector::kBestRank[f] != best_rank(f << RaceDetector::kFlagShift)) return false;
  return true;
}
static_assert(best_rank_table_agrees());

std::vector<bool> compute_written_buffers(const CompiledProgram& program) {
  std::vector<bool> written(program.buffers.size(), false);
  for (const Instr& in : program.code)
    if (in.op == Op::Store || in.op == Op::Atomic) written[in.a] = true;
  return written;
}

bool has_race_sites(const CompiledProgram& program) {
  return program.race_sites.site_of_pc.size() == program.code.size() &&
         program.race_sites.written.size() == program.buffers.size();
}

/// The program's written buffers: its table, or one computed into `own` (no copy of the table).
const std::vector<bool>& written_buffers(const CompiledProgram& program, std::vector<bool>& own) {
  if (has_race_sites(program)) return program.race_sites.written;
  own = compute_written_buffers(program);
  return own;
}

std::uint64_t element_count(const CompiledProgram& program, std::span<const Bytes> storage, std::size_t b) {
  const CompiledBuffer& cb = program.buffers[b];
  return cb.workgroup ? cb.declared_count : storage[cb.storage_index].size() / 4;
}

std::string_view kind_word(Kind kind) {
  switch (kind) {
    case Kind::kRead: return "load";
    case Kind::kWrite: return "store";
    case Kind::kAtomicWrite: return "atomic";
    default: return "failed compare-exchange";
  }
}

AccessKind access_kind(Kind kind) {
  switch (kind) {
    case Kind::kRead: return AccessKind::Load;
    case Kind::kWrite: return AccessKind::Store;
    default: return AccessKind::Atomic;
  }
}

void add_value(RaceDetector::Values& v, std::uint32_t value) {
  if (!v.any) {
    v = {value, false, true};
  } else if (v.value != value) {
    v.several = true;
  }
}

void merge_values(RaceDetector::Values& into, const RaceDetector::Values& from) {
  if (!from.any) return;
  if (!into.any) {
    into = from;
    return;
  }
  into.several = into.several || from.several || into.value != from.value;
}

/// True when a plain write of `value` is tolerated against the unordered plain writes `v`.
bool same_value(const RaceDetector::Values& v, std::uint32_t value) { return v.any && !v.several && v.value == value; }

/// Ages `f` for an access under `floor` in the workgroup whose first `when` is `group_first`: records
/// below the floor are dropped, those of earlier workgroups join `earlier_group`. True when nothing is
/// left (every record was ordered before the access).
bool age(RaceDetector::Full& f, std::uint32_t floor, std::uint32_t group_first) {
  bool empty = true;
  for (int k = 0; k < RaceDetector::kKinds; ++k) {
    RaceDetector::History& h = f.of[k];
    if (h.latest.when == 0 && h.earlier_group.when == 0) {
      // Nothing of this kind (the common case): what the steps below do with it, as 0 < floor
      // (a floor is an interval start, at least one workgroup's size).
      h = RaceDetector::History{};
      if (k == Kind::kWrite) {
        f.earlier_groups = RaceDetector::Values{};
        f.group = f.interval = RaceDetector::Values{};
      }
      continue;
    }
    if (h.latest.when < floor) {
      h.latest = h.other = RaceDetector::Rep{};
      if (h.earlier_group.when < floor) h.earlier_group = RaceDetector::Rep{};
    } else if (h.latest.when < group_first) {
      if (h.earlier_group.when == 0) h.earlier_group = h.latest;
      if (k == Kind::kWrite) merge_values(f.earlier_groups, f.group);
      h.latest = h.other = RaceDetector::Rep{};
    }
    if (h.earlier_group.when == 0) {
      if (k == Kind::kWrite) f.earlier_groups = RaceDetector::Values{};
    }
    if (h.latest.when == 0 && k == Kind::kWrite) f.group = f.interval = RaceDetector::Values{};
    if (h.latest.when != 0 || h.earlier_group.when != 0) empty = false;
  }
  return empty;
}

}  // namespace

RaceSites index_race_sites(const CompiledProgram& program) {
  RaceSites out;
  out.written = compute_written_buffers(program);
  // One site per IR access: the copies of an unrolled loop body share theirs.
  out.site_of_pc.assign(program.code.size(), kUnknownSite);
  const auto is_access = [](Op op) {
    return op == Op::Load || op == Op::LoadBool || op == Op::LoadF32 || op == Op::Store || op == Op::Atomic;
  };
  // The site of each IR node, by statement and by expression id (kUnknownSite: none yet).
  std::size_t nodes[2] = {0, 0};
  for (std::uint32_t pc = 0; pc < program.code.size(); ++pc) {
    if (!is_access(program.code[pc].op)) continue;
    const Origin& origin = program.origins[pc];
    nodes[origin.is_stmt] = std::max(nodes[origin.is_stmt], std::size_t{origin.node} + 1);
  }
  std::vector<std::uint16_t> site_of_node[2] = {std::vector<std::uint16_t>(nodes[0], kUnknownSite),
                                                 std::vector<std::uint16_t>(nodes[1], kUnknownSite)};
  for (std::uint32_t pc = 0; pc < program.code.size(); ++pc) {
    if (!is_access(program.code[pc].op)) continue;
    const Origin& origin = program.origins[pc];
    std::uint16_t& site = site_of_node[origin.is_stmt][origin.node];
    if (site != kUnknownSite) {
      out.site_of_pc[pc] = site;
      continue;
    }
    if (out.pc_of_site.size() >= kUnknownSite) break;
    site = static_cast<std::uint16_t>(out.pc_of_site.size());
    out.site_of_pc[pc] = site;
    out.pc_of_site.push_back(pc);
  }
  return out;
}

std::uint64_t RaceDetector::shadow_bytes(const CompiledProgram& program, std::span<const Bytes> storage) {
  std::vector<bool> own_written;
  const std::vector<bool>& written = written_buffers(program, own_written);
  std::uint64_t bytes = 0;
  for (std::size_t b = 0; b < program.buffers.size(); ++b)
    if (written[b]) bytes += element_count(program, storage, b) * (sizeof(std::uint32_t) + sizeof(std::uint16_t));
  return bytes;
}

RaceDetector::RaceDetector(const CompiledProgram& program, std::span<const Bytes> storage, bool same_value_writes_race,
                           Storage* reuse)
    : prog_(program),
      strict_same_value_(same_value_writes_race),
      lanes_(program.invocations_per_workgroup()),
      reuse_(reuse) {
  GC_ASSERT(lanes_ >= 1 && lanes_ <= 0x10000);
  if (reuse_ != nullptr) {  // the kept vectors, empty as fresh ones (the shadow's are emptied below)
    shadow_.swap(reuse_->shadow);
    pool_.swap(reuse_->pool);
    pool_.clear();
    free_.swap(reuse_->free);
    free_.clear();
    workgroup_of_.swap(reuse_->workgroup_of);
    workgroup_of_.clear();
    direct_.swap(reuse_->direct);
    direct_.clear();
  }
  std::vector<bool> own_written;
  const std::vector<bool>& written = written_buffers(program, own_written);
  shadow_.resize(program.buffers.size());
  for (std::size_t b = 0; b < program.buffers.size(); ++b) {
    shadow_[b].workgroup = program.buffers[b].workgroup;
    shadow_[b].tags.clear();
    shadow_[b].sites.clear();
    if (!written[b]) continue;
    const std::uint64_t n = element_count(program, storage, b);
    shadow_[b].tags.assign(n, 0u);
    shadow_[b].sites.assign(n, 0);
    shadow_cells_ += n;
  }
  if (has_race_sites(program)) {
    sites_ = &program.race_sites;
  } else {
    own_sites_ = index_race_sites(program);
    sites_ = &own_sites_;
  }
  site_of_pc_ = sites_->site_of_pc.data();
  direct_.resize(shadow_.size());
  for (std::size_t b = 0; b < shadow_.size(); ++b)
    if (!shadow_[b].tags.empty())
      direct_[b] = Direct{shadow_[b].tags.data(), shadow_[b].sites.data(), shadow_[b].workgroup ? 0u : 1u};
  workgroup_of_.push_back(0);  // interval 0 means "no access"
}

RaceDetector::~RaceDetector() {
  if (reuse_ == nullptr) return;
  reuse_->shadow.swap(shadow_);
  reuse_->pool.swap(pool_);
  reuse_->free.swap(free_);
  reuse_->workgroup_of.swap(workgroup_of_);
  reuse_->direct.swap(direct_);
}

std::size_t RaceDetector::Storage::bytes() const {
  std::size_t n = shadow.capacity() * sizeof(Shadow) + pool.capacity() * sizeof(Full) +
                  (free.capacity() + workgroup_of.capacity()) * sizeof(std::uint32_t) + direct.capacity() * sizeof(Direct);
  for (const Shadow& s : shadow) n += s.tags.capacity() * sizeof(std::uint32_t) + s.sites.capacity() * sizeof(std::uint16_t);
  return n;
}

void RaceDetector::on_launch_begin(const LaunchContext& ctx) {
  ctx_ = ctx;
  next_epoch();
}

void RaceDetector::on_fence_release(std::uint32_t, std::uint32_t, const MemoryView&) { next_epoch(); }

void RaceDetector::next_epoch() {
  // Everything recorded so far is ordered before what follows. Once the interval numbers near their
  // limit, or the interval table outgrows the shadow (or a floor), clear both; the clear costs no
  // more than the intervals it retires.
  const std::uint64_t intervals = workgroup_of_.size();
  if (intervals * lanes_ > (kWhenMask >> 1) || intervals > std::max<std::uint64_t>(kResetFloor, shadow_cells_))
    reset_shadow();
  phase_first_ = static_cast<std::uint32_t>(workgroup_of_.size()) * lanes_;
  floor_[1] = phase_first_;
}

void RaceDetector::reset_shadow() {
  for (Shadow& s : shadow_) std::fill(s.tags.begin(), s.tags.end(), 0u);
  pool_.clear();
  free_.clear();
  workgroup_of_.resize(1);
}

bool RaceDetector::new_interval(std::uint8_t mask) {
  const std::uint64_t next = workgroup_of_.size();
  if ((next + 1) * lanes_ > kWhenMask) {
    incomplete_ = true;
    direct_.assign(direct_.size(), Direct{});  // the direct path checks nothing more either
    return false;
  }
  workgroup_of_.push_back(workgroup_of_.back());
  const auto first = static_cast<std::uint32_t>(next * lanes_);
  if (mask & kOrdersWorkgroupMemory) interval_first_[0] = floor_[0] = first;
  if (mask & kOrdersStorageMemory) interval_first_[1] = first;
  return true;
}

void RaceDetector::on_workgroup_enter(std::uint32_t workgroup) {
  if (incomplete_ || !new_interval(kOrdersAllMemory)) return;
  workgroup_of_.back() = workgroup;
  workgroup_ = workgroup;
  group_first_ = interval_first_[0];
}

void RaceDetector::on_barrier_release(std::uint32_t, std::uint32_t pc) {
  if (!incomplete_) new_interval(barrier_memory_mask(prog_.code[pc]));
}

std::uint32_t RaceDetector::allocate_full() {
  if (!free_.empty()) {
    const std::uint32_t i = free_.back();
    free_.pop_back();
    pool_[i] = Full{};
    return i;
  }
  GC_ASSERT(pool_.size() < kEscalated);
  pool_.push_back(Full{});
  return static_cast<std::uint32_t>(pool_.size() - 1);
}

void RaceDetector::on_load(const Access& a) { access(a, Kind::kRead); }
void RaceDetector::on_store(const Access& a) { access(a, Kind::kWrite); }
void RaceDetector::on_atomic(const Access& a) {
  access(a, a.compare_exchange_failed ? Kind::kAtomicRead : Kind::kAtomicWrite);
}

void RaceDetector::atomic(std::uint32_t buffer, std::uint32_t element, std::uint32_t pc, std::uint32_t local,
                          std::uint32_t value, std::uint32_t previous, bool compare_exchange_failed) {
  const Access a{buffer, element, pc, workgroup_, local, value, previous, compare_exchange_failed};
  if (compare_exchange_failed)
    access(a, Kind::kAtomicRead);
  else
    access(a, Kind::kAtomicWrite);
}

void RaceDetector::slow(std::uint32_t buffer, std::uint32_t element, std::uint32_t pc, std::uint32_t local,
                        std::uint32_t value, std::uint32_t previous, Kind kind) {
  // access inlined once per kind (the direct path's two), its kind a constant in each.
  const Access a{buffer, element, pc, workgroup_, local, value, previous, false};
  if (kind == Kind::kRead)
    access(a, Kind::kRead);
  else
    access(a, Kind::kWrite);
}

[[gnu::always_inline]] inline void RaceDetector::access(const Access& a, Kind kind) {
  if (incomplete_) return;
  Shadow& s = shadow_[a.buffer];
  if (s.tags.empty()) return;  // never written: no race possible
  std::uint32_t& tag = s.tags[a.element];
  const std::uint32_t current = interval_first_[s.workgroup ? 0 : 1];
  const std::uint32_t when = current + a.local;
  const std::uint32_t flag = kFlagOf[kind];
  const std::uint16_t site = site_of_pc_[a.pc];
  // Records before `floor` are ordered before this access and everything after it: for storage,
  // those of earlier grid phases; for workgroup memory also those of earlier intervals and of other
  // workgroups (whose memory is another).
  const std::uint32_t floor = s.workgroup ? current : phase_first_;

  if ((tag & kEscalated) == 0) {
    const std::uint32_t held = tag & kWhenMask;
    if (held < floor) {
      tag = when | flag;
      s.sites[a.element] = site;
      return;
    }
    if (held == when) {  // the same invocation again, same interval
      const std::uint32_t kinds = (tag & kKindFlags) | flag;
      const bool two_sites = (kinds & kFlagOf[Kind::kRead]) && (kinds & kFlagOf[Kind::kAtomicWrite]) &&
                             !(kinds & kFlagOf[Kind::kWrite]);
      if (!two_sites) {
        std::uint32_t several = tag & kSeveralValues;
        if (kind == Kind::kWrite && (tag & (kFlagOf[Kind::kWrite] | kFlagOf[Kind::kAtomicWrite])) && a.value != a.previous)
          several = kSeveralValues;
        if ((kinds & kFlagOf[Kind::kWrite]) && (kinds & kFlagOf[Kind::kAtomicWrite])) several = kSeveralValues;
        if (site_rank(kind) >= best_rank(tag)) s.sites[a.element] = site;
        tag = when | kinds | several;
        return;
      }
    } else if (held >= group_first_ && held % lanes_ == a.local && (tag & kKindFlags) == flag &&
               (kind != Kind::kWrite || ((tag & kSeveralValues) == 0 && a.value == a.previous))) {
      // The same invocation in a later interval, with the one kind (and value) it had: the new
      // record stands for the old one towards later workgroups.
      tag = when | flag;
      s.sites[a.element] = site;
      return;
    }
    escalate(s, a);
  }
  switch (kind) {
    case Kind::kRead: check_full<Kind::kRead>(s, a, when); break;
    case Kind::kWrite: check_full<Kind::kWrite>(s, a, when); break;
    case Kind::kAtomicWrite: check_full<Kind::kAtomicWrite>(s, a, when); break;
    default: check_full<Kind::kAtomicRead>(s, a, when); break;
  }
}

void RaceDetector::escalate(Shadow& s, const Access& a) {
  std::uint32_t& tag = s.tags[a.element];
  const std::uint32_t index = allocate_full();
  Full& f = pool_[index];
  const Rep held{tag & kWhenMask, s.sites[a.element]};
  for (int k = 0; k < kKinds; ++k)
    if (tag & kFlagOf[k]) f.of[k].latest = held;
  if (tag & kFlagOf[Kind::kWrite]) {
    // The element holds the invocation's last plain write unless it also wrote atomically (then
    // kSeveralValues is set).
    const std::uint32_t before = a.previous;
    f.group = f.interval = Values{before, (tag & kSeveralValues) != 0, true};
  }
  tag = kEscalated | index;
}

template <RaceDetector::Kind kind>
[[gnu::always_inline]] inline void RaceDetector::check_full(Shadow& s, const Access& a, std::uint32_t when) {
  std::uint32_t& tag = s.tags[a.element];
  const std::uint32_t index = tag & ~kEscalated;
  Full& f = pool_[index];
  const std::uint32_t current = interval_first_[s.workgroup ? 0 : 1];
  const std::uint32_t floor = s.workgroup ? current : phase_first_;

  // Age the history: records of earlier phases (intervals, for workgroup memory) are dropped; the
  // records of a workgroup that ran before this one join `earlier_group`. Ageing again under the same
  // floor and workgroup would change nothing, and a history aged under them is not empty (the access
  // that aged it left its record), so an access under the pair it was last aged for skips to the checks.
  if (f.aged_floor != floor || f.aged_group != group_first_) {
    if (age(f, floor, group_first_)) {  // everything it held is ordered before this access
      free_.push_back(index);
      tag = when | kFlagOf[kind];
      s.sites[a.element] = site_of_pc_[a.pc];
      return;
    }
    f.aged_floor = floor;
    f.aged_group = group_first_;
  }

  const bool tolerant = kind == Kind::kWrite && !strict_same_value_;
  for (int k = 0; k < kKinds; ++k) {
    if ((kConflicts[kind] & (1 << k)) == 0) continue;
    const History& h = f.of[k];
    const Kind other_kind = static_cast<Kind>(k);
    if (h.latest.when >= current) {  // latest is of this interval
      const Rep& other = h.latest.when != when ? h.latest : h.other;
      if (other.when != 0 && !(tolerant && k == Kind::kWrite && same_value(f.interval, a.value)))
        report(a, kind, other, other_kind);
    }
    if (h.earlier_group.when != 0 && !(tolerant && k == Kind::kWrite && same_value(f.earlier_groups, a.value)))
      report(a, kind, h.earlier_group, other_kind);
  }

  History& h = f.of[kind];
  const Rep me{when, site_of_pc_[a.pc]};
  const bool same_interval = h.latest.when >= current;
  if (kind == Kind::kWrite) {
    if (!same_interval) f.interval = Values{};
    add_value(f.group, a.value);
    add_value(f.interval, a.value);
  }
  if (same_interval) {
    if (h.latest.when != when) h.other = h.latest;
  } else {
    h.other = Rep{};
  }
  h.latest = me;
}

void RaceDetector::report(const Access& a, Kind kind, const Rep& other, Kind other_kind) {
  const std::uint16_t site = site_of_pc_[a.pc];
  const std::uint64_t key = (std::uint64_t{a.buffer & 0xFFFF} << 48) | (std::uint64_t{other.site} << 32) |
                            (std::uint64_t{site} << 16) | (std::uint64_t{other_kind} << 8) | kind;
  if (auto it = seen_.find(key); it != seen_.end()) {
    if (it->second < reports_.size()) {
      RaceReport& r = reports_[it->second];
      ++r.occurrences;
      if (r.elements.size() < RaceReport::kMaxElements &&
          std::find(r.elements.begin(), r.elements.end(), a.element) == r.elements.end())
        r.elements.push_back(a.element);
    }
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
  r.elements.push_back(a.element);
  r.launch = ctx_.launch;
  r.first.kind = access_kind(other_kind);
  r.first.site = other.site == kUnknownSite ? Site{{}, "?", "unknown site"} : prog_.site(sites_->pc_of_site[other.site]);
  r.first.invocation = ctx_.ids(workgroup_of_[other.when / lanes_], other.when % lanes_);
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

std::vector<RaceReport> RaceDetector::take_reports() {
  for (RaceReport& r : reports_) {
    if (r.occurrences < 2) continue;
    std::string elements;
    for (std::uint64_t e : r.elements) elements += fmt::format("{}{}", elements.empty() ? "" : ", ", e);
    r.message += fmt::format(" ({} times at these sites, on element{} {}{})", r.occurrences,
                             r.elements.size() == 1 ? "" : "s", elements,
                             r.elements.size() == RaceReport::kMaxElements ? ", ..." : "");
  }
  return std::move(reports_);
}

}  // namespace gridcheck::interp
