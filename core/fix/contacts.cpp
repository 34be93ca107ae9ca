#include "core/fix/contacts.hpp"

#include <algorithm>
#include <cmath>

namespace ikfix::core {

std::vector<char> detect_contacts(std::span<const std::vector<double>> heights,
                                  std::span<const std::vector<double>> speeds, double fps,
                                  const ContactSettings& s) {
  const std::size_t n = heights.empty() ? 0 : heights[0].size();
  std::vector<char> planted(n, 0);
  bool state = false;
  for (std::size_t f = 0; f < n; ++f) {
    const double scale = state ? s.hysteresis : 1.0;  // easier to stay planted than to plant
    bool any = false;
    for (std::size_t p = 0; p < heights.size(); ++p)
      if (heights[p][f] < s.height_threshold * scale && speeds[p][f] < s.speed_threshold * scale)
        any = true;
    state = any;
    planted[f] = state ? 1 : 0;
  }
  // Minimum duration: first close short gaps (a flicker inside a plant), then drop short plants.
  const int min_frames = std::max(3, static_cast<int>(std::lround(s.min_duration * fps)));
  auto remove_short_runs = [&](char value) {
    std::size_t f = 0;
    while (f < n) {
      std::size_t g = f;
      while (g < n && planted[g] == planted[f]) ++g;
      const bool interior = f > 0 && g < n;
      if (planted[f] == value && static_cast<int>(g - f) < min_frames && (interior || value == 1))
        std::fill(planted.begin() + f, planted.begin() + g, static_cast<char>(1 - value));
      f = g;
    }
  };
  remove_short_runs(0);
  remove_short_runs(1);
  return planted;
}

std::vector<Interval> contact_intervals(std::span<const char> planted) {
  std::vector<Interval> out;
  const int n = static_cast<int>(planted.size());
  for (int f = 0; f < n;) {
    if (!planted[f]) {
      ++f;
      continue;
    }
    int g = f;
    while (g + 1 < n && planted[g + 1]) ++g;
    out.push_back({f, g});
    f = g + 1;
  }
  return out;
}

}  // namespace ikfix::core
