// Fuzz driver for the text parser: feeds random and mutated case files to parse_case and, for every
// input it accepts, checks the print round trip (parse(print(c)) structurally equal, print idempotent).
// For every input it rejects it checks the diagnostics (P codes, bounded count, positions inside the
// text) and renders them. A crash, a sanitizer report, a failed check or an input that takes longer
// than --timeout-ms stops the run and leaves the input in --out (default ./parser_fuzz_failure.gc).
//
//   ir_text_parser_fuzz [--iterations N] [--seed S] [--corpus DIR]... [--timeout-ms T] [--out FILE]
//
// Input i is generated from (seed, i) alone, so `--seed S --first i --iterations 1` replays it.
// Build it with -DGRIDCHECK_SANITIZE=ON to run under ASan+UBSan.

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "ir/equality.hpp"
#include "ir/text/limits.hpp"
#include "ir/text/parser.hpp"
#include "ir/text/printer.hpp"
#include "ir/text/random_case_for_tests.hpp"

namespace gridcheck::ir {
namespace {

// -------------------------------------------------------------------------------- seed samples

constexpr std::array<std::string_view, 6> kSamples = {
    R"gc(# docs/vyre-0.7.2.md#a1: read_write buffer with caller bytes, written but not read by a segment
case A1 "read_write buffer with caller bytes written but not read before a fence"
meta origin "vyre-0.7.2 docs/vyre-0.7.2.md#s10-a"

workgroup_size 4 1 1
grid 1 1 1
fixpoint 2

buffer buf: u32[4] read_write binding 0
buffer out: u32[4] read_write binding 1 output live_out
buffer sh: u32[64] workgroup
buffer dyn: u32[] read binding 2
buffer r: u32[4] write_only binding 3 range 4..12 kind persistent
buffer f: f32[3] read binding 4
buffer i: i32[2] read binding 5
buffer q: bool[2] read binding 6

input buf = [1, 2, 3, 4]
input f = series 0.5 step -1.25
input i = fill -7
input q = [true, 2]
input dyn = random seed 42 count 16

kernel {
  let v = buf[gid.x] + 1
  buf[0] = 9
  if v < len(buf) { return } else if v == 3 { barrier acquire } else { barrier }
  loop k in 0..4 { out[k] = atomic_add(out, 0, 1) }
  grid_sync
  let w = -3i * -(4i) + abs_diff(1, 2) - -x; let z = !(a < b) && ~c == popcount(7) || select(true, 1.5, f32_bits(0x7fc00000)) >= -0.0
  let y = atomic_compare_exchange(out, 1, 2, 3, relaxed) + u32(2.5f) << 3 >> (1 + 2) & 0xFF | 4 ^ 5 % 6 / 7
  sh[lid.x] = wgid.y + num_wg.z * wg_size.x
}

expect R: ok
expect R buf = [9, 2, 3, 4]
expect R out hash 0x0123456789abcdef
expect H-cpu vyre-0.7.2: diverge planner
expect H-cpu vyre-0.7.2 buf = [9, 0, 0, 0]
expect H-gpu sound: match
expect W-gpu: error "K001: no device"
)gc",
    R"gc(case scan-nodes
entry {
  region "a" from "b" {
    all_reduce buf sum group 2
    broadcast buf root 3
    all_gather buf -> out
    reduce_scatter buf -> out max group 1
    async_load buf -> out offset 0 size 16 tag "t"
    async_store buf -> out offset gid.x * 4 size 4 tag "t\x01\"q"
    async_wait "t"
    indirect_dispatch buf offset 4
    trap 1 tag "boom"
    opaque "ext"
  }
  block { let `weird name` = `true`; if = if + 1 }
  return
}
)gc",
    R"gc(case deep
grid auto
kernel {
  if a { if b { if c { loop i in 0..n { block { region "r" { let x = ((((1 + 2) * 3) - 4) / 5) } } } } } }
}
)gc",
    R"gc(workgroup_size 8 1 1

