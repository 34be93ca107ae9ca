#pragma once
// Growing a large array without writing it first, so the code that fills it (often on several
// threads) is the only pass over the memory. A std::vector resize() value-initialises every new
// element on the calling thread: for a 2752-frame, 31-joint BVH clip that was a serial 7 MB
// fill (~1.2 ms, most of it first-touch page faults) before the parallel conversion overwrote it.
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace ikfix::core {

namespace unwritten_detail {
// Set only for the duration of one resize_unwritten() call on this thread.
inline thread_local bool skip_fill = false;
}  // namespace unwritten_detail

// std::allocator, except that a resize() made by resize_unwritten() leaves the new elements
// unwritten. Every other way of adding elements (resize, assign, push_back, copies) constructs
// them exactly as std::allocator does.
template <class T>
struct UnwrittenResizeAllocator : std::allocator<T> {
  using value_type = T;
  UnwrittenResizeAllocator() = default;
  template <class U>
  UnwrittenResizeAllocator(const UnwrittenResizeAllocator<U>&) noexcept {}  // NOLINT: rebinding

  template <class U>
  void construct(U* p) {
    if (!unwritten_detail::skip_fill) std::construct_at(p);
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    std::construct_at(p, std::forward<Args>(args)...);
  }
};

template <class T>
using UnwrittenResizeVector = std::vector<T, UnwrittenResizeAllocator<T>>;

// Resizes `v` to `size` elements; those added are left unwritten (indeterminate values). The
// caller must write every added element before anything reads it. Only for implicit-lifetime
// element types (aggregates such as Transform, scalars), whose objects the allocation itself
// creates, so skipping the constructor call is well defined.
template <class T>
void resize_unwritten(UnwrittenResizeVector<T>& v, std::size_t size) {
  static_assert(std::is_trivially_destructible_v<T> && std::is_trivially_copyable_v<T>,
                "resize_unwritten is for plain data");
  unwritten_detail::skip_fill = true;
  try {
    v.resize(size);
  } catch (...) {
    unwritten_detail::skip_fill = false;
    throw;
  }
  unwritten_detail::skip_fill = false;
}

}  // namespace ikfix::core
