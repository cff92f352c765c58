#pragma once
// Which buffers a segment reads and writes (docs/vyre-0.7.2.md §6.7 "buffer target scan", seed 000
// `collect_segment_buffer_targets`), and the first segment that writes each buffer.
//
// vyre 0.7.2 scan, exactly: Store writes its buffer and scans index and value; Let/Assign values,
// If conditions and Loop bounds are scanned, bodies recursed; AllReduce/Broadcast read and write
// their buffer; AllGather/ReduceScatter read `input` and write `output`. IndirectDispatch,
// AsyncLoad, AsyncStore, AsyncWait, Trap, Resume, Opaque, Barrier and Return record nothing and
// their operand expressions are not scanned (the F2 bug). In expressions, Load and BufLen read;
// Atomic reads and writes.

#include <cstddef>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/program.hpp"

namespace gridcheck::planner {

/// Buffer names read and written by one segment (atomics count as both).
struct BufferAccessSet {
  std::set<std::string, std::less<>> reads;
  std::set<std::string, std::less<>> writes;
  bool reads_buffer(std::string_view name) const { return reads.contains(name); }
  bool writes_buffer(std::string_view name) const { return writes.contains(name); }
};

/// vyre `visit_expr_buffer_accesses` over `root` and its operands.
void scan_expr_accesses(const ir::Program& program, ir::ExprId root, BufferAccessSet& out);

/// vyre `collect_segment_buffer_targets` for one statement, recursing into its bodies.
void scan_stmt_accesses(const ir::Program& program, ir::StmtId id, BufferAccessSet& out);

/// The vyre 0.7.2 scan of a whole segment (its entry; peeling changes nothing since the scan
/// recurses into Block and Region).
BufferAccessSet scan_segment_accesses(const ir::Program& segment);

/// The scan with docs/vyre-0.7.2.md#f2 fixed (after 0.7.2): AsyncLoad/AsyncStore read their source and write
/// their destination, IndirectDispatch reads its count buffer, async and trap operand expressions are
/// scanned, and an Opaque node reads and writes every declared buffer.
BufferAccessSet scan_segment_accesses_complete(const ir::Program& segment);

/// `first_writer_segment_per_buffer`: for each written name, the index of the first segment whose
/// scan writes it.
using FirstWriterMap = std::map<std::string, std::size_t, std::less<>>;
FirstWriterMap first_writer_per_buffer(std::span<const BufferAccessSet> scans);

}  // namespace gridcheck::planner
