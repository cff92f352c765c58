#include "props/gen/case_inputs.hpp"

namespace gridcheck::props::casegen {

void add_inputs(GeneratorState& s, ir::Case& tc) {
  for (const BufferInfo& info : s.buffers) {
    const bool caller_bytes = info.role == Role::Input || info.role == Role::ReadWrite ||
                              info.role == Role::Uniform || info.role == Role::RuntimeSized;
    if (!caller_bytes) continue;
    ir::InputData in;
    in.buffer = info.name;
    in.kind = ir::InputData::Kind::Random;
    const std::uint64_t high = s.c.word();  // the high word is drawn first
    const std::uint64_t low = s.c.word();
    in.seed = (high << 32) | low;
    if (info.role == Role::RuntimeSized) in.length = s.invocations;
    tc.inputs.push_back(in);
  }
}

}  // namespace gridcheck::props::casegen