buffer out: u32[8] read_write binding 0 output live_out

kernel {
  out[gid.x] = gid.x
}
)gc",
    R"gc(case lists
buffer b: f32[20] read binding 0
input b = [
  0.0, 1.0, 2.5, -3.5, 1e-45, 3.4028235e+38, f32_bits(0xffc00001), 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0,
  16.0, 17.0, 18.0, 19.0
]
kernel {}
expect R b = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]
expect H-cpu "my profile" b hash 0xffffffffffffffff
)gc",
    R"gc(case t
workgroup_size 1 1 1
buffer a: i32[] read_write binding 0
input a = series -2147483648 step 1 count 3
kernel { let x = -2147483648i + 0x80000000i; a[0] = i32(x) }
expect R a = [1, -1, 0]
)gc",
};

constexpr std::array<std::string_view, 40> kFragments = {
    "{", "}", "(", ")", "[", "]", "\"", "`", "\\", "\n", "#", "-", "..", "->", ";", ",", "=", ":", " ",
    "let ", "if ", "else ", "loop i in 0..", "region \"g\" ", "kernel {", "entry {", "expect R: ok\n",
    "input b = [", "buffer b: u32[4] read binding 0\n", "case x\n", "grid_sync", "f32_bits(", "atomic_add(b, ",
    "gid.", "\xff", std::string_view("\0", 1), "select(", "\t", "\r\n", "barrier "};

constexpr std::array<std::string_view, 14> kHugeNumbers = {
    "4294967296",   "4294967295",          "99999999999999999999999999999", "2147483648i",   "-2147483649i",
    "0xFFFFFFFFFF", "0x",                  "1e39",                          "1e-50",         "3.4028236e38",
    "0xFFFFFFFFi",  "18446744073709551616", "1.5i",                          "340282366920938463463374607431768211456"};

// -------------------------------------------------------------------------------- mutation

class Mutator {
 public:
  Mutator(std::uint64_t seed, const std::vector<std::string>& pool) : rng_(seed), pool_(pool) {}

