#pragma once
// Device-resident launches: buffers live on the device, addressed by name, between launches; launches
// are queued into one command buffer (COMPUTE->COMPUTE / TRANSFER barriers between them) and only what
// the caller downloads is read back.
//
// Binding rule of one launch (the device analogue of the split's gather -> launch -> refresh, docs/vyre-0.7.2.md §6.8):
//  - the k-th ir::is_dispatch_input buffer of the program is bound to the live buffer `input_names[k]`
//    (default: its own name), in place; a declared count must match that buffer's size (K032);
//  - every other non-workgroup buffer gets a fresh zero-filled buffer of ir::backend_allocation_bytes;
//  - after the launch, the live entry `output_names[k]` (default: the declaration's name) becomes the
//    k-th ir::is_dispatch_output buffer, or a fresh buffer holding its output_byte_range slice.
// For read_write buffers "in place" equals the host loop's copy-in / copy-out; everything else is the
// same rule, so a resident run is byte-for-byte the host run by construction.
//
// Errors of preparation (types, lowering, limits, missing inputs) return from launch(); traps and
// driver errors return from sync(), which reports the first trapping launch in queue order.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/command_batch.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/kernel.hpp"
#include "planner/executor.hpp"

namespace gridcheck::gpu {

class VulkanContext;

/// One program's kernel kept by the caller (a PreparedSplit keeps one per segment): ResidentSession::launch
/// with a slot fills it on first use and afterwards skips the kernel cache's lookup (ir::content_hash and
/// ir::structurally_equal of the program, every launch) while the slot's context, store, store epoch
/// (KernelStore::epoch) and kernel options are the launch's. The caller passes a slot only ever with the
/// same program, unchanged (the slot is the program's: a PreparedSplit owns both). Not thread-safe.
struct KernelSlot {
  const VulkanContext* ctx = nullptr;
  const KernelStore* store = nullptr;
  std::uint64_t epoch = 0;
  std::optional<std::array<std::uint32_t, 3>> workgroup_override;
  LoweringFault fault = LoweringFault::None;
  std::shared_ptr<const Kernel> kernel;
};

class ResidentSession {
 public:
  /// `ctx` and `compiler` must outlive the session (kernels are kept by the session).
  ResidentSession(VulkanContext& ctx, GlslCompiler& compiler);
  /// `ctx` and `kernels` (shared with other sessions and executors, on any threads) must outlive the
  /// session. One session is used by one thread at a time.
  ResidentSession(VulkanContext& ctx, KernelStore& kernels);
  ~ResidentSession();

  /// Forgets every live buffer, staging copy and queued launch (never submitted), keeping the kernels and
  /// the command batch's driver objects: the session is then as new, for the next run.
  void clear();

  /// Starts a run of a split: forgets every live buffer whose name `keep` (sorted) does not hold, so that
  /// nothing of an earlier run is visible by name, and lets this run's fresh buffers be the last run's
  /// again: the k-th buffer a launch or upload of this run needs fresh is the last run's k-th when that
  /// one has the same use, room for it and no other holder (set to zero bytes over its new range, as the
  /// pool does), else one from the pool. A repeated run so binds the same buffers in the same places,
  /// and CommandBatch resubmits its recording. A run keeps its fresh buffers (up to 256 MiB of capacity;
  /// those beyond go back to the pool as before) until the next begin_run or clear().
  void begin_run(std::span<const std::string_view> keep);

  /// Creates or replaces the live buffer `name` with `bytes` (a host write; no submission).
  std::optional<planner::LaunchError> upload(std::string_view name, std::span<const std::uint8_t> bytes);

  /// Queues one launch (fixpoint_iterations dispatches) of `program`. With `slot` (see KernelSlot), the
  /// program's kernel is taken from it when it holds one for this launch's options.
  std::optional<planner::LaunchError> launch(const ir::Program& program, const planner::LaunchConfig& config,
                                             std::span<const std::string> input_names = {},
                                             std::span<const std::string> output_names = {}, KernelSlot* slot = nullptr);

  /// Submits everything queued as one command buffer and waits. The first trap, in queue order.
  std::optional<planner::LaunchError> sync();

  /// Reads back the live buffer `name` (syncing first when launches are queued). A buffer whose memory
  /// the host reads uncached (DeviceBuffer::host_cached) is read through a host-cached staging copy: one
  /// prefetched since the last launch, else one copied in the queued launches' submission, else in a
  /// submission of its own (not counted by submissions()).
  std::optional<planner::LaunchError> download(std::string_view name, planner::Bytes& out);

