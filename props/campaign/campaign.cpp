#include "props/campaign/campaign.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "ir/equality.hpp"
#include "ir/text/case_file.hpp"
#include "ir/text/printer.hpp"
#include "planner/segment_plan.hpp"
#include "props/campaign/campaign_state.hpp"
#include "props/campaign/case_choices.hpp"
#include "props/oracle/divergence_class.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"
#include "props/reduce/case_reducer.hpp"
#include "props/reduce/choice_shrinker.hpp"

namespace gridcheck::props {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kShrinksPerUnshrunkSignature = 3;

std::string verdict_key(ir::Verdict v) { return std::string(ir::name_of(v)); }

/// The worst split verdict of a report, for the progress counts.
ir::Verdict overall_verdict(const CaseReport& r) {
  // A diverging outcome first: a DAG case's R-waves diverges even when R finds the fusion racy.
  for (const OracleOutcome& s : r.outcomes)
    if (s.verdict == ir::Verdict::Diverge || s.verdict == ir::Verdict::Error) return s.verdict;
  if (r.reference_verdict == ir::Verdict::Invalid) return ir::Verdict::Invalid;
  ir::Verdict worst = ir::Verdict::Match;
  for (const OracleOutcome& s : r.outcomes)
    if (s.verdict == ir::Verdict::Refused) worst = s.verdict;
  return worst;
}

const OracleOutcome* first_failing_split(const CaseReport& r) {
  for (const OracleOutcome& s : r.outcomes)
    if (s.verdict == ir::Verdict::Diverge || s.verdict == ir::Verdict::Error) return &s;
  return nullptr;
}

/// "seed 5 there, 6 here; profiles ..." for the keys whose values differ.
std::string configuration_difference(const std::string& there, const std::string& here) {
  const nlohmann::json a = nlohmann::json::parse(there, nullptr, false), b = nlohmann::json::parse(here, nullptr, false);
  if (!a.is_object() || !b.is_object()) return "unreadable";
  std::string out;
  for (const auto& [key, value] : b.items()) {
    const nlohmann::json old = a.contains(key) ? a[key] : nlohmann::json();
    if (old == value) continue;
    out += fmt::format("{}{} {} there, {} here", out.empty() ? "" : "; ", key, old.dump(), value.dump());
  }
  return out.empty() ? "the same keys in another order" : out;
}

class Campaign {
 public:
  explicit Campaign(const CampaignOptions& options) : options_(options) {}

  CampaignResult run() {
    if (!options_.out_dir.empty() && !open_out_dir()) return std::move(result_);
    start_ = Clock::now();
    const unsigned jobs = std::max(1u, options_.jobs);  // H-gpu too: its lanes let N workers feed one device
    std::vector<std::thread> workers;
    for (unsigned j = 0; j < jobs; ++j) workers.emplace_back([this] { work(); });
    while (!done_.load()) {
      {
        // Woken at once when the last case is done, so a campaign's seconds are its workers' time.
        std::unique_lock wake_lock(wake_mutex_);
        wake_.wait_for(wake_lock, std::chrono::milliseconds(100), [this] { return done_.load(); });
      }
      if (should_stop()) done_.store(true);
      if (options_.on_progress && Clock::now() - last_progress_ >= std::chrono::seconds(1)) {
        last_progress_ = Clock::now();
        options_.on_progress(progress());
      }
      if (Clock::now() - last_save_ >= std::chrono::seconds(2)) save_state();  // little is redone after a kill -9
    }
    for (std::thread& t : workers) t.join();
    result_.progress = progress();
    result_.interrupted = options_.stop != nullptr && options_.stop->load();
    save_state();
    return std::move(result_);
  }

 private:
  double elapsed() const {
    return resumed_elapsed_ + std::chrono::duration<double>(Clock::now() - start_).count();
  }

  bool should_stop() const {
    if (options_.stop != nullptr && options_.stop->load()) return true;
    if (options_.seconds > 0 && std::chrono::duration<double>(Clock::now() - start_).count() >= options_.seconds)
      return true;
    return options_.max_cases != 0 && cases_done_.load() >= options_.max_cases;
  }

