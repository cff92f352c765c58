// Live buffers (docs/vyre-0.7.2.md §6.8, seed 002): refresh by copy then by swap (pointer identity), the owned
// accumulator fingerprint, gathering by name, final reassembly into the caller's slots.
#include "planner/live_buffers.hpp"

#include <gtest/gtest.h>

#include "ir/builder.hpp"

namespace gridcheck::planner {
namespace {

std::uintptr_t address(const Bytes& b) { return reinterpret_cast<std::uintptr_t>(b.data()); }

// seed 002: refresh_readwrite_inputs_swaps_owned_buffers_after_first_segment
TEST(Planner_LiveBuffers, RefreshReadwriteInputsSwapsOwnedBuffersAfterFirstSegment) {
  ir::Builder b;
  b.read_write("buf", 0, ir::ScalarType::U32, 1);
  const ir::Program segment = b.wrapped({b.ret()});
  const Bytes initial{1, 0, 0, 0};
  std::vector<LiveBuffer> inputs{LiveBuffer::borrowed(initial)};
  std::vector<Bytes> outputs(1);
  outputs[0].reserve(8);
  const std::uintptr_t output_ptr = address(outputs[0]);
  outputs[0].insert(outputs[0].end(), {2, 0, 0, 0});

  legacy_refresh_readwrite_inputs(segment, outputs, inputs);

  ASSERT_TRUE(inputs[0].is_owned()) << "ReadWrite input must become owned after refresh";
  EXPECT_EQ(inputs[0].bytes(), (Bytes{2, 0, 0, 0}));
  const std::uintptr_t first_owned_ptr = address(inputs[0].bytes());
  EXPECT_EQ(address(outputs[0]), output_ptr);
  EXPECT_TRUE(outputs[0].empty());

  outputs[0].insert(outputs[0].end(), {3, 0, 0, 0});
  const std::uintptr_t second_output_ptr = address(outputs[0]);
  legacy_refresh_readwrite_inputs(segment, outputs, inputs);

  ASSERT_TRUE(inputs[0].is_owned()) << "ReadWrite input must remain owned";
  EXPECT_EQ(inputs[0].bytes(), (Bytes{3, 0, 0, 0}));
  EXPECT_EQ(address(inputs[0].bytes()), second_output_ptr)
      << "owned ReadWrite input should take the backend output allocation instead of copying";
  EXPECT_EQ(address(outputs[0]), first_owned_ptr)
      << "backend output slot should receive the previous owned input allocation for reuse";
  EXPECT_EQ(initial, (Bytes{1, 0, 0, 0})) << "the caller's bytes are never written";
}

SplitPlan one_segment_plan(std::vector<std::string> inputs, std::vector<std::string> outputs) {
  SplitPlan plan;
  plan.segments.emplace_back();
  plan.segments[0].input_names = std::move(inputs);
  plan.segments[0].output_names = std::move(outputs);
  return plan;
}

// The same contract on the path the dispatch loop uses (refresh by name).
TEST(Planner_LiveBuffers, NamedRefreshCopiesABorrowedEntryThenSwapsTheOwnedOne) {
  const SplitPlan plan = one_segment_plan({"buf"}, {"buf"});
  const Bytes initial{1, 0, 0, 0};
  LiveMap live;
  live.emplace("buf", LiveBuffer::borrowed(initial));
  std::vector<Bytes> outputs(1);
  outputs[0].reserve(8);
  const std::uintptr_t output_ptr = address(outputs[0]);
  outputs[0].insert(outputs[0].end(), {2, 0, 0, 0});
  ASSERT_FALSE(refresh_named_outputs(plan, 0, outputs, live).has_value());
  ASSERT_TRUE(live.at("buf").is_owned());
  const std::uintptr_t first_owned_ptr = address(live.at("buf").bytes());
  EXPECT_NE(first_owned_ptr, output_ptr) << "a borrowed entry is promoted by copying";
  EXPECT_EQ(address(outputs[0]), output_ptr);
  EXPECT_TRUE(outputs[0].empty());

  outputs[0].insert(outputs[0].end(), {3, 0, 0, 0});
  ASSERT_FALSE(refresh_named_outputs(plan, 0, outputs, live).has_value());
  EXPECT_EQ(live.at("buf").bytes(), (Bytes{3, 0, 0, 0}));
  EXPECT_EQ(address(live.at("buf").bytes()), output_ptr) << "an owned entry swaps, it does not copy";
  EXPECT_EQ(address(outputs[0]), first_owned_ptr);
  EXPECT_TRUE(outputs[0].empty());
}

TEST(Planner_LiveBuffers, NamedRefreshInsertsMissingNamesAsOwned) {
  const SplitPlan plan = one_segment_plan({}, {"a", "b"});
  LiveMap live;
  std::vector<Bytes> outputs{{1, 2}, {3}};
  ASSERT_FALSE(refresh_named_outputs(plan, 0, outputs, live).has_value());
  ASSERT_EQ(live.size(), 2u);
  EXPECT_TRUE(live.at("a").is_owned());
  EXPECT_EQ(live.at("a").bytes(), (Bytes{1, 2}));
  EXPECT_EQ(live.at("b").bytes(), (Bytes{3}));
}

TEST(Planner_LiveBuffers, AWrongOutputCountIsS008) {
  const SplitPlan plan = one_segment_plan({}, {"a", "b"});
  LiveMap live;
  std::vector<Bytes> outputs{{1}};
  auto error = refresh_named_outputs(plan, 0, outputs, live);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code, "S008");
  EXPECT_EQ(error->message, "segment 0 of 1 produced 1 output slot(s) but the planned buffer map expected 2");
  EXPECT_TRUE(live.empty());
}

TEST(Planner_LiveBuffers, GatherFollowsInputNamesAndReportsAMissingName) {
  const Bytes x{1}, y{2};
  LiveMap live;
  live.emplace("x", LiveBuffer::borrowed(x));
  live.emplace("y", LiveBuffer::owned(y));
  std::vector<const Bytes*> inputs;
  ASSERT_FALSE(gather_inputs_by_name(one_segment_plan({"y", "x"}, {}), 0, live, inputs).has_value());
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(*inputs[0], y);
  EXPECT_EQ(inputs[1], &x) << "borrowed bytes are passed without a copy";
  auto error = gather_inputs_by_name(one_segment_plan({"x", "z"}, {}), 0, live, inputs);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code, "S007");
  EXPECT_NE(error->message.find("`z`"), std::string::npos);
}

