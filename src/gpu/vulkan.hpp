// src/gpu/vulkan.hpp — the Vulkan functions prox::gpu calls, loaded at run time
// from libvulkan.so.1 (so linking prox::gpu never requires a Vulkan loader),
// and the Context's internals: device, queue, buffers, pipelines.
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <span>
#include <string>

#include "prox/gpu/gpu.hpp"

namespace prox::gpu {

// X-macro of every entry point used: loaded with vkGetInstanceProcAddr.
#define PROX_VK_INSTANCE_FUNCTIONS(X)                                                       \
  X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties)       \
  X(vkGetPhysicalDeviceFeatures) X(vkGetPhysicalDeviceQueueFamilyProperties)               \
  X(vkGetPhysicalDeviceMemoryProperties) X(vkCreateDevice) X(vkDestroyDevice)              \
  X(vkGetDeviceQueue) X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) \
  X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory) X(vkMapMemory) X(vkUnmapMemory) \
  X(vkCreateShaderModule) X(vkDestroyShaderModule) X(vkCreateDescriptorSetLayout)          \
  X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout)     \
  X(vkCreateComputePipelines) X(vkDestroyPipeline) X(vkCreateDescriptorPool)               \
  X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets) X(vkUpdateDescriptorSets)         \
  X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers)               \
  X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkCmdBindPipeline)                       \
  X(vkCmdBindDescriptorSets) X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCmdCopyBuffer)     \
  X(vkCmdPipelineBarrier) X(vkQueueSubmit) X(vkQueueWaitIdle) X(vkCreateFence)             \
  X(vkDestroyFence) X(vkWaitForFences) X(vkResetFences) X(vkResetCommandBuffer)            \
  X(vkInvalidateMappedMemoryRanges)

struct Vk {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkCreateInstance vkCreateInstance = nullptr;
#define PROX_VK_DECLARE(name) PFN_##name name = nullptr;
  PROX_VK_INSTANCE_FUNCTIONS(PROX_VK_DECLARE)
#undef PROX_VK_DECLARE
};

/// Throws GpuError("what: VkResult name") unless r is VK_SUCCESS.
void check(VkResult r, const char* what);

/// A buffer and its memory; mapped when host-visible.
struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void* mapped = nullptr;
  bool coherent = true;
};

/// A compute pipeline over `bindings` storage buffers at set 0 and a push
/// constant block, with one descriptor set (its own: pool and set are per
/// Pipeline; module, layouts and pipeline may be shared through the cache).
struct Pipeline {
  VkShaderModule module = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  std::uint32_t bindings = 0;
  bool cached = false;  ///< module / layouts / pipeline belong to Context::Impl's cache
};

enum class Memory { device_local, host_upload, host_readback };

struct Context::Impl {
  void* library = nullptr;
  Vk vk;
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_properties{};
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  std::uint32_t queue_family = 0;
  VkCommandPool command_pool = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  DeviceInfo info;
  /// Compiled pipelines by (FNV-1a hash of the SPIR-V words, word count): a
  /// driver compiles each shader once per context (lavapipe takes ~a second).
  std::map<std::pair<std::uint64_t, std::size_t>, Pipeline> pipeline_cache;

  Impl();
  ~Impl();
  void init();
  void release();
  std::uint32_t memory_type(std::uint32_t bits, VkMemoryPropertyFlags want) const;

  Buffer create_buffer(VkDeviceSize size, Memory where);
  void destroy(Buffer& b);
  /// Makes device writes to a host buffer visible to the host.
  void invalidate(const Buffer& b);
  /// Copies bytes into a device-local buffer through a staging buffer.
  void upload(const Buffer& dst, std::span<const std::byte> bytes);

  Pipeline create_pipeline(std::span<const std::uint32_t> spirv, std::uint32_t bindings,
                           std::uint32_t push_bytes);
  /// The same from the cache (compiled on first use), with a descriptor set of its own.
  Pipeline cached_pipeline(std::span<const std::uint32_t> spirv, std::uint32_t bindings,
                           std::uint32_t push_bytes);
  void allocate_set(Pipeline& p);
  void destroy(Pipeline& p);
  /// Points binding i of p's set at buffers[i] (whole buffer).
  void bind(const Pipeline& p, std::span<const Buffer* const> buffers);

  /// Records commands with `record(cmd)`, submits, waits.
  template <class Record>
  void submit_and_wait(Record&& record) {
    check(vk.vkResetCommandBuffer(command_buffer, 0), "vkResetCommandBuffer");
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vk.vkBeginCommandBuffer(command_buffer, &begin), "vkBeginCommandBuffer");
    record(command_buffer);
    check(vk.vkEndCommandBuffer(command_buffer), "vkEndCommandBuffer");
    submit_recorded();
  }
  void submit_recorded();
  /// Dispatch of p with push constants, then a barrier making its writes
  /// visible to the host.
  void record_dispatch(VkCommandBuffer cmd, const Pipeline& p, std::span<const std::byte> push,
                       std::uint32_t groups);
};

}  // namespace prox::gpu
