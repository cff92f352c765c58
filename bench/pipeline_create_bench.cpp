// What a new compute pipeline costs, shader by shader (issue 18: cold GPU campaigns are bound by the
// driver's pipeline compiler). Input: the GLSL of lowered segments, e.g. the segN.comp files that
// `gridcheck export CASE --bundle DIR` writes for generated cases. For every shader it measures
//   compile   glslang to SPIR-V (gpu::compile_glsl, spirv-val included, as the executor does), and
//             spirv-val on its own,
//   default   vkCreateShaderModule + vkCreateComputePipelines, no VkPipelineCache, flags 0,
//   again     the same SPIR-V once more (shows whether the driver keeps its own cache in the process),
//   noopt     a copy tagged apart, VK_PIPELINE_CREATE_DISABLE_OPTIMIZATION_BIT,
//   spvopt    spirv-opt's performance passes in the process (timed on their own), then a pipeline,
//   light     spirv-opt's local passes only (single-store and single-block load/store elimination,
//             then aggressive DCE: glslang's function variables to SSA values, cheaply), timed on their
//             own, then a pipeline,
//   stripped  the same words less the debug instructions (OpName, OpMemberName, OpSource...: 10.6 % of
//             the words of generated segments), tagged apart,
// and then the pipelines per second of T threads creating pipelines of distinct, tagged copies (as they
// are, then stripped).
// A tag is one OpModuleProcessed instruction, so every variant hands the driver words it has not seen
// (run it with the driver's disk cache off, e.g. __GL_SHADER_DISK_CACHE=0 on NVIDIA).
//
//   pipeline_create_bench [--device SEL] [--threads 1,8,16] [--quick] [--csv FILE] FILE.comp...
// --quick: only the default pipeline per shader (and the thread runs).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <spirv-tools/optimizer.hpp>
#include <vulkan/vulkan.h>

#include "gpu/glsl_compiler.hpp"
#include "gpu/vulkan_context.hpp"

