#include "tools/report_json.hpp"

#include <fmt/format.h>

namespace gridcheck::tools {

std::string json_schema_id(std::string_view name) { return fmt::format("gridcheck/{}/{}", name, kJsonSchemaVersion); }

std::string dump_document(std::string_view name, const nlohmann::json& body, int indent) {
  nlohmann::ordered_json document;
  document["schema"] = json_schema_id(name);
  for (const auto& [key, value] : body.items())
    if (key != "schema") document[key] = nlohmann::ordered_json(value);
  return document.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string json_u64(std::uint64_t value) { return std::to_string(value); }

}  // namespace gridcheck::tools
