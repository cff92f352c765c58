#include "props/oracle/case_bytes.hpp"

#include <cstring>

namespace gridcheck::props {

planner::Bytes case_bytes(const ir::Case& c, std::string_view name) {
  const ir::BufferDecl* decl = c.program.find_buffer(name);
  for (const ir::InputData& in : c.inputs) {
    if (in.buffer != name) continue;
    const std::vector<std::uint32_t> words =
        ir::materialize(in, decl ? decl->element : ir::ScalarType::U32, decl ? decl->count : 0);
    planner::Bytes bytes(words.size() * 4);
    if (!words.empty()) std::memcpy(bytes.data(), words.data(), bytes.size());
    return bytes;
  }
  return planner::Bytes(decl ? decl->static_byte_len() : 0, 0);
}

}  // namespace gridcheck::props
