#pragma once
// Swarm features of the case generator (docs/DESIGN.md §6). Each generated case switches every allowed
// feature on or off independently. Benign features exercise the planner without entering any of
// the divergence classes of docs/vyre-0.7.2.md §10; each divergence feature makes exactly one class reachable.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gridcheck::props {

enum class Feature : std::uint8_t {
  // benign
  SeveralFences,
  SeveralWorkgroups,
  ReadWriteBuffers,
  MultiSegmentOutputs,
  PartialWrites,
  WriteOnlyBuffers,
  UniformBuffers,
  WorkgroupMemory,
  Locals,
  Atomics,
  UniformControlFlow,
  InvocationControlFlow,
  Returns,
  Fixpoint,
  ScalarTypes,
  // divergence classes of docs/vyre-0.7.2.md §10
  RwWrittenUnread,        ///< (a) A1–A3: read_write caller bytes lost to a write-only segment role
  FixpointPartialOutputs, ///< (a) A4: a first-writer output segment is write-only on every pass
  RuntimeSizedRw,         ///< (a) A5: a runtime-sized read_write buffer written but not read
  UnreferencedOutput,     ///< (b) B1: an output no segment references
  WorkgroupAcrossFence,   ///< (c) C1: workgroup memory expected to survive a fence
  LocalsAcrossFence,      ///< (d) D1/D3: locals assigned or impure, used after a fence
  GridAuto,               ///< G1: per-segment grid inference
  ReturnBeforeFence,      ///< G2: a return before a fence
  OutputByteRange,        ///< G3: output_byte_range on a split buffer
  FenceUnderControlFlow,  ///< G5: a fence under a grid-uniform if/loop
  WriteOnlyMultiSegment,  ///< F1: a plain write_only buffer written in two segments
  // benign (issue 17): shapes the planner handles that the features above never make
  MultiDimGrid,    ///< 2-D / 3-D workgroups and grids, own slots linearised over x, y, z
  WorkgroupTail,   ///< workgroup memory whose count is not slots · wg: own-slot loops with a tail
  LoopStart,       ///< counted loops (fenced ones too) from a start ≠ 0, the loop variable read in the body
  FencedElse,      ///< uniform ifs with else; with FenceUnderControlFlow, a fenced if with else and unequal fences
  LongFixpoint,    ///< fixpoint 4..8 with state that changes on ≥ 3 passes (the split needs ≥ 4 passes)
};
inline constexpr int kFeatureCount = 31;

using FeatureMask = std::uint64_t;
constexpr FeatureMask bit(Feature f) { return FeatureMask{1} << static_cast<int>(f); }
constexpr bool has(FeatureMask m, Feature f) { return (m & bit(f)) != 0; }

inline constexpr FeatureMask kBenignFeatures =
    bit(Feature::SeveralFences) | bit(Feature::SeveralWorkgroups) | bit(Feature::ReadWriteBuffers) |
    bit(Feature::MultiSegmentOutputs) | bit(Feature::PartialWrites) | bit(Feature::WriteOnlyBuffers) |
    bit(Feature::UniformBuffers) | bit(Feature::WorkgroupMemory) | bit(Feature::Locals) | bit(Feature::Atomics) |
    bit(Feature::UniformControlFlow) | bit(Feature::InvocationControlFlow) | bit(Feature::Returns) |
    bit(Feature::Fixpoint) | bit(Feature::ScalarTypes) | bit(Feature::MultiDimGrid) | bit(Feature::WorkgroupTail) |
    bit(Feature::LoopStart) | bit(Feature::FencedElse) | bit(Feature::LongFixpoint);
inline constexpr FeatureMask kDivergenceFeatures =
    bit(Feature::RwWrittenUnread) | bit(Feature::FixpointPartialOutputs) | bit(Feature::RuntimeSizedRw) |
    bit(Feature::UnreferencedOutput) | bit(Feature::WorkgroupAcrossFence) | bit(Feature::LocalsAcrossFence) |
    bit(Feature::GridAuto) | bit(Feature::ReturnBeforeFence) | bit(Feature::OutputByteRange) |
    bit(Feature::FenceUnderControlFlow) | bit(Feature::WriteOnlyMultiSegment);
inline constexpr FeatureMask kAllFeatures = kBenignFeatures | kDivergenceFeatures;
static_assert((kBenignFeatures & kDivergenceFeatures) == 0, "a feature is benign or a divergence feature");
static_assert(kAllFeatures == (FeatureMask{1} << kFeatureCount) - 1, "every feature is benign or a divergence feature");
static_assert(kFeatureCount <= 64, "FeatureMask holds every feature");

std::string_view name_of(Feature f);
std::optional<Feature> feature_from_name(std::string_view name);
/// "several_fences,atomics,..." in enum order.
std::string describe(FeatureMask m);
/// Parses a comma-separated list of feature names and the sets "all", "benign", "divergence",
/// left to right; an item prefixed with `-` removes it ("all,-multi_dim_grid").
std::optional<FeatureMask> parse_feature_list(std::string_view text);

}  // namespace gridcheck::props
