#include "planner/live_buffers.hpp"

#include "ir/equality.hpp"
#include "planner/dispatch_types.hpp"
#include "planner/split_errors.hpp"

namespace gridcheck::planner {

void LiveBuffer::refresh_from_output(Bytes& produced) {
  if (!is_owned()) {
    state_.emplace<1>(produced.begin(), produced.end());
    return;
  }
  std::get<1>(state_).swap(produced);
}

std::uint64_t live_buffer_hash(std::string_view name, const Bytes& bytes) {
  std::uint64_t hash = ir::fnv1a64(name.data(), name.size());
  const std::uint8_t separator = 0xFF;  // so name+bytes cannot alias a different split
  hash = ir::fnv1a64(&separator, 1, hash);
  return ir::fnv1a64(bytes.data(), bytes.size(), hash);
}

std::uint64_t owned_accumulator_fingerprint(const LiveMap& live) {
  std::uint64_t combined = 0;
  for (const auto& [name, buffer] : live)
    if (buffer.is_owned()) combined ^= live_buffer_hash(name, buffer.bytes());
  return combined;
}

std::optional<ir::Diagnostic> gather_inputs_by_name(const SplitPlan& plan, std::size_t segment_index, const LiveMap& live,
                                                    std::vector<const Bytes*>& inputs) {
  const PlannedSegment& segment = plan.segments[segment_index];
  inputs.clear();
  inputs.reserve(segment.input_names.size());
  for (const std::string& name : segment.input_names) {
    const auto it = live.find(name);
    if (it == live.end()) return split_error::input_without_bytes(segment_index, plan.segments.size(), name);
    inputs.push_back(&it->second.bytes());
  }
  return std::nullopt;
}

std::optional<ir::Diagnostic> refresh_named_outputs_with(const SplitPlan& plan, std::size_t segment_index,
                                                         std::vector<Bytes>& outputs, LiveMap& live,
                                                         const RefreshEntry& refresh_entry) {
  const PlannedSegment& segment = plan.segments[segment_index];
  if (outputs.size() != segment.output_names.size())
    return split_error::output_count(segment_index, plan.segments.size(), outputs.size(),
                                     segment.output_names.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = segment.output_names[i];
    auto it = live.find(name);
    if (it == live.end()) it = live.emplace(name, LiveBuffer::owned({})).first;
    refresh_entry(it->second, outputs[i]);
  }
  for (Bytes& output : outputs) output.clear();
  return std::nullopt;
}

std::optional<ir::Diagnostic> refresh_named_outputs(const SplitPlan& plan, std::size_t segment_index,
                                                    std::vector<Bytes>& outputs, LiveMap& live) {
  return refresh_named_outputs_with(plan, segment_index, outputs, live,
                                    [](LiveBuffer& entry, Bytes& produced) { entry.refresh_from_output(produced); });
}

bool FingerprintConvergence::converged(const LiveMap& live) {
  const std::uint64_t fingerprint = owned_accumulator_fingerprint(live);
  if (previous_ == fingerprint) return true;
  previous_ = fingerprint;
  return false;
}

void replace_output_buffers_preserving_slots(std::vector<Bytes>& final_outputs, std::vector<Bytes>& outputs) {
  outputs.resize(final_outputs.size());
  for (std::size_t i = 0; i < final_outputs.size(); ++i)
    outputs[i].assign(final_outputs[i].begin(), final_outputs[i].end());
}

std::optional<ir::Diagnostic> collect_final_named_outputs(std::span<const std::string> final_names, LiveMap& live,
                                                          std::vector<Bytes>& outputs) {
  std::vector<Bytes> final_outputs;
  final_outputs.reserve(final_names.size());
  for (const std::string& name : final_names) {
    auto it = live.find(name);
    if (it == live.end()) return split_error::final_output_missing(name);
    if (it->second.is_owned())
      final_outputs.push_back(std::move(it->second.owned_bytes()));
    else
      final_outputs.push_back(it->second.bytes());
    live.erase(it);
  }
  replace_output_buffers_preserving_slots(final_outputs, outputs);
  return std::nullopt;
}

void legacy_refresh_readwrite_inputs(const ir::Program& segment, std::vector<Bytes>& outputs,
                                     std::span<LiveBuffer> inputs) {
  std::size_t input_idx = 0;
  std::size_t output_idx = 0;
  for (const ir::BufferDecl& buffer : segment.buffers()) {
    if (buffer.access == ir::BufferAccess::Workgroup) continue;
    const bool is_readwrite = buffer.access == ir::BufferAccess::ReadWrite;
    if (is_readwrite && !buffer.is_output && input_idx < inputs.size() && output_idx < outputs.size())
      inputs[input_idx].refresh_from_output(outputs[output_idx]);
    if (!buffer.is_output) ++input_idx;
    if (is_readwrite) ++output_idx;
  }
  for (Bytes& output : outputs) output.clear();
}

}  // namespace gridcheck::planner
