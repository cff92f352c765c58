#include "tools/report_html.hpp"

#include <fmt/format.h>

#include <fmt/ranges.h>

#include <cstring>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <nlohmann/json.hpp>

#include "ir/equality.hpp"
#include "ir/text/printer.hpp"
#include "planner/external_profile.hpp"
#include "planner/plan_render.hpp"
#include "planner/segment_plan.hpp"
#include "planner/profile.hpp"
#include "tools/report_json.hpp"

namespace gridcheck::tools {
namespace {

using nlohmann::json;
using planner::Bytes;

/// The element a page marks for one diverging profile.
struct Marked {
  std::size_t split = 0;   ///< index into LaunchTrace::splits
  std::optional<std::size_t> launch;
  std::optional<std::size_t> phase;  ///< the aligned R phase
  std::string buffer;
  std::size_t element = 0;
};

const props::TracedBuffer* find_buffer(const std::vector<props::TracedBuffer>& buffers, std::string_view name) {
  for (const props::TracedBuffer& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

/// The first launch (in order) whose buffer (in declaration order) differs from its aligned R phase;
/// else the final difference the oracle reported, at the last launch.
std::optional<Marked> mark_divergence(const ir::Case& c, const props::CaseReport& report, const props::LaunchTrace& trace,
                                      std::size_t split) {
  const props::SplitTrace& s = trace.splits[split];
  // The grids are H-cpu's; an H-gpu divergence of the same profile (--backend gpu or both) is looked
  // for in them too: a planner divergence shows there, a GPU-only one does not.
  const props::OracleOutcome* outcome = report.find("H-cpu", s.profile);
  const bool cpu_diverges = outcome != nullptr && outcome->verdict == ir::Verdict::Diverge;
  bool any_diverges = cpu_diverges;
  for (const props::OracleOutcome& o : report.outcomes)
    any_diverges = any_diverges || (o.profile == s.profile && o.verdict == ir::Verdict::Diverge);
  if (!any_diverges) return std::nullopt;
  for (const props::SplitLaunch& l : s.launches) {
    if (!l.reference_phase) continue;
    for (const props::BufferInfo& info : trace.buffers) {
      const props::TracedBuffer* b = find_buffer(l.buffers, info.name);
      if (b == nullptr) continue;
      const Bytes r = props::reference_view(c.program, trace.reference[*l.reference_phase], b->name, b->bytes.size());
      if (auto e = props::first_different_element(r, b->bytes)) return Marked{split, l.index, l.reference_phase, b->name, *e};
    }
  }
  if (!cpu_diverges || !outcome->divergence) return std::nullopt;
  Marked m{split, std::nullopt, std::nullopt, outcome->divergence->final_diff.buffer,
           static_cast<std::size_t>(outcome->divergence->final_diff.element_index)};
  if (!s.launches.empty()) m.launch = s.launches.back().index;
  if (!trace.reference.empty()) m.phase = trace.reference.size() - 1;
  return m;
}

/// The statement lines to mark for `m` and why (see report_html.hpp).
std::pair<std::vector<std::uint32_t>, std::string> statement_lines(const ir::Case& c, const props::CaseReport& report,
                                                                   const props::LaunchTrace& trace, const Marked& m) {
  const props::OracleOutcome* outcome = report.find("H-cpu", trace.splits[m.split].profile);
  if (outcome && outcome->divergence && outcome->divergence->last_writer_site &&
      outcome->divergence->last_writer_site->loc.known() && outcome->divergence->segment_diff &&
      outcome->divergence->segment_diff->buffer == m.buffer &&
      outcome->divergence->segment_diff->element_index == m.element)
    return {{outcome->divergence->last_writer_site->loc.line}, "R's last store to the first divergent element"};
  if (m.phase) {
    for (std::size_t i = 0; i < trace.buffers.size(); ++i)
      if (trace.buffers[i].name == m.buffer && i < trace.reference[*m.phase].buffers.size() &&
          !trace.reference[*m.phase].buffers[i].store_lines.empty())
        return {trace.reference[*m.phase].buffers[i].store_lines,
                fmt::format("R's stores to `{}` in the divergent phase (the element itself was not stored there)", m.buffer)};
  }
  if (const ir::BufferDecl* d = c.program.find_buffer(m.buffer); d != nullptr && d->loc.known())
    return {{d->loc.line}, fmt::format("the declaration of `{}` (R stored nothing to it in the divergent phase)", m.buffer)};
  return {{}, ""};
}

/// The embedded images: each distinct byte vector once, up to the budget.
class BlobTable {
 public:
  /// The index of `bytes`, or null when it would pass the budget.
  json add(const Bytes& bytes) {
    const std::uint64_t h = ir::fnv1a64(bytes.data(), bytes.size());
    for (std::size_t i : by_hash_[h])
      if (*stored_[i] == bytes) return i;
    if (raw_ + bytes.size() > kHtmlByteBudget) {
      ++left_out_;
      return nullptr;
    }
    raw_ += bytes.size();
    by_hash_[h].push_back(stored_.size());
    stored_.push_back(&bytes);
    return stored_.size() - 1;
  }
  json encoded() const {
    json out = json::array();
    for (const Bytes* b : stored_) out.push_back(encode_blob(*b));
    return out;
  }
  std::size_t left_out() const { return left_out_; }
  std::size_t raw_bytes() const { return raw_; }

 private:
  std::map<std::uint64_t, std::vector<std::size_t>> by_hash_;
  std::vector<const Bytes*> stored_;  // borrowed: every vector added outlives the table's encoded()
  std::size_t raw_ = 0, left_out_ = 0;
};

json plan_of(const ir::Case& c, const std::string& profile_name) {
  const planner::Profile* profile = planner::find_profile(profile_name);
  if (profile == nullptr) return {{"error", "the profile is not registered"}};
  const planner::PlanCaseScope case_scope(c.name);
  const ir::Result<planner::SplitPlan> plan = planner::plan_split(*profile, c.program);
  if (!plan) {
    std::string message;
    for (const ir::Diagnostic& d : plan.diagnostics()) message += fmt::format("{}[{}]: {}\n", ir::name_of(d.severity), d.code, d.message);
    return {{"error", message}};
  }
  planner::RenderOptions options;
  options.print_program = [](const ir::Program& p) { return ir::print(p); };
  return planner::plan_to_json(*plan, options);
}

struct PageData {
  json data;
  std::vector<Marked> marks;
};

PageData page_data(const HtmlPageInput& in) {
  const ir::Case& c = *in.test_case;
  const props::LaunchTrace& trace = *in.trace;
  PageData page;
  for (std::size_t s = 0; s < trace.splits.size(); ++s)
    if (auto m = mark_divergence(c, *in.report, trace, s)) page.marks.push_back(*m);

  BlobTable blobs;
  json& d = page.data;
  d["case"] = c.name;
  d["file"] = in.file;
  json buffers = json::array();
  for (const props::BufferInfo& b : trace.buffers)
    buffers.push_back({{"name", b.name}, {"type", std::string(ir::name_of(b.element))}, {"line", b.line},
                       {"count", b.initial.size() / 4}, {"initial", blobs.add(b.initial)}});
  d["buffers"] = std::move(buffers);

  json phases = json::array();
  for (std::size_t k = 0; k < trace.reference.size(); ++k) {
    const props::ReferencePhase& p = trace.reference[k];
    json bs = json::array();
    for (const props::TracedBuffer& b : p.buffers)
      bs.push_back({{"bytes", blobs.add(b.bytes)}, {"stored", blobs.add(b.stored)}, {"store_lines", b.store_lines}});
    phases.push_back({{"iteration", p.iteration}, {"phase", p.phase}, {"fence_line", p.fence_line}, {"buffers", std::move(bs)}});
  }
  d["reference"] = std::move(phases);

  json splits = json::array();
  std::list<Bytes> views;  // R's bytes as each launch sees them (sliced to an output range), at stable addresses
  for (const props::SplitTrace& s : trace.splits) {
    const props::OracleOutcome* outcome = in.report->find("H-cpu", s.profile);
    json launches = json::array();
    for (const props::SplitLaunch& l : s.launches) {
      json bs = json::array();
      for (const props::TracedBuffer& b : l.buffers) {
        json reference = nullptr;
        if (l.reference_phase && c.program.find_buffer(b.name) != nullptr) {
          Bytes r = props::reference_view(c.program, trace.reference[*l.reference_phase], b.name, b.bytes.size());
          views.push_back(std::move(r));
          reference = blobs.add(views.back());
        }
        bs.push_back({{"name", b.name}, {"bytes", blobs.add(b.bytes)}, {"reference", reference}});
      }
      launches.push_back({{"index", l.index}, {"pass", l.pass},
                          {"segment", l.segment == planner::LaunchRecord::kUnsplit ? json(nullptr) : json(l.segment)},
                          {"reference_phase", l.reference_phase ? json(*l.reference_phase) : json(nullptr)},
                          {"buffers", std::move(bs)}});
    }
    splits.push_back({{"profile", s.profile},
                      {"verdict", outcome ? json(std::string(ir::name_of(outcome->verdict))) : json(nullptr)},
                      {"aligned", s.aligned}, {"segments", s.segment_count},
                      {"failure", s.failure ? json(s.failure->diagnostic.code + ": " + s.failure->diagnostic.message) : json(nullptr)},
                      {"launches", std::move(launches)}, {"plan", plan_of(c, s.profile)}});
  }
  d["splits"] = std::move(splits);
  json marks = json::array();
  for (const Marked& m : page.marks)
    marks.push_back({{"split", m.split}, {"launch", m.launch ? json(*m.launch) : json(nullptr)},
                     {"phase", m.phase ? json(*m.phase) : json(nullptr)}, {"buffer", m.buffer}, {"element", m.element}});
  d["marks"] = std::move(marks);
  d["left_out"] = blobs.left_out();
  d["steps_left_out"] = trace.steps_left_out;
  d["blobs"] = blobs.encoded();
  return page;
}

std::string summary_table(const ir::Case& c, const props::CaseReport& report) {
  std::string out = "<table class=\"summary\" id=\"summary\"><tr><th>oracle</th><th>profile</th><th>verdict</th><th>launches</th><th>message</th></tr>\n";
  out += fmt::format("<tr class=\"verdict-{0}\"><td>R</td><td></td><td>{0}{1}</td><td></td><td>{2}</td></tr>\n",
                     html_escape(ir::name_of(report.reference_verdict)),
                     report.reference_detail.empty() ? "" : " " + html_escape(report.reference_detail),
                     report.schedule_dependent ? "R's outputs depend on the schedule (R044)" : "");
  for (const props::OracleOutcome& s : report.outcomes)
    out += fmt::format("<tr class=\"verdict-{0}\" data-oracle=\"{1}\" data-profile=\"{2}\"><td>{1}</td><td>{2}</td><td>{0}{3}</td><td>{4}</td><td>{5}</td></tr>\n",
                       html_escape(ir::name_of(s.verdict)), html_escape(s.oracle), html_escape(s.profile),
                       s.detail.empty() ? "" : " " + html_escape(s.detail), s.launches, html_escape(s.message));
  (void)c;
  return out + "</table>\n";
}

std::string first_divergence_table(const HtmlPageInput& in, const std::vector<Marked>& marks,
                                   const std::vector<std::uint32_t>& lines) {
  if (marks.empty()) {
    // A divergence the H-cpu grids do not show (H-gpu only): said, never reported as none.
    std::string out;
    for (const props::OracleOutcome& o : in.report->outcomes)
      if (o.verdict == ir::Verdict::Diverge)
        out += fmt::format("<p class=\"bad divergence-not-drawn\" data-oracle=\"{0}\" data-profile=\"{1}\">{0} {1} diverges "
                           "from R ({2}), but the grids are H-cpu's and show no difference: nothing is marked.</p>\n",
                           html_escape(o.oracle), html_escape(o.profile), html_escape(o.message));
    if (!out.empty()) return "<div id=\"divergence-not-drawn\">\n" + out + "</div>\n";
    return "<p id=\"no-divergence\" class=\"ok\">No split diverges from R: nothing is marked.</p>\n";
  }
  const Marked& m = marks.front();
  const props::SplitTrace& s = in.trace->splits[m.split];
  const props::OracleOutcome* outcome = in.report->find("H-cpu", s.profile);
  if (outcome == nullptr || outcome->verdict != ir::Verdict::Diverge)  // H-gpu's divergence (--backend gpu)
    for (const props::OracleOutcome& o : in.report->outcomes)
      if (o.profile == s.profile && o.verdict == ir::Verdict::Diverge) {
        outcome = &o;
        break;
      }
  std::string launch = m.launch ? std::to_string(*m.launch) : "";
  std::string out = fmt::format(
      "<table class=\"first\" id=\"first-divergence\" data-profile=\"{}\" data-launch=\"{}\" data-phase=\"{}\" "
      "data-buffer=\"{}\" data-element=\"{}\" data-lines=\"{}\">\n",
      html_escape(s.profile), launch, m.phase ? std::to_string(*m.phase) : "", html_escape(m.buffer), m.element,
      fmt::join(lines, " "));
  out += fmt::format("<tr><th>profile</th><td>{}</td></tr>\n", html_escape(s.profile));
  if (m.launch) {
    const props::SplitLaunch& l = s.launches[*m.launch];
    out += fmt::format("<tr><th>first divergent launch</th><td>launch {} (pass {}{})</td></tr>\n", *m.launch, l.pass,
                       l.segment == planner::LaunchRecord::kUnsplit ? ", unsplit" : fmt::format(", segment {}", l.segment));
  }
  if (m.phase) out += fmt::format("<tr><th>compared with</th><td>R phase {}</td></tr>\n", *m.phase);
  out += fmt::format("<tr><th>buffer, element</th><td><a href=\"#buffer-{0}\">{0}</a>[{1}]</td></tr>\n", html_escape(m.buffer), m.element);
  if (outcome)
    out += fmt::format("<tr><th>{} says</th><td>{}</td></tr>\n", html_escape(outcome->oracle), html_escape(outcome->message));
  out += "</table>\n";
  for (std::size_t i = 1; i < marks.size(); ++i)
    out += fmt::format("<p class=\"also\">Also diverging: {} (launch {}, {}[{}]).</p>\n",
                       html_escape(in.trace->splits[marks[i].split].profile),
                       marks[i].launch ? std::to_string(*marks[i].launch) : "-", html_escape(marks[i].buffer), marks[i].element);
  return out;
}

std::string program_listing(const HtmlPageInput& in, const std::vector<std::uint32_t>& marked, const std::string& why) {
  const props::LaunchTrace& t = *in.trace;
  std::set<std::uint32_t> marked_set(marked.begin(), marked.end());
  std::set<std::uint32_t> fences(t.fence_lines.begin(), t.fence_lines.end());
  std::string out = "<div class=\"program\" id=\"program\">\n";
  std::size_t line = 1, start = 0;
  bool first_mark = true;
  while (start <= in.text.size()) {
    std::size_t end = in.text.find('\n', start);
    if (end == std::string::npos) end = in.text.size();
    if (start == in.text.size() && end == start) break;
    const std::string_view text(in.text.data() + start, end - start);
    std::string classes = "line";
    std::string extra;
    if (t.kernel_first_line != 0 && line >= t.kernel_first_line && line <= t.kernel_last_line) {
      std::size_t segment = 0;
      for (std::uint32_t f : t.fence_lines) segment += f < line ? 1 : 0;
      classes += fmt::format(" in-kernel seg{}", segment % 2);
      extra += fmt::format(" data-segment=\"{}\"", segment);
    }
    if (fences.contains(static_cast<std::uint32_t>(line))) classes += " fence";
    // The line keeps its anchor id (L<n>); the first marked line's statement carries #divergent-statement.
    std::string code_attributes;
    if (marked_set.contains(static_cast<std::uint32_t>(line))) {
      classes += " divergent";
      if (first_mark)
        code_attributes = fmt::format(" id=\"divergent-statement\" data-line=\"{}\" title=\"{}\"", line, html_escape(why));
      first_mark = false;
    }
    out += fmt::format("<div class=\"{}\" id=\"L{}\"{}><span class=\"ln\">{}</span><code{}>{}</code></div>\n", classes,
                       line, extra, line, code_attributes, html_escape(text));
    ++line;
    start = end + 1;
  }
  out += "</div>\n";
  if (!why.empty()) out += fmt::format("<p class=\"note\">Marked: {}.</p>\n", html_escape(why));
  return out;
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string script_safe_json(std::string json_text) {
  std::string out;
  out.reserve(json_text.size());
  for (char ch : json_text) {
    if (ch == '<') out += "\\u003c";
    else out += ch;
  }
  return out;
}

nlohmann::json encode_blob(const planner::Bytes& bytes) {
  const std::string raw = base64(bytes.data(), bytes.size());
  if (bytes.size() % 4 != 0 || bytes.empty()) return raw;
  const std::size_t n = bytes.size() / 4;
  auto word = [&](std::size_t i) {
    std::uint32_t w = 0;
    std::memcpy(&w, bytes.data() + 4 * i, 4);
    return w;
  };
  nlohmann::json runs = nlohmann::json::array();
  // Each run costs up to ~30 characters; past raw.size() / 30 runs base64 is shorter.
  const std::size_t max_runs = raw.size() / 30;
  for (std::size_t i = 0; i < n;) {
    const std::uint32_t first = word(i);
    const std::uint32_t step = i + 1 < n ? word(i + 1) - first : 0;
    std::size_t j = i + 1;
    while (j < n && word(j) == static_cast<std::uint32_t>(word(j - 1) + step)) ++j;
    runs.push_back({first, step, j - i});
    if (runs.size() > max_runs) return raw;
    i = j;
  }
  nlohmann::json out = {{"runs", std::move(runs)}};
  if (out.dump().size() >= raw.size()) return raw;
  return out;
}

std::string base64(const std::uint8_t* data, std::size_t size) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const std::uint32_t v = (std::uint32_t{data[i]} << 16) | (std::uint32_t{data[i + 1]} << 8) | data[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == size) {
    const std::uint32_t v = std::uint32_t{data[i]} << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == size) {
    const std::uint32_t v = (std::uint32_t{data[i]} << 16) | (std::uint32_t{data[i + 1]} << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::string diff_html_page(const HtmlPageInput& in) {
  const PageData page = page_data(in);
  std::vector<std::uint32_t> lines;
  std::string why;
  if (!page.marks.empty()) std::tie(lines, why) = statement_lines(*in.test_case, *in.report, *in.trace, page.marks.front());
  const std::string title = fmt::format("gridcheck diff: {}", in.test_case->name);
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "script-src 'unsafe-inline'; img-src data:\">\n";
  out += fmt::format("<title>{}</title>\n<style>\n{}</style>\n</head>\n<body>\n", html_escape(title), html_page_style());
  out += fmt::format("<header><h1>{}</h1><p class=\"file\">{} &middot; exit code {}</p></header>\n", html_escape(title),
                     html_escape(in.file), in.exit_code);
  out += "<section id=\"verdicts\"><h2>Verdicts</h2>\n" + summary_table(*in.test_case, *in.report);
  out += first_divergence_table(in, page.marks, lines) + "</section>\n";
  out += "<section id=\"program-section\"><h2>Program</h2>\n<p class=\"note\">Segment bands alternate between the "
         "kernel's top-level <code>grid_sync</code>s (each ends a launch of a split that cuts there).</p>\n";
  out += program_listing(in, lines, why) + "</section>\n";
  out += "<section id=\"segments\"><h2>Segments and buffer roles</h2><div id=\"plans\"></div></section>\n";
  out += "<section id=\"buffers\"><h2>Buffers after every step</h2>\n<div id=\"legend\"></div><div id=\"grids\"></div></section>\n";
  out += "<div id=\"inspector\" class=\"inspector\"></div><div id=\"tooltip\" class=\"tooltip\"></div>\n";
  out += "<noscript><p>The buffer grids and the plan need JavaScript; the tables above do not.</p></noscript>\n";
  out += "<script type=\"application/json\" id=\"gridcheck-data\">";
  out += script_safe_json(page.data.dump(-1, ' ', false, json::error_handler_t::replace));
  out += "</script>\n<script>\n";
  out += html_page_script();
  out += "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace gridcheck::tools
