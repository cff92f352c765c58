// The export's model (repro/reproducer.hpp) and its AmberScript and manifest forms, without a GPU: the
// model replayed on the interpreter must give the split's own bytes, its expectations must be R's bytes,
// and whether the split matches R must agree with what every corpus case records for H-cpu.

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

#include "gpu/glsl_compiler.hpp"
#include "ir/text/case_file.hpp"
#include "planner/profile.hpp"
#include "repro/amber_script.hpp"
#include "repro/bundle.hpp"
#include "repro/reproducer.hpp"

namespace gridcheck::repro {
namespace {

const std::string kCorpus = std::string(GRIDCHECK_SOURCE_DIR) + "/corpus/";

ir::Case load(const std::string& path) {
  ir::Result<ir::Case> c = ir::load_case_file(path);
  if (!c) ADD_FAILURE() << ir::render(c.diagnostics());
  return c ? *c : ir::Case{};
}

Bytes words(std::initializer_list<std::uint32_t> values) {
  Bytes b(values.size() * 4);
  std::memcpy(b.data(), std::data(values), b.size());
  return b;
}

Bytes words_of(const std::vector<std::uint32_t>& values) {
  Bytes b(values.size() * 4);
  if (!values.empty()) std::memcpy(b.data(), values.data(), b.size());
  return b;
}

std::size_t count(const Repro& r, StepKind kind) {
  std::size_t n = 0;
  for (const ReproStep& s : r.steps) n += s.kind == kind ? 1 : 0;
  return n;
}

TEST(Repro_Model, A1UnderVyreExpectsRAndHoldsTheSplitsZeros) {
  const ir::Case c = load(kCorpus + "s10_a1_rw_written_not_read.gc");
  ir::Result<Repro> r = build_repro(c, planner::vyre_0_7_2());
  ASSERT_TRUE(r.ok()) << ir::render(r.diagnostics());
  EXPECT_EQ(r->segment_count, 2u);
  EXPECT_EQ(r->launch_count, 2u);
  EXPECT_EQ(count(*r, StepKind::Dispatch), 2u);
  EXPECT_FALSE(r->split_matches_reference);
  ASSERT_EQ(r->expects.size(), 1u);
  EXPECT_EQ(r->expects[0].name, "buf");
  EXPECT_EQ(r->expects[0].reference, words({9, 2, 3, 4}));
  EXPECT_EQ(r->expects[0].split, words({9, 0, 0, 0}));
  // Segment 0 has `buf` write-only: it is not gathered, so the caller's bytes never reach a slot.
  const ReproStep& first_dispatch = *std::find_if(r->steps.begin(), r->steps.end(), [](const ReproStep& s) { return s.kind == StepKind::Dispatch; });
  EXPECT_EQ(first_dispatch.pipeline, 0u);
  EXPECT_EQ(r->steps.front().kind, StepKind::Dispatch) << "nothing is gathered into segment 0";
  // The replay holds the split's bytes in the final output's live buffer.
  ir::Result<std::vector<Bytes>> replayed = replay_on_interpreter(*r);
  ASSERT_TRUE(replayed.ok());
  EXPECT_EQ((*replayed)[r->expects[0].buffer], words({9, 0, 0, 0}));
  EXPECT_EQ(r->buffers[r->expects[0].buffer].init, words({1, 2, 3, 4})) << "the live buffer starts with the caller's bytes";
}

TEST(Repro_Model, A1UnderSoundMatchesR) {
  const ir::Case c = load(kCorpus + "s10_a1_rw_written_not_read.gc");
  ir::Result<Repro> r = build_repro(c, planner::sound());
  ASSERT_TRUE(r.ok()) << ir::render(r.diagnostics());
  EXPECT_TRUE(r->split_matches_reference);
  EXPECT_EQ(r->expects.at(0).split, words({9, 2, 3, 4}));
}

TEST(Repro_Model, FixpointPassesAreUnrolled) {
  const ir::Case c = load(kCorpus + "s6_8_fixpoint_counter_needs_four_passes.gc");
  for (const planner::Profile* p : {&planner::vyre_0_7_2(), &planner::sound()}) {
    ir::Result<Repro> r = build_repro(c, *p);
    ASSERT_TRUE(r.ok()) << ir::render(r.diagnostics());
    EXPECT_GE(r->passes, 2u) << p->name;
    std::uint32_t dispatches = 0;
    for (const ReproStep& s : r->steps)
      if (s.kind == StepKind::Dispatch) dispatches += s.repeat;
    EXPECT_EQ(count(*r, StepKind::Dispatch), r->launch_count) << p->name;
    EXPECT_EQ(r->launch_count, r->passes * r->segment_count) << p->name;
    EXPECT_GE(dispatches, r->passes) << p->name;
  }
}

TEST(Repro_Model, ARefusedCaseIsE003AtTheCaseLine) {
  const ir::Case refused = load(kCorpus + "sound_refused_fence_in_runtime_loop.gc");
  ir::Result<Repro> r = build_repro(refused, planner::sound(), ir::SourceLoc{3, 1});
  ASSERT_FALSE(r.ok());
  const ir::Diagnostic& d = r.diagnostics().all().front();
  EXPECT_EQ(d.code, "E003") << d.message;
  EXPECT_EQ(d.loc.line, 3u);
  ASSERT_FALSE(d.notes.empty()) << "the profile's own refusal is a note";
  EXPECT_EQ(d.notes.front().code.rfind("SR", 0), 0u) << d.notes.front().code;
  EXPECT_NE(ir::render(d).find(":3:1: error[E003]: profile `sound` refuses case"), std::string::npos) << ir::render(d);
}

// Every top-level corpus case under both built-in profiles: exported with a documented code or not at all;
// when exported, the model reproduces the split (build_repro checks it on the interpreter), the verdict agrees
// with the case's own `expect H-cpu PROFILE:` line, and the AmberScript's shaders compile.
TEST(Repro_Model, EveryCorpusCaseExportsOrIsRefusedWithACode) {
  const std::set<std::string> codes = {"E001", "E002", "E003", "E004", "E005", "E006", "E008"};
  std::size_t exported = 0, diverging = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".gc") continue;
    const ir::Case c = load(entry.path().string());
    for (const planner::Profile* p : {&planner::vyre_0_7_2(), &planner::sound()}) {
      SCOPED_TRACE(entry.path().filename().string() + " under " + p->name);
      ir::Result<Repro> r = build_repro(c, *p);
      if (!r) {
        const std::string code = r.diagnostics().all().front().code;
        EXPECT_TRUE(codes.count(code)) << ir::render(r.diagnostics());
        continue;
      }
      ++exported;
      diverging += r->split_matches_reference ? 0 : 1;
      // The case's own records of H-cpu under this profile: verdict, launch count, final words.
      for (const ir::Expectation& e : c.expectations) {
        if (e.oracle != ir::Oracle::SplitCpu || e.profile != p->name) continue;
        if (e.verdict == ir::Verdict::Match) {
          EXPECT_TRUE(r->split_matches_reference);
        }
        if (e.verdict == ir::Verdict::Diverge) {
          EXPECT_FALSE(r->split_matches_reference);
        }
      }
      for (const ir::ExpectedLaunches& e : c.launches)
        if (e.oracle == ir::Oracle::SplitCpu && e.profile == p->name) {
          EXPECT_EQ(r->launch_count, e.count);
        }
      for (const ir::ExpectedOutput& e : c.outputs) {
        if (e.oracle != ir::Oracle::SplitCpu || e.profile != p->name || !e.words) continue;
        for (const ReproExpect& x : r->expects)
          if (x.name == e.buffer) {
            EXPECT_EQ(x.split, words_of(*e.words)) << e.buffer;
          }
      }
      ir::Result<std::string> amber = to_amber(*r);
      if (!amber) {
        const std::string code = amber.diagnostics().all().front().code;
        EXPECT_TRUE(code == "E010" || code == "E011") << ir::render(amber.diagnostics());
        continue;
      }
      EXPECT_EQ(std::count(amber->begin(), amber->end(), '\n') > 0, true);
      const nlohmann::json m = to_manifest(*r);
      EXPECT_EQ(m["steps"].size(), r->steps.size());
      EXPECT_EQ(m["expect"].size(), r->expects.size());
    }
  }
  EXPECT_GE(exported, 60u);
  EXPECT_GE(diverging, 10u) << "the vyre-0.7.2 divergences of docs/vyre-0.7.2.md §10 are exported as diverging";
}

