// solid_depth (core/terrain_solid.hpp): whether a point is inside the terrain solid and how deep,
// straight down and to the nearest surface (risers included), on stairs, a slope, flat ground and
// bumps; and point_triangle_distance, which the nearest-surface depth takes for each triangle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "core/terrain.hpp"
#include "core/terrain_gen.hpp"
#include "core/terrain_solid.hpp"
#include "core/triangle_distance.hpp"

namespace ikfix::core {
namespace {

// The least distance from p to any triangle of the mesh, every triangle tried.
double brute_force_nearest(const TerrainMesh& mesh, const Vec3& p) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& t : mesh.triangles)
    best = std::min(best, point_triangle_distance(p, mesh.vertices[t[0]], mesh.vertices[t[1]],
                                                  mesh.vertices[t[2]]));
  return best;
}

TEST(TriangleDistance, PlaneEdgeVertexAndDegenerate) {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 0, 1);
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(0.2, -0.3, 0.2), a, b, c), 0.3);
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(0.2, 0.3, 0.2), c, b, a), 0.3);  // winding
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(0.5, 0, -0.4), a, b, c), 0.4);   // edge a-b
  EXPECT_NEAR(point_triangle_distance(Vec3(-0.3, 0.4, -1), a, b, c), std::sqrt(0.09 + 0.16 + 1),
              1e-15);                                                          // vertex a
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(0.5, 0.5, 0), a, b, b), 0.5);  // a segment
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(0, 0.25, 0), a, a, a), 0.25);  // a point
}

TEST(SolidDepth, BehindARiserTheNearestSurfaceIsTheRiser) {
  const StairsParams params;  // first riser at z = 0.5, 15 cm high, treads 30 cm deep
  const Terrain stairs(make_stairs_terrain(params));
  // 6 cm behind the first riser, 11 cm under its tread.
  const SolidDepth d = solid_depth(stairs, Vec3(0.3, 0.04, 0.56));
  EXPECT_TRUE(d.inside);
  EXPECT_NEAR(d.vertical_m, 0.11, 1e-12);
  EXPECT_NEAR(d.nearest_m, 0.06, 1e-12);
  // Under the third tread, 2 cm behind the third riser and 1 cm under the tread: the tread.
  const SolidDepth t = solid_depth(stairs, Vec3(-1.0, 0.44, 0.5 + 0.6 + 0.02));
  EXPECT_NEAR(t.vertical_m, 0.01, 1e-12);
  EXPECT_NEAR(t.nearest_m, 0.01, 1e-12);
  // In front of the stairs, above the floor: outside, even though the riser is 1 cm away.
  const SolidDepth out = solid_depth(stairs, Vec3(0.0, 0.05, 0.49));
  EXPECT_FALSE(out.inside);
  EXPECT_EQ(out.vertical_m, 0.0);
  EXPECT_EQ(out.nearest_m, 0.0);
}

TEST(SolidDepth, UnderASlopeTheNearestSurfaceIsAlongItsNormal) {
  SlopeParams params;  // 10 degrees up along +z from z = 0.5
  const Terrain slope(make_slope_terrain(params));
  const double along = 3.0, below = 0.05;
  const Vec3 p(0.2, slope_height(params, along) - below, along);
  const SolidDepth d = solid_depth(slope, p);
  EXPECT_TRUE(d.inside);
  EXPECT_NEAR(d.vertical_m, below, 1e-12);
  EXPECT_NEAR(d.nearest_m, below * std::cos(params.angle_deg * kPi / 180.0), 1e-12);
}

TEST(SolidDepth, FlatGroundAboveBelowAndOffTheTerrain) {
  const Terrain flat(make_flat_terrain(FlatParams{.size = 4.0, .height = 0.25}));
  const SolidDepth below = solid_depth(flat, Vec3(0.3, 0.22, -0.7));
  EXPECT_TRUE(below.inside);
  EXPECT_NEAR(below.vertical_m, 0.03, 1e-15);
  EXPECT_NEAR(below.nearest_m, 0.03, 1e-15);
  EXPECT_FALSE(solid_depth(flat, Vec3(0.3, 0.26, -0.7)).inside);
  EXPECT_FALSE(solid_depth(flat, Vec3(0.3, 0.25, -0.7)).inside);  // on the surface
  EXPECT_FALSE(solid_depth(flat, Vec3(5.0, -1.0, 0.0)).inside);   // beyond the edge
  EXPECT_FALSE(solid_depth(flat, Vec3(0.0, std::nan(""), 0.0)).inside);
  // Near the edge of the mesh, 0.5 m down: the surface straight above is still the nearest
  // (the edge, 5 cm aside and 0.5 m up, is farther).
  const SolidDepth edge = solid_depth(flat, Vec3(1.95, -0.25, 0.0));
  EXPECT_NEAR(edge.vertical_m, 0.5, 1e-15);
  EXPECT_NEAR(edge.nearest_m, 0.5, 1e-12);
}

// Deep and shallow points under fine bumps: the pruned grid search finds the exact least
// distance over every triangle, bit for bit, and the span query answers as the single one.
TEST(SolidDepth, NearestIsTheExactMinimumOverEveryTriangle) {
  const TerrainMesh mesh = make_bumps_terrain(
      BumpsParams{.amplitude = 0.1, .wavelength = 0.5, .size = 4.0, .cell = 0.1});
  const Terrain bumps{TerrainMesh(mesh)};
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> xz(-1.9, 1.9), depth(0.0, 1.5);
  std::vector<Vec3> points;
  for (int i = 0; i < 200; ++i) {
    const Vec3 p(xz(rng), 0.0, xz(rng));
    points.push_back(Vec3(p.x, bumps.ground_at(p.x, p.z).height - depth(rng), p.z));
  }
  std::vector<SolidDepth> span(points.size());
  solid_depth(bumps, points, span);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SolidDepth one = solid_depth(bumps, points[i]);
    ASSERT_TRUE(one.inside) << i;
    // The least of the vertical depth (the surface straight above) and every triangle's distance.
    EXPECT_EQ(one.nearest_m, std::min(one.vertical_m, brute_force_nearest(mesh, points[i]))) << i;
    EXPECT_LE(one.nearest_m, one.vertical_m) << i;
    EXPECT_EQ(std::memcmp(&one.nearest_m, &span[i].nearest_m, sizeof(double)), 0) << i;
    EXPECT_EQ(std::memcmp(&one.vertical_m, &span[i].vertical_m, sizeof(double)), 0) << i;
  }
}

TEST(SolidDepth, ManyThreadsGiveTheSameAnswers) {
  const Terrain stairs(make_stairs_terrain(StairsParams{}));
  std::vector<Vec3> points;
  for (int i = 0; i < 400; ++i)
    points.push_back(Vec3(0.01 * (i % 17), -0.1 + 0.002 * i, 0.4 + 0.005 * i));
  std::vector<SolidDepth> serial(points.size());
  solid_depth(stairs, points, serial);
  std::vector<std::vector<SolidDepth>> results(4, std::vector<SolidDepth>(points.size()));
  std::vector<std::thread> threads;
  for (auto& r : results) threads.emplace_back([&] { solid_depth(stairs, points, r); });
  for (auto& t : threads) t.join();
  for (const auto& r : results)
    for (std::size_t i = 0; i < points.size(); ++i) {
      EXPECT_EQ(r[i].inside, serial[i].inside) << i;
      EXPECT_EQ(std::memcmp(&r[i].nearest_m, &serial[i].nearest_m, sizeof(double)), 0) << i;
    }
}

}  // namespace
}  // namespace ikfix::core