namespace {

using namespace gridcheck;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Shader {
  std::string path;
  std::string glsl;
  gpu::Spirv spirv;
  std::vector<std::uint32_t> bindings;
  std::size_t lines = 0;
  double compile_ms = 0, validate_ms = 0, default_ms = 0, again_ms = 0, noopt_ms = 0, spvopt_ms = 0, spvopt_pipeline_ms = 0, dontinline_ms = 0,
         stripped_ms = 0, light_ms = 0, light_pipeline_ms = 0;
  std::size_t light_words = 0;
};

/// The words of `spirv` with one OpModuleProcessed "gc-bench-<tag>" before the first annotation.
gpu::Spirv tagged(const gpu::Spirv& spirv, std::uint32_t tag) {
  const std::string text = fmt::format("gc-bench-{}", tag);
  std::vector<std::uint32_t> literal((text.size() + 4) / 4, 0u);
  std::memcpy(literal.data(), text.data(), text.size());
  gpu::Spirv out(spirv.begin(), spirv.begin() + 5);
  bool inserted = false;
  for (std::size_t i = 5; i < spirv.size();) {
    const std::uint32_t count = spirv[i] >> 16, opcode = spirv[i] & 0xFFFFu;
    const bool annotation = opcode == 71 || opcode == 72 || opcode == 73 || opcode == 74 || opcode == 332;
    if (!inserted && annotation) {
      out.push_back(static_cast<std::uint32_t>((literal.size() + 1) << 16 | 330u));  // OpModuleProcessed
      out.insert(out.end(), literal.begin(), literal.end());
      inserted = true;
    }
    out.insert(out.end(), spirv.begin() + static_cast<std::ptrdiff_t>(i), spirv.begin() + static_cast<std::ptrdiff_t>(i + count));
    i += count == 0 ? 1 : count;
  }
  return out;
}

/// The words of `spirv` with every function but the entry point marked DontInline.
gpu::Spirv not_inlined(const gpu::Spirv& spirv) {
  gpu::Spirv out = spirv;
  std::uint32_t entry = 0;
  for (std::size_t i = 5; i < out.size(); i += std::max<std::uint32_t>(1, out[i] >> 16)) {
    const std::uint32_t opcode = out[i] & 0xFFFFu;
    if (opcode == 15) entry = out[i + 2];                       // OpEntryPoint
    if (opcode == 54 && out[i + 2] != entry) out[i + 3] = 0x2;  // OpFunction: control = DontInline
  }
  return out;
}

/// The words of `spirv` without its debug instructions (OpSourceContinued, OpSource, OpSourceExtension,
/// OpName, OpMemberName, OpString, OpLine, OpNoLine, OpModuleProcessed): what the driver needs, no more.
gpu::Spirv stripped(const gpu::Spirv& spirv) {
  gpu::Spirv out(spirv.begin(), spirv.begin() + 5);
  for (std::size_t i = 5; i < spirv.size();) {
    const std::uint32_t count = std::max<std::uint32_t>(1, spirv[i] >> 16), opcode = spirv[i] & 0xFFFFu;
    const bool debug = (opcode >= 2 && opcode <= 8) || opcode == 317 || opcode == 330;
    if (!debug)
      out.insert(out.end(), spirv.begin() + static_cast<std::ptrdiff_t>(i), spirv.begin() + static_cast<std::ptrdiff_t>(i + count));
    i += count;
  }
  return out;
}

class Layouts {
 public:
  explicit Layouts(VkDevice device) : device_(device) {}
  ~Layouts() {
    for (auto& [set, layout] : made_) {
      vkDestroyPipelineLayout(device_, layout, nullptr);
      vkDestroyDescriptorSetLayout(device_, set, nullptr);
    }
  }
  VkPipelineLayout make(const std::vector<std::uint32_t>& bindings) {
    std::vector<VkDescriptorSetLayoutBinding> b;
    for (std::uint32_t n : bindings)
      b.push_back({n, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    VkDescriptorSetLayoutCreateInfo si{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    si.bindingCount = static_cast<std::uint32_t>(b.size());
    si.pBindings = b.data();
    VkDescriptorSetLayout set = VK_NULL_HANDLE;
    vkCreateDescriptorSetLayout(device_, &si, nullptr, &set);
    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, 128};
    VkPipelineLayoutCreateInfo li{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    li.setLayoutCount = 1;
    li.pSetLayouts = &set;
    li.pushConstantRangeCount = 1;
    li.pPushConstantRanges = &push;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    vkCreatePipelineLayout(device_, &li, nullptr, &layout);
    made_.emplace_back(set, layout);
    return layout;
  }

 private:
  VkDevice device_;
  std::vector<std::pair<VkDescriptorSetLayout, VkPipelineLayout>> made_;
};

/// Milliseconds to make (and destroy) one pipeline of `spirv`; negative when the driver refused it.
double make_pipeline(VkDevice device, VkPipelineLayout layout, const gpu::Spirv& spirv, VkPipelineCreateFlags flags) {
  const auto start = Clock::now();
  VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = spirv.size() * 4;
  mi.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  if (vkCreateShaderModule(device, &mi, nullptr, &module) != VK_SUCCESS) return -1;
  VkComputePipelineCreateInfo cp{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cp.flags = flags;
  cp.stage = VkPipelineShaderStageCreateInfo{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cp.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cp.stage.module = module;
  cp.stage.pName = "main";
  cp.layout = layout;
  VkPipeline pipeline = VK_NULL_HANDLE;
  const VkResult r = vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &cp, nullptr, &pipeline);
  const double took = ms_since(start);
  vkDestroyShaderModule(device, module, nullptr);
  if (r != VK_SUCCESS) return -1;
  vkDestroyPipeline(device, pipeline, nullptr);
  return took;
}

struct Summary {
  double total = 0, p50 = 0, p90 = 0, max = 0;
};
Summary summarise(std::vector<double> v) {
  Summary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.total = std::accumulate(v.begin(), v.end(), 0.0);
  s.p50 = v[v.size() / 2];
  s.p90 = v[v.size() * 9 / 10];
  s.max = v.back();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string device_selector, csv_path;
  bool quick = false;
  std::vector<unsigned> threads = {1, 8, 16};
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--device" && i + 1 < argc) device_selector = argv[++i];
    else if (a == "--csv" && i + 1 < argc) csv_path = argv[++i];
    else if (a == "--quick") quick = true;
    else if (a == "--threads" && i + 1 < argc) {
      threads.clear();
      std::stringstream list(argv[++i]);
      for (std::string t; std::getline(list, t, ',');) threads.push_back(static_cast<unsigned>(std::stoul(t)));
    } else if (a == "-h" || a == "--help") {
      std::puts("pipeline_create_bench [--device SEL] [--threads 1,8,16] [--quick] [--csv FILE] FILE.comp...");
      return 0;
    } else files.push_back(a);
  }
  if (files.empty()) {
    std::fputs("pipeline_create_bench: no GLSL files (see --help)\n", stderr);
    return 2;
  }
  gpu::ContextOptions options;
  options.device = device_selector;
  auto ctx = gpu::VulkanContext::create(options);
  if (!ctx) {
    std::fprintf(stderr, "pipeline_create_bench: %s\n", ctx.diagnostics().all().front().message.c_str());
    return 2;
  }
  VkDevice device = (*ctx)->device();
  Layouts layouts(device);
  const std::regex binding_re("binding = ([0-9]+)");

  std::vector<Shader> shaders;
  for (const std::string& path : files) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    Shader s;
    s.path = path;
    s.glsl = text.str();
    s.lines = static_cast<std::size_t>(std::count(s.glsl.begin(), s.glsl.end(), '\n'));
    for (std::sregex_iterator it(s.glsl.begin(), s.glsl.end(), binding_re), end; it != end; ++it)
      s.bindings.push_back(static_cast<std::uint32_t>(std::stoul((*it)[1].str())));
    std::sort(s.bindings.begin(), s.bindings.end());
    s.bindings.erase(std::unique(s.bindings.begin(), s.bindings.end()), s.bindings.end());
    const auto start = Clock::now();
    auto spirv = gpu::compile_glsl(s.glsl, path);
    s.compile_ms = ms_since(start);
    if (!spirv) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), spirv.diagnostics().all().front().message.c_str());
      continue;
    }
    s.spirv = std::move(spirv).value();
    const auto validating = Clock::now();
    if (gpu::validate_spirv(s.spirv)) std::fprintf(stderr, "%s: spirv-val rejected it on the second look\n", path.c_str());
    s.validate_ms = ms_since(validating);
    shaders.push_back(std::move(s));
  }
  fmt::print("device: {}; {} shaders\n", (*ctx)->info().name, shaders.size());