/// The SHADER blocks of an AmberScript, by name.
std::vector<std::pair<std::string, std::string>> shader_blocks(const std::string& script) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::regex header(R"(^SHADER compute (\S+) GLSL TARGET_ENV spv1\.5$)");
  std::istringstream in(script);
  std::string line, name, body;
  bool inside = false;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!inside && std::regex_match(line, m, header)) {
      inside = true;
      name = m[1];
      body.clear();
    } else if (inside && line == "END") {
      out.emplace_back(name, body);
      inside = false;
    } else if (inside) {
      body += line + "\n";
    }
  }
  return out;
}

TEST(Repro_Amber, A1UnderVyreHasOnePipelinePerSegmentCopiesAndRsBytes) {
  const ir::Case c = load(kCorpus + "s10_a1_rw_written_not_read.gc");
  ir::Result<Repro> r = build_repro(c, planner::vyre_0_7_2());
  ASSERT_TRUE(r.ok());
  ir::Result<std::string> amber = to_amber(*r, AmberOptions{"gridcheck export test"});
  ASSERT_TRUE(amber.ok()) << ir::render(amber.diagnostics());
  const std::string& s = *amber;
  EXPECT_EQ(s.rfind("#!amber\n", 0), 0u);
  const auto shaders = shader_blocks(s);
  ASSERT_EQ(shaders.size(), 2u);
  for (const auto& [name, glsl] : shaders) {
    ir::Result<gpu::Spirv> spirv = gpu::compile_glsl(glsl, name);
    EXPECT_TRUE(spirv.ok()) << name << ": " << (spirv ? "" : ir::render(spirv.diagnostics()));
  }
  // Launch order: segment 0 runs on fresh zeros, its output refreshes `buf`, which segment 1 gathers.
  const std::size_t run0 = s.find("RUN seg0 1 1 1"), refresh0 = s.find("COPY seg0_buf TO buf"), gather1 = s.find("COPY buf TO seg1_buf"),
                    run1 = s.find("RUN seg1 1 1 1"), refresh1 = s.find("COPY seg1_buf TO buf"), expect = s.find("EXPECT buf EQ_BUFFER gc_expect_0");
  ASSERT_NE(run0, std::string::npos);
  EXPECT_LT(run0, refresh0);
  EXPECT_LT(refresh0, gather1);
  EXPECT_LT(gather1, run1);
  EXPECT_LT(run1, refresh1);
  EXPECT_LT(refresh1, expect);
  EXPECT_NE(s.find("BUFFER buf DATA_TYPE uint32 DATA\n  1 2 3 4\nEND"), std::string::npos) << s;
  EXPECT_NE(s.find("BUFFER gc_expect_0 DATA_TYPE uint32 DATA\n  9 2 3 4\nEND"), std::string::npos) << s;
  EXPECT_NE(s.find("BIND BUFFER seg0_buf AS storage DESCRIPTOR_SET 0 BINDING 0"), std::string::npos);
  EXPECT_NE(s.find("BIND BUFFER seg0_pc AS push_constant"), std::string::npos);
}

TEST(Repro_Bundle, WritesEveryFileAndRefusesANonEmptyDirectory) {
  const ir::Case c = load(kCorpus + "s10_a1_rw_written_not_read.gc");
  ir::Result<Repro> r = build_repro(c, planner::vyre_0_7_2());
  ASSERT_TRUE(r.ok());
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("gridcheck-repro-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(write_bundle(*r, dir, BundleOptions{"test", "case text"}).has_value());
  for (const char* f : {"manifest.json", "runner.cpp", "CMakeLists.txt", "seg0.spv", "seg0.comp", "seg1.spv", "seg1.comp", "case.gc",
                        "repro.amber", "README.md"})
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  EXPECT_EQ(std::filesystem::file_size(dir / "runner.cpp"), runner_source().size());
  EXPECT_EQ(std::filesystem::file_size(dir / "seg0.spv"), r->pipelines[0].spirv.size() * 4);
  std::optional<ir::Diagnostic> again = write_bundle(*r, dir, {});
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->code, "E020");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gridcheck::repro
