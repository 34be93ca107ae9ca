#pragma once
// Process-wide allocator set-up for a short-lived command-line run.

#include <cstdint>

namespace ikfix::cli {

// The size of a transparent huge page on x86-64 (and the alignment it needs).
inline constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

// Bytes from `address` up to the next huge-page boundary (0 on one).
constexpr std::uintptr_t bytes_below_huge_page(std::uintptr_t address) {
  return (kHugePage - address % kHugePage) % kHugePage;
}

// Serves large blocks (clip text, clips, fixed clips, output text: tens of MB for a long clip)
// from one pre-grown heap backed by transparent huge pages where the kernel allows it (THP
// "madvise" mode, the Debian default), and keeps freed blocks for reuse. Page faults were ~20%
// of an `ikfix run`: 4 KiB pages meant ~6600 faults for a 2 MB BVH, huge pages ~1400. Call
// once, first thing in main(). Best effort: a kernel without THP just gets ordinary pages.
// one_arena: every thread allocates from that heap (glibc's M_ARENA_MAX 1) instead of an arena
// of its own, whose mmap'd heaps get no huge-page advice: a one-clip command's pool threads
// (the OBJ reader's chunks, the legs' solves) then fault in their blocks 4 KiB at a time. Not
// for `batch`, whose threads each fix whole clips at once: one heap lock for all of them is a
// contention on a machine of many cores.
void set_up_heap_for_large_blocks(bool one_arena);

}  // namespace ikfix::cli
