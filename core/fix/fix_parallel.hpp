#pragma once
// Kernels: how the fix's steps split their loops over threads. Every split is deterministic:
// iterations write only their own outputs, and reductions are combined in range order, so the
// result is the same bit for bit whatever the runner (core/README.md, "Invariants").
#include <algorithm>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "core/parallel.hpp"

namespace ikfix::core {

// Frames per thread below which a per-frame loop runs on one thread (handing a loop to a worker
// costs about what these many frames of the work save): for leg solves and output measurement,
// and for light per-frame math (FK, toe-bend math, a leg's share of a plan pass).
inline constexpr int kMinFramesPerRange = 64;
inline constexpr int kMinLightFramesPerRange = 512;

// The runner for per-leg work on a clip of `frames` frames: null (this thread) below
// kMinLightFramesPerRange frames.
inline const ParallelRunner* leg_runner_for(const ParallelRunner* runner, int frames) {
  return frames >= kMinLightFramesPerRange ? runner : nullptr;
}

// per_leg(0) and per_leg(1), side by side on `leg_runner`'s threads. For steps whose per-leg
// parts read shared inputs and write only their own leg's state. Loops inside a leg's part run
// on its thread (a pool's nested loop is serial).
inline void for_each_leg(const ParallelRunner* leg_runner,
                         const std::function<void(int)>& per_leg) {
  parallel_ranges(leg_runner, 2, 1, [&](int begin, int end) {
    for (int l = begin; l < end; ++l) per_leg(l);
  });
}

// body(begin, end, partial) over [0, count) split as parallel_ranges splits it, each range
// accumulating into its own `partial` (a copy of `init`); then combine(total, partial) for the
// ranges in order, starting from `init`, on this thread.
template <class T, class Body, class Combine>
T parallel_reduce_ordered(const ParallelRunner* runner, int count, int min_per_range, T init,
                          Body body, Combine combine) {
  std::mutex mutex;
  std::vector<std::pair<int, T>> partials;
  parallel_ranges(runner, count, min_per_range, [&](int begin, int end) {
    T partial = init;
    body(begin, end, partial);
    std::lock_guard lock(mutex);
    partials.emplace_back(begin, std::move(partial));
  });
  std::sort(partials.begin(), partials.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  T total = std::move(init);
  for (auto& [begin, partial] : partials) combine(total, partial);
  return total;
}

}  // namespace ikfix::core