  CampaignProgress progress() {
    std::lock_guard lock(mutex_);
    CampaignProgress p;
    p.elapsed_seconds = elapsed();
    p.cases = cases_done_.load() + resumed_cases_;
    p.verdicts = verdicts_;
    p.unique_failures = result_.failures.size();
    p.next_index = next_.load();
    return p;
  }

  void work() {
    PhaseTimes phases;
    {
      const PhaseRecorder recorder(phases);
      work_cases();
    }
    std::lock_guard lock(mutex_);
    result_.phases += phases;
  }

  void work_cases() {
    // With K input sets per program a worker takes the indices up to the next multiple of K at once,
    // so the K cases of a program run one after another on the same worker (and so on the GPU
    // backend's device of that worker, which compiles the program's shaders once).
    const std::uint64_t block = options_.target.generate ? 1 : std::max<std::uint32_t>(1, options_.inputs_per_program);
    bool stopped = false;
    while (!done_.load() && !stopped) {
      std::uint64_t first = 0, count = 0;
      {
        // The budget check and the hand-out under one lock: with several workers exactly the indices
        // below the budget run, so a --max-cases campaign checks the same cases with any -j.
        std::lock_guard lock(mutex_);
        first = next_.load();
        count = block - first % block;
        if (options_.max_cases != 0) {
          const std::uint64_t end = resumed_next_ + options_.max_cases;
          count = first >= end ? 0 : std::min(count, end - first);
        }
        if (count == 0) break;
        next_.fetch_add(count);
        for (std::uint64_t k = first; k < first + count; ++k) unfinished_.insert(k);
      }
      for (std::uint64_t k = first; k < first + count; ++k) {
        if (k != first && should_stop()) {  // out of time: the rest of the block stays unfinished, for a resume
          stopped = true;
          break;
        }
        const std::uint64_t index = options_.shard_index + std::uint64_t{options_.shard_count} * k;
        run_case(index);
        if (interrupted()) {  // this case and the rest of the block stay unfinished: a resumed campaign runs them
          stopped = true;
          break;
        }
        std::lock_guard lock(mutex_);
        unfinished_.erase(k);
        ++cases_done_;
      }
    }
    {
      std::lock_guard wake_lock(wake_mutex_);
      done_.store(true);
    }
    wake_.notify_all();
  }

  bool interrupted() const { return options_.stop != nullptr && options_.stop->load(); }

  void run_case(std::uint64_t index) {
    const std::uint64_t seed = case_seed(options_.seed, index);
    ChoiceSource choices = options_.target.generate
                               ? ChoiceSource::random(seed)
                               : campaign_case_choices(options_.seed, index, options_.inputs_per_program, options_.generator);
    std::optional<PhaseScope> generating(std::in_place, Phase::Generate);
    const ir::Case c = generate(choices);
    generating.reset();
    CaseReport report;
    const std::optional<std::string> blame = failure(c, report);
    {
      std::lock_guard lock(mutex_);
      ++verdicts_[verdict_key(overall_verdict(report))];
    }
    if (!blame) return;
    const PhaseScope shrinking(Phase::Shrink, Nested::Absorb);
    handle_failure(index, seed, choices.recorded(), c, *blame, report);
  }

  // ------------------------------------------------------------- the target (CampaignTarget)

  ir::Case generate(ChoiceSource& choices) const {
    if (options_.target.generate) return options_.target.generate(choices);
    return generate_case(choices, options_.generator).test_case;
  }

  std::optional<std::string> failure(const ir::Case& c, CaseReport& report) const {
    if (options_.target.failure) return options_.target.failure(c, options_.oracle, report);
    return case_failure(c, options_.oracle, report);
  }

  std::vector<std::string> classes(const ir::Case& c) const {
    return options_.target.classes ? options_.target.classes(c) : divergence_classes(c);
  }

