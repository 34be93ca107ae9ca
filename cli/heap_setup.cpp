#include "cli/heap_setup.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace ikfix::cli {

void set_up_heap_for_large_blocks() {
  // Large blocks from the heap, not one mmap each: glibc would unmap them on free and the next
  // block would fault in fresh zeroed pages again. Never trimmed, so freed blocks are reused.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  // Grow the heap 64 MiB at a time (address space; pages are only backed when touched).
  constexpr std::uintptr_t kGrowth = std::uintptr_t{64} << 20;
  mallopt(M_TOP_PAD, static_cast<int>(kGrowth));
  void* probe = std::malloc(kGrowth);  // grows the heap now (freed below, kept for reuse)
  if (!probe) return;
  // Ask for huge pages over the fresh part of the heap, 2 MiB aligned inside it.
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto begin = (reinterpret_cast<std::uintptr_t>(probe) + kHuge - 1) & ~(kHuge - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(sbrk(0)) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  std::free(probe);
}

}  // namespace ikfix::cli
