#include "cli/thread_option.hpp"

#include <algorithm>
#include <thread>

namespace ikfix::cli {

void add_threads_option(CLI::App& cmd, int& threads) {
  cmd.add_option(
         "--threads", threads,
         "Threads for this clip's read, fix and write (0: one per core; 1: this thread only); "
         "the output is the same whatever the number")
      ->check(CLI::Range(0, 256))
      ->default_val(0);
}

std::unique_ptr<core::ThreadPool> make_thread_pool(int threads) {
  const int n =
      threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (n < 2) return nullptr;
  return std::make_unique<core::ThreadPool>(n);
}

const core::ParallelRunner* thread_pool_for_process(int threads) {
  return make_thread_pool(threads).release();  // intentionally never destroyed (see the header)
}

}  // namespace ikfix::cli
