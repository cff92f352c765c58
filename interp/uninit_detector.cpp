#include "interp/uninit_detector.hpp"

namespace gridcheck::interp {

UninitDetector::UninitDetector(const CompiledProgram& program)
    : prog_(program), words_per_workgroup_(program.workgroup_words) {}

std::uint64_t UninitDetector::shadow_bytes(const CompiledProgram& program, std::uint64_t workgroups) {
  const std::uint64_t per_workgroup = (std::uint64_t{program.workgroup_words} + 63) / 64 * 8;
  return per_workgroup * (program.has_fence ? workgroups : 1);
}

void UninitDetector::begin_launch(const LaunchContext& ctx) {
  ctx_ = ctx;
  written_.assign(prog_.has_fence ? ctx.workgroup_count : 1, {});
  entered_.assign(prog_.has_fence ? ctx.workgroup_count : 1, false);
}

void UninitDetector::enter_workgroup(std::uint32_t workgroup) {
  // A workgroup's memory starts fresh the first time it runs in a launch; resuming after a
  // grid_sync keeps it.
  const std::size_t slot = prog_.has_fence ? workgroup : 0;
  if (prog_.has_fence && entered_[slot]) return;
  entered_[slot] = true;
  written_[slot].assign((std::size_t{words_per_workgroup_} + 63) / 64, 0);
}

void UninitDetector::report(const Access& a) {
  const CompiledBuffer& b = prog_.buffers[a.buffer];
  const std::uint64_t key = (std::uint64_t{ctx_.launch} << 48) ^ (std::uint64_t{a.buffer} << 32) ^ a.pc;
  if (auto it = seen_.find(key); it != seen_.end()) {
    ++reports_[it->second].occurrences;
    return;
  }
  if (reports_.size() >= kMaxReports) {
    ++dropped_;
    return;
  }
  seen_.emplace(key, reports_.size());
  UninitReport r;
  r.buffer = b.name;
  r.site = ctx_.site(a.pc);
  r.first_element = a.element;
  r.first_invocation = ctx_.ids(a.workgroup, a.local);
  r.launch = ctx_.launch;
  reports_.push_back(std::move(r));
}

}  // namespace gridcheck::interp
