#include "core/fix/smooth.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/unwritten_resize.hpp"

namespace ikfix::core {

namespace {

// Half-width h of one box pass: three passes of width 2h+1 have variance 3 * h(h+1) / 3 = h(h+1).
int box_half_width(double sigma) {
  if (!(sigma > 0)) return 0;
  return std::max(
      1, static_cast<int>(std::lround((-1.0 + std::sqrt(1.0 + 4.0 * sigma * sigma)) / 2.0)));
}

// One step of a centred moving average over [i-h, i+h] clipped to the signal (edges average
// what exists, so a constant stays constant): the window [lo, hi] and its running sum move on
// to sample i, whose average is returned.
inline double box_step(const double* x, int n, int h, int i, double& sum, int& lo, int& hi) {
  const int want_lo = std::max(0, i - h), want_hi = std::min(n - 1, i + h);
  while (hi < want_hi) sum += x[++hi];
  while (lo < want_lo) sum -= x[lo++];
  return sum / (hi - lo + 1);
}

// The moving average of every sample, O(n) with a running sum. Inside the signal the window
// moves by exactly one sample each way, so there box_step reduces to one addition and one
// subtraction (the same ones, in the same order: the same bits) without its clipping and
// loop tests, which took about as long as the additions themselves.
void box_pass(const double* x, int n, int h, double* out) {
  double sum = 0;
  int lo = 0, hi = -1;  // current window [lo, hi]
  int i = 0;
  for (; i < std::min(n, h + 1); ++i) out[i] = box_step(x, n, h, i, sum, lo, hi);
  const int inside_end = n - h;  // samples i < inside_end have i + h <= n - 1
  if (i > h && i <= inside_end) {
    const double count = 2 * h + 1;
    for (; i < inside_end; ++i) {
      sum += x[i + h];
      sum -= x[i - h - 1];
      out[i] = sum / count;
    }
    lo = i - 1 - h;
    hi = i - 1 + h;
  }
  for (; i < n; ++i) out[i] = box_step(x, n, h, i, sum, lo, hi);
}

}  // namespace

int gaussian_radius(double sigma) { return 3 * box_half_width(sigma); }

void gaussian_smooth(std::span<const double> in, double sigma, std::span<double> out) {
  const int h = box_half_width(sigma);
  if (h == 0) {
    std::copy(in.begin(), in.end(), out.begin());
    return;
  }
  // Three centred box passes: a Gaussian to within a few percent, zero phase, O(n) whatever sigma.
  const int n = static_cast<int>(in.size());
  // Not zero-filled first: each pass writes every sample.
  UnwrittenResizeVector<double> a, b;
  resize_unwritten(a, in.size());
  resize_unwritten(b, in.size());
  box_pass(in.data(), n, h, a.data());
  box_pass(a.data(), n, h, b.data());
  box_pass(b.data(), n, h, out.data());
}

void dilate_max(std::span<const double> in, int radius, std::span<double> out) {
  const int n = static_cast<int>(in.size());
  // Monotonic queue of indices with decreasing values, window[front, back). Each index enters
  // once, so n slots hold it without wrapping.
  UnwrittenResizeVector<int> window;  // each slot is written before it is read
  resize_unwritten(window, static_cast<std::size_t>(n));
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
