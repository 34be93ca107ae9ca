#pragma once
// --threads for commands that work on one clip (run, check): how many threads that one clip's
// read, fix and write may share. Outputs are the same bit for bit whatever the number.
#include <memory>

#include <CLI/CLI.hpp>

#include "core/parallel.hpp"

namespace ikfix::cli {

void add_threads_option(CLI::App& cmd, int& threads);

// The pool for --threads `threads` (0: one thread per core), or null for one thread: the
// single-thread path, with no worker thread started.
std::unique_ptr<core::ThreadPool> make_thread_pool(int threads);

}  // namespace ikfix::cli
