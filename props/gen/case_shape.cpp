#include "props/gen/case_shape.hpp"

#include <algorithm>
#include <bit>
#include <vector>

namespace gridcheck::props::casegen {

void draw_features(GeneratorState& s) {
  std::vector<Feature> divergence;
  for (int i = 0; i < kFeatureCount; ++i) {
    const Feature f = static_cast<Feature>(i);
    if (!has(s.config.allowed, f)) continue;
    if (has(s.config.forced, f)) {
      s.features |= bit(f);
    } else if (has(kDivergenceFeatures, f) && s.config.max_divergence_features != 0) {
      divergence.push_back(f);
    } else if (s.c.chance(1, 2)) {
      s.features |= bit(f);
    }
  }
  // Limited divergence features: how many (0..max), then which (distinct, uniformly).
  const std::uint32_t limit = std::min<std::uint32_t>(s.config.max_divergence_features,
                                                      static_cast<std::uint32_t>(divergence.size()));
  for (std::uint32_t k = s.c.below(limit + 1); k > 0 && !divergence.empty(); --k) {
    const std::uint32_t pick = s.c.below(static_cast<std::uint32_t>(divergence.size()));
    s.features |= bit(divergence[pick]);
    divergence.erase(divergence.begin() + pick);
  }
}

void draw_shape(GeneratorState& s) {
  const std::uint32_t max_log =
      static_cast<std::uint32_t>(std::bit_width(std::max(1u, s.config.max_workgroup_size)) - 1);
  s.wg = 1u << s.c.below(max_log + 1);
  s.groups = s.on(Feature::SeveralWorkgroups) ? s.c.between(2, std::max(2u, s.config.max_workgroups)) : 1;
  s.wg_size = {s.wg, 1, 1};
  s.grid = {s.groups, 1, 1};
  if (s.on(Feature::MultiDimGrid) && !s.on(Feature::GridAuto)) {
    // The workgroup's 2^log lanes over x, y, z (y first, then z); the grid gets y and z extents of 1
    // or 2 and x shrinks so that the workgroup count stays within max(max_workgroups, 2).
    const std::uint32_t log = static_cast<std::uint32_t>(std::bit_width(s.wg) - 1);
    const std::uint32_t ly = s.c.below(log + 1);
    const std::uint32_t lz = s.c.below(log - ly + 1);
    s.wg_size = {1u << (log - ly - lz), 1u << ly, 1u << lz};
    const std::uint32_t gy = 1 + s.c.below(2);
    const std::uint32_t gz = 1 + s.c.below(2);
    const std::uint32_t gx = std::max(1u, std::min(s.groups, std::max(2u, s.config.max_workgroups) / (gy * gz)));
    s.grid = {gx, gy, gz};
    s.groups = gx * gy * gz;
  }
  s.invocations = s.wg * s.groups;
  const bool needs_fence = s.on(Feature::LocalsAcrossFence) || s.on(Feature::WorkgroupAcrossFence) ||
                           s.on(Feature::ReturnBeforeFence) || s.on(Feature::WriteOnlyMultiSegment) ||
                           s.on(Feature::RwWrittenUnread);
  s.segments = s.on(Feature::SeveralFences) ? s.c.between(2, std::max(2u, s.config.max_segments)) : 1;
  if (needs_fence) s.segments = std::max(s.segments, 2u);
  if (s.on(Feature::LongFixpoint))
    s.fixpoint = s.c.between(4, 8);
  else
    s.fixpoint = s.on(Feature::Fixpoint) || s.on(Feature::FixpointPartialOutputs) ? s.c.between(2, 3) : 1;
  s.b.program().set_workgroup_size(s.wg_size);
}

}  // namespace gridcheck::props::casegen
