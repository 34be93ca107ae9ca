#include "core/parallel.hpp"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ikfix::core {

void parallel_ranges(const ParallelRunner* runner, int count, int min_per_range,
                     const std::function<void(int begin, int end)>& body) {
  if (count <= 0) return;
  if (runner == nullptr || runner->threads() < 2 || count < 2 * std::max(1, min_per_range)) {
    body(0, count);
    return;
  }
  runner->for_ranges(count, body);
}

namespace {
// The pool whose body this thread is running, if any (nested loops run serially).
thread_local const void* running_pool = nullptr;
}  // namespace

struct ThreadPool::State {
  int thread_count = 1;
  std::vector<std::thread> workers;

  std::mutex call_mutex;  // one loop at a time from outside the pool

  std::mutex mutex;
  std::condition_variable work_ready;
  std::condition_variable work_done;
  unsigned long generation = 0;  // bumped for every loop; workers run once per generation
  bool stopping = false;
  const std::function<void(int, int)>* body = nullptr;
  int count = 0;
  int pending = 0;                          // workers still running the current loop
  std::vector<std::exception_ptr> errors;   // per range

  int range_begin(int range) const {
    return static_cast<int>(static_cast<long long>(count) * range / thread_count);
  }

  void run_range(int range, const void* pool) {
    const int begin = range_begin(range), end = range_begin(range + 1);
    if (begin >= end) return;
    running_pool = pool;
    try {
      (*body)(begin, end);
    } catch (...) {
      errors[range] = std::current_exception();
    }
    running_pool = nullptr;
  }

  void worker_loop(int range, const void* pool) {
    unsigned long seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex);
        work_ready.wait(lock, [&] { return stopping || generation != seen; });
        if (stopping) return;
        seen = generation;
      }
      run_range(range, pool);
      {
        std::lock_guard lock(mutex);
        if (--pending == 0) work_done.notify_one();
      }
    }
  }
};

ThreadPool::ThreadPool(int threads) : state_(std::make_unique<State>()) {
  state_->thread_count = std::max(1, threads);
  state_->errors.resize(state_->thread_count);
  for (int range = 1; range < state_->thread_count; ++range)
    state_->workers.emplace_back([this, range] { state_->worker_loop(range, this); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->work_ready.notify_all();
  for (std::thread& t : state_->workers) t.join();
}

int ThreadPool::threads() const { return state_->thread_count; }

void ThreadPool::for_ranges(int count, const std::function<void(int begin, int end)>& body) const {
  if (count <= 0) return;
  if (state_->thread_count < 2 || running_pool == this) {
    body(0, count);
    return;
  }
  State& s = *state_;
  std::lock_guard call(s.call_mutex);
  {
    std::lock_guard lock(s.mutex);
    s.body = &body;
    s.count = count;
    s.pending = s.thread_count - 1;
    for (auto& e : s.errors) e = nullptr;
    ++s.generation;
  }
  s.work_ready.notify_all();
  s.run_range(0, this);
  {
    std::unique_lock lock(s.mutex);
    s.work_done.wait(lock, [&] { return s.pending == 0; });
    s.body = nullptr;
  }
  for (const auto& e : s.errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace ikfix::core
