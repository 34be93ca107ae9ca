// io::for_each_block: every block once, the lowest failing block's error, and block_count's cuts.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "io/parallel_blocks.hpp"

namespace {

using ikfix::core::ThreadPool;
using ikfix::io::block_count;
using ikfix::io::for_each_block;
using ikfix::io::reader_threads;

TEST(ParallelBlocks, EveryBlockRunsOnceOnAnyRunner) {
  const ThreadPool two(2), three(3);
  for (const ThreadPool* runner : {static_cast<const ThreadPool*>(nullptr), &two, &three}) {
    std::vector<std::atomic<int>> runs(37);
    for_each_block(runner, 37, [&](int k) { ++runs[static_cast<std::size_t>(k)]; });
    for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  }
}

TEST(ParallelBlocks, SerialWithoutRunnerRunsInOrder) {
  std::vector<int> order;
  for_each_block(nullptr, 5, [&](int k) { order.push_back(k); });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(ParallelBlocks, LowestFailingBlockErrorIsRethrown) {
  ThreadPool pool(3);
  for (int attempt = 0; attempt < 20; ++attempt) {
    try {
      for_each_block(&pool, 64, [&](int k) {
        if (k == 9 || k == 30 || k == 63) throw std::runtime_error("block " + std::to_string(k));
      });
      ADD_FAILURE() << "no error";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "block 9");
    }
  }
}

TEST(ParallelBlocks, BlockCountCutsWorkForTheRunner) {
  ThreadPool pool(2);
  EXPECT_EQ(block_count(nullptr, 1000000, 10), 1);
  EXPECT_EQ(block_count(&pool, 1000000, 10), 2 * ikfix::io::kBlocksPerThread);
  EXPECT_EQ(block_count(&pool, 50, 10), 5);  // each block keeps its minimum
  EXPECT_EQ(block_count(&pool, 5, 10), 1);   // too little to split
  // A caller's own count per thread (the OBJ first pass's chunks), under the same minimum.
  EXPECT_EQ(block_count(2, 1000000, 10, 32), 64);
  EXPECT_EQ(block_count(2, 500, 10, 32), 50);
  EXPECT_EQ(block_count(1, 1000000, 10, 32), 1);
}

// A file reader's threads: none for a small read, the caller's pool when it lends one, else a
// pool of its own of --threads (none for 1).
TEST(ReaderThreads, SmallReadsNoneLentPoolElseItsOwn) {
  const ThreadPool lent(2);
  std::optional<ThreadPool> own;
  EXPECT_EQ(reader_threads(&lent, 3, false, own), nullptr);
  EXPECT_EQ(reader_threads(&lent, 3, true, own), &lent);
  EXPECT_FALSE(own.has_value());
  EXPECT_EQ(reader_threads(nullptr, 1, true, own), nullptr);
  EXPECT_FALSE(own.has_value());
  const ikfix::core::ParallelRunner* made = reader_threads(nullptr, 3, true, own);
  ASSERT_TRUE(own.has_value());
  EXPECT_EQ(made, &*own);
  EXPECT_EQ(made->threads(), 3);
}

}  // namespace
