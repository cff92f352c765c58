#pragma once
// The resume state of a campaign on an output directory (docs/DESIGN.md §5 "campaigns"): which
// configuration ran there, how far it got and which failures it already saved, one file per shard
// so shards can share a directory, and a lock that keeps a second campaign off the same shard.
//
//   <out>/.campaign-state.<I>of<N>.json   {"configuration": {...}, "seed", "next_index", "cases",
//                                          "elapsed_seconds", "verdicts", "signatures"}
//   <out>/.campaign-lock.<I>of<N>         flock(2)-ed for the whole run
//
// The configuration is everything that decides which cases run and how they are judged: the
// seed, the shard, the target, the generator's features and limits, the profiles and the backends.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "props/campaign/campaign.hpp"

namespace gridcheck::props {

/// The configuration of `options` as canonical JSON text (sorted keys), the resume key.
std::string campaign_configuration(const CampaignOptions& options);

/// The state file of shard `shard_index` of `shard_count` in `out_dir`.
std::string campaign_state_path(const std::string& out_dir, std::uint32_t shard_index, std::uint32_t shard_count);

struct CampaignState {
  std::string configuration;  ///< campaign_configuration of the campaign that wrote it
  std::uint64_t seed = 0;
  std::uint64_t next_index = 0;  ///< shard-local: every case below it finished
  std::uint64_t cases = 0;
  double elapsed_seconds = 0;
  std::map<std::string, std::uint64_t> verdicts;
  std::set<std::string> signatures;
};

/// The state at `path`: nullopt when there is none; an error text when it cannot be read.
std::optional<CampaignState> read_campaign_state(const std::string& path, std::string& error);
/// Writes it atomically; false when it cannot be written.
bool write_campaign_state(const std::string& path, const CampaignState& state);

/// An exclusive, non-blocking flock on a file; released when destroyed (or when the process dies).
class DirectoryLock {
 public:
  /// Locks `path` (created if missing); held() is false, with `error` set, when another process holds
  /// it or it cannot be created.
  explicit DirectoryLock(const std::string& path);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  bool held() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }

 private:
  int fd_ = -1;
  std::string error_;
};

}  // namespace gridcheck::props
