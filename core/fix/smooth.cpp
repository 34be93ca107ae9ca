#include "core/fix/smooth.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ikfix::core {

namespace {

// Half-width h of one box pass: three passes of width 2h+1 have variance 3 * h(h+1) / 3 = h(h+1).
int box_half_width(double sigma) {
  if (!(sigma > 0)) return 0;
  return std::max(1, static_cast<int>(std::lround((-1.0 + std::sqrt(1.0 + 4.0 * sigma * sigma)) / 2.0)));
}

// Centred moving average over [i-h, i+h] clipped to the signal (edges average what exists,
// so a constant stays constant). O(n) with a running sum, one output at a time (in order), so
// that the three passes of gaussian_smooth can run interleaved.
class BoxPass {
 public:
  BoxPass(std::span<const double> in, int h) : in_(in), n_(static_cast<int>(in.size())), h_(h) {}
  // The average at i; needs `in` up to min(n - 1, i + h).
  double next(int i) {
    const int want_lo = std::max(0, i - h_), want_hi = std::min(n_ - 1, i + h_);
    while (hi_ < want_hi) sum_ += in_[++hi_];
    while (lo_ < want_lo) sum_ -= in_[lo_++];
    return sum_ / (hi_ - lo_ + 1);
  }

 private:
  std::span<const double> in_;
  int n_, h_;
  double sum_ = 0;
  int lo_ = 0, hi_ = -1;  // current window [lo, hi]
};

}  // namespace

int gaussian_radius(double sigma) { return 3 * box_half_width(sigma); }

void gaussian_smooth(std::span<const double> in, double sigma, std::span<double> out) {
  const int h = box_half_width(sigma);
  if (h == 0) {
    std::copy(in.begin(), in.end(), out.begin());
    return;
  }
  // Three centred box passes: a Gaussian to within a few percent, zero phase, O(n) whatever sigma.
  // Each pass's running sum is one long chain of dependent additions; the passes run
  // interleaved (the second h samples behind the first, the third 2h behind) so the three
  // chains overlap in the CPU. Every sum is formed in the same order as pass after pass would.
  const int n = static_cast<int>(in.size());
  std::vector<double> a(in.size()), b(in.size());
  BoxPass first(in, h), second(a, h), third(b, h);
  for (int i = 0; i < n + 2 * h; ++i) {
    if (i < n) a[i] = first.next(i);
    if (i >= h && i - h < n) b[i - h] = second.next(i - h);
    if (i >= 2 * h && i - 2 * h < n) out[i - 2 * h] = third.next(i - 2 * h);
  }
}

void dilate_max(std::span<const double> in, int radius, std::span<double> out) {
  const int n = static_cast<int>(in.size());
  // Monotonic queue of indices with decreasing values, window[front, back). Each index enters
  // once, so n slots hold it without wrapping.
  std::vector<int> window(n);
  int front = 0, back = 0;
  int next = 0;
  for (int i = 0; i < n; ++i) {
    const int hi = std::min(n - 1, i + radius);
    for (; next <= hi; ++next) {
      while (back > front && in[window[back - 1]] <= in[next]) --back;
      window[back++] = next;
    }
    while (window[front] < i - radius) ++front;
    out[i] = in[window[front]];
  }
}

void raise_to_rate_limit(std::span<double> x, double step, std::span<const char> frozen) {
  const std::size_t n = x.size();
  auto free = [&](std::size_t i) { return frozen.empty() || !frozen[i]; };
  // Backward, then forward: after the first pass no free sample rises by more than `step` to
  // the next; the second only raises samples after a fall, which cannot make a rise steeper.
  for (std::size_t i = n; i-- > 1;)
    if (free(i - 1)) x[i - 1] = std::max(x[i - 1], x[i] - step);
  for (std::size_t i = 1; i < n; ++i)
    if (free(i)) x[i] = std::max(x[i], x[i - 1] - step);
}

std::vector<char> planted_except_last(std::span<const char> planted, int free_frames) {
  const std::size_t n = planted.size();
  std::vector<char> out(planted.begin(), planted.end());
  // Counting back from each lift-off (a plant that lasts to the clip's end has none).
  int left = 0;
  for (std::size_t i = n; i-- > 0;) {
    if (!planted[i]) {
      left = free_frames;
    } else if (left > 0) {
      out[i] = 0;
      --left;
    }
  }
  return out;
}

std::vector<double> plant_ease_weight(std::span<const char> planted, int ease_frames) {
  const int n = static_cast<int>(planted.size());
  // Distance in frames to the nearest planted frame, both ways.
  std::vector<int> distance(n, n + ease_frames + 1);
  for (int f = 0, last = -1; f < n; ++f) {
    if (planted[f]) last = f;
    if (last >= 0) distance[f] = f - last;
  }
  for (int f = n - 1, next = -1; f >= 0; --f) {
    if (planted[f]) next = f;
    if (next >= 0) distance[f] = std::min(distance[f], next - f);
  }
  std::vector<double> w(n, 0.0);
  for (int f = 0; f < n; ++f) {
    if (distance[f] > ease_frames) continue;
    const double t = 1.0 - static_cast<double>(distance[f]) / (ease_frames + 1);
    w[f] = t * t * (3.0 - 2.0 * t);
  }
  return w;
}

}  // namespace ikfix::core