  std::string pattern(const ir::Case& c, const CaseReport& report) const {
    if (options_.target.pattern) return options_.target.pattern(c, report);
    const OracleOutcome* failing = first_failing_split(report);
    // An external planner's failure: its diagnostic code (S301 crash, S305 bad segment, ...).
    if (failing != nullptr && failing->detail == "planner-process" && failing->failure)
      return failing->failure->diagnostic.code;
    const std::string buffer = failing != nullptr && failing->divergence ? failing->divergence->final_diff.buffer : "";
    return buffer.empty() ? "-" : role_pattern(c, buffer);
  }

  void handle_failure(std::uint64_t index, std::uint64_t seed, const std::vector<std::uint32_t>& recorded,
                      const ir::Case& original, const std::string& blame, const CaseReport& first) {
    CampaignFailure f;
    f.case_index = index;
    f.case_seed = seed;
    f.blame = blame;
    f.found_after_seconds = elapsed();
    f.statements_before = statement_count(original.program);
    // Shrinking costs hundreds of oracle runs; a failure whose unshrunk signature (blame, classes,
    // roles of the differing buffer) was already shrunk a few times is a duplicate. (More than once:
    // an unshrunk case can hold several classes and shrink to only one of them.)
    {
      const std::string pre = fmt::format("{}/{}/{}", blame,
                                          blame == "planner-process" ? blame : join_classes(classes(original)),
                                          pattern(original, first));
      std::lock_guard lock(mutex_);
      if (++unshrunk_signatures_[pre] > kShrinksPerUnshrunkSignature) {
        ++verdicts_["duplicate"];
        return;
      }
    }
    ir::Case shrunk = original;
    if (options_.shrink) shrunk = shrink(recorded, original, blame);
    if (interrupted()) return;  // half shrunk: neither saved nor counted; a resumed campaign redoes it
    f.statements_after = statement_count(shrunk.program);
    CaseReport report;
    failure(shrunk, report);
    const OracleOutcome* failing = first_failing_split(report);
    f.message = failing != nullptr ? failing->message : report.reference_detail;
    // A planner process failure is not a split class: one finding per diagnostic code (the pattern).
    f.divergence_class = blame == "generator"         ? "invalid-" + report.reference_detail
                         : blame == "planner-process" ? std::string("planner-process")
                                                      : join_classes(classes(shrunk));
    f.role_pattern = pattern(shrunk, report);
    f.signature = fmt::format("{}/{}/{}", f.blame, f.divergence_class, f.role_pattern);
    record_expectations(shrunk, report);  // what replaying the saved case checks
    shrunk.name = fmt::format("fuzz-{}-{:08x}", f.divergence_class, static_cast<std::uint32_t>(ir::fnv1a64(
                                                                        f.signature.data(), f.signature.size())));
    shrunk.description = f.message;
    if (!options_.target.keep_meta) shrunk.meta.clear();
    shrunk.meta.emplace_back("signature", f.signature);
    shrunk.meta.emplace_back("campaign_seed", std::to_string(options_.seed));
    shrunk.meta.emplace_back("case_index", std::to_string(index));
    shrunk.meta.emplace_back("case_seed", std::to_string(seed));
    if (!options_.command.empty()) shrunk.meta.emplace_back("campaign", options_.command);
    f.shrunk = shrunk;

    std::lock_guard lock(mutex_);
    if (!signatures_.insert(f.signature).second) return;
    if (!options_.out_dir.empty()) {
      // Shards may share a directory: each names its findings apart.
      const std::string file_name =
          options_.shard_count > 1 ? fmt::format("{}-shard{}", shrunk.name, options_.shard_index) : shrunk.name;
      const fs::path path = fs::path(options_.out_dir) / (file_name + ".gc");
      f.shrunk.header_comments = {
          fmt::format("found by gridcheck fuzz after {:.1f} s (campaign seed {}, case {}); shrunk from {} to {} "
                      "statements",
                      f.found_after_seconds, options_.seed, index, f.statements_before, f.statements_after),
          fmt::format("replay: gridcheck replay {}", path.string()),
      };
      f.shrunk.meta.emplace_back("replay", fmt::format("gridcheck replay {}", path.string()));
      if (ir::write_file_atomically(path.string(), ir::print(f.shrunk))) f.file = path.string();
      const fs::path unshrunk = fs::path(options_.out_dir) / "unshrunk" / (file_name + ".gc");
      std::error_code ec;
      fs::create_directories(unshrunk.parent_path(), ec);
      ir::Case original_case = original;
      record_expectations(original_case, first);
      original_case.header_comments = {fmt::format("unshrunk original of {}", path.filename().string())};
      ir::write_file_atomically(unshrunk.string(), ir::print(original_case));
    }
    result_.failures.push_back(f);
    if (options_.on_failure) options_.on_failure(result_.failures.back());
    save_state_locked();
  }

