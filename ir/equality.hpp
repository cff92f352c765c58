#pragma once
// Structural equality and a stable content hash. Both compare what a program means, not how its
// arena happens to be laid out: names by their spelling, nodes by shape, unreachable nodes ignored,
// source locations ignored. Unlike vyre's PartialEq (docs/semantics.md §2.1) the buffer declarations are compared
// in order, because declaration order is the dispatch ABI.

#include <cstdint>

#include "ir/program.hpp"

namespace gridcheck::ir {

bool structurally_equal(const Program& a, const Program& b);

/// 64-bit FNV-1a over a canonical walk of the program. Stable across runs, platforms and arena
/// layouts; equal programs have equal hashes.
std::uint64_t content_hash(const Program& p);

/// FNV-1a 64 of raw bytes (also used for output hashes in case files).
std::uint64_t fnv1a64(const void* data, std::size_t size, std::uint64_t seed = 0xcbf29ce484222325ull);

}  // namespace gridcheck::ir
