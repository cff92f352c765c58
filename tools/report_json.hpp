#pragma once
// The versioned JSON documents of `--json` (docs/reports.md): every document is one object whose
// first key is "schema": "gridcheck/<name>/1", checked by the JSON Schema
// docs/schemas/gridcheck-<name>-1.schema.json. A new field keeps the version; renaming or removing
// one, or changing its type, makes it /2.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gridcheck::tools {

inline constexpr int kJsonSchemaVersion = 1;

/// "gridcheck/<name>/1".
std::string json_schema_id(std::string_view name);

/// `body` (an object) as text, indented by `indent` (-1: one line), with "schema" as its first key
/// and then body's own keys; a key "schema" of body is replaced.
std::string dump_document(std::string_view name, const nlohmann::json& body, int indent = 2);

/// A 64-bit value JSON numbers do not carry exactly past 2^53 in JavaScript or jq (a seed): its
/// decimal digits, as a JSON string.
std::string json_u64(std::uint64_t value);

}  // namespace gridcheck::tools
