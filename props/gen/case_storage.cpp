#include "props/gen/case_storage.hpp"

#include <string>
#include <utility>

namespace gridcheck::props::casegen {
namespace {

using ir::ScalarType;

class BufferDeclarer {
 public:
  explicit BufferDeclarer(GeneratorState& s) : s_(s), c_(s.c), b_(s.b) {}

  void declare_buffers() {
    add_drawn(Role::Input, "in");
    if (on(Feature::ReadWriteBuffers))
      for (std::uint32_t i = 0, n = 1 + c_.below(2); i < n; ++i)
        add_drawn(Role::ReadWrite, fmt::format("rw{}", i));
    for (std::uint32_t i = 0, n = 1 + c_.below(2); i < n; ++i) {
      BufferInfo& out = add_drawn(Role::Output, fmt::format("out{}", i));
      if (c_.chance(1, 4)) {  // read_write + pipeline_live_out: backend-allocated without is_output
        b_.decl(out.buf).is_output = false;
      }
    }
    // A write_only buffer under a fixpoint is the A4 mechanism; keep it out of benign cases.
    if (on(Feature::WriteOnlyBuffers) && (s_.fixpoint == 1 || on(Feature::FixpointPartialOutputs)))
      add_drawn(Role::WriteOnly, "wo");
    if (on(Feature::WriteOnlyMultiSegment)) add(Role::WriteOnly, "wo_multi", draw_element(), 1).several_segments = true;
    if (on(Feature::UniformBuffers)) add(Role::Uniform, "uni", draw_element(), 1);
    if (on(Feature::Atomics)) add(Role::Counter, "ctr", ScalarType::U32, 1);
    if (on(Feature::WorkgroupMemory) || on(Feature::WorkgroupAcrossFence)) {
      BufferInfo& sh = add_drawn(Role::Workgroup, "sh");
      if (on(Feature::WorkgroupTail)) {
        // 1..3·wg elements: below, above, or not a multiple of the workgroup size.
        sh.count = 1 + c_.below(3 * s_.wg);
        sh.slots = (sh.count + s_.wg - 1) / s_.wg;
        b_.decl(sh.buf).count = sh.count;
      }
    }
    if (on(Feature::UnreferencedOutput)) add(Role::Unreferenced, "unused", ScalarType::U32, 1);
    if (on(Feature::RuntimeSizedRw)) add(Role::RuntimeSized, "dyn", ScalarType::U32, 1);
    if (on(Feature::OutputByteRange)) {
      BufferInfo& out = s_.buffers[s_.index_of_role(Role::Output)];
      const std::uint64_t count = std::uint64_t{out.slots} * s_.invocations;
      const std::uint64_t begin = c_.below(static_cast<std::uint32_t>(count));
      const std::uint64_t end = begin + 1 + c_.below(static_cast<std::uint32_t>(count - begin));
      b_.decl(out.buf).output_byte_range = ir::ByteRange{begin * 4, end * 4};
    }
    if (on(Feature::LongFixpoint)) {
      add(Role::Converging, "late", ScalarType::U32, 2);
      s_.converge_bound = c_.between(3, 7);
    }
  }

 private:
  bool on(Feature f) const { return s_.on(f); }

  ScalarType draw_element() { return on(Feature::ScalarTypes) ? kTypes[c_.below(4)] : ScalarType::U32; }

  /// add() with 1 or 2 own slots and a drawn element type: the slot count is drawn first, then the
  /// element type (the order of these two draws is part of the generator's behaviour).
  BufferInfo& add_drawn(Role role, std::string name) {
    const std::uint32_t slots = 1 + c_.below(2);
    const ScalarType element = draw_element();
    return add(role, std::move(name), element, slots);
  }

  BufferInfo& add(Role role, std::string name, ScalarType element, std::uint32_t slots) {
    BufferInfo info;
    info.role = role;
    info.name = std::move(name);
    info.element = element;
    info.slots = slots;
    const std::uint32_t count = slots * (role == Role::Workgroup ? s_.wg : s_.invocations);
    info.count = role == Role::RuntimeSized ? 0 : count;
    switch (role) {
      case Role::Input: info.buf = b_.read(info.name, s_.binding++, element, count); break;
      case Role::ReadWrite: info.buf = b_.read_write(info.name, s_.binding++, element, count); break;
      case Role::Output:
      case Role::Counter:
      case Role::Converging:
      case Role::Unreferenced: info.buf = b_.output(info.name, s_.binding++, element, count); break;
      case Role::WriteOnly: info.buf = b_.write_only(info.name, s_.binding++, element, count); break;
      case Role::Uniform: info.buf = b_.uniform(info.name, s_.binding++, element, count); break;
      case Role::Workgroup: info.buf = b_.workgroup(info.name, count, element); break;
      case Role::RuntimeSized: info.buf = b_.read_write(info.name, s_.binding++, element, 0); break;
    }
    s_.buffers.push_back(info);
    return s_.buffers.back();
  }

  GeneratorState& s_;
  ChoiceSource& c_;
  ir::Builder& b_;
};

}  // namespace

void declare_buffers(GeneratorState& s) { BufferDeclarer(s).declare_buffers(); }

void draw_write_sets(GeneratorState& s) {
  const std::uint32_t segments = s.segments;
  s.written.assign(segments, std::vector<bool>(s.buffers.size(), false));
  s.atomic.assign(segments, std::vector<bool>(s.buffers.size(), false));
  s.must_write.assign(segments, std::vector<bool>(s.buffers.size(), false));
  for (std::size_t i = 0; i < s.buffers.size(); ++i) {
    const BufferInfo& info = s.buffers[i];
    switch (info.role) {
      case Role::ReadWrite:
        for (std::uint32_t seg = 0; seg < segments; ++seg) s.written[seg][i] = s.c.chance(1, 2);
        break;
      case Role::Output:
      case Role::RuntimeSized:
      case Role::WriteOnly: {
        const bool several = (info.role == Role::Output && s.on(Feature::MultiSegmentOutputs)) || info.several_segments;
        const std::uint32_t first = s.c.below(segments);
        s.written[first][i] = s.must_write[first][i] = true;
        if (several) {
          for (std::uint32_t seg = 0; seg < segments; ++seg)
            if (seg != first && s.c.chance(1, 2)) s.written[seg][i] = s.must_write[seg][i] = true;
          if (info.several_segments && segments > 1) {
            const std::uint32_t second = (first + 1) % segments;
            s.written[second][i] = s.must_write[second][i] = true;
          }
        }
        break;
      }
      case Role::Counter: {
        const std::uint32_t first = s.c.below(segments);
        s.atomic[first][i] = s.must_write[first][i] = true;
        for (std::uint32_t seg = 0; seg < segments; ++seg)
          if (seg != first && s.c.chance(1, 3)) s.atomic[seg][i] = true;
        break;
      }
      case Role::Converging:
        // Written only by the converging statement (stmt_segment), at own slots, in one segment.
        s.converging_segment = s.c.below(segments);
        s.written[s.converging_segment][i] = true;
        break;
      default: break;
    }
  }
}

bool needs_read(const GeneratorState& s, std::size_t i) {
  const Role role = s.buffers[i].role;
  if (role == Role::ReadWrite) return !s.on(Feature::RwWrittenUnread);
  if (s.fixpoint > 1 && (role == Role::Output || role == Role::WriteOnly))
    return !s.on(Feature::FixpointPartialOutputs);
  return false;
}

}  // namespace gridcheck::props::casegen
