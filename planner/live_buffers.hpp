#pragma once
// The live buffers threaded between split segments (docs/vyre-0.7.2.md §6.8, seed 002 `live_buffers.rs`):
// caller-borrowed inputs and owned segment outputs, their refresh after each launch, the owned
// accumulator fingerprint, the gathering of a segment's inputs and the final reassembly by name.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/diagnostic.hpp"
#include "planner/executor.hpp"
#include "planner/split_plan.hpp"

namespace gridcheck::planner {

/// A caller's bytes (borrowed; never written) or bytes the split owns.
class LiveBuffer {
 public:
  static LiveBuffer borrowed(const Bytes& caller_bytes) { return LiveBuffer(&caller_bytes); }
  static LiveBuffer owned(Bytes bytes) { return LiveBuffer(std::move(bytes)); }

  bool is_owned() const { return state_.index() == 1; }
  const Bytes& bytes() const { return is_owned() ? std::get<1>(state_) : *std::get<0>(state_); }
  Bytes& owned_bytes() { GC_ASSERT(is_owned()); return std::get<1>(state_); }

  /// vyre `refresh_from_output`: a borrowed entry becomes owned by copying `produced`; an owned
  /// entry swaps allocations with `produced` (no copy; the slot gets the old allocation back).
  void refresh_from_output(Bytes& produced);

 private:
  explicit LiveBuffer(const Bytes* borrowed) : state_(std::in_place_index<0>, borrowed) {}
  explicit LiveBuffer(Bytes owned) : state_(std::in_place_index<1>, std::move(owned)) {}
  std::variant<const Bytes*, Bytes> state_;
};

/// The live map: buffer name -> bytes. Ordered by name so observers and reports are deterministic
/// (vyre uses a HashMap; nothing in 0.7.2 depends on its order, the fingerprint is order-free).
using LiveMap = std::map<std::string, LiveBuffer, std::less<>>;

/// FNV-1a-64 over the name bytes, the byte 0xFF, then the buffer bytes.
std::uint64_t live_buffer_hash(std::string_view name, const Bytes& bytes);
/// vyre `owned_accumulator_fingerprint`: XOR of live_buffer_hash over the Owned entries only.
std::uint64_t owned_accumulator_fingerprint(const LiveMap& live);

/// vyre `borrowed_grid_sync_inputs_by_name`: the inputs of `segment` in input_names order.
/// Error S007 when a name has no entry.
std::optional<ir::Diagnostic> gather_inputs_by_name(const SplitPlan& plan, std::size_t segment_index, const LiveMap& live,
                                                    std::vector<const Bytes*>& inputs);

/// vyre `refresh_named_outputs`: zips the executor's outputs with output_names; an existing entry
/// is refreshed, a missing one inserted as owned; then every output slot is cleared (keeping its
/// allocation). Error S008 when the executor returned a different number of slots.
std::optional<ir::Diagnostic> refresh_named_outputs(const SplitPlan& plan, std::size_t segment_index,
                                                    std::vector<Bytes>& outputs, LiveMap& live);
/// refresh_named_outputs with a replaceable per-entry step (vyre: LiveBuffer::refresh_from_output),
/// e.g. for a mutant that copies instead of swapping, or aliases the output slot. A missing name is
/// inserted as an empty owned entry before the step runs.
using RefreshEntry = std::function<void(LiveBuffer& entry, Bytes& produced)>;
std::optional<ir::Diagnostic> refresh_named_outputs_with(const SplitPlan& plan, std::size_t segment_index,
                                                         std::vector<Bytes>& outputs, LiveMap& live,
                                                         const RefreshEntry& refresh_entry);

/// vyre `collect_final_named_outputs`: removes each final name from the live map (owned bytes
/// moved, borrowed bytes copied) and stores them in `outputs`, preserving the caller's slots.
/// Error S009 for a name no segment produced.
std::optional<ir::Diagnostic> collect_final_named_outputs(std::span<const std::string> final_names, LiveMap& live,
                                                          std::vector<Bytes>& outputs);

/// `replace_output_buffers_preserving_slots`: resizes `outputs` to exactly final.size() slots and
/// copies each result into the existing slot's allocation (reusing its capacity).
void replace_output_buffers_preserving_slots(std::vector<Bytes>& final_outputs, std::vector<Bytes>& outputs);

/// vyre `refresh_readwrite_inputs`: the legacy positional refresh (the v0 threading scheme, H0).
/// Dead code in 0.7.2 (docs/vyre-0.7.2.md §6.10); kept for its seed test and for mutants that restore H0. Walks
/// the segment table: the input cursor advances on every non-workgroup non-output buffer, the
/// output cursor on every read_write buffer; a read_write non-output buffer refreshes its input
/// slot from its output slot. Every output slot is cleared afterwards.
void legacy_refresh_readwrite_inputs(const ir::Program& segment, std::vector<Bytes>& outputs,
                                     std::span<LiveBuffer> inputs);

}  // namespace gridcheck::planner
