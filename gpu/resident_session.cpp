#include "gpu/resident_session.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "gpu/buffer_pool.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gpu_diagnostics.hpp"
#include "gpu/vulkan_context.hpp"
#include "ir/abi.hpp"

namespace gridcheck::gpu {
namespace {

planner::LaunchError error(Code code, std::string message) { return to_launch_error(make_error(code, std::move(message))); }

/// A zero-filled buffer from the context's pool (back to the pool when the last holder drops it).
ir::Result<std::shared_ptr<DeviceBuffer>> make_buffer(VulkanContext& ctx, std::uint64_t bytes,
                                                      DeviceBuffer::Use use = DeviceBuffer::Use::Storage) {
  return ctx.buffers().acquire(bytes, use);
}

}  // namespace

ResidentSession::ResidentSession(VulkanContext& ctx, GlslCompiler& compiler)
    : ctx_(ctx), owned_kernels_(std::make_unique<KernelStore>(compiler)), kernels_(*owned_kernels_), batch_(ctx) {}

ResidentSession::ResidentSession(VulkanContext& ctx, KernelStore& kernels) : ctx_(ctx), kernels_(kernels), batch_(ctx) {}

void ResidentSession::clear() {
  batch_.clear();
  acquired_.clear();
  previous_.clear();
  previous_next_ = 0;
  acquired_bytes_ = 0;
  in_run_ = false;
  queued_.clear();
  keep_alive_.clear();
  live_.clear();
  staged_.clear();
  trapped_launch_.reset();
}

ResidentSession::~ResidentSession() {
  // Queued work was never submitted: nothing references the buffers on the device.
}

std::optional<planner::LaunchError> ResidentSession::upload(std::string_view name, std::span<const std::uint8_t> bytes) {
  if (!queued_.empty())
    if (std::optional<planner::LaunchError> e = sync()) return e;  // never overwrite memory queued work reads
  for (auto& [staged_name, s] : staged_) s.state = Staged::State::None;
  auto it = live_.find(name);
  // A fresh buffer of the last run (begin_run) is left to be offered again as this run's: the name gets
  // another buffer, as it would if something else held it.
  const bool offered = it != live_.end() && std::find(previous_.begin() + static_cast<std::ptrdiff_t>(previous_next_), previous_.end(),
                                                      it->second.buffer) != previous_.end();
  if (it != live_.end() && !offered && it->second.buffer.use_count() == 1 && it->second.buffer->size() == bytes.size() &&
      bytes.size() % 4 == 0 && !bytes.empty()) {
    // Referenced by no other name and, after the sync above, by no queued command: overwrite it in place
    // (every byte of its range) instead of allocating and zero-filling a new one.
    it->second.buffer->write(bytes);
    it->second.uploaded = true;
    return std::nullopt;
  }
  ir::Result<std::shared_ptr<DeviceBuffer>> b = make_buffer(ctx_, bytes.size());  // not a run's fresh buffer: kept by name
  if (!b) return to_launch_error(b.diagnostics().all().front());
  (*b)->write(bytes);
  live_[std::string(name)] = Live{*b, true};
  return std::nullopt;
}

void ResidentSession::begin_run(std::span<const std::string_view> keep) {
  for (auto it = live_.begin(); it != live_.end();) {
    if (std::binary_search(keep.begin(), keep.end(), std::string_view(it->first))) ++it;
    else it = live_.erase(it);
  }
  previous_ = std::move(acquired_);
  acquired_.clear();
  acquired_bytes_ = 0;
  previous_next_ = 0;
  in_run_ = true;
}

ir::Result<std::shared_ptr<DeviceBuffer>> ResidentSession::fresh_buffer(std::uint64_t bytes, DeviceBuffer::Use use) {
  if (previous_next_ < previous_.size()) {
    std::shared_ptr<DeviceBuffer>& last = previous_[previous_next_++];
    const std::uint64_t range = std::max<std::uint64_t>(4, (bytes + 3) / 4 * 4);
    if (last && last.use_count() == 1 && last->use() == use && last->capacity() >= range) {
      last->reshape_zeroed(bytes);  // every byte of the new range, as the pool's reuse
      acquired_bytes_ += last->capacity();
      acquired_.push_back(std::move(last));
      return acquired_.back();
    }
    last.reset();
  }
  ir::Result<std::shared_ptr<DeviceBuffer>> b = make_buffer(ctx_, bytes, use);
  if (b && in_run_ && acquired_bytes_ + (*b)->capacity() <= (std::uint64_t{256} << 20)) {
    acquired_bytes_ += (*b)->capacity();
    acquired_.push_back(*b);
  }
  return b;
}

bool ResidentSession::is_uploaded(std::string_view name) const {
  auto it = live_.find(name);
  return it != live_.end() && it->second.uploaded;
}

std::vector<std::string> ResidentSession::names() const {
  std::vector<std::string> out;
  for (const auto& [name, live] : live_) out.push_back(name);
  return out;
}

std::optional<planner::LaunchError> ResidentSession::launch(const ir::Program& program, const planner::LaunchConfig& config,
                                                            std::span<const std::string> input_names,
                                                            std::span<const std::string> output_names, KernelSlot* slot) {
  ++launches_;
  if (config.fixpoint_iterations == 0) return error(Code::BadInputs, "fixpoint_iterations is 0; a launch runs at least once");
  std::shared_ptr<const Kernel> kernel;
  if (slot != nullptr && slot->kernel && !dump_dir_ && slot->ctx == &ctx_ && slot->store == &kernels_ &&
      slot->epoch == kernels_.epoch() && slot->workgroup_override == config.workgroup_override && slot->fault == fault_) {
    kernel = slot->kernel;
    ++slot_hits_;
  } else {
    KernelOptions ko;
    ko.workgroup_override = config.workgroup_override;
    ko.label = label_;  // names dumps and internal errors only (not part of the GLSL)
    ko.dump_dir = dump_dir_;
    ko.fault = fault_;
    const std::uint64_t epoch = kernels_.epoch();  // read first: a clear during get() leaves the slot stale
    ir::Result<std::shared_ptr<const Kernel>> got = kernels_.get(ctx_, program, ko);
    if (!got) return to_launch_error(got.diagnostics().all().front());
    kernel = *got;
    if (slot != nullptr && !dump_dir_) *slot = KernelSlot{&ctx_, &kernels_, epoch, config.workgroup_override, fault_, kernel};
  }
  ir::Result<std::array<std::uint32_t, 3>> grid = launch_grid(program, config);
  if (!grid) {
    planner::LaunchError e = to_launch_error(grid.diagnostics().all().front());
    e.kind = planner::LaunchErrorKind::InvalidProgram;
    return e;
  }
  if (std::optional<ir::Diagnostic> d = check_grid(ctx_, *grid)) return to_launch_error(*d);

  const auto decls = program.buffers();
  std::size_t n_in = 0;
  std::size_t n_out = 0;
  for (const ir::BufferDecl& b : decls) {
    n_in += ir::is_dispatch_input(b) ? 1 : 0;
    n_out += ir::is_dispatch_output(b) ? 1 : 0;
  }
  if (!input_names.empty() && input_names.size() != n_in)
    return error(Code::BadInputs, fmt::format("the launch takes {} input buffers but {} names were given", n_in, input_names.size()));
  if (!output_names.empty() && output_names.size() != n_out)
    return error(Code::BadInputs, fmt::format("the launch returns {} output buffers but {} names were given", n_out, output_names.size()));

  // Bind every non-workgroup buffer: live inputs in place, fresh zeros for the rest.
  std::vector<std::shared_ptr<DeviceBuffer>>& bound = bound_;
  bound.assign(decls.size(), nullptr);
  for (std::size_t i = 0, k = 0; i < decls.size(); ++i) {
    const ir::BufferDecl& b = decls[i];
    if (b.access == ir::BufferAccess::Workgroup) continue;
    if (ir::is_dispatch_input(b)) {
      const std::string_view name = input_names.empty() ? program.name(b.name) : std::string_view(input_names[k]);
      ++k;
      auto it = live_.find(name);
      if (it == live_.end())
        return error(Code::BadInputs, fmt::format("input buffer `{}` has no bytes on the device (upload it or produce it first)", name));
      if (b.count > 0 && it->second.buffer->size() != b.static_byte_len())
        return error(Code::BadInputs, fmt::format("input buffer `{}` has {} bytes but its declaration needs exactly {} (count {})", name,
                                                  it->second.buffer->size(), b.static_byte_len(), b.count));
      bound[i] = it->second.buffer;
    } else {
      const std::optional<std::uint64_t> bytes = ir::backend_allocation_bytes(b);
      if (!bytes)
        return error(Code::NoOutputSize, fmt::format("output buffer `{}` receives no bytes and has neither a count nor an "
                                                      "output_byte_range to size it",
                                                      program.name(b.name)));
      ir::Result<std::shared_ptr<DeviceBuffer>> fresh = fresh_buffer(*bytes);
      if (!fresh) return to_launch_error(fresh.diagnostics().all().front());
      bound[i] = *fresh;
    }
  }
  // The new live entries (slices first need a buffer of their own, filled by a device copy).
  auto& produced = produced_;
  auto& slices = slices_;  // decl index -> slice buffer
  produced.clear();
  slices.clear();
  for (std::size_t i = 0, k = 0; i < decls.size(); ++i) {
    const ir::BufferDecl& b = decls[i];
    if (!ir::is_dispatch_output(b)) continue;
    const std::string_view name = output_names.empty() ? program.name(b.name) : std::string_view(output_names[k]);
    ++k;
    std::shared_ptr<DeviceBuffer> result = bound[i];
    if (b.output_byte_range) {
      const ir::ByteRange r = *b.output_byte_range;
      if (r.begin > r.end || r.end > bound[i]->size())
        return error(Code::BadInputs, fmt::format("output_byte_range {}..{} of `{}` lies outside its {} bytes", r.begin, r.end,
                                                  program.name(b.name), bound[i]->size()));
      ir::Result<std::shared_ptr<DeviceBuffer>> slice = fresh_buffer(r.end - r.begin);
      if (!slice) return to_launch_error(slice.diagnostics().all().front());
      result = *slice;
      slices.emplace_back(i, result);
    }
    produced.emplace_back(name, result);
  }

  Queued q;
  q.kernel = std::move(kernel);
  q.grid = *grid;
  const LoweredShader& shader = q.kernel->shader;
  std::vector<const DeviceBuffer*>& binding_list = binding_list_;
  binding_list.clear();
  std::vector<std::uint32_t>& push = push_;
  push.assign(shader.push_constant_words, 0);
  for (const BufferBinding& bb : shader.buffers) {
    binding_list.push_back(bound[bb.decl_index].get());
    if (bb.length_push_word) push[*bb.length_push_word] = static_cast<std::uint32_t>(bound[bb.decl_index]->size() / 4);
  }
  if (shader.trap_binding) {
    ir::Result<std::shared_ptr<DeviceBuffer>> trap = fresh_buffer(8);
    if (!trap) return to_launch_error(trap.diagnostics().all().front());
    std::memset((*trap)->bytes().data(), 0xFF, 8);
    q.trap = *trap;
    binding_list.push_back(q.trap.get());
  }

  // Everything is allocated: queue the commands and update the live map. Staged copies are out of date.
  for (auto& [staged_name, st] : staged_) st.state = Staged::State::None;
  for (std::uint32_t i = 0; i < config.fixpoint_iterations; ++i) batch_.dispatch(*q.kernel->pipeline, binding_list, push, q.grid);
  for (const auto& [decl_index, slice] : slices)
    batch_.copy(*bound[decl_index], decls[decl_index].output_byte_range->begin, *slice, slice->size());
  for (const auto& b : bound)
    if (b) keep_alive_.push_back(b);
  for (const auto& [decl_index, slice] : slices) keep_alive_.push_back(slice);
  if (q.trap) keep_alive_.push_back(q.trap);
  for (auto& [name, buffer] : produced) {
    auto it = live_.find(name);
    if (it == live_.end()) live_.emplace(std::string(name), Live{std::move(buffer), false});
    else it->second = Live{std::move(buffer), false};
  }
  produced.clear();
  slices.clear();
  for (auto& b : bound) b.reset();
  queued_.push_back(std::move(q));
  return std::nullopt;
}

std::optional<planner::LaunchError> ResidentSession::sync() {
  trapped_launch_.reset();
  if (queued_.empty()) return submit_copies();
  ir::Result<SubmitStats> s = batch_.submit_and_wait();
  ++submissions_;
  std::vector<Queued> done = std::move(queued_);
  queued_.clear();
  keep_alive_.clear();
  for (auto& [name, st] : staged_)
    if (st.state == Staged::State::Queued) st.state = s ? Staged::State::Done : Staged::State::None;
  if (!s) return to_launch_error(s.diagnostics().all().front());
  for (std::size_t i = 0; i < done.size(); ++i) {
    if (!done[i].trap) continue;
    std::uint64_t key = 0;
    std::memcpy(&key, done[i].trap->bytes().data(), 8);
    if (std::optional<planner::LaunchError> e = trap_error(key, done[i].kernel->shader, done[i].grid)) {
      trapped_launch_ = i;
      return e;
    }
  }
  return std::nullopt;
}

bool ResidentSession::stage(std::string_view name) {
  auto it = live_.find(name);
  if (it == live_.end() || it->second.buffer->host_cached() || it->second.buffer->size() == 0) return false;
  const std::shared_ptr<DeviceBuffer> source = it->second.buffer;
  auto st = staged_.find(name);
  if (st == staged_.end()) st = staged_.emplace(std::string(name), Staged{}).first;
  Staged& staged = st->second;
  if (staged.state != Staged::State::None && staged.source.lock() == source) return true;
  if (!staged.staging || staged.staging->range() < source->range()) {
    staged.staging.reset();  // a copy still queued into it keeps it alive through keep_alive_
    ir::Result<std::shared_ptr<DeviceBuffer>> made = make_buffer(ctx_, source->range(), DeviceBuffer::Use::Readback);
    if (!made) return false;  // read in place
    staged.staging = *made;
  }
  if (!staged.staging->host_cached()) return false;  // the device has no host-cached memory
  staged.source = source;
  staged.state = Staged::State::Queued;
  batch_.copy(*source, 0, *staged.staging, source->range());
  keep_alive_.push_back(source);
  keep_alive_.push_back(staged.staging);
  return true;
}

std::optional<planner::LaunchError> ResidentSession::submit_copies() {
  if (batch_.empty()) return std::nullopt;
  ir::Result<SubmitStats> s = batch_.submit_and_wait();
  keep_alive_.clear();
  for (auto& [name, st] : staged_)
    if (st.state == Staged::State::Queued) st.state = s ? Staged::State::Done : Staged::State::None;
  if (!s) return to_launch_error(s.diagnostics().all().front());
  return std::nullopt;
}

void ResidentSession::prefetch(std::span<const std::string> names) {
  for (const std::string& name : names) stage(name);
}

std::optional<planner::LaunchError> ResidentSession::download(std::string_view name, planner::Bytes& out) {
  auto it = live_.find(name);
  if (it == live_.end()) {
    if (!queued_.empty())
      if (std::optional<planner::LaunchError> e = sync()) return e;
    return error(Code::BadInputs, fmt::format("there is no live buffer `{}`", name));
  }
  const std::shared_ptr<DeviceBuffer> buffer = it->second.buffer;
  const bool staged = stage(name);  // queued with the launches, if any, or already done
  if (!queued_.empty()) {
    if (std::optional<planner::LaunchError> e = sync()) return e;
  } else if (std::optional<planner::LaunchError> e = submit_copies()) {
    return e;
  }
  const auto bytes = staged ? staged_.find(name)->second.staging->bytes().first(static_cast<std::size_t>(buffer->size()))
                            : buffer->bytes();
  out.assign(bytes.begin(), bytes.end());
  return std::nullopt;
}

}  // namespace gridcheck::gpu
