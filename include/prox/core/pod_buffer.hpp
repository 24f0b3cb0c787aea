// prox/core/pod_buffer.hpp — arrays of trivially copyable values in memory
// from malloc, which can take over a block that an earlier step has finished
// with and grow it in place.
//
// Why not std::vector: a fresh array of tens of megabytes pays a page fault
// on the first touch of every 4 KB page (1.3 us a page on the 2-core machine
// of docs/engine.md: ~8 ms of bunny-1m's 2-thread build for the 47 MB of leaf
// packs). The BVH builder's references (32 bytes a primitive, every page
// already touched) are freed just before the packs are made. A RawBlock hands
// that memory over, and PodBuffer grows it with std::realloc, which for a
// block of this size (glibc serves it with mmap) moves the pages with mremap:
// the pages already touched are reused, not unmapped and faulted again. On
// other allocators realloc may copy; the result is the same array either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace prox {

/// Bytes from std::malloc, freed with std::free; move-only. Its contents are
/// whatever was last written there.
class RawBlock {
 public:
  RawBlock() = default;
  explicit RawBlock(std::size_t bytes) { resize(bytes); }
  RawBlock(RawBlock&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  RawBlock& operator=(RawBlock&& o) noexcept {
    if (this != &o) {
      std::free(data_);
      data_ = std::exchange(o.data_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  RawBlock(const RawBlock&) = delete;
  RawBlock& operator=(const RawBlock&) = delete;
  ~RawBlock() { std::free(data_); }

  void* data() const { return data_; }
  std::size_t size() const { return bytes_; }
  bool empty() const { return data_ == nullptr; }

  /// Grows or shrinks the block to `bytes` (0 frees it), keeping the first
  /// min(old, new) bytes (std::realloc); throws std::bad_alloc, leaving the
  /// block as it was.
  void resize(std::size_t bytes) {
    if (bytes == 0) {
      std::free(data_);
      data_ = nullptr;
      bytes_ = 0;
      return;
    }
    void* p = std::realloc(data_, bytes);
    if (p == nullptr) throw std::bad_alloc();
    data_ = p;
    bytes_ = bytes;
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// A fixed-size array of trivially copyable T, aligned to alignof(T), in a
/// RawBlock. Copies are deep.
template <class T>
class PodBuffer {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  PodBuffer() = default;
  PodBuffer(PodBuffer&& o) noexcept
      : block_(std::move(o.block_)),
        data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)) {}
  PodBuffer& operator=(PodBuffer&& o) noexcept {
    if (this != &o) {
      block_ = std::move(o.block_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  PodBuffer(const PodBuffer& o) { *this = o; }
  PodBuffer& operator=(const PodBuffer& o) {
    if (this != &o) {
      PodBuffer copy;
      copy.assign_uninitialized(o.size_);
      if (o.size_ > 0) std::memcpy(static_cast<void*>(copy.data_), o.data_, o.size_ * sizeof(T));
      *this = std::move(copy);
    }
    return *this;
  }

  /// Makes the array n elements long with unspecified contents (every element
  /// is the caller's to write). With `recycled` non-empty, its memory is
  /// grown to size (realloc) and used instead of a new allocation, and this
  /// buffer's previous memory is freed.
  void assign_uninitialized(std::size_t n, RawBlock recycled = {}) {
    if (n == 0) {
      block_ = RawBlock();
      data_ = nullptr;
      size_ = 0;
      return;
    }
    if (n > (SIZE_MAX - kSlack) / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T) + kSlack;
    if (!recycled.empty()) {
      recycled.resize(bytes);
      block_ = std::move(recycled);
    } else if (block_.size() < bytes || block_.size() / 2 > bytes) {
      block_ = RawBlock();  // the old contents are not kept: no copy
      block_.resize(bytes);
    }
    const auto addr = reinterpret_cast<std::uintptr_t>(block_.data());
    const std::uintptr_t aligned = (addr + kSlack) & ~std::uintptr_t(kSlack);
    data_ = reinterpret_cast<T*>(aligned);
    size_ = n;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  /// Gives up the memory (for another buffer to recycle); the array is empty after.
  RawBlock release() {
    data_ = nullptr;
    size_ = 0;
    return std::move(block_);
  }
  /// Bytes allocated (the block, alignment slack included).
  std::size_t capacity_bytes() const { return block_.size(); }

 private:
  // malloc aligns to alignof(std::max_align_t); a larger alignment is made
  // by starting up to alignof(T) - 1 bytes into the block.
  static constexpr std::size_t kSlack =
      alignof(T) > alignof(std::max_align_t) ? alignof(T) - 1 : 0;
  RawBlock block_;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace prox
