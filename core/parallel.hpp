#pragma once
// Splitting a loop over threads without changing its result.
//
// Only for loops whose iterations are independent: iteration i reads shared inputs and writes
// outputs no other iteration touches. Then the result is the same bit for bit whatever the
// number of threads or the split, which keeps every output deterministic.
#include <functional>
#include <memory>

namespace ikfix::core {

// Runs a loop's index range as consecutive sub-ranges, possibly on several threads at once.
class ParallelRunner {
 public:
  virtual ~ParallelRunner() = default;
  // Threads a loop may use (>= 1).
  virtual int threads() const = 0;
  // Calls body(begin, end) for consecutive ranges covering [0, count) and returns when all have
  // returned. An exception thrown by a body is rethrown here (the one of the lowest range).
  virtual void for_ranges(int count, const std::function<void(int begin, int end)>& body) const = 0;
};

// body(begin, end) over [0, count): on `runner`'s threads when there is one and every thread
// gets at least `min_per_range` iterations (below that a thread costs more than it saves),
// else in one call on this thread.
void parallel_ranges(const ParallelRunner* runner, int count, int min_per_range,
                     const std::function<void(int begin, int end)>& body);

// A ParallelRunner with its own worker threads (threads - 1 of them). A loop is split in
// `threads` ranges; the calling thread runs the first, then any range no worker has started
// yet (a worker the OS does not schedule soon, on a busy machine, does not hold the loop up).
// Workers are started once and wait between loops: they poll for ~300 us after a loop (waking a
// sleeping thread costs about as much as a short loop), then sleep. A loop started from inside
// one of this pool's bodies runs serially on that thread (no deadlock, same result).
class ThreadPool final : public ParallelRunner {
 public:
  explicit ThreadPool(int threads);  // threads < 1 is taken as 1
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const override;
  void for_ranges(int count, const std::function<void(int begin, int end)>& body) const override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ikfix::core
