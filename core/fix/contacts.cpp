#include "core/fix/contacts.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ikfix::core {
namespace {

// Minimum duration of plants and gaps, frames.
int min_run_frames(double fps, const ContactSettings& s) {
  return std::max(3, static_cast<int>(std::lround(s.min_duration * fps)));
}

// Minimum duration: first close short gaps (a flicker inside a plant), then drop short plants.
// `planted` holds only 0 and 1.
void remove_short_runs(std::vector<char>& planted, int min_frames) {
  const std::size_t n = planted.size();
  // The end of the run starting at f: the next frame with the other flag (memchr: runs are
  // long).
  auto run_end = [&](std::size_t f) {
    const void* other = std::memchr(planted.data() + f, 1 - planted[f], n - f);
    return other ? static_cast<std::size_t>(static_cast<const char*>(other) - planted.data()) : n;
  };
  for (const char value : {0, 1}) {
    std::size_t f = 0;
    while (f < n) {
      const std::size_t g = run_end(f);
      const bool interior = f > 0 && g < n;
      if (planted[f] == value && static_cast<int>(g - f) < min_frames && (interior || value == 1))
        std::fill(planted.begin() + f, planted.begin() + g, static_cast<char>(1 - value));
      f = g;
    }
  }
}

}  // namespace

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
  remove_short_runs(planted, min_run_frames(fps, s));
  return planted;
}

void detect_foot_and_point_contacts(const std::vector<double> (&heights)[2],
                                    const std::vector<double> (&speeds)[2], double fps,
                                    const ContactSettings& s, std::vector<char>& foot,
                                    std::vector<char> (&point)[2]) {
  const std::size_t n = heights[0].size();
  foot.resize(n);
  point[0].resize(n);
  point[1].resize(n);
  // The thresholds detect_contacts compares with (times a scale of exactly 1 or `hysteresis`).
  const double height_in = s.height_threshold, speed_in = s.speed_threshold;
  const double height_stay = s.height_threshold * s.hysteresis,
               speed_stay = s.speed_threshold * s.hysteresis;
  bool foot_state = false, point_state[2] = {false, false};
  for (std::size_t f = 0; f < n; ++f) {
    bool plants[2], stays[2];  // point p would start a plant / keep one
    for (int p = 0; p < 2; ++p) {
      plants[p] = heights[p][f] < height_in && speeds[p][f] < speed_in;
      stays[p] = heights[p][f] < height_stay && speeds[p][f] < speed_stay;
      point_state[p] = point_state[p] ? stays[p] : plants[p];
      point[p][f] = point_state[p] ? 1 : 0;
    }
    foot_state = foot_state ? stays[0] || stays[1] : plants[0] || plants[1];
    foot[f] = foot_state ? 1 : 0;
  }
  const int min_frames = min_run_frames(fps, s);
  remove_short_runs(foot, min_frames);
  remove_short_runs(point[0], min_frames);
  remove_short_runs(point[1], min_frames);
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
