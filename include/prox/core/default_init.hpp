// prox/core/default_init.hpp — an allocator whose value-less construct leaves
// trivial elements uninitialised.
//
// std::vector<T>(n) and resize(n) value-initialise, which for a large array
// of trivial elements is a serial memset: every page is first touched by the
// calling thread, before a parallel loop overwrites every element anyway (the
// leaf packs of bunny-1m, 47 MB: ~10 ms of a 2-thread build). With this
// allocator resize(n) default-initialises, so the parallel loop that fills
// the array is the first to touch its pages.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace prox {

template <class T, class Base = std::allocator<T>>
struct DefaultInitAllocator : Base {
  using Traits = std::allocator_traits<Base>;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U, typename Traits::template rebind_alloc<U>>;
  };
  using Base::Base;
  DefaultInitAllocator() = default;
  template <class U, class B>
  DefaultInitAllocator(const DefaultInitAllocator<U, B>& other) noexcept : Base(other) {}

  /// resize(n), vector(n): default-initialised (no zeroing for trivial U).
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    Traits::construct(static_cast<Base&>(*this), p, std::forward<Args>(args)...);
  }
};

}  // namespace prox
