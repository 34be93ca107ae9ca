#pragma once
// The deepest of a leg's foot points inside the terrain solid over a clip, by nearest-surface
// and vertical depth, on any frame, on planted frames and per plant (the figures measure_clip
// reports), computing the nearest-surface depth only of the points that can decide them.
#include <span>
#include <vector>

#include "core/fix/contacts.hpp"
#include "core/math.hpp"
#include "core/terrain.hpp"
#include "core/terrain_solid.hpp"

namespace ikfix::core {

// The deepest of a leg's foot points on one measure: depth (metres), frame and point index
// (FootModel order); frame -1 while no point is inside. Of equal depths the first in (frame,
// point) order is kept.
struct DeepestPoint {
  double depth_m = 0;
  int frame = -1;
  int point = -1;
  void offer(double d, int f, int p) {
    if (d > depth_m) *this = {d, f, p};
  }
};

struct FootDepthMaxima {
  DeepestPoint nearest, vertical;                  // any frame
  DeepestPoint planted_nearest, planted_vertical;  // frames where planted[f]
  std::vector<double> plant_nearest_m;             // per plant: its deepest nearest, metres
};

// `points_ws`: point i of frame f at i * frames + f (world metres); `vertical`: their
// solid_depth_vertical. Plants are intervals of planted frames. The answer is the one a scan of
// every point's solid_depth would give, bit for bit: a point's nearest-surface depth is at most
// its vertical depth, and at most that of a point near it plus their distance, so points are
// visited in descending bound and a set's search stops where the bound falls below its deepest.
FootDepthMaxima foot_depth_maxima(const Terrain& terrain, std::span<const Vec3> points_ws,
                                  std::span<const SolidDepth> vertical, int frames,
                                  const std::vector<char>& planted,
                                  const std::vector<Interval>& plants);

}  // namespace ikfix::core
