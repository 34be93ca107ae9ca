#include "core/fix/foot_contacts.hpp"

#include <algorithm>
#include <array>
#include <span>

namespace ikfix::core {
namespace {

// The q-quantile of v (its elements reordered).
double percentile_in_place(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

FootContacts detect_foot_contacts(const Terrain& terrain, const std::vector<Vec3>& heel,
                                  const std::vector<Vec3>& toe, double fps,
                                  const ContactSettings& settings) {
  const int frames = static_cast<int>(heel.size());
  std::vector<GroundHit> hits[2];
  const std::vector<Vec3>* pts[2] = {&heel, &toe};
  for (int p = 0; p < 2; ++p) {
    std::vector<std::array<double, 2>> xz(frames);
    for (int f = 0; f < frames; ++f) xz[f] = {(*pts[p])[f].x, (*pts[p])[f].z};
    hits[p].resize(frames);
    terrain.ground_at(xz, hits[p]);
  }
  return foot_contacts_on_ground(heel, toe, hits[0], hits[1], fps, settings);
}

FootContacts foot_contacts_on_ground(const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                                     std::span<const GroundHit> heel_ground,
                                     std::span<const GroundHit> toe_ground, double fps,
                                     const ContactSettings& settings) {
  const int frames = static_cast<int>(heel.size());
  FootContacts c;
  const std::vector<Vec3>* pts[2] = {&heel, &toe};
  const std::span<const GroundHit> ground[2] = {heel_ground, toe_ground};
  for (int p = 0; p < 2; ++p) {
    const auto& track = *pts[p];
    const std::span<const GroundHit> hits = ground[p];
    // Each series is appended in frame order (not zero-filled first, then written); `height`
    // holds a copy of `above` to find the percentile in, then the heights over it.
    std::vector<double>& above = c.above[p];
    std::vector<double>& height = c.height[p];
    std::vector<double>& speed = c.speed[p];
    above.reserve(frames);
    height.reserve(frames);
    speed.reserve(frames);
    for (int f = 0; f < frames; ++f) {
      const double a = track[f].y - (hits[f].hit ? hits[f].height : 0.0);
      above.push_back(a);
      height.push_back(a);
    }
    const double level = percentile_in_place(height, 0.05);
    for (int f = 0; f < frames; ++f) {
      height[f] = above[f] - level;
      const int a = std::max(0, f - 1), b = std::min(frames - 1, f + 1);
      // b - a is 1 or 2, and halving by a product is exact like the division (the same bits)
      // without a divide per frame.
      speed.push_back(b > a ? glm::length(track[b] - track[a]) * fps * (b - a == 2 ? 0.5 : 1.0)
                            : 0.0);
    }
  }
  // One sweep for the foot and each point alone (instead of three detect_contacts calls).
  detect_foot_and_point_contacts(c.height, c.speed, fps, settings, c.planted, c.point_planted);
  return c;
}

}  // namespace ikfix::core
