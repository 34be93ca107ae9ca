#pragma once
// --threads for commands that work on one clip (run, check): how many threads that one clip's
// read, fix and write may share. Outputs are the same bit for bit whatever the number.
#include <CLI/CLI.hpp>
#include <memory>

#include "core/parallel.hpp"

namespace ikfix::cli {

void add_threads_option(CLI::App& cmd, int& threads);

// The pool for --threads `threads` (0: one thread per core), or null for one thread: the
// single-thread path, with no worker thread started.
std::unique_ptr<core::ThreadPool> make_thread_pool(int threads);

// make_thread_pool for a command that runs once per process (run, check): the pool is kept until
// the process exits, its idle workers ended by the exit itself instead of joined. Joining waits
// for each worker to be scheduled again, which on a loaded machine took 3-12 ms at the end of an
// `ikfix run` (strace -f -tt). Null for one thread.
const core::ParallelRunner* thread_pool_for_process(int threads);

}  // namespace ikfix::cli
