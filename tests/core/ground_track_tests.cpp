#include <gtest/gtest.h>

#include <vector>

#include "core/fix/ground_track.hpp"
#include "core/parallel.hpp"
#include "core/terrain.hpp"
#include "core/terrain_gen.hpp"

namespace ikfix::core {
namespace {

TEST(GroundTrack, TheTerrainWhereHitAndTheClipFloorFacingUpElsewhere) {
  BumpsParams bumps;
  bumps.cell = 0.25;
  const Terrain terrain(make_bumps_terrain(bumps));
  std::vector<Vec3> points;
  for (int f = 0; f < 40; ++f) points.push_back({-9.5 + 0.6 * f, 3.0, 0.1 * f});
  const GroundTrack g = query_ground(terrain, points, -0.25);
  ASSERT_EQ(g.height.size(), points.size());
  int misses = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const GroundHit want = terrain.ground_at(points[i].x, points[i].z);
    EXPECT_EQ(g.hit[i], want.hit ? 1 : 0) << i;
    EXPECT_EQ(g.height[i], want.hit ? want.height : -0.25) << i;
    EXPECT_EQ(g.normal[i], want.hit ? want.normal : Vec3(0, 1, 0)) << i;
    misses += want.hit ? 0 : 1;
  }
  EXPECT_GT(misses, 0);  // the track leaves the terrain
  // The same answers on threads.
  ThreadPool pool(2);
  const GroundTrack threaded = query_ground(terrain, points, -0.25, &pool);
  EXPECT_EQ(threaded.height, g.height);
  EXPECT_EQ(threaded.hit, g.hit);
}

TEST(GroundTrack, FillingOnlyMarkedPointsLeavesTheOthersAsTheyWere) {
  std::vector<GroundHit> hits(3);
  hits[0] = {true, 1.0, Vec3(0, 1, 0), 0};
  hits[1] = {true, 2.0, Vec3(0, 1, 0), 1};
  GroundTrack g = ground_track(hits, -1.0);
  EXPECT_EQ(g.height, (std::vector<double>{1.0, 2.0, -1.0}));
  hits[0].height = 5.0;
  hits[1].height = 6.0;
  const std::vector<char> only = {0, 1, 0};
  fill_ground_track(hits, -1.0, g, only);
  EXPECT_EQ(g.height, (std::vector<double>{1.0, 6.0, -1.0}));
}

}  // namespace
}  // namespace ikfix::core
