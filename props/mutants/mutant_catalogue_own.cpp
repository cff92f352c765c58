// The catalogue's second family: our own faults of the split, the tables and the dispatch
// (dropped read-write passthrough, first writer off by one, stale refresh, skipped let
// propagation, wrong input order, ...).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "planner/live_buffers.hpp"
#include "props/mutants/catalogue_builders.hpp"

namespace gridcheck::props::catalogue_builders {

using planner::Disposition;
using planner::Profile;
using planner::RoleDecision;
using planner::RoleFacts;

void add_own_mutants(std::vector<Mutant>& all) {
  const MutantAppender add(all);
  using K = MutantKind;
  using B = MutantBase;

  // -------------------------------------------------------------------------------- our own
  add("drop-rw-passthrough",
      "a buffer the segment does not reference is omitted even where the base keeps it as a read_write passthrough",
      "ours", K::RoleRule, B::SoundOrVyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if (!f.reads && !f.writes && d.disposition == Disposition::Rewrite) {
            RoleDecision omit;
            omit.reason = "passthrough dropped";
            return omit;
          }
          return d;
        });
      });
  add("read-write-as-read", "a segment that reads and writes a buffer declares it read (its stores have nowhere to go)",
      "ours", K::RoleRule, B::SoundOrVyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if (f.reads && f.writes && is_rewrite_to(d, ir::BufferAccess::ReadWrite))
            return rewrite(ir::BufferAccess::ReadOnly, "read-write as read");
          return d;
        });
      });
  add("workgroup-omitted", "workgroup memory is omitted from the segments instead of kept unchanged", "ours",
      K::RoleRule, B::SoundOrVyre, [](const Profile& base) {
        return wrap_role(base, [](const RoleFacts& f, RoleDecision d) {
          if (f.access == ir::BufferAccess::Workgroup) {
            RoleDecision omit;
            omit.reason = "workgroup omitted";
            return omit;
          }
          return d;
        });
      });
  add("first-writer-off-by-one",
      "the first-writer map is one segment late (the first writing segment sees `later`, the second `this`)", "ours",
      K::Table, B::Vyre, [](const Profile& base) {
        Profile p = base;
        p.table.first_writer = [inner = base.table.first_writer](std::span<const planner::BufferAccessSet> scans) {
          planner::FirstWriterMap first = inner(scans);
          for (auto& [name, k] : first) ++k;
          return first;
        };
        return p;
      });
  add("swap-output-names",
      "the executor's output slots are zipped with the output names in reverse order (buffers swap live values)",
      "ours", K::Table, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.table.output_names = [inner = base.table.output_names](const ir::Program& program) {
          std::vector<std::string> names = inner(program);
          std::reverse(names.begin(), names.end());
          return names;
        };
        return p;
      });
  add("wrong-input-order", "a segment's inputs are gathered in reverse order", "ours", K::Dispatch, B::SoundOrVyre,
      [](const Profile& base) {
        Profile p = base;
        p.dispatch.gather_inputs = [inner = base.dispatch.gather_inputs](const planner::SplitPlan& plan, std::size_t k,
                                                                         const planner::LiveMap& live,
                                                                         std::vector<const planner::Bytes*>& inputs) {
          auto error = inner(plan, k, live, inputs);
          std::reverse(inputs.begin(), inputs.end());
          return error;
        };
        return p;
      });
  add("refresh-keeps-stale",
      "the refresh copies instead of swapping, in the wrong direction: an owned live entry keeps its stale bytes "
      "(only a borrowed entry's first refresh lands)",
      "ours", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.refresh = [](const planner::SplitPlan& plan, std::size_t k, std::vector<planner::Bytes>& outputs,
                                planner::LiveMap& live) {
          return planner::refresh_named_outputs_with(plan, k, outputs, live,
                                                     [](planner::LiveBuffer& entry, planner::Bytes& produced) {
                                                       if (!entry.is_owned()) {
                                                         entry.refresh_from_output(produced);
                                                         return;
                                                       }
                                                       produced = entry.bytes();  // the stale alias wins
                                                     });
        };
        return p;
      });
  add("skip-let-propagation", "lets used after a fence are not propagated into the later segments", "ours", K::Split,
      B::Vyre, [](const Profile& base) {
        Profile p = base;
        p.split.propagate_lets = [](const ir::Program&, std::span<const ir::StmtId>, std::vector<planner::SegmentNodes>&,
                                    const planner::NameOrder&) {};
        return p;
      });
  add("no-hoist", "fences inside blocks and regions are not hoisted, so such a segment still holds its fence",
      "ours", K::Split, B::Vyre, [](const Profile& base) {
        Profile p = base;
        p.split.hoist = [](ir::Program&, std::span<const ir::StmtId> sequence) {
          return std::vector<ir::StmtId>(sequence.begin(), sequence.end());
        };
        return p;
      });
  add("drop-last-segment", "the cut loses the segment after the last fence", "ours", K::Split, B::SoundOrVyre,
      [](const Profile& base) {
        Profile p = base;
        p.split.cut = [inner = base.split.cut](const ir::Program& work, std::span<const ir::StmtId> hoisted) {
          std::vector<planner::SegmentNodes> segments = inner(work, hoisted);
          if (segments.size() > 1) segments.pop_back();
          return segments;
        };
        return p;
      });
  add("segment-grid-inferred",
      "segments ignore the caller's explicit grid and infer their own from their rewritten tables (G1 everywhere)",
      "ours (docs/vyre-0.7.2.md#g1)", K::Dispatch, B::SoundOrVyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.segment_launch = [inner = base.dispatch.segment_launch](
                                        const planner::RunConfig& config, const ir::Program& source,
                                        const planner::PlannedSegment& segment, std::uint32_t fixpoint) {
          planner::LaunchConfig launch = inner(config, source, segment, fixpoint);
          launch.grid_override.reset();
          return launch;
        };
        return p;
      });
  add("launch-guard-off",
      "the S012 guard is gone: a segment that still holds a fence is launched (spec G5: the backend would split it "
      "again)",
      "ours (docs/vyre-0.7.2.md#g5)", K::Dispatch, B::Vyre, [](const Profile& base) {
        Profile p = base;
        p.dispatch.launch_guard = [](const planner::SplitPlan&, std::size_t) { return std::optional<ir::Diagnostic>{}; };
        return p;
      });
}

}  // namespace gridcheck::props::catalogue_builders
