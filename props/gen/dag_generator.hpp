#pragma once
// Random wave DAGs for the megakernel barrier planner (docs/DESIGN.md §6, docs/vyre-0.7.2.md §7.1), drawn from a
// ChoiceSource: seeded, replayable, and shrinkable by shrinking the recorded choices.
//
// A WaveDag is a set of waves over shared buffers plus the dependency edges the planner gets:
// - wave K is one `region "wave.K"` that reads the caller inputs and the buffers of the waves it
//   depends on (at any index, so a consumer reads what other invocations of its producer wrote)
//   and writes only its own output buffer `wK` (at the invocation's own slots), plus optional
//   atomics of one commutative operator per DAG (result unused) on a shared counter `acc`, and a
//   workgroup-memory exchange on its own `shK` between two workgroup barriers;
// - every read of another wave's buffer is a data edge producer -> consumer; the generator adds
//   ordering-only edges (no data) and sometimes repeats an edge (the planner allows duplicates);
// - shapes: random, deep (chains), wide (one wide layer, optional source and sink) and diamond
//   (stacked diamonds); wave ids are a permutation of the topological positions and the edge
//   list is shuffled, so neither follows index order.
// Invariants, for EVERY choice sequence (so shrinking keeps them): edges go from an earlier to a
// later topological position (the DAG is acyclic), each wave alone is valid and race-free, and
// any schedule that runs every wave after the waves it depends on computes the same bytes. Two
// waves without a path between them touch disjoint plain elements, so they may share a phase;
// a wave and its producer may not (a cross-invocation read in the same phase is a race, a read
// before the producer ran sees stale bytes), which is what a wrong plan turns into.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/case.hpp"
#include "planner/megakernel_barrier.hpp"
#include "props/gen/choice_source.hpp"

namespace gridcheck::props {

struct DagConfig {
  std::uint32_t max_waves = 8;           ///< at least 1
  std::uint32_t max_ops_per_wave = 3;    ///< extra operations besides the dependency reads
  std::uint32_t max_reads_per_wave = 3;  ///< data predecessors a wave reads (further ones become ordering edges)
  std::uint32_t max_workgroups = 4;
  std::uint32_t max_workgroup_size = 8;  ///< a power of two
  std::uint32_t max_expr_depth = 2;
  /// Plan each DAG with a scratch that already planned other inputs (generate_scratch_history),
  /// so state a megakernel rule leaves in a reused planner::BarrierScratch reaches the plan; off:
  /// a fresh scratch per plan (the DAG's choices come first either way).
  bool reuse_scratch = true;
};

enum class DagShape : std::uint8_t { Random, Deep, Wide, Diamond };
std::string_view name_of(DagShape shape);

/// "0>2 1>2" (planner input order) and back; nullopt on malformed text.
std::string format_edges(const std::vector<planner::WaveDependency>& edges);
std::optional<std::vector<planner::WaveDependency>> parse_edges(std::string_view text);

/// One input of the megakernel planner: all a plan sees of a DAG.
struct PlannerInput {
  std::size_t wave_count = 0;
  std::vector<planner::WaveDependency> edges;
  friend bool operator==(const PlannerInput&, const PlannerInput&) = default;
};

/// WaveDag::base: a case the DAG owns (generate_dag, read_dag of an rvalue) or borrows from its
/// caller (read_dag of an lvalue, which must then outlive the DAG and its copies). Reading goes
/// through `->` and `*`; non-const access to a borrowed case first copies it into the DAG (copy on
/// write), so the caller's case is never changed.
class DagBase {
 public:
  DagBase() = default;
  explicit DagBase(ir::Case owned) : owned_(std::move(owned)) {}
  static DagBase borrowing(const ir::Case& c) {
    DagBase b;
    b.borrowed_ = &c;
    return b;
  }
  bool borrowed() const { return borrowed_ != nullptr; }
  const ir::Case& operator*() const { return borrowed_ != nullptr ? *borrowed_ : owned_; }
  const ir::Case* operator->() const { return &**this; }
  ir::Case& operator*() {
    if (borrowed_ != nullptr) {
      owned_ = *borrowed_;
      borrowed_ = nullptr;
    }
    return owned_;
  }
  ir::Case* operator->() { return &**this; }

 private:
  ir::Case owned_;
  const ir::Case* borrowed_ = nullptr;
};

struct WaveDag {
  /// Buffer declarations, workgroup size, grid, inputs, and the wave regions (`waves`). The entry
  /// is not used by the DAG functions: generate_dag makes it the waves one per phase in a
  /// topological order (a valid program), read_dag keeps the case's fused kernel.
  DagBase base;
  /// waves[K] = the `region "wave.K"` statement of wave K in base.program.
  std::vector<ir::StmtId> waves;
  /// The planner's input, in input order (duplicates allowed).
  std::vector<planner::WaveDependency> edges;
  /// The edges (a sub-multiset of `edges`) along which no data flows.
  std::vector<planner::WaveDependency> ordering_edges;
  std::string shape = "random";
  /// What the scratch planned before this DAG (meta `dag_scratch_history`): a rule that keeps
  /// state in a reused scratch is judged on the plan it made after these inputs.
  std::vector<PlannerInput> scratch_history;

  std::size_t wave_count() const { return waves.size(); }
};

/// A random DAG drawn from `choices`. base.name is "dag-SHAPE-HASH" (a content hash of base.program,
/// a canonical walk as costly as a copy of it); with `named` false it is left empty, for callers
/// that name the fused case instead (the DAG campaign). Every other field is the same either way.
WaveDag generate_dag(ChoiceSource& choices, const DagConfig& config = {}, bool named = true);


/// The inputs one reused scratch plans, in order, before a DAG of `wave_count` waves and
/// `edge_count` edges: 0 to 3 of them (none for an exhausted source), each with the same wave and
/// edge counts (other edges), at most as many waves and fewer edges, more of both (up to twice
/// config.max_waves waves), or one the planner refuses half way (a cycle, a self-edge or a wave
/// out of range: whatever the planner had written to the scratch stays there). Acyclic inputs
/// have duplicate edges sometimes and ids in no particular order.
std::vector<PlannerInput> generate_scratch_history(ChoiceSource& choices, const DagConfig& config,
                                                   std::size_t wave_count, std::size_t edge_count);
/// "3:0>1 1>2; 1:; 2:0>0" (wave count, then edges as format_edges) and back; nullopt on
/// malformed text.
std::string format_history(const std::vector<PlannerInput>& history);
std::optional<std::vector<PlannerInput>> parse_history(std::string_view text);

/// A topological order of the waves (Kahn, smallest ready id first; independent of the planner
/// under test), or nullopt when the edges have a cycle or name a wave outside 0..wave_count.
std::optional<std::vector<std::size_t>> topological_order(std::size_t wave_count,
                                                          const std::vector<planner::WaveDependency>& edges);

}  // namespace gridcheck::props
