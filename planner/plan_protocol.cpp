#include "planner/plan_protocol.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "ir/abi.hpp"
#include "ir/text/parser.hpp"
#include "ir/text/printer.hpp"
#include "ir/validate/validator.hpp"
#include "planner/buffer_scan.hpp"
#include "planner/profile.hpp"
#include "planner/split_errors.hpp"

namespace gridcheck::planner::plan_protocol {
namespace {

using nlohmann::json;

constexpr std::size_t kShownBytes = 200;

std::string shown(std::string_view line) {
  std::string s(line.substr(0, kShownBytes));
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return line.size() > kShownBytes ? s + "..." : s;
}

std::string join(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "`" : ", `") + n + "`";
  return out;
}

std::optional<json> parse_object(std::string_view line) {
  json j = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

// One plan response being checked: every problem names the planner, the case and the segment.
class PlanDecoder {
 public:
  PlanDecoder(const ir::Program& source, const Subject& subject) : source_(source), subject_(subject) {}

  ir::Result<SplitPlan> decode(const json& response) {
    const auto status = response.find("status");
    if (status == response.end() || !status->is_string()) return fail("S304", "the response has no string `status`");
    const std::string s = status->get<std::string>();
    if (s == "refused") return refused(response);
    if (s == "error") {
      const auto message = response.find("message");
      return fail("S310", fmt::format("the planner answered error: {}",
                                      message != response.end() && message->is_string() ? message->get<std::string>()
                                                                                        : "(no message)"));
    }
    if (s != "ok") return fail("S304", fmt::format("unknown status `{}` (ok, refused or error)", s));
    const auto plan = response.find("plan");
    if (plan == response.end() || !plan->is_object()) return fail("S304", "an `ok` response has no object `plan`");
    return decode_plan(*plan);
  }

 private:
  ir::Diagnostic diagnostic(std::string_view code, std::string_view what, std::optional<std::size_t> segment) const {
    std::string where = describe(subject_);
    if (segment) where += fmt::format(", segment {} of {}", *segment, segment_count_);
    return split_error::planner_process(code, fmt::format("{}: {}", where, what));
  }
  ir::Diagnostic fail(std::string_view code, std::string_view what,
                      std::optional<std::size_t> segment = std::nullopt) const {
    return diagnostic(code, what, segment);
  }

  ir::Result<SplitPlan> refused(const json& response) const {
    const auto code = response.find("code");
    const auto message = response.find("message");
    if (code == response.end() || !code->is_string() || code->get<std::string>().empty())
      return fail("S304", "a `refused` response has no non-empty string `code`");
    if (message == response.end() || !message->is_string())
      return fail("S304", "a `refused` response has no string `message`");
    return refused_by_planner(code->get<std::string>(),
                              fmt::format("{}: {}", describe(subject_), message->get<std::string>()),
                              subject_.planner);
  }

  // A required array of strings (`optional`: absent is empty).
  std::optional<ir::Diagnostic> names(const json& object, const char* key, std::vector<std::string>& out,
                                      std::optional<std::size_t> segment, bool optional = false) const {
    const auto it = object.find(key);
    if (it == object.end()) {
      if (optional) return std::nullopt;
      return fail("S304", fmt::format("field `{}` is missing", key), segment);
    }
    if (!it->is_array()) return fail("S304", fmt::format("field `{}` is not an array of strings", key), segment);
    for (const json& n : *it) {
      if (!n.is_string()) return fail("S304", fmt::format("field `{}` is not an array of strings", key), segment);
      out.push_back(n.get<std::string>());
    }
    return std::nullopt;
  }

  ir::Result<SplitPlan> decode_plan(const json& p) {
    const auto segments = p.find("segments");
    if (segments == p.end() || !segments->is_array() || segments->empty())
      return fail("S304", "field `segments` is not a non-empty array");
    segment_count_ = segments->size();
    SplitPlan plan;
    plan.profile = std::string(subject_.planner);
    plan.contains_fence = true;
    plan.fence_count = segment_count_ - 1;
    for (std::size_t k = 0; k < segment_count_; ++k) {
      const json& s = (*segments)[k];
      if (!s.is_object()) return fail("S304", "the segment is not an object", k);
      PlannedSegment planned;
      const auto program = s.find("program");
      if (program == s.end() || !program->is_string()) return fail("S304", "field `program` is not a string", k);
      if (auto d = names(s, "inputs", planned.input_names, k)) return *d;
      if (auto d = names(s, "outputs", planned.output_names, k)) return *d;
      if (auto d = names(s, "lets", planned.let_prefix, k, /*optional=*/true)) return *d;
      ir::Result<ir::Program> parsed = segment_program(program->get<std::string>(), k);
      if (!parsed) return parsed.diagnostics();
      planned.program = std::move(parsed).value();
      if (auto d = check_segment_names(planned, k)) return *d;
      plan.segments.push_back(std::move(planned));
    }
    if (auto d = names(p, "caller_inputs", plan.caller_inputs, std::nullopt)) return *d;
    if (auto d = names(p, "final_outputs", plan.final_outputs, std::nullopt)) return *d;
    if (auto d = check_source_names(plan)) return *d;
    if (auto d = dispatch(p, plan)) return *d;
    add_roles(plan);
    return plan;
  }

  // S305: the segment text must parse and pass the validator's structure phase (S306/S307 for its
  // declarations in between); the diagnostic keeps its line:col in that text.
  ir::Result<ir::Program> segment_program(const std::string& text, std::size_t k) const {
    const std::string file = fmt::format("<{} segment {}>", subject_.planner, k);
    auto located = [&](const ir::Diagnostic& inner, std::string_view what) {
      ir::Diagnostic d = diagnostic("S305", fmt::format("the segment program {}: {} [{}]", what, inner.message, inner.code), k);
      d.file = file;
      d.loc = inner.loc;
      d.notes = inner.notes;
      return d;
    };
    ir::Result<ir::Program> parsed = ir::parse_program(text, file);
    if (!parsed) return located(parsed.diagnostics().all().front(), "does not parse");
    // The declarations first: a contradicting one would otherwise surface as a type error.
    if (auto d = check_declarations(*parsed, k)) return *d;
    // Only the structure phase (docs/validation.md phase 1: a well-formed program whose references
    // resolve). A well-formed segment that fails the semantic rules runs as is and its launch fails
    // (S011), a divergence blamed on the planner exactly as for a built-in profile's segment.
    const ir::Diagnostics diagnostics = ir::validate(*parsed, file);
    for (const ir::Diagnostic& d : diagnostics) {
      if (d.severity != ir::Severity::Error) continue;
      const ir::ValidationRule* rule = ir::find_validation_rule(d.code);
      if (rule == nullptr || rule->phase == 1) return located(d, "is not a well-formed program");
    }
    return parsed;
  }

  // S306 / S307: every declaration is a source buffer, with the source's element type, count and
  // memory space (workgroup or storage).
  std::optional<ir::Diagnostic> check_declarations(const ir::Program& segment, std::size_t k) const {
    for (const ir::BufferDecl& decl : segment.buffers()) {
      const std::string_view name = segment.name(decl.name);
      const ir::BufferDecl* original = source_.find_buffer(name);
      if (original == nullptr)
        return fail("S306", fmt::format("it declares buffer `{}`, which the source does not declare", name), k);
      if (decl.element != original->element)
        return fail("S307",
                    fmt::format("buffer `{}` is declared {} but the source declares it {}", name,
                                ir::name_of(decl.element), ir::name_of(original->element)),
                    k);
      if (decl.count != original->count)
        return fail("S307",
                    fmt::format("buffer `{}` has {} elements but the source declares {}", name, decl.count,
                                original->count),
                    k);
      const bool workgroup = decl.access == ir::BufferAccess::Workgroup;
      if (workgroup != (original->access == ir::BufferAccess::Workgroup))
        return fail("S307",
                    fmt::format("buffer `{}` is {} but the source declares it {}", name,
                                workgroup ? "workgroup memory" : "storage", workgroup ? "storage" : "workgroup memory"),
                    k);
    }
    return std::nullopt;
  }

  // S308 for one name list against the buffers that may appear in it, in declaration order.
  std::optional<ir::Diagnostic> check_list(const std::vector<std::string>& list, const char* field,
                                           const ir::Program& declaring, const char* declarer,
                                           const std::function<bool(const ir::BufferDecl&)>& allowed,
                                           const char* allowed_phrase, const std::vector<std::string>* exact,
                                           std::optional<std::size_t> k) const {
    std::set<std::string_view> seen;
    for (const std::string& name : list) {
      const ir::BufferDecl* decl = declaring.find_buffer(name);
      if (decl == nullptr)
        return fail("S308", fmt::format("`{}` names `{}`, which {} does not declare", field, name, declarer), k);
      if (!seen.insert(name).second) return fail("S308", fmt::format("`{}` names `{}` twice", field, name), k);
      if (!allowed(*decl))
        return fail("S308", fmt::format("`{}` names `{}`, which {} {}", field, name, declarer, allowed_phrase), k);
    }
    if (exact != nullptr && list != *exact)
      return fail("S308",
                  fmt::format("`{}` is {} but must be {} (every such buffer of {}, in declaration order)", field,
                              join(list), join(*exact), declarer),
                  k);
    return std::nullopt;
  }

  // A segment's inputs are what its launch consumes and its outputs what it returns, exactly as the
  // executor binds them (the dispatch ABI, docs/semantics.md §5, in declaration order).
  std::optional<ir::Diagnostic> check_segment_names(const PlannedSegment& s, std::size_t k) const {
    const std::vector<std::string> consumed = vyre_input_names(s.program);
    const std::vector<std::string> produced = vyre_output_names(s.program);
    auto readable = [](const ir::BufferDecl& d) { return d.access != ir::BufferAccess::Workgroup && ir::is_dispatch_input(d); };
    auto writable = [](const ir::BufferDecl& d) { return d.access != ir::BufferAccess::Workgroup && ir::is_dispatch_output(d); };
    if (auto d = check_list(s.input_names, "inputs", s.program, "the segment", readable,
                            "cannot read from the caller (workgroup, write_only, output or live_out)", &consumed, k))
      return d;
    return check_list(s.output_names, "outputs", s.program, "the segment", writable,
                      "cannot return (read, uniform or workgroup without output or live_out)", &produced, k);
  }

  // The caller passes the bytes of the source's dispatch inputs, in declaration order; the final
  // outputs are source storage buffers.
  std::optional<ir::Diagnostic> check_source_names(const SplitPlan& plan) const {
    const std::vector<std::string> callers = vyre_input_names(source_);
    auto input = [](const ir::BufferDecl& d) { return d.access != ir::BufferAccess::Workgroup && ir::is_dispatch_input(d); };
    auto storage = [](const ir::BufferDecl& d) { return d.access != ir::BufferAccess::Workgroup; };
    if (auto d = check_list(plan.caller_inputs, "caller_inputs", source_, "the source", input,
                            "does not take caller bytes", &callers, std::nullopt))
      return d;
    return check_list(plan.final_outputs, "final_outputs", source_, "the source", storage, "declares as workgroup memory",
                      nullptr, std::nullopt);
  }

  std::optional<ir::Diagnostic> dispatch(const json& p, SplitPlan& plan) const {
    const auto d = p.find("dispatch");
    if (d == p.end() || !d->is_object()) return fail("S304", "field `dispatch` is not an object");
    const auto convergence = d->find("convergence");
    const auto grid = d->find("grid");
    if (convergence == d->end() || !convergence->is_string())
      return fail("S304", "field `dispatch.convergence` is not a string");
    if (grid == d->end() || !grid->is_string()) return fail("S304", "field `dispatch.grid` is not a string");
    const std::string c = convergence->get<std::string>();
    const std::string g = grid->get<std::string>();
    if (c == "fingerprint") plan.convergence = PlanConvergence::Fingerprint;
    else if (c == "exact") plan.convergence = PlanConvergence::Exact;
    else if (c == "none") plan.convergence = PlanConvergence::None;
    else return fail("S309", fmt::format("unknown `dispatch.convergence` `{}` (fingerprint, exact or none)", c));
    if (g == "per-segment") plan.grid = PlanGrid::PerSegment;
    else if (g == "whole-program") plan.grid = PlanGrid::WholeProgram;
    else return fail("S309", fmt::format("unknown `dispatch.grid` `{}` (per-segment or whole-program)", g));
    return std::nullopt;
  }

  // One row per source buffer and segment, as the built-in planners record them: the facts the
  // scan finds and the decision the declaration amounts to.
  void add_roles(SplitPlan& plan) const {
    std::vector<BufferAccessSet> scans;
    for (const PlannedSegment& s : plan.segments) scans.push_back(scan_segment_accesses(s.program));
    const FirstWriterMap first = first_writer_per_buffer(scans);
    const std::size_t n = plan.segments.size();
    for (std::size_t k = 0; k < n; ++k) {
      PlannedSegment& segment = plan.segments[k];
      for (const ir::BufferDecl& original : source_.buffers()) {
        const std::string name(source_.name(original.name));
        bool read_later = false, written_later = false;
        for (std::size_t j = k + 1; j < n; ++j) {
          read_later = read_later || scans[j].reads_buffer(name);
          written_later = written_later || scans[j].writes_buffer(name);
        }
        FirstWriter relation = FirstWriter::None;
        if (const auto it = first.find(name); it != first.end())
          relation = it->second < k ? FirstWriter::Earlier : it->second == k ? FirstWriter::This : FirstWriter::Later;
        const RoleFacts facts = role_facts(original, scans[k].reads_buffer(name), scans[k].writes_buffer(name), relation,
                                           k + 1 == n, read_later, written_later);
        RoleDecision decision;
        if (const ir::BufferDecl* decl = segment.program.find_buffer(name)) {
          const bool same = decl->access == original.access && decl->kind == original.kind &&
                            decl->is_output == original.is_output &&
                            decl->pipeline_live_out == original.pipeline_live_out &&
                            decl->output_byte_range == original.output_byte_range;
          decision.disposition = same ? Disposition::KeepUnchanged : Disposition::Rewrite;
          decision.access = decl->access;
          decision.kind = decl->kind;
          decision.is_output = decl->is_output;
          decision.live_out = decl->pipeline_live_out;
          decision.reason = same ? "external planner: as in the source" : "external planner: rewritten";
        } else {
          decision.reason = "external planner: not declared";
        }
        segment.roles.push_back(BufferRoleRow{name, facts, decision});
      }
    }
  }

  const ir::Program& source_;
  const Subject& subject_;
  std::size_t segment_count_ = 0;
};

}  // namespace

std::string describe(const Subject& subject) {
  return fmt::format("planner `{}`, case `{}`", subject.planner, subject.case_name.empty() ? "-" : subject.case_name);
}

std::string hello_request() {
  return json{{"type", "hello"}, {"protocol", std::string(kProtocol)}}.dump();
}

std::string plan_request(std::uint64_t id, std::string_view case_name, const ir::Program& source) {
  json j{{"type", "plan"}, {"id", id}, {"case", std::string(case_name)}, {"program", ir::print(source)}};
  // Invalid UTF-8 in a name cannot come from the parser; replace rather than throw.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

ir::Result<Hello> decode_hello(std::string_view line, const Subject& subject) {
  auto fail = [&](std::string_view code, std::string what) {
    return split_error::planner_process(code, fmt::format("{}: {}", describe(subject), what));
  };
  const std::optional<json> j = parse_object(line);
  if (!j) return fail("S303", fmt::format("the handshake answer is not a JSON object: `{}`", shown(line)));
  if (j->value("type", json()) != "hello") return fail("S304", "the handshake answer's `type` is not `hello`");
  const json protocol = j->value("protocol", json());
  if (!protocol.is_string() || protocol.get<std::string>() != kProtocol)
    return fail("S304", fmt::format("the planner speaks protocol {} but gridcheck speaks `{}`",
                                    protocol.is_string() ? "`" + protocol.get<std::string>() + "`" : protocol.dump(),
                                    kProtocol));
  Hello hello;
  if (const auto it = j->find("planner"); it != j->end() && it->is_string()) hello.planner = it->get<std::string>();
  if (const auto it = j->find("version"); it != j->end() && it->is_string()) hello.version = it->get<std::string>();
  return hello;
}

ir::Result<SplitPlan> decode_plan_response(std::string_view line, std::uint64_t id, const ir::Program& source,
                                           const Subject& subject, bool& stream_broken) try {
  stream_broken = true;
  auto fail = [&](std::string_view code, std::string what) {
    return split_error::planner_process(code, fmt::format("{}: {}", describe(subject), what));
  };
  const std::optional<json> j = parse_object(line);
  if (!j) return fail("S303", fmt::format("the response line is not a JSON object: `{}`", shown(line)));
  if (j->value("type", json()) != "plan") return fail("S304", "the response's `type` is not `plan`");
  const json got = j->value("id", json());
  if (!got.is_number_unsigned() || got.get<std::uint64_t>() != id)
    return fail("S304", fmt::format("the response's `id` is {} but the request's is {}", got.dump(), id));
  stream_broken = false;
  return PlanDecoder(source, subject).decode(*j);
} catch (const std::exception& e) {  // nlohmann type errors: a check above missed a shape
  stream_broken = true;
  return split_error::planner_process("S304", fmt::format("{}: malformed response: {}", describe(subject), e.what()));
}

}  // namespace gridcheck::planner::plan_protocol