  /// Queues staging copies of the named live buffers (those the host reads uncached; unknown names are
  /// ignored), so that the next sync() brings them to the host with the queued launches and download()
  /// of them submits nothing more. A later launch() or upload() discards them.
  void prefetch(std::span<const std::string> names);

  bool has(std::string_view name) const { return live_.find(name) != live_.end(); }
  /// True while `name` still holds the bytes given to upload() (no launch produced it since).
  bool is_uploaded(std::string_view name) const;
  std::vector<std::string> names() const;

  /// Launch labels for shaders and internal errors ("segment 1 of 3").
  void set_label(std::string_view label) { label_.assign(label); }
  void set_dump_dir(std::optional<std::filesystem::path> dir) { dump_dir_ = std::move(dir); }
  /// A deliberate lowering bug for the next launches (tests only; glsl_lowering.hpp LoweringFault).
  void set_lowering_fault(LoweringFault fault) { fault_ = fault; }

  std::size_t queued_launches() const { return queued_.size(); }
  std::uint64_t submissions() const { return submissions_; }
  /// Submissions that resubmitted the previous one's recorded command buffer (CommandBatch).
  std::uint64_t resubmissions() const { return batch_.resubmissions(); }
  /// Launches whose kernel came from a KernelSlot.
  std::uint64_t slot_hits() const { return slot_hits_; }
  /// Index (in queue order since the last sync) of the launch that trapped at the last sync.
  std::optional<std::size_t> trapped_launch() const { return trapped_launch_; }

 private:
  struct Live {
    std::shared_ptr<DeviceBuffer> buffer;
    bool uploaded = false;
  };
  struct Queued {
    std::shared_ptr<const Kernel> kernel;
    std::array<std::uint32_t, 3> grid{};
    std::shared_ptr<DeviceBuffer> trap;
  };

  VulkanContext& ctx_;
  std::unique_ptr<KernelStore> owned_kernels_;
  KernelStore& kernels_;
  std::map<std::string, Live, std::less<>> live_;
  CommandBatch batch_;
  std::vector<Queued> queued_;
  std::vector<std::shared_ptr<DeviceBuffer>> keep_alive_;  ///< buffers referenced by queued commands
  struct Staged {
    enum class State : std::uint8_t { None, Queued, Done };
    std::weak_ptr<DeviceBuffer> source;     ///< the live buffer copied (weak: upload() reuses sole owners)
    std::shared_ptr<DeviceBuffer> staging;  ///< its host-cached copy (kept for reuse)
    State state = State::None;
  };
  /// Queues a staging copy of live buffer `name` unless one is queued or done for it; false when the host
  /// reads it directly.
  bool stage(std::string_view name);
  /// Submits a batch that holds staging copies only (no launches queued).
  std::optional<planner::LaunchError> submit_copies();
  std::map<std::string, Staged, std::less<>> staged_;
  std::string label_;
  std::optional<std::filesystem::path> dump_dir_;
  LoweringFault fault_ = LoweringFault::None;
  std::uint64_t submissions_ = 0;
  std::uint64_t launches_ = 0;
  std::uint64_t slot_hits_ = 0;
  /// A zero-filled buffer: the last run's next one (begin_run), else the context's pool.
  ir::Result<std::shared_ptr<DeviceBuffer>> fresh_buffer(std::uint64_t bytes, DeviceBuffer::Use use = DeviceBuffer::Use::Storage);
  std::vector<std::shared_ptr<DeviceBuffer>> acquired_;  ///< this run's fresh buffers, in order
  std::vector<std::shared_ptr<DeviceBuffer>> previous_;  ///< the last run's, offered again in order
  std::size_t previous_next_ = 0;
  bool in_run_ = false;                 ///< between begin_run and clear
  std::uint64_t acquired_bytes_ = 0;    ///< capacity held by acquired_
  // launch()'s working lists, kept so that a launch allocates nothing on the host once warm.
  std::vector<std::shared_ptr<DeviceBuffer>> bound_;
  std::vector<std::pair<std::string_view, std::shared_ptr<DeviceBuffer>>> produced_;
  std::vector<std::pair<std::size_t, std::shared_ptr<DeviceBuffer>>> slices_;
  std::vector<const DeviceBuffer*> binding_list_;
  std::vector<std::uint32_t> push_;
  std::optional<std::size_t> trapped_launch_;
};

}  // namespace gridcheck::gpu