  std::size_t below(std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
  int operator()(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  std::string input() {
    const std::size_t kind = below(100);
    if (kind < 4) return random_bytes();
    std::string s;
    if (kind < 20) {
      testing::RandomCaseGenerator<Mutator> generator(*this);
      s = print(generator.generate());
    } else {
      s = pool_[below(pool_.size())];
    }
    if (kind < 12) return s;  // some unmutated random cases: they must round-trip
    for (std::size_t n = 1 + below(4); n > 0; --n) mutate(s);
    return s;
  }

 private:
  std::string random_bytes() {
    std::string s(below(512), '\0');
    for (char& c : s) c = static_cast<char>(below(256));
    return s;
  }

  std::string_view fragment() { return kFragments[below(kFragments.size())]; }

  void mutate(std::string& s) {
    const std::size_t pos = below(s.size() + 1);
    switch (below(13)) {
      case 0:  // bit flip
        if (!s.empty()) s[below(s.size())] ^= static_cast<char>(1u << below(8));
        break;
      case 1:  // byte from the interesting set
        if (!s.empty()) s[below(s.size())] = fragment()[0];
        break;
      case 2: s.insert(pos, fragment()); break;
      case 3: {  // delete a range
        const std::size_t n = below(std::min<std::size_t>(64, s.size() - std::min(pos, s.size()) + 1));
        s.erase(std::min(pos, s.size()), n);
        break;
      }
      case 4: s.resize(pos); break;  // truncate
      case 5: {                      // splice a token run from another sample
        const std::string& other = pool_[below(pool_.size())];
        const std::size_t from = below(other.size() + 1);
        const std::size_t len = below(std::min<std::size_t>(200, other.size() - from) + 1);
        s.insert(pos, other, from, len);
        break;
      }
      case 6: {  // duplicate a line
        const std::size_t begin = s.rfind('\n', pos == 0 ? 0 : pos - 1);
        const std::size_t start = begin == std::string::npos ? 0 : begin + 1;
        const std::size_t end = s.find('\n', start);
        const std::string line = s.substr(start, end == std::string::npos ? std::string::npos : end - start + 1);
        s.insert(start, line);
        break;
      }
      case 7:
      case 8: {  // deep nesting
        static constexpr std::array<std::string_view, 8> kOpeners = {"(", "{", "[", "-", "!", "block {", "if x {",
                                                                     "else if x {} "};
        const std::string_view opener = kOpeners[below(kOpeners.size())];
        const std::size_t depth = below(10) == 0 ? 2000 + below(20000) : below(400);
        std::string run;
        for (std::size_t i = 0; i < depth; ++i) run += opener;
        if (below(2) == 0) {
          const char closer = opener.back() == '(' ? ')' : opener.back() == '[' ? ']' : '}';
          if (closer != '}' || opener.find('{') != std::string_view::npos) run += "1" + std::string(depth, closer);
        }
        s.insert(pos, run);
        break;
      }
      case 9: {  // huge or odd number in place of a digit run
        std::size_t d = s.find_first_of("0123456789", pos);
        if (d == std::string::npos) d = pos;
        std::size_t e = d;
        while (e < s.size() && std::isalnum(static_cast<unsigned char>(s[e]))) ++e;
        std::string number(kHugeNumbers[below(kHugeNumbers.size())]);
        if (below(4) == 0) number = std::string(1 + below(400), static_cast<char>('0' + below(10)));
        s.replace(std::min(d, s.size()), e - std::min(d, s.size()), number);
        break;
      }
      case 10: {  // swap two lines
        std::vector<std::string> lines;
        std::stringstream in(s);
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        if (lines.size() >= 2) std::swap(lines[below(lines.size())], lines[below(lines.size())]);
        s.clear();
        for (const std::string& line : lines) s += line + "\n";
        break;
      }
      case 11: {  // a very long name, string or list
        const std::size_t n = 200 + below(5000);
        switch (below(3)) {
          case 0: s.insert(pos, std::string(n, 'a')); break;
          case 1: s.insert(pos, "\"" + std::string(n, 's') + "\""); break;
          default: {
            std::string list = "[";
            for (std::size_t i = 0; i < n; ++i) list += "1, ";
            s.insert(pos, list + "]");
          }
        }
        break;
      }
      default: s.insert(pos, fragment()); break;
    }
    if (s.size() > (std::size_t{1} << 20)) s.resize(std::size_t{1} << 20);
  }

  std::mt19937_64 rng_;
  const std::vector<std::string>& pool_;
};

// -------------------------------------------------------------------------------- checks

std::string g_failure_path = "parser_fuzz_failure.gc";
const std::string* g_current = nullptr;

void save_current_input() {
  if (g_current == nullptr) return;
  std::ofstream(g_failure_path, std::ios::binary) << *g_current;
}

[[noreturn]] void fail(std::uint64_t index, const std::string& why) {
  save_current_input();
  std::fprintf(stderr, "parser_fuzz: input %llu: %s\nthe input is in %s\n", static_cast<unsigned long long>(index),
               why.c_str(), g_failure_path.c_str());
  std::abort();
}

void on_timeout(int) {
  // Only async-signal-safe calls: write the input with write(2).
  static constexpr char kMessage[] = "parser_fuzz: an input took longer than the timeout (a hang?)\n";
  (void)!write(2, kMessage, sizeof kMessage - 1);
  if (g_current != nullptr) {
    const int fd = ::open(g_failure_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      (void)!write(fd, g_current->data(), g_current->size());
      ::close(fd);
    }
  }
  std::_Exit(3);
}

std::uint32_t line_count(std::string_view text) {
  return static_cast<std::uint32_t>(std::count(text.begin(), text.end(), '\n')) + 1;
}

// Returns true when the input was accepted.
bool check_one(std::uint64_t index, const std::string& text) {
  const Result<Case> parsed = parse_case(text, "fuzz.gc");
  if (!parsed) {
    const Diagnostics& ds = parsed.diagnostics();
    if (ds.empty() || ds.size() > text_limits::kMaxErrors + 1) fail(index, "bad number of diagnostics");
    const std::uint32_t lines = line_count(text);
    for (const Diagnostic& d : ds) {
      if (d.code.size() != 4 || d.code[0] != 'P') fail(index, "diagnostic without a P code: " + d.code);
      if (d.message.empty() || d.message.back() == '.') fail(index, "bad message: " + d.message);
      if (d.loc.line > lines) fail(index, "diagnostic past the last line");
    }
    (void)render(ds, text);
    return false;
  }
  const std::string printed = print(*parsed);
  const Result<Case> again = parse_case(printed, "fuzz-printed.gc");
  if (!again) fail(index, "the printed case does not parse:\n" + render(again.diagnostics(), printed) + printed);
  if (!structurally_equal(parsed->program, again->program)) fail(index, "parse(print(c)) differs from c:\n" + printed);
  if (print(*again) != printed) fail(index, "print is not idempotent:\n" + printed);
  const PrintedProgram located = print_with_locations(parsed->program);
  const Result<Program> program = parse_program(located.text, "fuzz-program.gc");
  if (!program || !structurally_equal(parsed->program, *program)) fail(index, "the printed program does not round-trip");
  return true;
}

struct Options {
  std::uint64_t iterations = 1'000'000;
  std::uint64_t first = 0;
  std::uint64_t seed = 1;
  unsigned timeout_ms = 10'000;
  std::vector<std::string> corpus_dirs;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "parser_fuzz: %s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--iterations") o.iterations = std::stoull(value());
    else if (arg == "--first") o.first = std::stoull(value());
    else if (arg == "--seed") o.seed = std::stoull(value());
    else if (arg == "--timeout-ms") o.timeout_ms = static_cast<unsigned>(std::stoul(value()));
    else if (arg == "--corpus") o.corpus_dirs.push_back(value());
    else if (arg == "--out") g_failure_path = value();
    else {
      std::fprintf(stderr,
                   "usage: ir_text_parser_fuzz [--iterations N] [--first I] [--seed S] [--corpus DIR]... "
                   "[--timeout-ms T] [--out FILE]\n");
      std::exit(2);
    }
  }
  return o;
}

