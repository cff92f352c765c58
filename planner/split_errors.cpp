#include "planner/split_errors.hpp"

#include <fmt/format.h>

namespace gridcheck::planner::split_error {
namespace {

ir::Diagnostic make(std::string code, std::string message, std::string fix) {
  ir::Diagnostic d;
  d.code = std::move(code);
  d.message = std::move(message);
  if (!fix.empty()) d.notes.push_back(ir::Diagnostic{ir::Severity::Note, "", "", {}, "fix: " + fix, {}});
  return d;
}

std::string name_list(std::span<const std::string> names) {
  if (names.empty()) return "none";
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "`" : ", `") + n + "`";
  return out;
}

}  // namespace

ir::Diagnostic reservation_failed(std::string_view what, std::string_view error) {
  return make("S001", fmt::format("the host split could not reserve {}: {}", what, error),
              "split the program into fewer grid-sync live buffers or run on a backend with native grid sync");
}

ir::Diagnostic accounting_overflow(std::string_view what) {
  return make("S002", fmt::format("host split accounting overflowed while counting {}", what),
              "split the program into fewer grid_sync segments");
}

ir::Diagnostic no_segments() {
  return make("S003", "the host split produced no segments",
              "this is the split's invariant guard; the planner profile lost every segment");
}

ir::Diagnostic input_count(std::size_t given, std::span<const std::string> expected_names) {
  return make("S004",
              fmt::format("the split takes {} caller input(s) ({}) but {} were given", expected_names.size(),
                          name_list(expected_names), given),
              "pass one byte buffer per read, read_write or uniform buffer that is neither is_output nor "
              "pipeline_live_out, in declaration order");
}

ir::Diagnostic seed_undeclared(std::string_view name) {
  return make("S005", fmt::format("segment input `{}` is not declared in the source program", name),
              "declare every buffer a segment reads in the source program");
}

ir::Diagnostic seed_without_size(std::string_view name) {
  return make("S006",
              fmt::format("backend-allocated buffer `{}` is read-modify-written before its first split output but "
                          "has no static byte size",
                          name),
              "give the buffer a count or an output_byte_range");
}

ir::Diagnostic input_without_bytes(std::size_t segment, std::size_t segment_count, std::string_view name) {
  return make("S007",
              fmt::format("segment {} of {} input `{}` has no bytes from caller input or a prior segment output",
                          segment, segment_count, name),
              "ensure every cross-segment read is written before the grid_sync barrier");
}

ir::Diagnostic output_count(std::size_t segment, std::size_t segment_count, std::size_t produced,
                            std::size_t expected) {
  return make("S008",
              fmt::format("segment {} of {} produced {} output slot(s) but the planned buffer map expected {}", segment,
                          segment_count, produced, expected),
              "the executor must return one output per dispatch output, in declaration order");
}

ir::Diagnostic final_output_missing(std::string_view name) {
  return make("S009", fmt::format("final output `{}` was not produced by any split segment", name),
              "write the buffer in some segment, or clear its is_output and pipeline_live_out flags");
}

ir::Diagnostic zero_fixpoint() {
  return make("S010", "fixpoint_iterations is 0", "use at least 1, or leave it unset for a single pass");
}

ir::Diagnostic launch_failed(std::size_t segment, std::size_t segment_count, const LaunchError& error) {
  ir::Diagnostic d;
  d.code = "S011";
  d.loc = error.loc;
  d.message = error.kind == LaunchErrorKind::InvalidProgram
                  ? fmt::format("grid-sync split segment {} of {} dispatch failed: {}", segment, segment_count,
                                error.message)
                  : error.message;
  return d;
}

ir::Diagnostic segment_still_has_fence(std::size_t segment, std::size_t segment_count) {
  return make("S012",
              fmt::format("grid-sync split segment {} of {} still contains a grid_sync nested under if or loop; "
                          "vyre 0.7.2 routes it to the split again without bound",
                          segment, segment_count),
              "hoist the fence to the top level, or use a backend with native grid sync");
}

ir::Diagnostic grid_unresolved(const ir::Diagnostic& cause) {
  return make("S013", fmt::format("the split cannot compute the launch grid of the whole program: {} [{}]", cause.message,
                                  cause.code),
              "give the dispatch an explicit grid");
}

ir::Diagnostic unsplit_launch_failed(const LaunchError& error) {
  ir::Diagnostic d;
  d.code = "S011";
  d.loc = error.loc;
  d.message = error.message;
  return d;
}

ir::Diagnostic planner_process(std::string_view code, std::string message) {
  GC_ASSERT(code.size() == 4 && code >= "S300" && code <= "S310");
  ir::Diagnostic d;
  d.code = std::string(code);
  d.message = std::move(message);
  return d;
}

}  // namespace gridcheck::planner::split_error

namespace gridcheck::planner {

bool is_planner_process_error(const ir::Diagnostic& d) {
  return d.code.size() == 4 && d.code >= "S300" && d.code <= "S310";
}

bool is_refusal(const ir::Diagnostic& d) {
  if (d.code == "S000" || d.code.starts_with("SR")) return true;
  for (const ir::Diagnostic& note : d.notes)
    if (note.code == "S000") return true;
  return false;
}

ir::Diagnostic refused_by_planner(std::string code, std::string message, std::string_view planner) {
  ir::Diagnostic d;
  d.code = std::move(code);
  d.message = std::move(message);
  d.notes.push_back(ir::Diagnostic{ir::Severity::Note, "S000", "", {},
                                   fmt::format("refused by the external planner `{}` before running", planner), {}});
  return d;
}

}  // namespace gridcheck::planner
