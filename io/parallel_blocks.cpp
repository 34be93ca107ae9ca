#include "io/parallel_blocks.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <thread>
#include <vector>

namespace ikfix::io {

void for_each_block(const core::ParallelRunner* runner, int blocks,
                    const std::function<void(int block)>& body) {
  if (blocks <= 0) return;
  if (runner == nullptr || runner->threads() < 2 || blocks < 2) {
    for (int k = 0; k < blocks; ++k) body(k);
    return;
  }
  std::atomic<int> next{0};
  std::atomic<int> first_failed{std::numeric_limits<int>::max()};
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(blocks));
  // One range per thread; each thread then takes blocks in order until none is left.
  runner->for_ranges(runner->threads(), [&](int, int) {
    for (int k = next.fetch_add(1); k < blocks; k = next.fetch_add(1)) {
      if (k > first_failed.load()) return;  // an earlier block failed: its error is the one
      try {
        body(k);
      } catch (...) {
        errors[static_cast<std::size_t>(k)] = std::current_exception();
        int seen = first_failed.load();
        while (k < seen && !first_failed.compare_exchange_weak(seen, k)) {
        }
      }
    }
  });
  if (const int k = first_failed.load(); k < blocks)
    std::rethrow_exception(errors[static_cast<std::size_t>(k)]);
}

int block_count(const core::ParallelRunner* runner, long long work, long long min_per_block) {
  return block_count(runner ? runner->threads() : 1, work, min_per_block);
}

int block_count(int threads, long long work, long long min_per_block, int blocks_per_thread) {
  if (threads < 2 || min_per_block < 1) return 1;
  const long long most = static_cast<long long>(threads) * std::max(1, blocks_per_thread);
  return static_cast<int>(std::max(1LL, std::min(most, work / min_per_block)));
}

void on_every_thread(const core::ParallelRunner* runner, int blocks,
                     const std::function<void()>& work) {
  if (runner == nullptr || runner->threads() < 2 || blocks < 2) return work();
  runner->for_ranges(runner->threads(), [&](int, int) { work(); });
}

const core::ParallelRunner* reader_threads(const core::ParallelRunner* given, int threads,
                                           bool worth_threads,
                                           std::optional<core::ThreadPool>& own) {
  if (!worth_threads) return nullptr;
  if (given) return given;
  if (threads <= 0)
    threads = static_cast<int>(std::min(8u, std::max(1u, std::thread::hardware_concurrency())));
  if (threads < 2) return nullptr;
  own.emplace(threads);
  return &*own;
}

}  // namespace ikfix::io
