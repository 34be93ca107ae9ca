// foot_depth_maxima (core/foot_depth_maxima.hpp): the deepest foot points found computing the
// nearest-surface depth of only some points equal, bit for bit, a scan of every point's
// solid_depth (frame, point and depth; per plant), on stairs where the nearest surface is often
// a riser much closer than the tread above.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "core/foot_depth_maxima.hpp"
#include "core/terrain_gen.hpp"

namespace ikfix::core {
namespace {

struct Walk {
  int frames = 0;
  std::vector<Vec3> points;  // point-major, as foot_depth_maxima takes them
  std::vector<char> planted;
  std::vector<Interval> plants;
};

// Four points of a foot moving over the stairs through the treads and risers: planted spans
// (where the points stay still, some bit for bit, some with a jitter) and swings between.
Walk walk_through_stairs(int frames, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> jitter(-0.002, 0.002);
  const Vec3 offsets[4] = {{0, 0.08, 0}, {0, 0.0, -0.05}, {0, 0.01, 0.12}, {0, 0.0, 0.2}};
  Walk w;
  w.frames = frames;
  w.planted.assign(frames, 0);
  w.points.resize(4 * static_cast<std::size_t>(frames));
  Vec3 at(0.1, 0.05, 0.2);
  for (int f = 0; f < frames; ++f) {
    const bool plant = (f / 20) % 2 == 1;
    w.planted[f] = plant;
    if (!plant) at += Vec3(0.0, 0.006 * std::sin(f * 0.3), 0.02);
    for (int i = 0; i < 4; ++i) {
      Vec3 p = at + offsets[i];
      if (plant && i >= 2) p += Vec3(jitter(random), jitter(random), jitter(random));
      w.points[static_cast<std::size_t>(i) * frames + f] = p;
    }
  }
  w.plants = contact_intervals(w.planted);
  return w;
}

// solid_depth_vertical of `points` over the ground under them.
std::vector<SolidDepth> vertical_depths(const Terrain& terrain, const std::vector<Vec3>& points) {
  std::vector<std::array<double, 2>> xz;
  for (const Vec3& p : points) xz.push_back({p.x, p.z});
  std::vector<GroundHit> ground(xz.size());
  terrain.ground_at(xz, ground);
  std::vector<SolidDepth> vertical(points.size());
  solid_depth_vertical(points, ground, vertical);
  return vertical;
}

TEST(FootDepthMaxima, EqualsAScanOfEveryPointsSolidDepth) {
  const Terrain stairs(make_stairs_terrain(StairsParams{}));
  for (unsigned seed : {1u, 2u, 3u}) {
    const Walk w = walk_through_stairs(400, seed);
    std::vector<SolidDepth> full(w.points.size());
    solid_depth(stairs, w.points, full);
    const std::vector<SolidDepth> vertical = vertical_depths(stairs, w.points);
    const FootDepthMaxima got =
        foot_depth_maxima(stairs, w.points, vertical, w.frames, w.planted, w.plants);

    FootDepthMaxima want;
    want.plant_nearest_m.assign(w.plants.size(), 0.0);
    for (int f = 0; f < w.frames; ++f)
      for (int i = 0; i < 4; ++i) {
        const SolidDepth& d = full[static_cast<std::size_t>(i) * w.frames + f];
        if (!d.inside) continue;
        want.nearest.offer(d.nearest_m, f, i);
        want.vertical.offer(d.vertical_m, f, i);
        if (w.planted[f]) {
          want.planted_nearest.offer(d.nearest_m, f, i);
          want.planted_vertical.offer(d.vertical_m, f, i);
        }
        for (std::size_t p = 0; p < w.plants.size(); ++p)
          if (f >= w.plants[p].first && f <= w.plants[p].last)
            want.plant_nearest_m[p] = std::max(want.plant_nearest_m[p], d.nearest_m);
      }
    ASSERT_GT(want.nearest.depth_m, 0.0) << "the walk must go inside the stairs";
    ASSERT_LT(want.nearest.depth_m, want.vertical.depth_m) << "a riser must be nearer";
    for (auto [a, b] : {std::pair{&got.nearest, &want.nearest},
                        {&got.vertical, &want.vertical},
                        {&got.planted_nearest, &want.planted_nearest},
                        {&got.planted_vertical, &want.planted_vertical}}) {
      EXPECT_EQ(std::memcmp(&a->depth_m, &b->depth_m, sizeof(double)), 0)
          << a->depth_m << " vs " << b->depth_m << " (seed " << seed << ")";
      EXPECT_EQ(a->frame, b->frame);
      EXPECT_EQ(a->point, b->point);
    }
    ASSERT_EQ(got.plant_nearest_m.size(), want.plant_nearest_m.size());
    for (std::size_t p = 0; p < want.plant_nearest_m.size(); ++p)
      EXPECT_EQ(got.plant_nearest_m[p], want.plant_nearest_m[p]) << "plant " << p;
  }
}

TEST(FootDepthMaxima, NothingInsideGivesNoFrames) {
  const Terrain stairs(make_stairs_terrain(StairsParams{}));
  Walk w = walk_through_stairs(100, 1);
  for (Vec3& p : w.points) p.y += 5.0;  // far above every step
  const std::vector<SolidDepth> vertical = vertical_depths(stairs, w.points);
  const FootDepthMaxima got =
      foot_depth_maxima(stairs, w.points, vertical, w.frames, w.planted, w.plants);
  EXPECT_EQ(got.nearest.frame, -1);
  EXPECT_EQ(got.vertical.frame, -1);
  EXPECT_EQ(got.planted_nearest.frame, -1);
  for (double d : got.plant_nearest_m) EXPECT_EQ(d, 0.0);
}

}  // namespace
}  // namespace ikfix::core
