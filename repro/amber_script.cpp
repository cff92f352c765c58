#include "repro/amber_script.hpp"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <tuple>

namespace gridcheck::repro {
namespace {

constexpr std::uint32_t kCopyGroup = 64;

/// The word-copy pipeline's shader: dst[i] = src[first + i] for i < count.
constexpr const char* kCopyRangeGlsl = R"(#version 450
// gridcheck export: copies words [first, first + count) of binding 0 to the start of binding 1
// (an output_byte_range slice of a segment output; AmberScript's COPY copies whole buffers).
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint data[]; } src;
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint data[]; } dst;
layout(push_constant) uniform Range { uint first; uint count; } range;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < range.count) dst.data[i] = src.data[range.first + i];
}
)";

std::vector<std::uint32_t> words_of(const Bytes& bytes) {
  std::vector<std::uint32_t> words(bytes.size() / 4);
  if (!words.empty()) std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

void append_words(std::string& out, const std::vector<std::uint32_t>& words, std::string_view indent) {
  for (std::size_t i = 0; i < words.size(); i += 8) {
    out += indent;
    for (std::size_t j = i; j < words.size() && j < i + 8; ++j) out += fmt::format("{}{}", j == i ? "" : " ", words[j]);
    out += '\n';
  }
}

bool all_zero(const Bytes& bytes) {
  for (std::uint8_t b : bytes)
    if (b != 0) return false;
  return true;
}

std::string comment(std::string_view text) {
  std::string out;
  for (char ch : text) out += ch == '\n' ? ' ' : ch;
  return out;
}

}  // namespace

