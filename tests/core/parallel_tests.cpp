#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/parallel.hpp"

namespace ikfix::core {
namespace {

// Every index visited exactly once, by consecutive ranges, whatever the thread count.
TEST(ThreadPool, RangesCoverEveryIndexOnce) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (int count : {1, 2, 3, 7, 100, 1001}) {
      std::vector<int> visits(count, 0);
      pool.for_ranges(count, [&](int begin, int end) {
        ASSERT_LT(begin, end);
        for (int i = begin; i < end; ++i) ++visits[i];
      });
      for (int i = 0; i < count; ++i)
        EXPECT_EQ(visits[i], 1) << "threads " << threads << " count " << count << " index " << i;
    }
  }
}

TEST(ThreadPool, UsesMoreThanOneThread) {
  ThreadPool pool(2);
  std::mutex m;
  std::set<std::thread::id> ids;
  std::atomic<int> arrived{0};
  pool.for_ranges(2, [&](int, int) {
    // Both ranges wait for each other: only possible when they run at the same time.
    ++arrived;
    while (arrived.load() < 2) std::this_thread::yield();
    std::lock_guard lock(m);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(ids.size(), 2u);
}

// Workers poll a short while for the next loop before they sleep: a loop started while they poll
// (right after the last) and one started after they sleep (a pause of milliseconds) both run on
// two threads and cover every index once.
TEST(ThreadPool, NextLoopRunsWhetherWorkersPollOrSleep) {
  ThreadPool pool(2);
  for (int pause_ms : {0, 0, 20, 0, 20}) {
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    std::mutex m;
    std::set<std::thread::id> ids;
    std::atomic<int> arrived{0};
    std::vector<int> visits(10, 0);
    pool.for_ranges(10, [&](int begin, int end) {
      ++arrived;
      while (arrived.load() < 2) std::this_thread::yield();
      std::lock_guard lock(m);
      ids.insert(std::this_thread::get_id());
      for (int i = begin; i < end; ++i) ++visits[i];
    });
    EXPECT_EQ(ids.size(), 2u) << "after a pause of " << pause_ms << " ms";
    for (int i = 0; i < 10; ++i)
      EXPECT_EQ(visits[i], 1) << "index " << i << " after a pause of " << pause_ms << " ms";
  }
}

TEST(ThreadPool, ResultIndependentOfThreadCount) {
  const int n = 5000;
  auto run = [&](int threads) {
    ThreadPool pool(threads);
    std::vector<double> out(n);
    pool.for_ranges(n, [&](int begin, int end) {
      for (int i = begin; i < end; ++i) out[i] = std::sin(i * 0.001) * std::sqrt(i + 1.0);
    });
    return out;
  };
  const auto one = run(1);
  EXPECT_EQ(run(2), one);
  EXPECT_EQ(run(7), one);
}

TEST(ThreadPool, RethrowsTheLowestRangesException) {
  ThreadPool pool(4);
  try {
    pool.for_ranges(
        8, [&](int begin, int) { throw std::runtime_error("range at " + std::to_string(begin)); });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "range at 0");
  }
  // The pool still works after a failed loop.
  std::atomic<int> sum{0};
  pool.for_ranges(10, [&](int begin, int end) { sum += end - begin; });
  EXPECT_EQ(sum.load(), 10);
}

TEST(ThreadPool, NestedLoopRunsSerially) {
  ThreadPool pool(2);
  std::vector<int> visits(40, 0);
  pool.for_ranges(4, [&](int begin, int end) {
    for (int outer = begin; outer < end; ++outer)
      pool.for_ranges(10, [&](int b, int e) {
        EXPECT_EQ(b, 0);  // serial: one call over the whole range
        EXPECT_EQ(e, 10);
        for (int i = b; i < e; ++i) ++visits[outer * 10 + i];
      });
  });
  for (int v : visits) EXPECT_EQ(v, 1);
}

TEST(ParallelRanges, SerialWithoutRunnerOrForSmallLoops) {
  ThreadPool pool(2);
  int calls = 0;
  parallel_ranges(nullptr, 100, 1, [&](int b, int e) {
    ++calls;
    EXPECT_EQ(e - b, 100);
  });
  parallel_ranges(&pool, 10, 8, [&](int b, int e) {
    ++calls;
    EXPECT_EQ(e - b, 10);
  });
  EXPECT_EQ(calls, 2);
  parallel_ranges(&pool, 0, 1, [&](int, int) { ++calls; });
  EXPECT_EQ(calls, 2);
  std::atomic<int> ranges{0};
  parallel_ranges(&pool, 100, 8, [&](int, int) { ++ranges; });
  EXPECT_EQ(ranges.load(), 2);
}

}  // namespace
}  // namespace ikfix::core
