#include "ir/abi.hpp"

namespace gridcheck::ir {

bool is_backend_allocated_output(const BufferDecl& b) {
  return b.is_output || b.access == BufferAccess::WriteOnly ||
         (b.pipeline_live_out && b.access == BufferAccess::ReadWrite);
}

bool is_reference_input(const BufferDecl& b) {
  return b.access != BufferAccess::Workgroup && !is_backend_allocated_output(b);
}

bool is_reference_output(const BufferDecl& b) {
  return is_backend_allocated_output(b) || b.access == BufferAccess::ReadWrite;
}

std::optional<std::uint64_t> backend_allocation_bytes(const BufferDecl& b) {
  if (b.count > 0) return b.static_byte_len();
  if (b.output_byte_range) return b.output_byte_range->end;
  return std::nullopt;
}

}  // namespace gridcheck::ir

namespace gridcheck::ir {

bool is_dispatch_input(const BufferDecl& b) {
  if (b.is_output || b.pipeline_live_out) return false;
  return b.access == BufferAccess::ReadOnly || b.access == BufferAccess::ReadWrite ||
         b.access == BufferAccess::Uniform;
}

bool is_dispatch_output(const BufferDecl& b) {
  if (b.access == BufferAccess::Workgroup) return false;
  return b.is_output || b.pipeline_live_out || b.access == BufferAccess::ReadWrite ||
         b.access == BufferAccess::WriteOnly;
}

}  // namespace gridcheck::ir
