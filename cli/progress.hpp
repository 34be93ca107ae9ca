#pragma once
// Batch progress on stderr. On a terminal: one live line, redrawn in place (clips done/total,
// failures, frames/s, ETA). Otherwise (CI logs): a plain line every few seconds. Disabled: nothing.
// Thread-safe; log lines printed through `log` clear the live line first so they never mix.
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace ikfix::cli {

class BatchProgress {
 public:
  BatchProgress(long total_clips, std::uintmax_t total_bytes, bool enabled);
  ~BatchProgress();

  // A clip is finished (fixed, failed or skipped by --resume).
  void clip_finished(long frames, std::uintmax_t bytes, bool failed);
  // Called every fraction of a second by the thread that waits: redraws when it is time.
  void tick();
  // Runs `print` (which logs) with the live line cleared, then redraws it.
  void log(const std::function<void()>& print);
  // Clears the live line for good.
  void finish();

 private:
  std::string line() const;
  void clear_locked();
  void draw_locked();

  std::mutex mutex_;
  const long total_clips_;
  const std::uintmax_t total_bytes_;
  const bool enabled_;
  const bool tty_;
  const std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  long done_ = 0, failed_ = 0, frames_ = 0;
  std::uintmax_t bytes_ = 0;
  bool drawn_ = false;
  bool finished_ = false;
};

}  // namespace ikfix::cli
