#include "core/fix/smooth.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

namespace ikfix::core {

int gaussian_radius(double sigma) { return sigma > 0 ? static_cast<int>(std::ceil(3.0 * sigma)) : 0; }

void gaussian_smooth(std::span<const double> in, double sigma, std::span<double> out) {
  const int n = static_cast<int>(in.size());
  const int radius = gaussian_radius(sigma);
  if (radius == 0) {
    std::copy(in.begin(), in.end(), out.begin());
    return;
  }
  std::vector<double> kernel(static_cast<std::size_t>(radius) + 1);
  for (int k = 0; k <= radius; ++k) kernel[k] = std::exp(-0.5 * (k * k) / (sigma * sigma));
  for (int i = 0; i < n; ++i) {
    double sum = 0, weight = 0;
    const int lo = std::max(0, i - radius), hi = std::min(n - 1, i + radius);
    for (int j = lo; j <= hi; ++j) {
      const double w = kernel[std::abs(j - i)];
      sum += w * in[j];
      weight += w;
    }
    out[i] = sum / weight;
  }
}

void dilate_max(std::span<const double> in, int radius, std::span<double> out) {
  const int n = static_cast<int>(in.size());
  std::deque<int> window;  // indices with decreasing values (monotonic queue)
  int next = 0;
  for (int i = 0; i < n; ++i) {
    const int hi = std::min(n - 1, i + radius);
    for (; next <= hi; ++next) {
      while (!window.empty() && in[window.back()] <= in[next]) window.pop_back();
      window.push_back(next);
    }
    while (window.front() < i - radius) window.pop_front();
    out[i] = in[window.front()];
  }
}

}  // namespace ikfix::core
