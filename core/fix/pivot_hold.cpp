#include "core/fix/pivot_hold.hpp"

#include <algorithm>

#include "core/fix/fix_math.hpp"

namespace ikfix::core {

std::vector<Vec3> hold_pivots(const std::vector<signed char>& pivots, const std::vector<Vec3>& heel,
                              const std::vector<Vec3>& toe, int blend_frames, double drag_radius) {
  const int n = static_cast<int>(pivots.size());
  std::vector<Vec3> corr(n, Vec3(0));
  auto flat = [](Vec3 v) { return Vec3(v.x, 0.0, v.z); };
  int f = 0;
  while (f < n) {
    if (pivots[f] < 0) {
      ++f;
      continue;
    }
    const int first = f;
    int held = -1;
    Vec3 lock(0);
    for (; f < n && pivots[f] >= 0; ++f) {
      const std::vector<Vec3>& track = pivots[f] == 0 ? heel : toe;
      const Vec3 point = flat(track[f]);
      if (pivots[f] != held) {
        // Hold the new pivot where it was on the frame before (corrected): it does not move
        // on the switch frame either; the old pivot is the one that starts to lift.
        lock = f > first ? flat(track[f - 1]) + corr[f - 1] : point;
        held = pivots[f];
      }
      Vec3 c = lock - point;
      const double len = glm::length(c);
      if (len > drag_radius) {
        c *= drag_radius / len;
        lock = point + c;
      }
      corr[f] = c;
    }
    // Fade out after the plant, done before the next one starts.
    const int last = f - 1;
    int next = f;
    while (next < n && pivots[next] < 0) ++next;
    const int span = std::min(blend_frames, next - last - 1);
    for (int g = last + 1; g < next; ++g) {
      const double t = span > 0 ? std::min(1.0, static_cast<double>(g - last) / (span + 1)) : 1.0;
      corr[g] = corr[last] * (1.0 - smootherstep(t));
    }
  }
  return corr;
}

}  // namespace ikfix::core
