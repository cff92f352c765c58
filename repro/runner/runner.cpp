// gridcheck reproducer runner (docs/export.md in the gridcheck repository): replays manifest.json —
// buffers, compute pipelines, host copies and dispatches in order — on a Vulkan device, then compares
// the final outputs with the reference interpreter's bytes. Needs only the Vulkan loader and
// nlohmann-json. Prints PASS (exit 0) or FAIL with the first differing buffer and element (exit 1);
// exit 2 when the manifest or the device cannot be used.
//
//   runner [BUNDLE_DIR] [--actual FILE]      device: $GRIDCHECK_DEVICE = index or name substring
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#ifndef BUNDLE_DIR
#define BUNDLE_DIR "."
#endif

using json = nlohmann::json;
using Bytes = std::vector<std::uint8_t>;

[[noreturn]] static void die(const std::string& message) {
  std::fprintf(stderr, "runner: %s\n", message.c_str());
  std::exit(2);
}
static void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) die(std::string(what) + " failed (VkResult " + std::to_string(r) + ")");
}
static Bytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) die("cannot read " + path);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
static Bytes from_hex(const std::string& hex) {
  Bytes out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}
static std::string to_hex(const std::uint8_t* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) s += {digits[p[i] >> 4], digits[p[i] & 15]};
  return s;
}

struct Buffer { VkBuffer buffer; VkDeviceMemory memory; std::uint8_t* data; size_t size; };
struct Pipeline { VkPipeline pipeline; VkPipelineLayout layout; VkDescriptorSet set; std::vector<std::uint32_t> push; std::string trap; };

