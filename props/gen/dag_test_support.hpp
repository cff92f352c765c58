#pragma once
// Hand-built wave DAGs for the DAG tests (test-only header).

#include <array>
#include <string>
#include <vector>

#include "ir/builder.hpp"
#include "props/gen/dag_case.hpp"
#include "props/gen/dag_generator.hpp"

namespace gridcheck::props::testing {

/// How wave 1 reads wave 0's buffer in two_wave_dag.
enum class Read { OtherInvocation, OwnSlot };

/// Two waves over 2 workgroups of 2 invocations (N = 4) and the edge 0>1:
///   wave.0: w0[gid] = in0[gid] * 3 + 1
///   wave.1: w1[gid] = w0[(gid + 1) % 4] + 100   (or w0[gid] + 100 with Read::OwnSlot)
/// `racy_producer`: wave.0 writes w0[0] from every invocation instead (a race on its own).
inline WaveDag two_wave_dag(Read read = Read::OtherInvocation, bool racy_producer = false) {
  ir::Builder b({2, 1, 1});
  const ir::Buf in = b.read("in0", 0, ir::ScalarType::U32, 4);
  const ir::Buf w0 = b.output("w0", 1, ir::ScalarType::U32, 4);
  const ir::Buf w1 = b.output("w1", 2, ir::ScalarType::U32, 4);
  const ir::E producer_index = racy_producer ? b.u32(0) : b.gid(0);
  const ir::S wave0 = b.region("wave.0", {b.store(w0, producer_index, b.load(in, b.gid(0)) * b.u32(3) + b.u32(1))});
  const ir::E consumer_index =
      read == Read::OwnSlot ? b.gid(0) : b.bin(ir::BinOp::Mod, b.gid(0) + b.u32(1), b.u32(4));
  const ir::S wave1 = b.region("wave.1", {b.store(w1, b.gid(0), b.load(w0, consumer_index) + b.u32(100))});
  WaveDag dag;
  dag.base->program = b.raw({b.region(ir::kRootRegionGenerator, {wave0, b.grid_sync(), wave1})});
  dag.base->grid = std::array<std::uint32_t, 3>{2, 1, 1};
  ir::InputData input;
  input.buffer = "in0";
  input.values = {5, 6, 7, 8};
  dag.base->inputs.push_back(input);
  dag.waves = {wave0.id, wave1.id};
  dag.edges = {{0, 1}};
  dag.shape = "deep";
  return dag;
}

inline planner::BarrierPlan plan_of(std::vector<std::vector<std::size_t>> groups, std::size_t barriers) {
  planner::BarrierPlan p;
  for (auto& g : groups) p.groups.push_back({std::move(g)});
  p.global_barriers = barriers;
  return p;
}

}  // namespace gridcheck::props::testing