// FNV-1a-64 written out independently of ir::fnv1a64.
std::uint64_t reference_hash(std::string_view name, const Bytes& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](std::uint8_t byte) {
    h ^= byte;
    h *= 0x100000001b3ull;
  };
  for (char c : name) mix(static_cast<std::uint8_t>(c));
  mix(0xFF);
  for (std::uint8_t byte : bytes) mix(byte);
  return h;
}

TEST(Planner_LiveBuffers, FingerprintXorsOwnedEntriesAndIgnoresBorrowedOnes) {
  const Bytes caller{9, 9, 9, 9};
  LiveMap live;
  live.emplace("caller", LiveBuffer::borrowed(caller));
  live.emplace("acc", LiveBuffer::owned({1, 0, 0, 0}));
  live.emplace("out", LiveBuffer::owned({2, 0, 0, 0}));
  EXPECT_EQ(live_buffer_hash("acc", {1, 0, 0, 0}), reference_hash("acc", {1, 0, 0, 0}));
  EXPECT_EQ(owned_accumulator_fingerprint(live),
            reference_hash("acc", {1, 0, 0, 0}) ^ reference_hash("out", {2, 0, 0, 0}));
  LiveMap without_borrowed;
  without_borrowed.emplace("acc", LiveBuffer::owned({1, 0, 0, 0}));
  without_borrowed.emplace("out", LiveBuffer::owned({2, 0, 0, 0}));
  EXPECT_EQ(owned_accumulator_fingerprint(live), owned_accumulator_fingerprint(without_borrowed));
  EXPECT_EQ(owned_accumulator_fingerprint(LiveMap{}), 0u);
}

TEST(Planner_LiveBuffers, FingerprintSeesAValueMovingBetweenBuffers) {
  LiveMap a;
  a.emplace("p", LiveBuffer::owned({1}));
  a.emplace("q", LiveBuffer::owned({2}));
  LiveMap b;
  b.emplace("p", LiveBuffer::owned({2}));
  b.emplace("q", LiveBuffer::owned({1}));
  EXPECT_NE(owned_accumulator_fingerprint(a), owned_accumulator_fingerprint(b));
}

TEST(Planner_LiveBuffers, FinalReassemblyMovesOwnedCopiesBorrowedAndReusesCallerSlots) {
  const Bytes caller{7, 7};
  LiveMap live;
  live.emplace("c", LiveBuffer::borrowed(caller));
  live.emplace("o", LiveBuffer::owned({1, 2, 3, 4}));
  live.emplace("extra", LiveBuffer::owned({5}));
  std::vector<Bytes> outputs(3);
  outputs[0].reserve(16);
  const std::uintptr_t slot0 = address(outputs[0]);
  const std::vector<std::string> names{"o", "c"};
  ASSERT_FALSE(collect_final_named_outputs(names, live, outputs).has_value());
  ASSERT_EQ(outputs.size(), 2u) << "exactly one slot per final output";
  EXPECT_EQ(outputs[0], (Bytes{1, 2, 3, 4}));
  EXPECT_EQ(outputs[1], caller);
  EXPECT_EQ(address(outputs[0]), slot0) << "the caller's slot allocation is reused";
  EXPECT_FALSE(live.contains("o"));
  EXPECT_TRUE(live.contains("extra"));
}

TEST(Planner_LiveBuffers, AFinalOutputNoSegmentProducedIsS009) {
  LiveMap live;
  std::vector<Bytes> outputs;
  const std::vector<std::string> names{"never"};
  auto error = collect_final_named_outputs(names, live, outputs);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code, "S009");
  EXPECT_EQ(error->message, "final output `never` was not produced by any split segment");
  ASSERT_EQ(error->notes.size(), 1u);
}

}  // namespace
}  // namespace gridcheck::planner
