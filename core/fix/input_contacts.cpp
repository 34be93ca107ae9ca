#include "core/fix/input_contacts.hpp"

#include <algorithm>
#include <utility>

#include "core/fix/fix_math.hpp"

namespace ikfix::core {

InputContacts input_contacts(const FootTrack& foot, double fps, const ContactSettings& settings,
                             const std::vector<char>* given) {
  const int frames = static_cast<int>(foot.ankle.size());
  InputContacts out;
  std::vector<double> heights[2], speeds[2];
  const std::vector<Vec3>* points[2] = {&foot.ankle, &foot.toe};
  for (int p = 0; p < 2; ++p) {
    const auto& track = *points[p];
    std::vector<double> ys(frames);
    for (int f = 0; f < frames; ++f) ys[f] = track[f].y;
    const double level = percentile(std::move(ys), kPlantedLevelQuantile);
    out.planted_level[p] = level;
    heights[p].resize(frames);
    speeds[p].resize(frames);
    for (int f = 0; f < frames; ++f) {
      heights[p][f] = track[f].y - level;
      const int a = std::max(0, f - 1), b = std::min(frames - 1, f + 1);
      speeds[p][f] = b > a ? glm::length(track[b] - track[a]) * fps / (b - a) : 0.0;
    }
  }
  out.given = given && static_cast<int>(given->size()) == frames;
  out.planted = out.given ? *given : detect_contacts(heights, speeds, fps, settings);
  for (int p = 0; p < 2; ++p) out.point_height[p] = std::move(heights[p]);
  return out;
}

}  // namespace ikfix::core