int run(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  std::vector<std::string> pool(kSamples.begin(), kSamples.end());
  for (const std::string& dir : options.corpus_dirs) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, ec)) {
      if (entry.path().extension() != ".gc") continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream buffer;
      buffer << in.rdbuf();
      pool.push_back(buffer.str());
    }
  }
  std::signal(SIGALRM, on_timeout);
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t accepted = 0;
  for (std::uint64_t n = 0; n < options.iterations; ++n) {
    const std::uint64_t index = options.first + n;
    Mutator mutator(options.seed * 0x9e3779b97f4a7c15ull ^ (index + 1) * 0xbf58476d1ce4e5b9ull, pool);
    const std::string text = mutator.input();
    g_current = &text;
    alarm((options.timeout_ms + 999) / 1000);
    if (check_one(index, text)) ++accepted;
    alarm(0);
    g_current = nullptr;
    if ((n + 1) % 100'000 == 0) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "parser_fuzz: %llu inputs, %llu accepted, %.1f s\n", static_cast<unsigned long long>(n + 1),
                   static_cast<unsigned long long>(accepted), s);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("parser_fuzz: %llu inputs (%llu accepted and round-tripped, %llu rejected with diagnostics) in %.1f s, "
              "seed %llu, pool of %zu samples: no failure\n",
              static_cast<unsigned long long>(options.iterations), static_cast<unsigned long long>(accepted),
              static_cast<unsigned long long>(options.iterations - accepted), seconds,
              static_cast<unsigned long long>(options.seed), pool.size());
  return 0;
}

}  // namespace
}  // namespace gridcheck::ir

int main(int argc, char** argv) { return gridcheck::ir::run(argc, argv); }