  /// Shrinks while the failure keeps its blame and gains no divergence class the original did not
  /// have (otherwise shrinking drifts to an easier failure, e.g. deleting an output's only store
  /// turns any failure into B1).
  ir::Case shrink(const std::vector<std::uint32_t>& recorded, const ir::Case& original, const std::string& blame) {
    const std::vector<std::string> original_classes = classes(original);
    auto keeps_failure = [&](const ir::Case& candidate) {
      if (options_.stop != nullptr && options_.stop->load()) return false;
      const std::vector<std::string> now = classes(candidate);
      if (!std::includes(original_classes.begin(), original_classes.end(), now.begin(), now.end())) return false;
      if (!original_classes.empty() && now.empty()) return false;
      CaseReport report;
      return failure(candidate, report) == blame;
    };
    // 1. The choice sequence: every candidate is valid by construction.
    ChoiceShrinkOptions choice_options;
    choice_options.max_attempts = options_.shrink_attempts / 2;
    choice_options.stop = options_.stop;
    const std::vector<std::uint32_t> best = shrink_choices(
        recorded,
        [&](const std::vector<std::uint32_t>& candidate) {
          ChoiceSource replay = ChoiceSource::replay(candidate);
          return keeps_failure(generate(replay));
        },
        choice_options);
    ChoiceSource replay = ChoiceSource::replay(best);
    ir::Case c = generate(replay);
    if (!keeps_failure(c)) c = original;
    if (!options_.target.reduce_ir) return c;
    // 2. The IR: the oracle rejects invalid or racy candidates (they fail as "generator", not `blame`).
    ReduceOptions reduce_options;
    reduce_options.max_attempts = options_.shrink_attempts / 2;
    return reduce_case(c, keeps_failure, reduce_options);
  }

  // ------------------------------------------------------------------------------ resume state

  std::string state_path() const {
    return campaign_state_path(options_.out_dir, options_.shard_index, options_.shard_count);
  }

  // Creates and locks the output directory and resumes its state; false (result_.setup_error set)
  // when it cannot be written, another campaign holds it, or it holds another configuration.
  bool open_out_dir() {
    std::error_code ec;
    fs::create_directories(options_.out_dir, ec);
    if (ec || !fs::is_directory(options_.out_dir)) {
      result_.setup_error = fmt::format("{}: cannot create the output directory: {}", options_.out_dir,
                                        ec ? ec.message() : "not a directory");
      return false;
    }
    lock_.emplace((fs::path(options_.out_dir) /
                   fmt::format(".campaign-lock.{}of{}", options_.shard_index, options_.shard_count))
                      .string());
    if (!lock_->held()) {
      result_.setup_error = lock_->error();
      return false;
    }
    configuration_ = campaign_configuration(options_);
    std::string error;
    const std::optional<CampaignState> state = read_campaign_state(state_path(), error);
    if (!error.empty()) {
      result_.setup_error = error;
      return false;
    }
    if (state && state->configuration != configuration_) {
      result_.setup_error = fmt::format(
          "{} holds a campaign of another configuration ({}): use another output directory, or delete the state "
          "file to start afresh there",
          state_path(), configuration_difference(state->configuration, configuration_));
      return false;
    }
    if (state) {
      resumed_next_ = state->next_index;
      next_.store(resumed_next_);
      resumed_cases_ = state->cases;
      resumed_elapsed_ = state->elapsed_seconds;
      verdicts_ = state->verdicts;
      signatures_ = state->signatures;
      result_.resumed = true;
    }
    std::lock_guard lock(mutex_);
    if (!save_state_locked()) {
      result_.setup_error = result_.state_error;
      return false;
    }
    return true;
  }

