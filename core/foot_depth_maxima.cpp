#include "core/foot_depth_maxima.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>

namespace ikfix::core {
namespace {

// Nearest-surface depths computed on demand and kept; a point bit for bit equal to the one a
// frame before it (a planted foot) takes its answer when that one is known.
class LazyNearest {
 public:
  LazyNearest(const Terrain& terrain, std::span<const Vec3> points,
              std::span<const SolidDepth> vertical, int frames)
      : surface_(terrain, points, vertical),
        points_(points),
        vertical_(vertical),
        frames_(frames),
        known_(points.size(), std::numeric_limits<double>::quiet_NaN()) {}

  double at(std::size_t k) {
    if (!std::isnan(known_[k])) return known_[k];
    if (k % frames_ != 0 && !std::isnan(known_[k - 1]) &&
        std::memcmp(&points_[k], &points_[k - 1], sizeof(Vec3)) == 0)
      return known_[k] = known_[k - 1];
    return known_[k] = surface_.depth(points_[k], vertical_[k].vertical_m);
  }

 private:
  NearestSurface surface_;
  std::span<const Vec3> points_;
  std::span<const SolidDepth> vertical_;
  int frames_;
  std::vector<double> known_;
};

// DeepestPoint::offer's answer over a set visited in descending upper bound of the depth: a
// point can still win (or tie with an earlier frame) only while its bound reaches the best.
struct LazyDeepest {
  DeepestPoint best;
  bool done = false;
  void visit(LazyNearest& nearest, std::size_t k, double upper_m, int f, int i) {
    if (done) return;
    if (upper_m < best.depth_m) {
      done = true;
      return;
    }
    const double d = nearest.at(k);
    if (d > best.depth_m || (d == best.depth_m && best.frame >= 0 &&
                             std::pair(f, i) < std::pair(best.frame, best.point)))
      best = {d, f, i};
  }
};

// Frames apart of the points whose nearest-surface depth is computed first, to bound the others'.
constexpr int kAnchorStride = 8;
// Added to a Lipschitz bound (metres): far above the rounding of the distances (~1e-16 relative).
constexpr double kBoundMargin = 1e-9;

// An upper bound of each inside point's nearest-surface depth (0 for the others): its vertical
// depth, or less near an anchor (a point of the same series kAnchorStride frames apart, computed):
// the distance to the surface changes no faster than the point moves.
std::vector<double> upper_bounds(LazyNearest& nearest, std::span<const Vec3> points,
                                 std::span<const SolidDepth> vertical, int frames) {
  std::vector<double> upper(vertical.size(), 0.0);
  for (std::size_t k = 0; k < vertical.size(); ++k) {
    if (!vertical[k].inside) continue;
    upper[k] = vertical[k].vertical_m;
    const int f = static_cast<int>(k % frames);
    const std::size_t series = k - f;
    for (int a : {f - f % kAnchorStride, f - f % kAnchorStride + kAnchorStride}) {
      if (a >= frames || !vertical[series + a].inside) continue;
      const double d = nearest.at(series + a);
      upper[k] = std::min(upper[k], d + glm::length(points[k] - points[series + a]) + kBoundMargin);
    }
  }
  return upper;
}

// Of every inside point, in descending upper bound (ties in index order).
std::vector<std::uint32_t> inside_by_bound(std::span<const SolidDepth> vertical,
                                           const std::vector<double>& upper) {
  std::vector<std::uint32_t> order;
  for (std::size_t k = 0; k < vertical.size(); ++k)
    if (vertical[k].inside) order.push_back(static_cast<std::uint32_t>(k));
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return upper[a] > upper[b]; });
  return order;
}

// The plant each frame belongs to, -1 for none.
std::vector<int> plant_of_frame(const std::vector<Interval>& plants, int frames) {
  std::vector<int> out(static_cast<std::size_t>(frames), -1);
  for (std::size_t p = 0; p < plants.size(); ++p)
    for (int f = plants[p].first; f <= plants[p].last; ++f) out[f] = static_cast<int>(p);
  return out;
}

}  // namespace

FootDepthMaxima foot_depth_maxima(const Terrain& terrain, std::span<const Vec3> points_ws,
                                  std::span<const SolidDepth> vertical, int frames,
                                  const std::vector<char>& planted,
                                  const std::vector<Interval>& plants) {
  FootDepthMaxima out;
  out.plant_nearest_m.assign(plants.size(), 0.0);
  // Vertical depths are all known: scanned in (frame, point) order as DeepestPoint expects.
  const int n = frames > 0 ? static_cast<int>(points_ws.size() / frames) : 0;
  for (int f = 0; f < frames; ++f)
    for (int i = 0; i < n; ++i) {
      const SolidDepth& d = vertical[static_cast<std::size_t>(i) * frames + f];
      if (!d.inside) continue;
      out.vertical.offer(d.vertical_m, f, i);
      if (planted[f]) out.planted_vertical.offer(d.vertical_m, f, i);
    }
  if (!out.vertical.depth_m) return out;  // no point inside
  LazyNearest nearest(terrain, points_ws, vertical, frames);
  const std::vector<double> upper = upper_bounds(nearest, points_ws, vertical, frames);
  const std::vector<std::uint32_t> order = inside_by_bound(vertical, upper);
  const std::vector<int> plant = plant_of_frame(plants, frames);
  std::vector<char> plant_done(plants.size(), 0);
  LazyDeepest any, on_planted;
  for (std::uint32_t k : order) {
    const int f = static_cast<int>(k % frames), i = static_cast<int>(k / frames);
    const double v = upper[k];
    any.visit(nearest, k, v, f, i);
    if (planted[f]) on_planted.visit(nearest, k, v, f, i);
    const int p = plant[f];
    if (p >= 0 && !plant_done[p]) {
      if (v <= out.plant_nearest_m[p])
        plant_done[p] = 1;
      else
        out.plant_nearest_m[p] = std::max(out.plant_nearest_m[p], nearest.at(k));
    }
  }
  out.nearest = any.best;
  out.planted_nearest = on_planted.best;
  return out;
}

}  // namespace ikfix::core
