#pragma once
// A case's meta lines (`meta KEY "VALUE"`, ir::Case::meta) as the mutation self-test reads and
// writes them: a saved killing case names its mutant, base and evidence there (mutant, base,
// killed_by, difference, base_launches, contract_waves, contract_edges, ...). A key is looked up by
// its first occurrence; setting a key replaces that occurrence or appends the key.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "ir/case.hpp"

namespace gridcheck::props {

/// The meta value of `key`, or "".
std::string meta_value(const ir::Case& c, std::string_view key);

/// Sets meta `key` to `value`: replaces the first entry of that key, or appends one.
void set_meta(ir::Case& c, const std::string& key, std::string value);

/// `text` as a whole unsigned decimal number (a meta count, a wave id); nullopt when it is anything
/// else (empty, a sign, spaces, trailing characters, out of range).
std::optional<std::size_t> parse_size(std::string_view text);

}  // namespace gridcheck::props