int main(int argc, char** argv) {
  std::string dir = BUNDLE_DIR, actual_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--actual" && i + 1 < argc) actual_path = argv[++i];
    else if (a == "-h" || a == "--help") { std::printf("usage: runner [BUNDLE_DIR] [--actual FILE]\n"); return 0; }
    else dir = a;
  }
  json m;
  try { m = json::parse(read_file(dir + "/manifest.json")); } catch (const std::exception& e) { die(std::string("bad manifest.json: ") + e.what()); }
  if (m.value("format", "") != "gridcheck-repro/1") die("manifest.json is not gridcheck-repro/1");

  // Instance and device: $GRIDCHECK_DEVICE, else the first discrete GPU with a compute queue, else the first device with one.
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "gridcheck-repro-runner";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkInstance instance;
  check(vkCreateInstance(&ici, nullptr, &instance), "vkCreateInstance");
  std::uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(instance, &count, devices.data());
  const char* wanted = std::getenv("GRIDCHECK_DEVICE");
  VkPhysicalDevice pd = VK_NULL_HANDLE;
  std::uint32_t family = 0;
  for (int pass = 0; pass < 2 && pd == VK_NULL_HANDLE; ++pass)
    for (std::uint32_t i = 0; i < count && pd == VK_NULL_HANDLE; ++i) {
      VkPhysicalDeviceProperties props;
      vkGetPhysicalDeviceProperties(devices[i], &props);
      const bool match = wanted ? (std::to_string(i) == wanted || std::strstr(props.deviceName, wanted) != nullptr)
                                : (pass == 1 || props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU);
      std::uint32_t nq = 0;
      vkGetPhysicalDeviceQueueFamilyProperties(devices[i], &nq, nullptr);
      std::vector<VkQueueFamilyProperties> queues(nq);
      vkGetPhysicalDeviceQueueFamilyProperties(devices[i], &nq, queues.data());
      for (std::uint32_t q = 0; q < nq && match && pd == VK_NULL_HANDLE; ++q)
        if (queues[q].queueFlags & VK_QUEUE_COMPUTE_BIT) { pd = devices[i]; family = q; }
    }
  if (pd == VK_NULL_HANDLE) die(wanted ? std::string("no compute device matches GRIDCHECK_DEVICE=") + wanted : "no Vulkan device with a compute queue");
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(pd, &props);
  bool f64 = false, i64 = false;
  for (const json& p : m["pipelines"]) { f64 = f64 || p.value("needs_float64", false); i64 = i64 || p.value("needs_int64_atomics", false); }
  VkPhysicalDeviceVulkan12Features have12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 have{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &have12};
  vkGetPhysicalDeviceFeatures2(pd, &have);
  if (f64 && !have.features.shaderFloat64) die(std::string(props.deviceName) + " lacks shaderFloat64");
  if (i64 && !(have.features.shaderInt64 && have12.shaderBufferInt64Atomics)) die(std::string(props.deviceName) + " lacks 64-bit buffer atomics");
  VkPhysicalDeviceVulkan12Features use12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  use12.shaderBufferInt64Atomics = i64;
  VkPhysicalDeviceFeatures2 use{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &use12};
  use.features.shaderFloat64 = f64;
  use.features.shaderInt64 = i64;
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &use};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  VkDevice device;
  check(vkCreateDevice(pd, &dci, nullptr, &device), "vkCreateDevice");
  VkQueue queue;
  vkGetDeviceQueue(device, family, 0, &queue);
  std::printf("device: %s\ncase %s, profile %s\n", props.deviceName, m.value("case", "?").c_str(), m.value("profile", "?").c_str());

  // Buffers: host-visible, host-coherent, mapped; every host copy is a memcpy (the split's host round trip).
  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(pd, &mem);
  std::map<std::string, Buffer> buffers;
  for (const json& b : m["buffers"]) {
    Buffer buf{};
    buf.size = b["bytes"].get<size_t>();
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = buf.size < 4 ? 4 : (buf.size + 3) / 4 * 4;  // a descriptor range can be neither empty nor unaligned
    bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    check(vkCreateBuffer(device, &bci, nullptr, &buf.buffer), "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, buf.buffer, &req);
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = UINT32_MAX;
    const VkMemoryPropertyFlags flags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (std::uint32_t t = 0; t < mem.memoryTypeCount && mai.memoryTypeIndex == UINT32_MAX; ++t)
      if ((req.memoryTypeBits & (1u << t)) && (mem.memoryTypes[t].propertyFlags & flags) == flags) mai.memoryTypeIndex = t;
    if (mai.memoryTypeIndex == UINT32_MAX) die("no host-coherent memory for the buffers");
    check(vkAllocateMemory(device, &mai, nullptr, &buf.memory), "vkAllocateMemory");
    check(vkBindBufferMemory(device, buf.buffer, buf.memory, 0), "vkBindBufferMemory");
    void* p = nullptr;
    check(vkMapMemory(device, buf.memory, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
    buf.data = static_cast<std::uint8_t*>(p);
    std::memset(buf.data, 0, bci.size);
    const Bytes init = from_hex(b.value("init", ""));
    if (!init.empty()) std::memcpy(buf.data, init.data(), init.size() < buf.size ? init.size() : buf.size);
    buffers[b["name"].get<std::string>()] = buf;
  }
  auto buffer = [&](const json& name) -> Buffer& {
    auto it = buffers.find(name.get<std::string>());
    if (it == buffers.end()) die("manifest names an unknown buffer " + name.dump());
    return it->second;
  };

  // Pipelines: one descriptor set each, bound to its slot buffers for the whole run.
  std::vector<VkDescriptorPoolSize> pool_size{{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0}};
  for (const json& p : m["pipelines"]) pool_size[0].descriptorCount += static_cast<std::uint32_t>(p["bindings"].size());
  if (pool_size[0].descriptorCount == 0) pool_size[0].descriptorCount = 1;
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = static_cast<std::uint32_t>(m["pipelines"].size()) + 1;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = pool_size.data();
  VkDescriptorPool pool;
  check(vkCreateDescriptorPool(device, &dpci, nullptr, &pool), "vkCreateDescriptorPool");
  std::map<std::string, Pipeline> pipelines;
  for (const json& p : m["pipelines"]) {
    Pipeline pipe{};
    std::vector<VkDescriptorSetLayoutBinding> slots;
    for (const json& b : p["bindings"])
      slots.push_back({b["binding"].get<std::uint32_t>(), VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    VkDescriptorSetLayoutCreateInfo lci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    lci.bindingCount = static_cast<std::uint32_t>(slots.size());
    lci.pBindings = slots.data();
    VkDescriptorSetLayout set_layout;
    check(vkCreateDescriptorSetLayout(device, &lci, nullptr, &set_layout), "vkCreateDescriptorSetLayout");
    pipe.push = p.value("push_constants", std::vector<std::uint32_t>{});
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<std::uint32_t>(pipe.push.size() * 4)};
    VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    plci.setLayoutCount = 1;
    plci.pSetLayouts = &set_layout;
    plci.pushConstantRangeCount = pipe.push.empty() ? 0 : 1;
    plci.pPushConstantRanges = &range;
    check(vkCreatePipelineLayout(device, &plci, nullptr, &pipe.layout), "vkCreatePipelineLayout");
    const Bytes spv = read_file(dir + "/" + p["spirv"].get<std::string>());
    VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smci.codeSize = spv.size();
    smci.pCode = reinterpret_cast<const std::uint32_t*>(spv.data());
    VkShaderModule module;
    check(vkCreateShaderModule(device, &smci, nullptr, &module), "vkCreateShaderModule");
    VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT, module, "main", nullptr};
    cpci.layout = pipe.layout;
    check(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipe.pipeline), "vkCreateComputePipelines");
    VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsai.descriptorPool = pool;
    dsai.descriptorSetCount = 1;
    dsai.pSetLayouts = &set_layout;
    check(vkAllocateDescriptorSets(device, &dsai, &pipe.set), "vkAllocateDescriptorSets");
    std::vector<VkDescriptorBufferInfo> infos;
    infos.reserve(p["bindings"].size());
    std::vector<VkWriteDescriptorSet> writes;
    for (const json& b : p["bindings"]) {
      infos.push_back({buffer(b["buffer"]).buffer, 0, VK_WHOLE_SIZE});
      VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      w.dstSet = pipe.set;
      w.dstBinding = b["binding"].get<std::uint32_t>();
      w.descriptorCount = 1;
      w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      w.pBufferInfo = &infos.back();
      writes.push_back(w);
    }
    vkUpdateDescriptorSets(device, static_cast<std::uint32_t>(writes.size()), writes.data(), 0, nullptr);
    pipe.trap = p["trap"].is_string() ? p["trap"].get<std::string>() : "";
    pipelines[p["name"].get<std::string>()] = pipe;
  }
  VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  cpi.queueFamilyIndex = family;
  VkCommandPool cmd_pool;
  check(vkCreateCommandPool(device, &cpi, nullptr, &cmd_pool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = cmd_pool;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  VkCommandBuffer cmd;
  check(vkAllocateCommandBuffers(device, &cbai, &cmd), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  check(vkCreateFence(device, &fci, nullptr, &fence), "vkCreateFence");

  // The steps, in order: host copies, launches (one submission each, waited for), trap checks.
  for (const json& s : m["steps"]) {
    const std::string op = s["op"].get<std::string>();
    if (op == "copy") {
      Buffer& from = buffer(s["from"]);
      Buffer& to = buffer(s["to"]);
      const size_t offset = s["from_offset"].get<size_t>(), n = s["bytes"].get<size_t>();
      if (offset + n > from.size || n > to.size) die("a copy leaves its buffers: " + s.dump());
      std::memmove(to.data, from.data + offset, n);
    } else if (op == "dispatch") {
      const Pipeline& p = pipelines.at(s["pipeline"].get<std::string>());
      check(vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer");
      VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
      check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &p.set, 0, nullptr);
      if (!p.push.empty()) vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<std::uint32_t>(p.push.size() * 4), p.push.data());
      const auto grid = s["grid"].get<std::vector<std::uint32_t>>();
      const std::uint32_t repeat = s.value("repeat", 1u);
      for (std::uint32_t i = 0; i < repeat; ++i) {
        vkCmdDispatch(cmd, grid.at(0), grid.at(1), grid.at(2));
        VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        mb.dstAccessMask = i + 1 < repeat ? VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT : VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             i + 1 < repeat ? VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT : VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
      }
      check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
      VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
      si.commandBufferCount = 1;
      si.pCommandBuffers = &cmd;
      check(vkQueueSubmit(queue, 1, &si, fence), "vkQueueSubmit");
      check(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
      check(vkResetFences(device, 1, &fence), "vkResetFences");
    } else if (op == "check_trap") {
      const Pipeline& p = pipelines.at(s["pipeline"].get<std::string>());
      std::uint64_t key = 0;
      std::memcpy(&key, buffer(json(p.trap)).data, 8);
      if (key != ~std::uint64_t{0}) {
        std::printf("FAIL: launch %u (%s) trapped: workgroup %u, local invocation %u, site %u, kind %u\n", s["launch"].get<unsigned>(),
                    s["pipeline"].get<std::string>().c_str(), static_cast<unsigned>(key >> 32), static_cast<unsigned>((key >> 20) & 0xFFF),
                    static_cast<unsigned>((key >> 4) & 0xFFFF), static_cast<unsigned>(key & 15));
        return 1;
      }
    } else {
      die("unknown step op " + op);
    }
  }

  // The final outputs against R's bytes.
  json actual = json::object();
  bool pass = true, like_split = true;
  for (const json& e : m["expect"]) {
    const Buffer& b = buffer(e["buffer"]);
    const Bytes want = from_hex(e["reference"].get<std::string>()), split = from_hex(e["split"].get<std::string>());
    const size_t offset = e["offset"].get<size_t>(), n = e["bytes"].get<size_t>();
    if (offset + n > b.size) die("an expectation leaves its buffer: " + e["name"].dump());
    const std::uint8_t* got = b.data + offset;
    const std::string name = e["name"].get<std::string>();
    actual[name] = to_hex(got, n);
    like_split = like_split && split.size() == n && std::memcmp(split.data(), got, n) == 0;
    if (want.size() != n) {
      std::printf("%s '%s': R returns %zu bytes, the run %zu\n", pass ? "FAIL:" : "     ", name.c_str(), want.size(), n);
      pass = false;
      continue;
    }
    size_t differed = 0, first = 0;
    for (size_t i = 0; i < n; i += 4)
      if (std::memcmp(got + i, want.data() + i, n - i < 4 ? n - i : 4) != 0 && differed++ == 0) first = i;
    if (differed == 0) continue;
    std::uint32_t g = 0, w = 0;
    std::memcpy(&g, got + first, n - first < 4 ? n - first : 4);
    std::memcpy(&w, want.data() + first, n - first < 4 ? n - first : 4);
    std::printf("%s '%s': %zu values differed, first difference at byte %zu (element %zu): %u (R) != %u (run)\n", pass ? "FAIL:" : "     ",
                name.c_str(), differed, first, first / 4, w, g);
    pass = false;
  }
  if (!actual_path.empty()) std::ofstream(actual_path) << actual.dump(2) << "\n";
  std::printf("the run %s the split's bytes (gridcheck H-cpu, profile %s)\n", like_split ? "equals" : "DIFFERS FROM", m.value("profile", "?").c_str());
  if (pass) std::printf("PASS\n");
  vkDeviceWaitIdle(device);
  return pass ? 0 : 1;
}
