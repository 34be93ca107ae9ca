#include "core/fix/body_follows_terrain.hpp"

#include "core/fix/smooth.hpp"

namespace ikfix::core {

std::vector<double> plant_support(std::span<const char> planted, double fps) {
  const int frames = static_cast<int>(planted.size());
  std::vector<double> raw(frames), support(frames);
  for (int f = 0; f < frames; ++f) raw[f] = planted[f] ? 1.0 : 0.0;
  gaussian_smooth(raw, 0.05 * fps, support);
  return support;
}

void body_follows_terrain(std::span<const double> (&support)[2],
                          std::span<const double> (&foot_offset)[2], double smoothing_frames,
                          std::span<double> body_raw, std::span<double> body) {
  const int frames = static_cast<int>(body.size());
  for (int f = 0; f < frames; ++f) {
    const double w0 = support[0][f] + 1e-3, w1 = support[1][f] + 1e-3;
    body_raw[f] = (w0 * foot_offset[0][f] + w1 * foot_offset[1][f]) / (w0 + w1);
  }
  gaussian_smooth(body_raw, smoothing_frames, body);
}

}  // namespace ikfix::core