  void save_state() {
    std::lock_guard lock(mutex_);
    save_state_locked();
  }

  bool save_state_locked() {
    last_save_ = Clock::now();
    if (options_.out_dir.empty()) return true;
    CampaignState state;
    state.configuration = configuration_;
    state.seed = options_.seed;
    state.next_index = unfinished_.empty() ? next_.load() : *unfinished_.begin();
    state.cases = cases_done_.load() + resumed_cases_;
    state.elapsed_seconds = elapsed();
    state.verdicts = verdicts_;
    state.signatures = signatures_;
    if (write_campaign_state(state_path(), state)) return true;
    result_.state_error = fmt::format("{}: cannot write the campaign state", state_path());
    return false;
  }

  const CampaignOptions& options_;
  CampaignResult result_;
  std::mutex mutex_;
  std::atomic<std::uint64_t> next_{0};
  std::atomic<std::uint64_t> cases_done_{0};
  std::atomic<bool> done_{false};
  std::mutex wake_mutex_;            ///< with wake_: the supervising loop sleeps until done_ or 100 ms
  std::condition_variable wake_;
  std::map<std::string, std::uint64_t> verdicts_;
  std::set<std::string> signatures_;
  std::map<std::string, std::uint32_t> unshrunk_signatures_;  ///< pre-shrink signature -> failures seen
  std::set<std::uint64_t> unfinished_;  ///< shard-local indices handed out and not finished
  std::uint64_t resumed_next_ = 0, resumed_cases_ = 0;
  double resumed_elapsed_ = 0;
  std::string configuration_;
  std::optional<DirectoryLock> lock_;
  Clock::time_point start_;
  Clock::time_point last_progress_ = Clock::now();
  Clock::time_point last_save_ = Clock::now();
};

}  // namespace

std::uint64_t case_seed(std::uint64_t campaign_seed, std::uint64_t index) {
  std::uint64_t z = campaign_seed ^ (index * 0x9e3779b97f4a7c15ull) ^ 0x5851f42d4c957f2dull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::optional<std::string> case_failure(const ir::Case& c, const OracleOptions& options, CaseReport& report) {
  OracleOptions quick = options;
  quick.locate_first_divergence = false;
  report = evaluate_case(c, quick);
  if (report.reference_verdict == ir::Verdict::Invalid) return std::string("generator");
  if (const OracleOutcome* s = first_failing_split(report)) {
    // An external planner process failing (detail planner-process) is a finding of its own.
    std::string blame = s->verdict != ir::Verdict::Error ? s->detail
                        : s->detail == "planner-process" ? std::string("planner-process")
                                                         : std::string("backend");
    if (options.locate_first_divergence) report = evaluate_case(c, options);
    return blame;
  }
  return std::nullopt;
}

std::string role_pattern(const ir::Case& c, const std::string& name) {
  const ir::BufferDecl* decl = c.program.find_buffer(name);
  if (decl == nullptr) return name;
  std::string pattern = fmt::format("{}{}", ir::name_of(decl->access), decl->is_output ? "+output" : "");
  auto plan = planner::plan_split(planner::vyre_0_7_2(), c.program);
  if (!plan.ok()) return pattern;
  const auto index = c.program.buffer_index(decl->name);
  std::string roles;
  for (const planner::PlannedSegment& seg : plan->segments) {
    const planner::RoleDecision& d = seg.roles[*index].decision;
    roles += roles.empty() ? "" : ",";
    roles += d.disposition == planner::Disposition::Omit ? std::string("-")
             : d.disposition == planner::Disposition::KeepUnchanged
                 ? std::string("keep")
                 : std::string(ir::name_of(d.access));
  }
  return fmt::format("{}->{}", pattern, roles);
}

CampaignResult run_campaign(const CampaignOptions& options) { return Campaign(options).run(); }

}  // namespace gridcheck::props
