// src/gpu/context.cpp — the Vulkan loader, instance, device and the helpers
// for buffers, pipelines and submissions (src/gpu/vulkan.hpp).
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "vulkan.hpp"

namespace prox::gpu {

namespace {

const char* result_name(VkResult r) {
  switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER (no Vulkan driver)";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    default: return "VkResult error";
  }
}

const char* type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

int type_rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
  }
}

bool compute_family(const Vk& vk, VkPhysicalDevice d, std::uint32_t& family) {
  std::uint32_t n = 0;
  vk.vkGetPhysicalDeviceQueueFamilyProperties(d, &n, nullptr);
  std::vector<VkQueueFamilyProperties> props(n);
  vk.vkGetPhysicalDeviceQueueFamilyProperties(d, &n, props.data());
  for (std::uint32_t i = 0; i < n; ++i)
    if (props[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      family = i;
      return true;
    }
  return false;
}

}  // namespace

void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS)
    throw GpuError(std::string("gpu: ") + what + " failed: " + result_name(r) + " (" +
                   std::to_string(int(r)) + ")");
}

std::string DeviceInfo::summary() const {
  return name + " (" + type + ", Vulkan " + std::to_string(VK_API_VERSION_MAJOR(api_version)) +
         "." + std::to_string(VK_API_VERSION_MINOR(api_version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(api_version)) + ")";
}

Context::Impl::Impl() {
  try {
    init();
  } catch (...) {
    release();
    throw;
  }
}

void Context::Impl::init() {
  library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    throw GpuError(
        "gpu: no Vulkan loader (libvulkan.so.1 not found; on Debian: apt-get install libvulkan1 "
        "and a driver, e.g. mesa-vulkan-drivers for the CPU driver lavapipe)");
  vk.vkGetInstanceProcAddr =
      reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(library, "vkGetInstanceProcAddr"));
  if (!vk.vkGetInstanceProcAddr) throw GpuError("gpu: libvulkan.so.1 has no vkGetInstanceProcAddr");
  vk.vkCreateInstance = reinterpret_cast<PFN_vkCreateInstance>(
      vk.vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkCreateInstance"));

  VkApplicationInfo app{};

  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "prox";
  app.pEngineName = "prox";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici{};
  ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ici.pApplicationInfo = &app;
  const VkResult r = vk.vkCreateInstance(&ici, nullptr, &instance);
  if (r != VK_SUCCESS)
    throw GpuError(std::string("gpu: no Vulkan device: vkCreateInstance failed: ") +
                   result_name(r) + " (no Vulkan driver is installed, or VK_ICD_FILENAMES / "
                   "VK_DRIVER_FILES points at none)");
#define PROX_VK_LOAD(name)                                                               \
  vk.name = reinterpret_cast<PFN_##name>(vk.vkGetInstanceProcAddr(instance, #name));     \
  if (!vk.name) throw GpuError("gpu: the Vulkan loader has no " #name);
  PROX_VK_INSTANCE_FUNCTIONS(PROX_VK_LOAD)
#undef PROX_VK_LOAD

  std::uint32_t n = 0;
  vk.vkEnumeratePhysicalDevices(instance, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  if (n) vk.vkEnumeratePhysicalDevices(instance, &n, devices.data());
  if (n == 0)
    throw GpuError("gpu: no Vulkan device (the loader found no driver with a device; on Debian "
                   "mesa-vulkan-drivers provides the CPU driver lavapipe)");

  // Candidates: compute queue and shaderFloat64; PROX_GPU_DEVICE picks one.
  const char* want = std::getenv("PROX_GPU_DEVICE");
  std::string rejected;
  int best = -1, best_rank = 1 << 30;
  for (std::uint32_t i = 0; i < n; ++i) {
    VkPhysicalDeviceProperties props;
    vk.vkGetPhysicalDeviceProperties(devices[i], &props);
    VkPhysicalDeviceFeatures features;
    vk.vkGetPhysicalDeviceFeatures(devices[i], &features);
    std::uint32_t family = 0;
    const bool usable = features.shaderFloat64 && compute_family(vk, devices[i], family);
    if (!usable) {
      rejected += std::string(rejected.empty() ? "" : "; ") + props.deviceName +
                  (features.shaderFloat64 ? " has no compute queue" : " lacks shaderFloat64");
      continue;
    }
    if (want && *want) {
      const std::string w = want;
      const bool match = w == std::to_string(i) || std::strstr(props.deviceName, want) != nullptr;
      if (!match) continue;
    }
    const int rank = type_rank(props.deviceType);
    if (rank < best_rank) {
      best = int(i);
      best_rank = rank;
    }
  }
  if (best < 0)
    throw GpuError(std::string("gpu: no usable Vulkan device") +
                   (want && *want ? std::string(" matching PROX_GPU_DEVICE=") + want : "") +
                   (rejected.empty() ? "" : " (" + rejected + ")"));
  physical = devices[std::size_t(best)];
  VkPhysicalDeviceProperties props;
  vk.vkGetPhysicalDeviceProperties(physical, &props);
  info.name = props.deviceName;
  info.type = type_name(props.deviceType);
  info.api_version = props.apiVersion;
  compute_family(vk, physical, queue_family);
  vk.vkGetPhysicalDeviceMemoryProperties(physical, &memory_properties);

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{};
  qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  qci.queueFamilyIndex = queue_family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkPhysicalDeviceFeatures enabled{};
  enabled.shaderFloat64 = VK_TRUE;
  VkDeviceCreateInfo dci{};
  dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.pEnabledFeatures = &enabled;
  check(vk.vkCreateDevice(physical, &dci, nullptr, &device), "vkCreateDevice");
  vk.vkGetDeviceQueue(device, queue_family, 0, &queue);

  VkCommandPoolCreateInfo pci{};

  pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = queue_family;
  check(vk.vkCreateCommandPool(device, &pci, nullptr, &command_pool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cai{};
  cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cai.commandPool = command_pool;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  check(vk.vkAllocateCommandBuffers(device, &cai, &command_buffer), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fci{};
  fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  check(vk.vkCreateFence(device, &fci, nullptr, &fence), "vkCreateFence");
}

Context::Impl::~Impl() { release(); }

void Context::Impl::release() {
  if (device) {
    for (auto& [spirv, p] : pipeline_cache) {
      p.cached = false;
      destroy(p);
    }
    pipeline_cache.clear();
    if (fence) vk.vkDestroyFence(device, fence, nullptr);
    if (command_pool) vk.vkDestroyCommandPool(device, command_pool, nullptr);
    vk.vkDestroyDevice(device, nullptr);
  }
  if (instance) vk.vkDestroyInstance(instance, nullptr);
  // The loader stays loaded (no dlclose): drivers keep process-wide state
  // (lavapipe's JIT registers unwind frames) that must outlive their unmapping.
  device = VK_NULL_HANDLE;
  instance = VK_NULL_HANDLE;
  library = nullptr;
}

std::uint32_t Context::Impl::memory_type(std::uint32_t bits, VkMemoryPropertyFlags want) const {
  for (std::uint32_t i = 0; i < memory_properties.memoryTypeCount; ++i)
    if ((bits & (1u << i)) &&
        (memory_properties.memoryTypes[i].propertyFlags & want) == want)
      return i;
  return ~0u;
}

Buffer Context::Impl::create_buffer(VkDeviceSize size, Memory where) {
  Buffer b;
  b.size = size;
  VkBufferCreateInfo bci{};
  bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bci.size = size == 0 ? 16 : size;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
              VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(vk.vkCreateBuffer(device, &bci, nullptr, &b.buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  vk.vkGetBufferMemoryRequirements(device, b.buffer, &req);
  const VkMemoryPropertyFlags host =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  std::uint32_t type = ~0u;
  if (where == Memory::device_local) {
    type = memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  } else if (where == Memory::host_readback) {
    type = memory_type(req.memoryTypeBits, host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (type == ~0u) {
      type = memory_type(req.memoryTypeBits,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
      if (type != ~0u) b.coherent = false;
    }
  }
  if (type == ~0u && where != Memory::device_local) type = memory_type(req.memoryTypeBits, host);
  if (type == ~0u) type = memory_type(req.memoryTypeBits, 0);
  VkMemoryAllocateInfo mai{};
  mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  const VkResult r = vk.vkAllocateMemory(device, &mai, nullptr, &b.memory);
  if (r != VK_SUCCESS) {
    vk.vkDestroyBuffer(device, b.buffer, nullptr);
    check(r, ("vkAllocateMemory of " + std::to_string(req.size) + " bytes").c_str());
  }
  check(vk.vkBindBufferMemory(device, b.buffer, b.memory, 0), "vkBindBufferMemory");
  const VkMemoryPropertyFlags got = memory_properties.memoryTypes[type].propertyFlags;
  if (got & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
    check(vk.vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped), "vkMapMemory");
  b.coherent = (got & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  return b;
}

void Context::Impl::destroy(Buffer& b) {
  if (b.buffer) vk.vkDestroyBuffer(device, b.buffer, nullptr);
  if (b.memory) vk.vkFreeMemory(device, b.memory, nullptr);
  b = Buffer{};
}

void Context::Impl::invalidate(const Buffer& b) {
  if (b.coherent || !b.mapped) return;
  VkMappedMemoryRange range{};
  range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
  range.memory = b.memory;
  range.size = VK_WHOLE_SIZE;
  check(vk.vkInvalidateMappedMemoryRanges(device, 1, &range), "vkInvalidateMappedMemoryRanges");
}

void Context::Impl::upload(const Buffer& dst, std::span<const std::byte> bytes) {
  if (bytes.empty()) return;
  if (dst.mapped && dst.coherent) {  // a host-visible device (lavapipe, unified memory)
    std::memcpy(dst.mapped, bytes.data(), bytes.size());
    return;
  }
  Buffer staging = create_buffer(bytes.size(), Memory::host_upload);
  try {
    std::memcpy(staging.mapped, bytes.data(), bytes.size());
    submit_and_wait([&](VkCommandBuffer cmd) {
      VkBufferCopy region{};
      region.size = bytes.size();
      vk.vkCmdCopyBuffer(cmd, staging.buffer, dst.buffer, 1, &region);
      // Later dispatches (later submissions on this queue) read what was copied.
      VkMemoryBarrier mb{};
      mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
      mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
      vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0,
                              nullptr);
    });
  } catch (...) {
    destroy(staging);
    throw;
  }
  destroy(staging);
}

Pipeline Context::Impl::create_pipeline(std::span<const std::uint32_t> spirv,
                                        std::uint32_t bindings, std::uint32_t push_bytes) {
  Pipeline p;
  p.bindings = bindings;
  VkShaderModuleCreateInfo smci{};
  smci.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  smci.codeSize = spirv.size_bytes();
  smci.pCode = spirv.data();
  check(vk.vkCreateShaderModule(device, &smci, nullptr, &p.module), "vkCreateShaderModule");
  std::vector<VkDescriptorSetLayoutBinding> lb(bindings);
  for (std::uint32_t i = 0; i < bindings; ++i) {
    lb[i] = VkDescriptorSetLayoutBinding{};
    lb[i].binding = i;
    lb[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    lb[i].descriptorCount = 1;
    lb[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo dslci{};
  dslci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  dslci.bindingCount = bindings;
  dslci.pBindings = lb.data();
  check(vk.vkCreateDescriptorSetLayout(device, &dslci, nullptr, &p.set_layout),
        "vkCreateDescriptorSetLayout");
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  VkPipelineLayoutCreateInfo plci{};
  plci.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &p.set_layout;
  plci.pushConstantRangeCount = push_bytes ? 1 : 0;
  plci.pPushConstantRanges = &range;
  check(vk.vkCreatePipelineLayout(device, &plci, nullptr, &p.layout), "vkCreatePipelineLayout");
  VkComputePipelineCreateInfo cpci{};
  cpci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  cpci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = p.module;
  cpci.stage.pName = "main";
  cpci.layout = p.layout;
  check(vk.vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &cpci, nullptr, &p.pipeline),
        "vkCreateComputePipelines");
  allocate_set(p);
  return p;
}

void Context::Impl::allocate_set(Pipeline& p) {
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, p.bindings};
  VkDescriptorPoolCreateInfo dpci{};
  dpci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  dpci.maxSets = 1;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &size;
  check(vk.vkCreateDescriptorPool(device, &dpci, nullptr, &p.pool), "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo dsai{};
  dsai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  dsai.descriptorPool = p.pool;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &p.set_layout;
  check(vk.vkAllocateDescriptorSets(device, &dsai, &p.set), "vkAllocateDescriptorSets");
}

Pipeline Context::Impl::cached_pipeline(std::span<const std::uint32_t> spirv,
                                        std::uint32_t bindings, std::uint32_t push_bytes) {
  std::uint64_t hash = 14695981039346656037ull;
  for (const std::uint32_t w : spirv) hash = (hash ^ w) * 1099511628211ull;
  const auto key = std::make_pair(hash, spirv.size());
  auto it = pipeline_cache.find(key);
  if (it == pipeline_cache.end()) {
    Pipeline p = create_pipeline(spirv, bindings, push_bytes);
    vk.vkDestroyDescriptorPool(device, p.pool, nullptr);
    p.pool = VK_NULL_HANDLE;
    p.set = VK_NULL_HANDLE;
    p.cached = true;
    it = pipeline_cache.emplace(key, p).first;
  }
  Pipeline p = it->second;
  allocate_set(p);
  return p;
}

void Context::Impl::destroy(Pipeline& p) {
  if (p.pool) vk.vkDestroyDescriptorPool(device, p.pool, nullptr);
  if (p.cached) {
    p = Pipeline{};
    return;
  }
  if (p.pipeline) vk.vkDestroyPipeline(device, p.pipeline, nullptr);
  if (p.layout) vk.vkDestroyPipelineLayout(device, p.layout, nullptr);
  if (p.set_layout) vk.vkDestroyDescriptorSetLayout(device, p.set_layout, nullptr);
  if (p.module) vk.vkDestroyShaderModule(device, p.module, nullptr);
  p = Pipeline{};
}

void Context::Impl::bind(const Pipeline& p, std::span<const Buffer* const> buffers) {
  std::vector<VkDescriptorBufferInfo> infos(buffers.size());
  std::vector<VkWriteDescriptorSet> writes(buffers.size());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    infos[i] = VkDescriptorBufferInfo{buffers[i]->buffer, 0, VK_WHOLE_SIZE};
    writes[i] = VkWriteDescriptorSet{};
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = p.set;
    writes[i].dstBinding = std::uint32_t(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vk.vkUpdateDescriptorSets(device, std::uint32_t(writes.size()), writes.data(), 0, nullptr);
}

void Context::Impl::submit_recorded() {
  check(vk.vkResetFences(device, 1, &fence), "vkResetFences");
  VkSubmitInfo si{};
  si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &command_buffer;
  check(vk.vkQueueSubmit(queue, 1, &si, fence), "vkQueueSubmit");
  check(vk.vkWaitForFences(device, 1, &fence, VK_TRUE, ~std::uint64_t(0)), "vkWaitForFences");
}

void Context::Impl::record_dispatch(VkCommandBuffer cmd, const Pipeline& p,
                                    std::span<const std::byte> push, std::uint32_t groups) {
  vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
  vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &p.set, 0,
                             nullptr);
  if (!push.empty())
    vk.vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                          std::uint32_t(push.size()), push.data());
  vk.vkCmdDispatch(cmd, groups, 1, 1);
  VkMemoryBarrier mb{};
  mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb,
                          0, nullptr, 0, nullptr);
}

// ---- Context ------------------------------------------------------------------

Context::Context() : impl_(std::make_unique<Impl>()) {}
Context::~Context() = default;
const DeviceInfo& Context::device() const { return impl_->info; }

void Context::run_compute(std::span<const std::uint32_t> spirv,
                          std::span<const ComputeBuffer> buffers,
                          std::span<const std::byte> push_constants, std::uint32_t groups) {
  if (push_constants.size() > 128) throw GpuError("gpu: run_compute: push constants over 128 bytes");
  Impl& c = *impl_;
  std::vector<Buffer> bufs;
  Pipeline p;
  auto cleanup = [&] {
    for (Buffer& b : bufs) c.destroy(b);
    c.destroy(p);
  };
  try {
    for (const ComputeBuffer& b : buffers) {
      bufs.push_back(c.create_buffer(b.data.size(), Memory::host_readback));
      if (!bufs.back().mapped) throw GpuError("gpu: run_compute: no host-visible memory");
      std::memcpy(bufs.back().mapped, b.data.data(), b.data.size());
    }
    p = c.cached_pipeline(spirv, std::uint32_t(buffers.size()),
                          std::uint32_t(push_constants.size()));
    std::vector<const Buffer*> ptrs;
    for (const Buffer& b : bufs) ptrs.push_back(&b);
    c.bind(p, ptrs);
    c.submit_and_wait([&](VkCommandBuffer cmd) { c.record_dispatch(cmd, p, push_constants, groups); });
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      c.invalidate(bufs[i]);
      std::memcpy(buffers[i].data.data(), bufs[i].mapped, buffers[i].data.size());
    }
  } catch (...) {
    cleanup();
    throw;
  }
  cleanup();
}

std::string unavailable_reason() {
  try {
    Context c;
    return "";
  } catch (const GpuError& e) {
    return e.what();
  }
}

}  // namespace prox::gpu