  std::uint32_t tag = 1;
  for (Shader& s : shaders) {
    const VkPipelineLayout layout = layouts.make(s.bindings);
    s.default_ms = make_pipeline(device, layout, s.spirv, 0);
    if (quick) continue;
    s.again_ms = make_pipeline(device, layout, s.spirv, 0);
    s.noopt_ms = make_pipeline(device, layout, tagged(s.spirv, tag++), VK_PIPELINE_CREATE_DISABLE_OPTIMIZATION_BIT);
    spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_2);
    optimizer.RegisterPerformancePasses();
    std::vector<std::uint32_t> optimised;
    const auto start = Clock::now();
    const bool ok = optimizer.Run(s.spirv.data(), s.spirv.size(), &optimised);
    s.spvopt_ms = ms_since(start);
    s.spvopt_pipeline_ms = ok ? make_pipeline(device, layout, tagged(optimised, tag++), 0) : -1;
    s.dontinline_ms = make_pipeline(device, layout, tagged(not_inlined(s.spirv), tag++), 0);
    s.stripped_ms = make_pipeline(device, layout, tagged(stripped(s.spirv), tag++), 0);
    spvtools::Optimizer light(SPV_ENV_VULKAN_1_2);
    light.RegisterPass(spvtools::CreateLocalSingleStoreElimPass())
        .RegisterPass(spvtools::CreateLocalSingleBlockLoadStoreElimPass())
        .RegisterPass(spvtools::CreateAggressiveDCEPass());
    std::vector<std::uint32_t> lighter;
    const auto light_start = Clock::now();
    const bool light_ok = light.Run(s.spirv.data(), s.spirv.size(), &lighter);
    s.light_ms = ms_since(light_start);
    s.light_words = lighter.size();
    s.light_pipeline_ms = light_ok ? make_pipeline(device, layout, tagged(lighter, tag++), 0) : -1;
  }

  auto column = [&](double Shader::*field) {
    std::vector<double> v;
    for (const Shader& s : shaders) v.push_back(s.*field);
    return summarise(v);
  };
  fmt::print("{:<34} {:>10} {:>8} {:>8} {:>8}\n", "per shader (ms)", "total", "p50", "p90", "max");
  const std::pair<const char*, double Shader::*> rows[] = {
      {"glslang + spirv-val", &Shader::compile_ms},      {"of which spirv-val", &Shader::validate_ms},      {"pipeline, default", &Shader::default_ms},
      {"pipeline, same words again", &Shader::again_ms}, {"pipeline, DISABLE_OPTIMIZATION", &Shader::noopt_ms},
      {"spirv-opt -O in process", &Shader::spvopt_ms},   {"pipeline after spirv-opt -O", &Shader::spvopt_pipeline_ms},
      {"pipeline, helpers DontInline", &Shader::dontinline_ms}, {"pipeline, debug stripped", &Shader::stripped_ms},
      {"local passes in process", &Shader::light_ms},    {"pipeline after the local passes", &Shader::light_pipeline_ms}};
  for (const auto& [name, field] : rows) {
    const Summary s = column(field);
    fmt::print("{:<34} {:>10.1f} {:>8.2f} {:>8.2f} {:>8.2f}\n", name, s.total, s.p50, s.p90, s.max);
  }

  if (!quick) {
    std::size_t words = 0, light_words = 0;
    for (const Shader& s : shaders) {
      words += s.spirv.size();
      light_words += s.light_words;
    }
    fmt::print("words: {} as compiled, {} after the local passes\n", words, light_words);
  }

  for (const bool strip : {false, true}) {
    for (unsigned t : threads) {
      std::atomic<std::size_t> next{0};
      std::vector<VkPipelineLayout> per_shader;
      for (const Shader& s : shaders) per_shader.push_back(layouts.make(s.bindings));
      std::vector<gpu::Spirv> copies;
      for (const Shader& s : shaders) copies.push_back(tagged(strip ? stripped(s.spirv) : s.spirv, tag++));
      const auto start = Clock::now();
      std::vector<std::thread> pool;
      std::atomic<double> busy_ms{0};
      for (unsigned w = 0; w < t; ++w)
        pool.emplace_back([&] {
          for (std::size_t i; (i = next.fetch_add(1)) < copies.size();) {
            const double took = make_pipeline(device, per_shader[i], copies[i], 0);
            double seen = busy_ms.load();
            while (!busy_ms.compare_exchange_weak(seen, seen + took)) {
            }
          }
        });
      for (std::thread& th : pool) th.join();
      const double wall = ms_since(start);
      fmt::print("{:>2} threads{}: {} new pipelines in {:.0f} ms = {:.0f}/s, {:.1f} ms each per thread\n", t,
                 strip ? ", debug stripped" : "", copies.size(), wall, 1000.0 * static_cast<double>(copies.size()) / wall,
                 busy_ms.load() / static_cast<double>(copies.size()));
    }
  }

  if (!csv_path.empty()) {
    std::ofstream csv(csv_path);
    csv << "file,lines,spirv_words,compile_ms,default_ms,again_ms,noopt_ms,spvopt_ms,spvopt_pipeline_ms,dontinline_ms,stripped_ms,light_ms,light_pipeline_ms,light_words\n";
    for (const Shader& s : shaders)
      csv << fmt::format("{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{}\n", s.path, s.lines,
                         s.spirv.size(), s.compile_ms, s.default_ms, s.again_ms, s.noopt_ms, s.spvopt_ms, s.spvopt_pipeline_ms,
                         s.dontinline_ms, s.stripped_ms, s.light_ms, s.light_pipeline_ms, s.light_words);
  }
  return 0;
}
