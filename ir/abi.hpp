#pragma once
// The buffer ABI predicates of docs/semantics.md §2.2 and §5. They are the contract between a caller, the
// reference and a backend; implement nothing else in terms of raw flags.

#include "ir/program.hpp"

namespace gridcheck::ir {

/// `is_output` OR access == WriteOnly OR (`pipeline_live_out` AND access == ReadWrite).
/// Such a buffer receives no caller bytes and starts zero-filled.
bool is_backend_allocated_output(const BufferDecl& b);

/// Reference (and case) input: not workgroup memory and not backend-allocated. The caller supplies
/// its bytes, in declaration order.
bool is_reference_input(const BufferDecl& b);

/// Reference output: backend-allocated, or read_write. Results are all of these, in declaration order.
bool is_reference_output(const BufferDecl& b);

/// Byte length a backend allocates for a backend-allocated output: the static length, else the end
/// of `output_byte_range`; nullopt when neither exists (docs/semantics.md §5, `require_static_readback_size`).
std::optional<std::uint64_t> backend_allocation_bytes(const BufferDecl& b);

}  // namespace gridcheck::ir

namespace gridcheck::ir {

/// Dispatch (backend BindingPlan) input, docs/semantics.md §5.1 and the split's `consumes_input`:
/// NOT (is_output OR pipeline_live_out) AND access ∈ {read, read_write, uniform}. Inputs are passed
/// in declaration order of such buffers.
bool is_dispatch_input(const BufferDecl& b);

/// Dispatch output, docs/semantics.md §5.2 and the split's `produces_output`:
/// is_output OR pipeline_live_out OR access ∈ {read_write, write_only} (never workgroup memory).
/// Outputs are returned in declaration order of such buffers.
bool is_dispatch_output(const BufferDecl& b);

}  // namespace gridcheck::ir
