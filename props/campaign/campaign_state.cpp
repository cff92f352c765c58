#include "props/campaign/campaign_state.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "ir/text/case_file.hpp"
#include "props/gen/features.hpp"

namespace gridcheck::props {
namespace fs = std::filesystem;

std::string campaign_configuration(const CampaignOptions& o) {
  nlohmann::json j;  // nlohmann's object keeps keys sorted: the text is canonical
  j["seed"] = std::to_string(o.seed);
  j["shard"] = fmt::format("{}/{}", o.shard_index, o.shard_count);
  j["target"] = o.target.name;
  j["features"] = describe(o.generator.allowed);
  j["forced"] = describe(o.generator.forced);
  j["max_divergence_features"] = o.generator.max_divergence_features;
  if (o.inputs_per_program > 1) j["inputs_per_program"] = o.inputs_per_program;  // absent: states before it resume
  j["limits"] = fmt::format("segments {} ops {} nesting {} depth {} workgroups {} size {}", o.generator.max_segments,
                            o.generator.max_ops_per_segment, o.generator.max_nesting, o.generator.max_expr_depth,
                            o.generator.max_workgroups, o.generator.max_workgroup_size);
  std::vector<std::string> profiles;
  for (const planner::Profile* p : o.oracle.profiles) profiles.push_back(p->name);
  j["profiles"] = profiles;
  std::vector<std::string> backends;
  if (o.oracle.cpu) backends.push_back("cpu");
  if (o.oracle.gpu) backends.push_back(o.oracle.gpu_resident ? o.oracle.gpu_name + "+resident" : o.oracle.gpu_name);
  j["backends"] = backends;
  j["fuel"] = std::to_string(o.oracle.limits.fuel);
  j["races"] = o.oracle.detect_races;
  j["schedules"] = o.oracle.check_schedules;
  return j.dump();
}

std::string campaign_state_path(const std::string& out_dir, std::uint32_t shard_index, std::uint32_t shard_count) {
  return (fs::path(out_dir) / fmt::format(".campaign-state.{}of{}.json", shard_index, shard_count)).string();
}

std::optional<CampaignState> read_campaign_state(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  auto text = [&](const char* key) -> std::optional<std::string> {
    if (!j.contains(key) || !j[key].is_string()) return std::nullopt;
    return j[key].get<std::string>();
  };
  auto number = [&](const char* key) -> std::optional<std::uint64_t> {
    if (!j.contains(key) || !j[key].is_number_unsigned()) return std::nullopt;
    return j[key].get<std::uint64_t>();
  };
  const auto configuration = j.is_object() ? text("configuration") : std::nullopt;
  const auto seed = j.is_object() ? text("seed") : std::nullopt;
  const auto next = j.is_object() ? number("next_index") : std::nullopt;
  const auto cases = j.is_object() ? number("cases") : std::nullopt;
  if (!configuration || !seed || !next || !cases) {
    error = fmt::format("{}: not a campaign state of this gridcheck version (remove it to start afresh)", path);
    return std::nullopt;
  }
  CampaignState s;
  s.configuration = *configuration;
  s.seed = std::strtoull(seed->c_str(), nullptr, 10);
  s.next_index = *next;
  s.cases = *cases;
  if (j.contains("elapsed_seconds") && j["elapsed_seconds"].is_number()) s.elapsed_seconds = j["elapsed_seconds"].get<double>();
  if (j.contains("verdicts") && j["verdicts"].is_object())
    for (const auto& [k, v] : j["verdicts"].items())
      if (v.is_number_unsigned()) s.verdicts[k] = v.get<std::uint64_t>();
  if (j.contains("signatures") && j["signatures"].is_array())
    for (const auto& sig : j["signatures"])
      if (sig.is_string()) s.signatures.insert(sig.get<std::string>());
  return s;
}

bool write_campaign_state(const std::string& path, const CampaignState& s) {
  nlohmann::json j;
  j["configuration"] = s.configuration;
  j["seed"] = std::to_string(s.seed);  // a string: 64-bit seeds survive JSON readers that use doubles
  j["next_index"] = s.next_index;
  j["cases"] = s.cases;
  j["elapsed_seconds"] = s.elapsed_seconds;
  j["verdicts"] = s.verdicts;
  j["signatures"] = std::vector<std::string>(s.signatures.begin(), s.signatures.end());
  return ir::write_file_atomically(path, j.dump(2) + "\n");
}

DirectoryLock::DirectoryLock(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    error_ = fmt::format("{}: cannot create the campaign lock: {}", path, std::strerror(errno));
    return;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    error_ = errno == EWOULDBLOCK
                 ? fmt::format("{}: another campaign is running on this output directory and shard", path)
                 : fmt::format("{}: cannot lock: {}", path, std::strerror(errno));
    ::close(fd);
    return;
  }
  fd_ = fd;
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace gridcheck::props
