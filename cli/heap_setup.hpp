#pragma once
// Process-wide allocator set-up for a short-lived command-line run.

namespace ikfix::cli {

// Serves large blocks (clip text, clips, fixed clips, output text: tens of MB for a long clip)
// from one pre-grown heap backed by transparent huge pages where the kernel allows it (THP
// "madvise" mode, the Debian default), and keeps freed blocks for reuse. Page faults were ~20%
// of an `ikfix run`: 4 KiB pages meant ~6600 faults for a 2 MB BVH, huge pages ~1400. Call
// once, first thing in main(). Best effort: a kernel without THP just gets ordinary pages.
void set_up_heap_for_large_blocks();

}  // namespace ikfix::cli
