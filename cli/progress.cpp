#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace ikfix::cli {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTtyInterval = std::chrono::milliseconds(200);
constexpr auto kLogInterval = std::chrono::seconds(5);

std::string duration_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buffer[32];
  if (s >= 3600)
    std::snprintf(buffer, sizeof buffer, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buffer, sizeof buffer, "%ld:%02ld", s / 60, s % 60);
  return buffer;
}

}  // namespace

BatchProgress::BatchProgress(long total_clips, std::uintmax_t total_bytes, bool enabled)
    : total_clips_(total_clips),
      total_bytes_(total_bytes),
      enabled_(enabled),
      tty_(enabled && ::isatty(STDERR_FILENO) == 1),
      start_(Clock::now()),
      last_draw_(start_) {}

BatchProgress::~BatchProgress() { finish(); }

std::string BatchProgress::line() const {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  char buffer[200];
  const double fps = elapsed > 0 ? frames_ / elapsed : 0;
  std::string eta = "--:--";
  if (bytes_ > 0 && done_ < total_clips_)
    eta = duration_text(elapsed * static_cast<double>(total_bytes_ - bytes_) /
                        static_cast<double>(bytes_));
  else if (done_ == total_clips_)
    eta = "0:00";
  std::snprintf(buffer, sizeof buffer,
                "batch: %ld/%ld clips, %ld failed, %.0f frames/s, %s elapsed, ETA %s", done_,
                total_clips_, failed_, fps, duration_text(elapsed).c_str(), eta.c_str());
  return buffer;
}

void BatchProgress::clear_locked() {
  if (tty_ && drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
}

void BatchProgress::draw_locked() {
  if (!enabled_ || finished_) return;
  last_draw_ = Clock::now();
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", line().c_str());
    drawn_ = true;
  } else {
    std::fprintf(stderr, "%s\n", line().c_str());
  }
  std::fflush(stderr);
}

void BatchProgress::clip_finished(long frames, std::uintmax_t bytes, bool failed) {
  std::lock_guard lock(mutex_);
  ++done_;
  frames_ += frames;
  bytes_ += bytes;
  if (failed) ++failed_;
}

void BatchProgress::tick() {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  if (Clock::now() - last_draw_ >=
      (tty_ ? std::chrono::duration_cast<Clock::duration>(kTtyInterval)
            : std::chrono::duration_cast<Clock::duration>(kLogInterval)))
    draw_locked();
}

void BatchProgress::log(const std::function<void()>& print) {
  std::lock_guard lock(mutex_);
  const bool redraw = drawn_;
  clear_locked();
  print();
  if (redraw) draw_locked();
}

void BatchProgress::finish() {
  std::lock_guard lock(mutex_);
  clear_locked();
  finished_ = true;
}

}  // namespace ikfix::cli
