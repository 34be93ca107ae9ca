#pragma once
// A core::ThreadPool that counts the loops handed to it, so a test can show the threaded path
// really ran (a loop too small for its threads runs serially without reaching the runner).
#include <atomic>
#include <functional>

#include "core/parallel.hpp"

namespace ikfix::test {

class CountingRunner final : public core::ParallelRunner {
 public:
  explicit CountingRunner(int threads) : pool_(threads) {}
  int threads() const override { return pool_.threads(); }
  void for_ranges(int count, const std::function<void(int, int)>& body) const override {
    ++loops_;
    pool_.for_ranges(count, body);
  }
  int loops() const { return loops_; }

 private:
  core::ThreadPool pool_;
  mutable std::atomic<int> loops_{0};
};

}  // namespace ikfix::test
