#include "cli/heap_setup.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <limits>

#if defined(__SANITIZE_ADDRESS__)
#define IKFIX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IKFIX_ASAN 1
#endif
#endif

namespace ikfix::cli {

namespace {

// The block over the heap below its first huge page (skip_heap_below), never freed. volatile:
// a block whose pointer is never read is otherwise not allocated at all (the compiler removes it).
void* volatile g_heap_below_huge_pages = nullptr;

// The heap from `first` (where its free top now starts) up to `begin` (the first huge-page
// boundary) can only have 4 KiB pages: the kernel maps a huge page only over an aligned 2 MiB
// wholly inside the advised range. Left free, it would serve the run's first ~2 MiB of blocks
// at a page fault per 4 KiB. One block over it, never freed and never written past its header,
// makes every later block come from the advised part; the gap costs address space only.
void skip_heap_below(std::uintptr_t begin, std::uintptr_t first) {
  if (begin <= first) return;
  // malloc's chunk of this request starts one header before `first` and ends at `begin`, where
  // the free top then starts. Should a freed block elsewhere serve it instead, the gap stays
  // as it was: a loss of nothing but the huge page.
  g_heap_below_huge_pages = std::malloc(begin - first);
}

}  // namespace

void set_up_heap_for_large_blocks(bool one_arena) {
#ifdef IKFIX_ASAN
  return;  // ASan's allocator replaces glibc's: no brk heap to shape, only shadow to poison
#endif
  // Large blocks from the heap, not one mmap each: glibc would unmap them on free and the next
  // block would fault in fresh zeroed pages again. Never trimmed, so freed blocks are reused.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  if (one_arena) mallopt(M_ARENA_MAX, 1);  // small blocks still come from each thread's cache
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  // Grow the heap 64 MiB at a time (address space; pages are only backed when touched).
  constexpr std::uintptr_t kGrowth = std::uintptr_t{64} << 20;
  mallopt(M_TOP_PAD, static_cast<int>(kGrowth));
  // Reserve up to 1 GiB of heap now (below the mmap threshold; only touched pages are backed)
  // and ask for huge pages over all of it: on 4 KiB pages a first touch costs a fault per page,
  // which made a clip's time per frame grow once its arrays outgrew a smaller huge-page part.
  // Under a tight address-space limit the reservation shrinks, down to the growth step.
  void* probe = nullptr;
  for (std::uintptr_t size = (std::uintptr_t{1} << 30) - kGrowth; !probe && size >= kGrowth;
       size /= 2)
    probe = std::malloc(size);
  if (!probe) return;
  // Ask for huge pages over the fresh part of the heap, 2 MiB aligned inside it.
  const auto first = reinterpret_cast<std::uintptr_t>(probe);
  const auto begin = first + bytes_below_huge_page(first);
  const auto end = reinterpret_cast<std::uintptr_t>(sbrk(0)) & ~(kHugePage - 1);
  if (end <= begin) return std::free(probe);
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  std::free(probe);
  skip_heap_below(begin, first);
}

}  // namespace ikfix::cli
