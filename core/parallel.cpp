#include "core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
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

// How long a thread polls for the next loop (a worker) or for the other ranges to finish (the
// caller) before it sleeps on the condition variable. Waking a sleeping thread costs ~50-100 us
// on the 2-vCPU build machine, as much as a whole light loop of the fix (FK of 2,750 frames
// took as long on two threads as on one), and the fix runs a dozen loops a few hundred
// microseconds apart: polling that long keeps the second thread useful for them, and a thread
// with nothing to do still sleeps soon after.
constexpr auto kPollBeforeSleep = std::chrono::microseconds(300);

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Polls `ready` until it holds or kPollBeforeSleep has passed; returns whether it holds.
template <typename Ready>
bool poll_briefly(const Ready& ready) {
  const auto until = std::chrono::steady_clock::now() + kPollBeforeSleep;
  for (int i = 0;; ++i) {
    if (ready()) return true;
    if ((i & 63) == 63 && std::chrono::steady_clock::now() >= until) return ready();
    cpu_relax();
  }
}
}  // namespace

struct ThreadPool::State {
  int thread_count = 1;
  std::vector<std::thread> workers;

  std::mutex call_mutex;  // one loop at a time from outside the pool

  std::mutex mutex;
  std::condition_variable work_ready;
  std::condition_variable work_done;
  // Written under `mutex`; atomic so a polling thread may read them without it.
  std::atomic<unsigned long> generation = 0;  // bumped for every loop
  std::atomic<bool> stopping = false;
  const std::function<void(int, int)>* body = nullptr;
  int count = 0;
  // Ranges of the current loop are claimed in order by whichever thread asks first (the caller
  // takes range 0, then any range no worker has taken yet): on a machine shared with other
  // work, a worker that is not scheduled soon does not hold the loop up, the caller runs its
  // range instead. Which thread runs a range never changes what the range computes.
  int next_range = 0;
  std::atomic<int> ranges_done = 0;        // written under `mutex`
  std::vector<std::exception_ptr> errors;  // per range

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

  // Runs ranges of loop `loop` until none is left to claim. Called with `lock` held; returns
  // with it held.
  void run_claimed_ranges(std::unique_lock<std::mutex>& lock, unsigned long loop,
                          const void* pool) {
    while (generation == loop && next_range < thread_count) {
      const int range = next_range++;
      lock.unlock();
      run_range(range, pool);
      lock.lock();
      if (++ranges_done == thread_count) work_done.notify_all();
    }
  }

  void worker_loop(const void* pool) {
    unsigned long seen = 0;
    std::unique_lock lock(mutex);
    for (;;) {
      lock.unlock();
      poll_briefly([&] { return stopping.load() || generation.load() != seen; });
      lock.lock();
      work_ready.wait(lock, [&] { return stopping || generation != seen; });
      if (stopping) return;
      seen = generation;
      run_claimed_ranges(lock, seen, pool);
    }
  }
};

ThreadPool::ThreadPool(int threads) : state_(std::make_unique<State>()) {
  state_->thread_count = std::max(1, threads);
  state_->errors.resize(state_->thread_count);
  for (int worker = 1; worker < state_->thread_count; ++worker)
    state_->workers.emplace_back([this] { state_->worker_loop(this); });
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
    std::unique_lock lock(s.mutex);
    s.body = &body;
    s.count = count;
    s.next_range = 0;
    s.ranges_done = 0;
    for (auto& e : s.errors) e = nullptr;
    const unsigned long loop = ++s.generation;
    s.work_ready.notify_all();
    s.run_claimed_ranges(lock, loop, this);
    if (s.ranges_done != s.thread_count) {
      lock.unlock();
      poll_briefly([&] { return s.ranges_done.load() == s.thread_count; });
      lock.lock();
    }
    s.work_done.wait(lock, [&] { return s.ranges_done == s.thread_count; });
    s.body = nullptr;
  }
  for (const auto& e : s.errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace ikfix::core
