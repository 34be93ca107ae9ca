#pragma once
// An allocator for buffers that the next loop overwrites whole.
#include <memory>
#include <type_traits>
#include <utility>

namespace ikfix::core {

// Containers using it leave new elements of an implicit-lifetime type (a trivially copyable
// struct such as Transform or GroundHit, default member initialisers or not) unset instead of
// value-initialising them: filling a buffer first that a loop then overwrites entirely is a
// pass over memory for nothing (2.6 MB of transforms in the fix's FK, on one thread). Only for
// buffers whose every element is written before it is read.
template <typename T>
struct OverwriteAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = OverwriteAllocator<U>;
  };
  OverwriteAllocator() = default;
  template <typename U>
  OverwriteAllocator(const OverwriteAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U*) noexcept {
    static_assert(std::is_trivially_copyable_v<U> && std::is_trivially_destructible_v<U>);
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

}  // namespace ikfix::core
