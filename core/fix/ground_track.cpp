#include "core/fix/ground_track.hpp"

#include <array>

#include "core/fix/fix_math.hpp"
#include "core/fix/ground_memo.hpp"

namespace ikfix::core {

void fill_ground_track(std::span<const GroundHit> hits, double floor, GroundTrack& g,
                       std::span<const char> only) {
  const std::size_t n = hits.size();
  g.height.resize(n);
  g.normal.resize(n);
  g.hit.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!only.empty() && !only[i]) continue;
    g.hit[i] = hits[i].hit ? 1 : 0;
    g.height[i] = hits[i].hit ? hits[i].height : floor;
    g.normal[i] = hits[i].hit ? hits[i].normal : kUp;
  }
}

GroundTrack ground_track(std::span<const GroundHit> hits, double floor) {
  GroundTrack g;
  fill_ground_track(hits, floor, g);
  return g;
}

GroundTrack query_ground(const Terrain& terrain, const std::vector<Vec3>& points, double floor,
                         const ParallelRunner* runner) {
  std::vector<std::array<double, 2>> xz(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) xz[i] = {points[i].x, points[i].z};
  std::vector<GroundHit> hits(points.size());
  ground_at_parallel(terrain, xz, hits, runner);
  return ground_track(hits, floor);
}

}  // namespace ikfix::core
