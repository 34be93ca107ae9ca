#pragma once
// Blocks of work handed out one at a time to a runner's threads, lowest first.
//
// core::parallel_ranges gives each thread one fixed share of a loop: when a thread waits for a
// core (a busy machine), the others wait for it at the end. Here each thread takes the next
// block as soon as it is free, so a late thread just does fewer blocks. Each block must write
// only its own outputs; then the result does not depend on which thread ran it.
#include <functional>
#include <optional>

#include "core/parallel.hpp"

namespace ikfix::io {

// Calls body(k) for every k in [0, blocks): on `runner`'s threads when there is one with two
// threads or more and there are two blocks or more, else in order on this thread. When bodies
// throw, the exception of the lowest block is rethrown once every started block has returned
// (blocks after a failed one may be skipped), so the error is the one the serial loop gives.
void for_each_block(const core::ParallelRunner* runner, int blocks,
                    const std::function<void(int block)>& body);

// How many blocks to cut `work` units into for `runner`: up to kBlocksPerThread per thread (so
// the others can make up for a late thread), each of at least `min_per_block` units; 1 without
// a runner of two threads or more.
constexpr int kBlocksPerThread = 8;
int block_count(const core::ParallelRunner* runner, long long work, long long min_per_block);

// The same for a runner of `threads` threads, up to `blocks_per_thread` blocks per thread.
int block_count(int threads, long long work, long long min_per_block,
                int blocks_per_thread = kBlocksPerThread);

// Calls work() once on each of `runner`'s threads when there is one with two threads or more and
// there are two blocks or more, else once on this thread; returns when every call has. For work
// that claims its `blocks` itself (each call takes the next block until none is left).
void on_every_thread(const core::ParallelRunner* runner, int blocks,
                     const std::function<void()>& work);

// The threads a file reader runs on: none (this thread) unless the read is `worth_threads` (a
// small file costs less than starting threads); then `given`'s, or else those of `own`, made
// here with `threads` threads (0: one per hardware thread, at most 8; 1: none).
const core::ParallelRunner* reader_threads(const core::ParallelRunner* given, int threads,
                                           bool worth_threads,
                                           std::optional<core::ThreadPool>& own);

}  // namespace ikfix::io
