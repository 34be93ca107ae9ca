// Terrain builds its ray-query structures tile by tile, over the part of the mesh the queries
// reach: every answer must be bit for bit the one of a structure over the whole mesh.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "core/terrain.hpp"
#include "core/terrain_gen.hpp"

namespace ikfix::core {
namespace {

bool same_bits(const GroundHit& a, const GroundHit& b) {
  return a.hit == b.hit && a.triangle == b.triangle &&
         std::memcmp(&a.height, &b.height, sizeof a.height) == 0 &&
         std::memcmp(&a.normal, &b.normal, sizeof a.normal) == 0;
}

// A terrain whose one structure covers the whole mesh.
std::unique_ptr<Terrain> whole_terrain(const TerrainMesh& mesh, TerrainOptions options = {}) {
  options.scene_tile_triangles = 0;
  return std::make_unique<Terrain>(mesh, options);
}

// Bumps of `cell` over a `size` square, their mesh and the whole-mesh reference terrain.
struct BumpsCase {
  BumpsParams params;
  TerrainMesh mesh;
  std::unique_ptr<Terrain> whole;
};
BumpsCase bumps_case(double cell, double size) {
  BumpsCase c;
  c.params.cell = cell;
  c.params.size = size;
  c.mesh = make_bumps_terrain(c.params);
  c.whole = whole_terrain(c.mesh);
  return c;
}

// Points around (cx, cz) within `radius`, some of them on the grid's vertices and edges.
std::vector<std::array<double, 2>> points_near(double cx, double cz, double radius, double cell,
                                               int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> offset(-radius, radius);
  std::vector<std::array<double, 2>> xz;
  for (int i = 0; i < count; ++i) {
    double x = cx + offset(rng), z = cz + offset(rng);
    if (i % 4 == 1) x = std::round(x / cell) * cell;  // on a grid line
    if (i % 4 == 2) x = std::round(x / cell) * cell, z = std::round(z / cell) * cell;  // a vertex
    xz.push_back({x, z});
  }
  return xz;
}

void expect_same_answers(const Terrain& cropped, const Terrain& whole,
                         const std::vector<std::array<double, 2>>& xz) {
  std::vector<GroundHit> a(xz.size()), b(xz.size());
  cropped.ground_at(xz, a);
  whole.ground_at(xz, b);
  for (std::size_t i = 0; i < xz.size(); ++i) {
    ASSERT_TRUE(same_bits(a[i], b[i]))
        << "point " << i << " (" << xz[i][0] << ", " << xz[i][1] << "): triangle " << a[i].triangle
        << " vs " << b[i].triangle << ", normal " << a[i].normal.x << " " << a[i].normal.z << " vs "
        << b[i].normal.x << " " << b[i].normal.z;
    const GroundHit single = cropped.ground_at(xz[i][0], xz[i][1]);
    ASSERT_TRUE(same_bits(single, b[i])) << "single query at point " << i;
  }
}

TEST(TerrainCrop, AnswersMatchTheWholeMeshInsideAndAtTheEdgeOfTheFirstQueries) {
  const BumpsCase bumps = bumps_case(0.05, 20.0);
  const Terrain& whole = *bumps.whole;
  Terrain cropped(bumps.mesh);
  // First queries in a 1 m square: the tiles there are built.
  expect_same_answers(cropped, whole, points_near(3.0, -2.0, 0.5, bumps.params.cell, 2000, 1));
  // Then ever farther: at the first tiles' edges, past them, and over the whole terrain.
  for (const double radius : {1.6, 3.0, 10.5})
    expect_same_answers(cropped, whole, points_near(3.0, -2.0, radius, bumps.params.cell, 2000, 2));
  EXPECT_EQ(cropped.ground_triangle_count(), whole.ground_triangle_count());
}

TEST(TerrainCrop, AnyTileSizeGivesTheWholeMeshAnswersOnTileEdges) {
  const BumpsCase bumps = bumps_case(0.05, 8.0);
  // Points on grid lines and vertices fall on tile edges too for some of these sizes.
  const auto xz = points_near(0.3, -0.2, 3.9, bumps.params.cell, 4000, 7);
  for (const std::size_t per_tile : {1u, 7u, 64u, 500u, 100000u}) {
    TerrainOptions options;
    options.scene_tile_triangles = per_tile;
    Terrain tiled(bumps.mesh, options);
    SCOPED_TRACE(per_tile);
    expect_same_answers(tiled, *bumps.whole, xz);
  }
}

TEST(TerrainCrop, SmoothNormalsAndStepEdgesMatchTheWholeMesh) {
  StairsParams stairs;
  stairs.steps = 40;
  stairs.step_depth = 0.25;
  const TerrainMesh mesh = make_stairs_terrain(stairs);
  TerrainOptions options;
  options.smooth_normals = true;
  const auto whole = whole_terrain(mesh, options);
  Terrain cropped(mesh, options);
  // Along the axis (+z) across risers: points exactly on the step edges included.
  std::vector<std::array<double, 2>> xz;
  for (int i = 0; i <= 400; ++i) xz.push_back({0.25, 0.5 + 0.025 * i});
  expect_same_answers(cropped, *whole, xz);
  BumpsParams bumps;
  const TerrainMesh smooth_mesh = make_bumps_terrain(bumps);
  const auto whole_bumps = whole_terrain(smooth_mesh, options);
  Terrain cropped_bumps(smooth_mesh, options);
  expect_same_answers(cropped_bumps, *whole_bumps, points_near(-6.0, 7.0, 0.8, bumps.cell, 500, 3));
}

TEST(TerrainCrop, OffTerrainAndNonFinitePointsMissWithoutBuilding) {
  const TerrainMesh mesh = make_flat_terrain(FlatParams{});
  Terrain terrain(mesh);
  const std::vector<std::array<double, 2>> xz = {{100.0, 0.0},
                                                 {0.0, -100.0},
                                                 {std::nan(""), 0.0},
                                                 {0.0, std::numeric_limits<double>::infinity()}};
  std::vector<GroundHit> hits(xz.size());
  terrain.ground_at(xz, hits);
  for (const GroundHit& hit : hits) {
    EXPECT_FALSE(hit.hit);
    EXPECT_EQ(hit.triangle, -1);
  }
  EXPECT_TRUE(terrain.ground_at(1.0, 1.0).hit);
}

TEST(TerrainCrop, ConcurrentQueriesThatGrowTheStructureGetTheWholeMeshAnswers) {
  const BumpsCase bumps = bumps_case(0.1, 20.0);
  const Terrain& whole = *bumps.whole;
  Terrain cropped(bumps.mesh);
  std::vector<std::vector<std::array<double, 2>>> sets;
  for (int t = 0; t < 4; ++t)
    sets.push_back(
        points_near(-8.0 + 5.0 * t, 8.0 - 5.0 * t, 0.7, bumps.params.cell, 3000, 10 + t));
  std::vector<std::vector<GroundHit>> got(sets.size());
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < sets.size(); ++t)
    threads.emplace_back([&, t] {
      got[t].resize(sets[t].size());
      cropped.ground_at(sets[t], got[t]);
    });
  for (auto& thread : threads) thread.join();
  for (std::size_t t = 0; t < sets.size(); ++t) {
    std::vector<GroundHit> want(sets[t].size());
    whole.ground_at(sets[t], want);
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_TRUE(same_bits(got[t][i], want[i])) << "set " << t << " point " << i;
  }
}

// A tile's triangles are listed on its first use from blocks of consecutive mesh triangles; a
// mesh in another order than row by row (each block reaching far: one triangle a block) with
// risers among its triangles gives the same answers and ground count as one structure over it.
TEST(TerrainCrop, ShuffledTrianglesWithRisersGiveTheWholeMeshAnswers) {
  StairsParams stairs;
  stairs.steps = 30;
  stairs.step_depth = 0.2;
  TerrainMesh mesh = make_stairs_terrain(stairs);
  BumpsParams bumps;
  bumps.size = 6.0;
  bumps.cell = 0.1;
  const TerrainMesh field = make_bumps_terrain(bumps);
  const auto first = static_cast<std::uint32_t>(mesh.vertices.size());
  for (const Vec3& v : field.vertices) mesh.vertices.push_back(v + Vec3(0.0, -1.0, 0.0));
  for (const auto& tri : field.triangles)
    mesh.triangles.push_back({first + tri[0], first + tri[1], first + tri[2]});
  std::mt19937 rng(5);
  std::shuffle(mesh.triangles.begin(), mesh.triangles.end(), rng);
  const auto whole = whole_terrain(mesh);
  const auto xz = points_near(0.4, 2.0, 3.2, stairs.step_depth, 3000, 11);
  for (const std::size_t per_tile : {1u, 16u, 256u}) {
    TerrainOptions options;
    options.scene_tile_triangles = per_tile;
    const Terrain tiled(mesh, options);
    SCOPED_TRACE(per_tile);
    expect_same_answers(tiled, *whole, xz);
    EXPECT_EQ(tiled.ground_triangle_count(), whole->ground_triangle_count());
  }
  EXPECT_LT(whole->ground_triangle_count(), mesh.triangles.size());  // the risers are left out
}

}  // namespace
}  // namespace ikfix::core
