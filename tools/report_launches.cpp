#include "tools/report_launches.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "ir/equality.hpp"
#include "ir/text/case_file.hpp"
#include "ir/text/parse_codes.hpp"
#include "tools/report_json.hpp"

namespace gridcheck::tools {
namespace {

namespace fs = std::filesystem;

ir::Diagnostic dump_problem(const std::string& path, std::string message) {
  return ir::Diagnostic{ir::Severity::Error, std::string(ir::parse_code::kCannotReadFile), path, ir::SourceLoc{},
                        std::move(message), {}};
}

std::string hash_of(const planner::Bytes& b) { return fmt::format("0x{:016x}", ir::fnv1a64(b.data(), b.size())); }

nlohmann::json or_null(std::optional<std::size_t> v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

std::size_t popcount(const std::vector<std::uint8_t>& bits) {
  std::size_t n = 0;
  for (std::uint8_t b : bits) n += static_cast<std::size_t>(__builtin_popcount(b));
  return n;
}

std::string reference_file(std::size_t phase, const std::string& buffer) {
  return fmt::format("R-phase{}-{}.bin", phase, file_name_part(buffer));
}
std::string split_file(const std::string& profile, std::size_t launch, const std::string& buffer) {
  return fmt::format("{}-launch{}-{}.bin", file_name_part(profile), launch, file_name_part(buffer));
}

bool write_bytes(const fs::path& path, const planner::Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  return static_cast<bool>(out);
}

}  // namespace

std::optional<ir::Diagnostic> check_dump_dir(const std::string& dir) {
  if (dir.empty()) return dump_problem(dir, "cannot write the launch dump: the path is empty");
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (status.type() == fs::file_type::not_found) {
    const fs::path parent = fs::path(dir).has_parent_path() ? fs::path(dir).parent_path() : fs::path(".");
    if (!fs::is_directory(parent, ec))
      return dump_problem(dir, fmt::format("cannot write the launch dump: its directory {} does not exist", parent.string()));
    return std::nullopt;
  }
  if (ec) return dump_problem(dir, fmt::format("cannot write the launch dump: {}", ec.message()));
  if (!fs::is_directory(status)) return dump_problem(dir, "cannot write the launch dump: it exists and is not a directory");
  if (!fs::is_empty(dir, ec)) return dump_problem(dir, "cannot write the launch dump: the directory is not empty");
  return std::nullopt;
}

std::string file_name_part(std::string_view name) {
  std::string out(name);
  for (char& ch : out) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                      ch == '_' || ch == '-';
    if (!keep) ch = '_';
  }
  return out;
}

nlohmann::json launch_index(const ir::Case& c, const std::string& file, const props::CaseReport& report,
                            const props::LaunchTrace& trace, int exit_code) {
  nlohmann::json j;
  j["file"] = file;
  j["case"] = c.name;
  const auto& g = report.reference.grid;
  j["grid"] = g[0] == 0 ? nlohmann::json(nullptr) : nlohmann::json::array({g[0], g[1], g[2]});
  j["fixpoint"] = c.fixpoint;
  nlohmann::json buffers = nlohmann::json::array();
  for (const props::BufferInfo& b : trace.buffers)
    buffers.push_back({{"name", b.name}, {"type", std::string(ir::name_of(b.element))}, {"line", b.line}});
  j["buffers"] = std::move(buffers);

  nlohmann::json phases = nlohmann::json::array();
  for (std::size_t k = 0; k < trace.reference.size(); ++k) {
    const props::ReferencePhase& p = trace.reference[k];
    nlohmann::json files = nlohmann::json::array();
    for (std::size_t i = 0; i < p.buffers.size() && i < trace.buffers.size(); ++i) {
      const props::TracedBuffer& b = p.buffers[i];
      files.push_back({{"buffer", trace.buffers[i].name}, {"file", reference_file(k, trace.buffers[i].name)},
                       {"bytes", b.bytes.size()}, {"hash", hash_of(b.bytes)}, {"stored_elements", popcount(b.stored)},
                       {"store_lines", b.store_lines}});
    }
    phases.push_back({{"index", k}, {"iteration", p.iteration}, {"phase", p.phase},
                      {"fence_line", p.fence_line == 0 ? nlohmann::json(nullptr) : nlohmann::json(p.fence_line)},
                      {"buffers", std::move(files)}});
  }
  j["reference"] = {{"verdict", std::string(ir::name_of(report.reference_verdict))}, {"phases", std::move(phases)}};

  nlohmann::json splits = nlohmann::json::array();
  for (const props::SplitTrace& s : trace.splits) {
    const props::OracleOutcome* outcome = report.find("H-cpu", s.profile);
    nlohmann::json launches = nlohmann::json::array();
    for (const props::SplitLaunch& l : s.launches) {
      nlohmann::json files = nlohmann::json::array();
      for (const props::TracedBuffer& b : l.buffers) {
        std::optional<std::size_t> first;
        if (l.reference_phase)
          first = props::first_different_element(
              props::reference_view(c.program, trace.reference[*l.reference_phase], b.name, b.bytes.size()), b.bytes);
        const bool compared = l.reference_phase && c.program.find_buffer(b.name) != nullptr;
        files.push_back({{"buffer", b.name}, {"file", split_file(s.profile, l.index, b.name)}, {"bytes", b.bytes.size()},
                         {"hash", hash_of(b.bytes)}, {"compared", compared},
                         {"first_difference", compared ? or_null(first) : nlohmann::json(nullptr)}});
      }
      launches.push_back({{"index", l.index}, {"pass", l.pass},
                          {"segment", l.segment == planner::LaunchRecord::kUnsplit ? nlohmann::json(nullptr)
                                                                                  : nlohmann::json(l.segment)},
                          {"reference_phase", or_null(l.reference_phase)}, {"buffers", std::move(files)}});
    }
    nlohmann::json failure = nullptr;
    if (s.failure)
      failure = {{"code", s.failure->diagnostic.code}, {"message", s.failure->diagnostic.message}};
    splits.push_back({{"oracle", "H-cpu"}, {"profile", s.profile},
                      {"verdict", outcome ? nlohmann::json(std::string(ir::name_of(outcome->verdict))) : nlohmann::json(nullptr)},
                      {"segments", s.segment_count}, {"aligned", s.aligned}, {"failure", std::move(failure)},
                      {"launches", std::move(launches)}});
  }
  j["splits"] = std::move(splits);
  j["steps_left_out"] = trace.steps_left_out;
  j["exit_code"] = exit_code;
  return j;
}

std::optional<ir::Diagnostic> write_launch_dump(const std::string& dir, const ir::Case& c, const std::string& file,
                                                const props::CaseReport& report, const props::LaunchTrace& trace,
                                                int exit_code) {
  std::error_code ec;
  if (!fs::exists(dir, ec) && !fs::create_directory(dir, ec))
    return dump_problem(dir, fmt::format("cannot create the launch dump directory: {}", ec.message()));
  const fs::path root(dir);
  for (std::size_t k = 0; k < trace.reference.size(); ++k)
    for (std::size_t i = 0; i < trace.reference[k].buffers.size() && i < trace.buffers.size(); ++i) {
      const fs::path path = root / reference_file(k, trace.buffers[i].name);
      if (!write_bytes(path, trace.reference[k].buffers[i].bytes)) return dump_problem(path.string(), "cannot write this file of the launch dump");
    }
  for (const props::SplitTrace& s : trace.splits)
    for (const props::SplitLaunch& l : s.launches)
      for (const props::TracedBuffer& b : l.buffers) {
        const fs::path path = root / split_file(s.profile, l.index, b.name);
        if (!write_bytes(path, b.bytes)) return dump_problem(path.string(), "cannot write this file of the launch dump");
      }
  const fs::path index = root / "index.json";
  const std::string text = dump_document("launches", launch_index(c, file, report, trace, exit_code)) + "\n";
  if (!ir::write_file_atomically(index.string(), text)) return dump_problem(index.string(), "cannot write the launch dump's index");
  return std::nullopt;
}

}  // namespace gridcheck::tools