ir::Result<std::string> to_amber(const Repro& repro, const AmberOptions& options) {
  auto fail = [&](std::string code, std::string message) { return ir::Result<std::string>(export_error(std::move(code), repro.case_file, {}, std::move(message))); };
  for (const ReproBuffer& b : repro.buffers) {
    if (b.init.empty())
      return fail("E010", fmt::format("buffer `{}` ({}) has no bytes, and AmberScript cannot declare an empty buffer; use --bundle", b.name,
                                      name_of(b.kind)));
    if (b.init.size() % 4 != 0)
      return fail("E011", fmt::format("buffer `{}` has {} bytes, not whole 4-byte words; use --bundle", b.name, b.init.size()));
  }
  for (const ReproStep& s : repro.steps)
    if (s.kind == StepKind::Copy && (s.from_offset % 4 != 0 || s.bytes % 4 != 0))
      return fail("E011", fmt::format("the copy `{}` covers bytes {}..{}, not whole 4-byte words; use --bundle", s.why, s.from_offset,
                                      s.from_offset + s.bytes));
  for (const ReproExpect& e : repro.expects)
    if (e.offset % 4 != 0 || e.reference.size() % 4 != 0)
      return fail("E011", fmt::format("the expected bytes of `{}` are not whole 4-byte words; use --bundle", e.name));

  bool float64 = false, int64 = false;
  for (const ReproPipeline& p : repro.pipelines) {
    float64 = float64 || p.needs_float64;
    int64 = int64 || p.needs_int64_atomics;
  }
  std::string out = "#!amber\n";
  out += fmt::format("# gridcheck export of case `{}` ({}) under profile `{}` (docs/export.md)\n", repro.case_name, repro.case_file, repro.profile);
  if (!options.command.empty()) out += fmt::format("# written by: {}\n", comment(options.command));
  out += fmt::format("# {} segment(s), {} pass(es) run of {} allowed{}, {} launch(es); the split {} R\n", repro.segment_count, repro.passes,
                     repro.pass_budget, repro.converged_early ? " (converged early)" : "", repro.launch_count,
                     repro.split_matches_reference ? "matches" : "DIVERGES from");
  out += "# Run: amber -t spv1.5 -v 1.2 THIS_FILE  (the EXPECT lines hold R's bytes: the script fails where the split diverges)\n";
  if (int64)
    out += "# The trap record uses 64-bit buffer atomics (shaderBufferInt64Atomics), which AmberScript cannot request:\n"
           "# run with -d (no validation layer) on a device that has them, or use the --bundle runner.\n";
  out += "\n";
  if (float64) out += "DEVICE_FEATURE shaderFloat64\n";
  if (int64) out += "DEVICE_FEATURE shaderInt64\n";
  if (float64 || int64) out += "\n";

  for (const ReproPipeline& p : repro.pipelines) {
    out += fmt::format("# {}\nSHADER compute {}_cs GLSL TARGET_ENV spv1.5\n", p.label, p.name);
    out += p.glsl;
    if (!p.glsl.empty() && p.glsl.back() != '\n') out += '\n';
    out += "END\n\n";
  }

  // Word-copy pipelines for byte ranges: one per (from, to, first, count).
  std::map<std::tuple<std::size_t, std::size_t, std::uint64_t, std::uint64_t>, std::string> ranges;
  for (const ReproStep& s : repro.steps) {
    if (s.kind != StepKind::Copy) continue;
    const bool whole = s.from_offset == 0 && s.bytes == repro.buffers[s.from].init.size() && s.bytes == repro.buffers[s.to].init.size();
    if (!whole) ranges.emplace(std::make_tuple(s.from, s.to, s.from_offset / 4, s.bytes / 4), "");
  }
  if (!ranges.empty()) out += fmt::format("SHADER compute gc_copy_range_cs GLSL TARGET_ENV spv1.5\n{}END\n\n", kCopyRangeGlsl);

  out += "# Buffers: live buffers of the split (by name), one slot per binding of each pipeline, zeros, push constants, trap records.\n";
  for (const ReproBuffer& b : repro.buffers) {
    const std::string what = b.kind == BufferKind::Live   ? fmt::format("live `{}`", b.live_name)
                             : b.kind == BufferKind::Slot ? fmt::format("slot of `{}`", b.live_name)
                                                          : std::string(name_of(b.kind));
    if (all_zero(b.init)) {
      out += fmt::format("BUFFER {} DATA_TYPE uint32 SIZE {} FILL 0  # {}\n", b.name, b.init.size() / 4, what);
    } else {
      out += fmt::format("# {}\nBUFFER {} DATA_TYPE uint32 DATA\n", what, b.name);
      append_words(out, words_of(b.init), "  ");
      out += "END\n";
    }
  }
  std::size_t range_index = 0;
  for (auto& [key, name] : ranges) {
    name = fmt::format("gc_range_{}", range_index++);
    out += fmt::format("BUFFER {}_pc DATA_TYPE uint32 DATA {} {} END\n", name, std::get<2>(key), std::get<3>(key));
  }
  out += "\n";

  for (const ReproPipeline& p : repro.pipelines) {
    out += fmt::format("PIPELINE compute {}\n  ATTACH {}_cs\n", p.name, p.name);
    for (const ReproBinding& b : p.bindings)
      out += fmt::format("  BIND BUFFER {} AS storage DESCRIPTOR_SET 0 BINDING {}\n", repro.buffers[b.buffer].name, b.binding);
    if (p.push_buffer) out += fmt::format("  BIND BUFFER {} AS push_constant\n", repro.buffers[*p.push_buffer].name);
    out += "END\n\n";
  }
  for (const auto& [key, name] : ranges) {
    out += fmt::format("PIPELINE compute {}\n  ATTACH gc_copy_range_cs\n", name);
    out += fmt::format("  BIND BUFFER {} AS storage DESCRIPTOR_SET 0 BINDING 0\n", repro.buffers[std::get<0>(key)].name);
    out += fmt::format("  BIND BUFFER {} AS storage DESCRIPTOR_SET 0 BINDING 1\n", repro.buffers[std::get<1>(key)].name);
    out += fmt::format("  BIND BUFFER {}_pc AS push_constant\nEND\n\n", name);
  }

  std::size_t last_launch = static_cast<std::size_t>(-1);
  for (std::size_t i = 0; i < repro.steps.size(); ++i) {
    const ReproStep& s = repro.steps[i];
    if (s.launch != last_launch) {
      // The launch's header: its dispatch names the pass and the segment.
      for (std::size_t j = i; j < repro.steps.size(); ++j)
        if (repro.steps[j].kind == StepKind::Dispatch && repro.steps[j].launch == s.launch) {
          out += fmt::format("\n# launch {}: pass {}, {}\n", s.launch, repro.steps[j].pass + 1, repro.pipelines[repro.steps[j].pipeline].label);
          break;
        }
      last_launch = s.launch;
    }
    switch (s.kind) {
      case StepKind::Copy: {
        const bool whole = s.from_offset == 0 && s.bytes == repro.buffers[s.from].init.size() && s.bytes == repro.buffers[s.to].init.size();
        if (whole) {
          out += fmt::format("COPY {} TO {}  # {}\n", repro.buffers[s.from].name, repro.buffers[s.to].name, s.why);
        } else {
          const std::string& name = ranges.at(std::make_tuple(s.from, s.to, s.from_offset / 4, s.bytes / 4));
          const std::uint64_t groups = (s.bytes / 4 + kCopyGroup - 1) / kCopyGroup;
          out += fmt::format("RUN {} {} 1 1  # {}\n", name, groups == 0 ? 1 : groups, s.why);
        }
        break;
      }
      case StepKind::Dispatch: {
        const ReproPipeline& p = repro.pipelines[s.pipeline];
        for (std::uint32_t i = 0; i < s.repeat; ++i) out += fmt::format("RUN {} {} {} {}\n", p.name, s.grid[0], s.grid[1], s.grid[2]);
        break;
      }
      case StepKind::CheckTrap: {
        const ReproPipeline& p = repro.pipelines[s.pipeline];
        out += fmt::format("EXPECT {} IDX 0 EQ 4294967295 4294967295  # no trap in launch {}\n", repro.buffers[*p.trap].name, s.launch);
        break;
      }
    }
  }

  out += "\n# R's bytes of the final outputs (true grid sync)\n";
  std::size_t expect_index = 0;
  for (const ReproExpect& e : repro.expects) {
    const std::string holder = repro.buffers[e.buffer].name;
    out += fmt::format("# final output `{}`: the split {}\n", e.name, e.reference == e.split ? "agrees" : "DIVERGES here");
    // The split's view of it is the whole live buffer, or a byte range of it (an output_byte_range).
    const bool whole = e.offset == 0 && e.split.size() == repro.buffers[e.buffer].init.size();
    if (e.reference.size() != e.split.size())
      out += fmt::format("# R returns {} bytes, the split {}\n", e.reference.size(), e.split.size());
    if (e.reference.empty()) {
      out += "# (R returns no bytes for it)\n";
    } else if (whole) {
      // EQ_BUFFER also compares the sizes; a buffer of R's bytes to compare with.
      const std::string ref = fmt::format("gc_expect_{}", expect_index++);
      out += fmt::format("BUFFER {} DATA_TYPE uint32 DATA\n", ref);
      append_words(out, words_of(e.reference), "  ");
      out += "END\n";
      out += fmt::format("EXPECT {} EQ_BUFFER {}\n", holder, ref);
    } else {
      out += fmt::format("EXPECT {} IDX {} EQ", holder, e.offset);
      for (std::uint32_t w : words_of(e.reference)) out += fmt::format(" {}", w);
      out += '\n';
    }
  }
  return out;
}

}  // namespace gridcheck::repro
