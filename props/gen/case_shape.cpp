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
  s.invocations = s.wg * s.groups;
  const bool needs_fence = s.on(Feature::LocalsAcrossFence) || s.on(Feature::WorkgroupAcrossFence) ||
                           s.on(Feature::ReturnBeforeFence) || s.on(Feature::WriteOnlyMultiSegment) ||
                           s.on(Feature::RwWrittenUnread);
  s.segments = s.on(Feature::SeveralFences) ? s.c.between(2, std::max(2u, s.config.max_segments)) : 1;
  if (needs_fence) s.segments = std::max(s.segments, 2u);
  s.fixpoint = s.on(Feature::Fixpoint) || s.on(Feature::FixpointPartialOutputs) ? s.c.between(2, 3) : 1;
  s.b.program().set_workgroup_size({s.wg, 1, 1});
}

}  // namespace gridcheck::props::casegen
