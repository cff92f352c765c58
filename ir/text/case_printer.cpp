// print(const Case&): the canonical layout of a case file (docs/format.md, "Canonical form").
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "ir/text/literal.hpp"
#include "ir/text/printer.hpp"
#include "ir/text/program_printer.hpp"
#include "ir/text/spelling.hpp"

namespace gridcheck::ir {
namespace {

std::string detail_text(std::string_view detail) {
  // Bare when it is words separated by single spaces, else a string.
  if (detail.empty()) return {};
  std::size_t start = 0;
  for (;;) {
    const std::size_t space = detail.find(' ', start);
    const std::string_view w = detail.substr(start, space == std::string_view::npos ? space : space - start);
    if (!spelling::is_word(w)) return spelling::quoted_string(detail);
    if (space == std::string_view::npos) return std::string(detail);
    start = space + 1;
  }
}

std::string oracle_prefix(Oracle oracle, std::string_view profile) {
  std::string out = fmt::format("expect {}", name_of(oracle));
  if (!profile.empty()) out += fmt::format(" {}", spelling::word_or_string(profile));
  return out;
}

// Element types by buffer name (the first declaration wins, as in the parser); u32 for unknown names.
class ElementTypes {
 public:
  explicit ElementTypes(const Program& p) {
    for (const BufferDecl& b : p.buffers()) types_.emplace(p.name(b.name), b.element);
  }
  ScalarType operator()(std::string_view buffer) const {
    const auto it = types_.find(buffer);
    return it == types_.end() ? ScalarType::U32 : it->second;
  }

 private:
  std::unordered_map<std::string_view, ScalarType> types_;
};

}  // namespace

std::string print(const Case& c) {
  text::ProgramPrinter w(c.program);
  for (const std::string& comment : c.header_comments) {
    std::string_view rest = comment;
    for (;;) {
      const std::size_t nl = rest.find('\n');
      const std::string_view line = rest.substr(0, nl);
      w.write(line.empty() ? "#" : fmt::format("# {}", line));
      w.newline();
      if (nl == std::string_view::npos) break;
      rest = rest.substr(nl + 1);
    }
  }
  w.write(fmt::format("case {}", spelling::word_or_string(c.name)));
  if (!c.description.empty()) w.write(fmt::format(" {}", spelling::quoted_string(c.description)));
  w.newline();
  for (const auto& [key, value] : c.meta) {
    w.write(fmt::format("meta {} {}", spelling::word_or_string(key), spelling::word_or_string(value)));
    w.newline();
  }

  w.newline();
  w.workgroup_size_line();
  if (c.grid)
    w.write(fmt::format("grid {} {} {}", (*c.grid)[0], (*c.grid)[1], (*c.grid)[2]));
  else
    w.write("grid auto");
  w.newline();
  w.write(fmt::format("fixpoint {}", c.fixpoint));
  w.newline();
  // The default (error) is not printed, so a case without the lines prints as it was written.
  if (c.oob != MemoryCheck::Error) {
    w.write(fmt::format("oob {}", name_of(c.oob)));
    w.newline();
  }
  if (c.uninit != MemoryCheck::Error) {
    w.write(fmt::format("uninit {}", name_of(c.uninit)));
    w.newline();
  }

  if (!c.program.buffers().empty()) {
    w.newline();
    w.buffer_lines();
  }

  const ElementTypes element_of(c.program);
  if (!c.inputs.empty()) {
    w.newline();
    for (const InputData& in : c.inputs) {
      const ScalarType element = element_of(in.buffer);
      w.write(fmt::format("input {} = ", spelling::name(in.buffer)));
      switch (in.kind) {
        case InputData::Kind::Values: w.value_list(element, in.values); break;
        case InputData::Kind::Fill: w.write(fmt::format("fill {}", text::format_value(element, in.first))); break;
        case InputData::Kind::Series:
          w.write(fmt::format("series {} step {}", text::format_value(element, in.first),
                              text::format_value(element, in.step)));
          break;
        case InputData::Kind::Random: w.write(fmt::format("random seed {}", in.seed)); break;
      }
      if (in.kind != InputData::Kind::Values && in.length != 0) w.write(fmt::format(" count {}", in.length));
      w.newline();
    }
  }

  w.newline();
  w.body_block();

  // Expectations grouped by (oracle, profile) in order of first appearance: the verdict, the launch
  // count, then the buffers.
  struct Group {
    std::vector<const Expectation*> verdicts;
    std::vector<const ExpectedLaunches*> launches;
    std::vector<const ExpectedOutput*> outputs;
  };
  std::vector<Group> groups;
  std::map<std::pair<Oracle, std::string_view>, std::size_t> group_of;
  auto group = [&](Oracle o, std::string_view profile) -> Group& {
    const auto [it, fresh] = group_of.emplace(std::pair{o, profile}, groups.size());
    if (fresh) groups.emplace_back();
    return groups[it->second];
  };
  for (const Expectation& e : c.expectations) group(e.oracle, e.profile).verdicts.push_back(&e);
  for (const ExpectedLaunches& l : c.launches) group(l.oracle, l.profile).launches.push_back(&l);
  for (const ExpectedOutput& o : c.outputs) group(o.oracle, o.profile).outputs.push_back(&o);
  if (!groups.empty()) w.newline();
  for (const Group& g : groups) {
    for (const Expectation* e : g.verdicts) {
      w.write(fmt::format("{}: {}", oracle_prefix(e->oracle, e->profile), name_of(e->verdict)));
      if (!e->detail.empty()) w.write(fmt::format(" {}", detail_text(e->detail)));
      w.newline();
    }
    for (const ExpectedLaunches* l : g.launches) {
      w.write(fmt::format("{} launches {}", oracle_prefix(l->oracle, l->profile), l->count));
      w.newline();
    }
    for (const ExpectedOutput* o : g.outputs) {
      w.write(fmt::format("{} {}", oracle_prefix(o->oracle, o->profile), spelling::name(o->buffer)));
      if (o->words) {
        w.write(" = ");
        w.value_list(element_of(o->buffer), *o->words);
      } else {
        w.write(fmt::format(" hash 0x{:016x}", o->hash.value_or(0)));
      }
      w.newline();
    }
  }
  return w.take();
}

}  // namespace gridcheck::ir
