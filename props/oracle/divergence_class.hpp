#pragma once
// Names the docs/vyre-0.7.2.md §10 divergence classes whose static pattern a case contains, using the vyre-0.7.2
// plan of its program (roles per segment, propagated lets) and the program itself. A shrunk failing
// case usually contains exactly one; the campaign uses the list in failure signatures.
//
//   A    a read_write non-output buffer gets the write_only role in some segment     docs/vyre-0.7.2.md#a1–A3
//   A4   fixpoint > 1 and a backend-allocated buffer gets the write_only role          docs/vyre-0.7.2.md#a4
//   A5   a runtime-sized buffer gets the write_only role                               docs/vyre-0.7.2.md#a5
//   B1   a final output no segment references                                          docs/vyre-0.7.2.md#b1
//   C1   workgroup memory read in a segment after an earlier segment wrote it          docs/vyre-0.7.2.md#c1
//   D    a propagated let that is assigned or reads memory, or an assignment to a
//        local of an earlier segment                                                   docs/vyre-0.7.2.md#d1–D3
//   F1   a plain write_only buffer written in two segments                             docs/vyre-0.7.2.md#f1 / G10
//   G1   no explicit grid (per-segment grid inference)                                 G1
//   G2   a return before the last top-level fence                                      G2
//   G3   a produced buffer with an output_byte_range                                   G3
//   G5   a grid_sync nested under if or loop                                           G5

#include <string>
#include <vector>

#include "ir/case.hpp"

namespace gridcheck::props {

/// The classes present, in the order of the table above.
std::vector<std::string> divergence_classes(const ir::Case& c);

/// "C1" for one class, "A+F1" for several, "unclassified" for none.
std::string join_classes(const std::vector<std::string>& classes);

}  // namespace gridcheck::props
