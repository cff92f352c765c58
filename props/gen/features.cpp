#include "props/gen/features.hpp"

#include <array>

namespace gridcheck::props {
namespace {

constexpr std::array<std::string_view, kFeatureCount> kNames = {
    "several_fences",    "several_workgroups",       "read_write_buffers",   "multi_segment_outputs",
    "partial_writes",    "write_only_buffers",       "uniform_buffers",      "workgroup_memory",
    "locals",            "atomics",                  "uniform_control_flow", "invocation_control_flow",
    "returns",           "fixpoint",                 "scalar_types",         "rw_written_unread",
    "fixpoint_partial_outputs", "runtime_sized_rw",  "unreferenced_output",  "workgroup_across_fence",
    "locals_across_fence", "grid_auto",              "return_before_fence",  "output_byte_range",
    "fence_under_control_flow", "write_only_multi_segment", "multi_dim_grid", "workgroup_tail",
    "loop_start",        "fenced_else",              "long_fixpoint",
};

}  // namespace

std::string_view name_of(Feature f) { return kNames[static_cast<int>(f)]; }

std::optional<Feature> feature_from_name(std::string_view name) {
  for (int i = 0; i < kFeatureCount; ++i)
    if (kNames[i] == name) return static_cast<Feature>(i);
  return std::nullopt;
}

std::string describe(FeatureMask m) {
  std::string out;
  for (int i = 0; i < kFeatureCount; ++i) {
    if (!has(m, static_cast<Feature>(i))) continue;
    if (!out.empty()) out += ',';
    out += kNames[i];
  }
  return out.empty() ? "none" : out;
}

std::optional<FeatureMask> parse_feature_list(std::string_view text) {
  FeatureMask mask = 0;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    const bool remove = item.starts_with('-');
    if (remove) item.remove_prefix(1);
    FeatureMask named = 0;
    if (item == "all") {
      named = kAllFeatures;
    } else if (item == "benign") {
      named = kBenignFeatures;
    } else if (item == "divergence") {
      named = kDivergenceFeatures;
    } else if (const auto f = feature_from_name(item)) {
      named = bit(*f);
    } else {
      return std::nullopt;
    }
    mask = remove ? mask & ~named : mask | named;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return mask;
}

}  // namespace gridcheck::props
