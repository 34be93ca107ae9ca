#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/terrain.hpp"
#include "core/terrain_gen.hpp"

namespace ikfix::core {
namespace {

// A square [-h, h]^2 (in x, z) with y = a x + b z + c, split into a grid of n x n cells.
TerrainMesh plane_mesh(double a, double b, double c, double h = 10.0, int n = 4,
                       Vec3 offset = Vec3(0.0)) {
  TerrainMesh mesh;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      const double x = -h + 2.0 * h * i / n, z = -h + 2.0 * h * j / n;
      mesh.vertices.push_back(offset + Vec3(x, a * x + b * z + c, z));
    }
  const auto row = static_cast<std::uint32_t>(n + 1);
  for (std::uint32_t j = 0; j < static_cast<std::uint32_t>(n); ++j)
    for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(n); ++i) {
      const std::uint32_t v = j * row + i;
      mesh.triangles.push_back({v, v + row, v + row + 1});
      mesh.triangles.push_back({v, v + row + 1, v + 1});
    }
  return mesh;
}

// Appends `part`'s vertices and triangles to `mesh` (a second surface in one mesh).
void append_mesh(TerrainMesh& mesh, const TerrainMesh& part) {
  const auto base = static_cast<std::uint32_t>(mesh.vertices.size());
  mesh.vertices.insert(mesh.vertices.end(), part.vertices.begin(), part.vertices.end());
  for (auto tri : part.triangles)
    mesh.triangles.push_back({tri[0] + base, tri[1] + base, tri[2] + base});
}

void expect_same(const GroundHit& a, const GroundHit& b, const char* where) {
  // Bit-identical: the same query must give the same answer whatever path computed it.
  EXPECT_EQ(a.hit, b.hit) << where;
  EXPECT_EQ(std::memcmp(&a.height, &b.height, sizeof(double)), 0)
      << where << ": " << a.height << " vs " << b.height;
  EXPECT_EQ(a.normal, b.normal) << where;
  EXPECT_EQ(a.triangle, b.triangle) << where;
}

TEST(TerrainQuery, FlatPlaneHeightIsExact) {
  const Terrain terrain(plane_mesh(0.0, 0.0, 0.15));
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-9.99, 9.99);
  for (int i = 0; i < 1000; ++i) {
    const double x = u(rng), z = u(rng);
    const GroundHit hit = terrain.ground_at(x, z);
    ASSERT_TRUE(hit.hit) << x << ", " << z;
    EXPECT_NEAR(hit.height, 0.15, 1e-12);
    EXPECT_EQ(hit.normal, Vec3(0, 1, 0));
    EXPECT_GE(hit.triangle, 0);
    EXPECT_LT(hit.triangle, 32);
  }
}

TEST(TerrainQuery, TiltedPlaneHeightAndNormalAreExact) {
  const double a = 0.3, b = -0.17, c = 1.25;
  const Terrain terrain(plane_mesh(a, b, c));
  const Vec3 expected_normal = glm::normalize(Vec3(-a, 1.0, -b));
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> u(-9.99, 9.99);
  for (int i = 0; i < 1000; ++i) {
    const double x = u(rng), z = u(rng);
    const GroundHit hit = terrain.ground_at(x, z);
    ASSERT_TRUE(hit.hit);
    EXPECT_NEAR(hit.height, a * x + b * z + c, 1e-9);
    EXPECT_NEAR(hit.normal.x, expected_normal.x, 1e-12);
    EXPECT_NEAR(hit.normal.y, expected_normal.y, 1e-12);
    EXPECT_NEAR(hit.normal.z, expected_normal.z, 1e-12);
  }
}

TEST(TerrainQuery, NormalFacesUpWhateverTheWinding) {
  TerrainMesh mesh = plane_mesh(0.2, 0.1, 0.0);
  for (auto& tri : mesh.triangles) std::swap(tri[1], tri[2]);  // clockwise seen from above
  const Terrain terrain(std::move(mesh));
  const GroundHit hit = terrain.ground_at(1.0, 2.0);
  ASSERT_TRUE(hit.hit);
  EXPECT_GT(hit.normal.y, 0.0);
  EXPECT_NEAR(glm::length(hit.normal), 1.0, 1e-15);
  EXPECT_NEAR(hit.height, 0.2 * 1.0 + 0.1 * 2.0, 1e-12);
}

TEST(TerrainQuery, FarFromOriginKeepsPrecision) {
  // Float vertices are stored relative to the terrain centre, so 10 km away still resolves.
  const Vec3 offset(10000.0, 500.0, -20000.0);
  const Terrain terrain(plane_mesh(0.1, 0.0, 0.15, 10.0, 4, offset));
  const GroundHit hit = terrain.ground_at(10000.0 + 3.3, -20000.0 - 4.4);
  ASSERT_TRUE(hit.hit);
  EXPECT_NEAR(hit.height, 500.15 + 0.1 * 3.3, 1e-9);
}

TEST(TerrainQuery, MissesOutsideTheMeshAndOnNonFiniteInput) {
  const Terrain terrain(plane_mesh(0.0, 0.0, 0.0, 5.0));
  EXPECT_FALSE(terrain.ground_at(5.01, 0.0).hit);
  EXPECT_FALSE(terrain.ground_at(0.0, -7.0).hit);
  EXPECT_FALSE(terrain.ground_at(100.0, 100.0).hit);
  EXPECT_FALSE(terrain.ground_at(std::nan(""), 0.0).hit);
  EXPECT_FALSE(terrain.ground_at(0.0, std::numeric_limits<double>::infinity()).hit);
  const GroundHit miss = terrain.ground_at(50.0, 0.0);
  EXPECT_EQ(miss.triangle, -1);
  EXPECT_TRUE(terrain.ground_at(4.99, -4.99).hit);
}

TEST(TerrainQuery, MissesInAHoleInsideTheBounds) {
  // Two separate squares: the gap between them has no ground.
  TerrainMesh mesh;
  mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1},
                   {3, 0, 0}, {4, 0, 0}, {4, 0, 1}, {3, 0, 1}};
  mesh.triangles = {{0, 2, 1}, {0, 3, 2}, {4, 6, 5}, {4, 7, 6}};
  const Terrain terrain(std::move(mesh));
  EXPECT_TRUE(terrain.ground_at(0.5, 0.5).hit);
  EXPECT_FALSE(terrain.ground_at(2.0, 0.5).hit);
  EXPECT_TRUE(terrain.ground_at(3.5, 0.5).hit);
}

TEST(TerrainQuery, ReturnsTheTopmostOfOverlappingSurfaces) {
  TerrainMesh low = plane_mesh(0.0, 0.0, 0.0, 5.0, 1);
  TerrainMesh high = plane_mesh(0.0, 0.0, 1.0, 2.0, 1);
  TerrainMesh mesh = low;
  append_mesh(mesh, high);
  const Terrain terrain(std::move(mesh));
  EXPECT_NEAR(terrain.ground_at(0.5, 0.5).height, 1.0, 1e-12);  // on the table
  EXPECT_NEAR(terrain.ground_at(3.0, 0.5).height, 0.0, 1e-12);  // beside it
  EXPECT_GE(terrain.ground_at(0.5, 0.5).triangle, 2);           // a triangle of the table
}

TEST(TerrainQuery, StairsNearTheStepEdgeAndOnIt) {
  StairsParams p;  // +z, first riser at 0.5 m, 0.15 m x 0.3 m steps
  const Terrain terrain(make_stairs_terrain(p));
  for (int k = 1; k <= p.steps; ++k) {
    const double edge = p.start + (k - 1) * p.step_depth;
    const GroundHit above = terrain.ground_at(0.3, edge + 1e-5);
    const GroundHit below = terrain.ground_at(0.3, edge - 1e-5);
    const GroundHit on = terrain.ground_at(0.3, edge);
    ASSERT_TRUE(above.hit && below.hit && on.hit) << "step " << k;
    EXPECT_NEAR(above.height, k * p.step_height, 1e-12) << "step " << k;
    EXPECT_NEAR(below.height, (k - 1) * p.step_height, 1e-12) << "step " << k;
    EXPECT_NEAR(on.height, k * p.step_height, 1e-12) << "exactly on edge " << k;
    for (const GroundHit* hit : {&above, &below, &on}) {
      EXPECT_EQ(hit->normal, Vec3(0, 1, 0)) << "a riser must never be the ground";
    }
  }
}

TEST(TerrainQuery, SharedEdgesAndVerticesNeverLeakRays) {
  // Rays exactly on grid lines and grid vertices of a tilted grid must all hit.
  const double a = 0.25, b = 0.5;
  const Terrain terrain(plane_mesh(a, b, 0.0, 8.0, 32));
  int misses = 0;
  for (int j = 0; j <= 64; ++j)
    for (int i = 0; i <= 64; ++i) {
      const double x = -8.0 + 0.25 * i, z = -8.0 + 0.25 * j;  // every other one is a vertex
      const GroundHit hit = terrain.ground_at(x, z);
      if (!hit.hit) {
        ++misses;
        continue;
      }
      EXPECT_NEAR(hit.height, a * x + b * z, 1e-9);
    }
  EXPECT_EQ(misses, 0);
}

TEST(TerrainQuery, SkipsDegenerateAndVerticalTriangles) {
  TerrainMesh mesh;
  mesh.vertices = {{0, 0, 0},   {0, 0, 1},   {1, 0, 0},       // floor, facing up
                   {2, 0, 2},   {2, 0, 2},   {3, 0, 3},       // zero area (repeated vertex)
                   {0, 0, 0.5}, {1, 0, 0.5}, {0.5, 2, 0.5}};  // vertical wall over the floor
  mesh.triangles = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}};
  const Terrain terrain(std::move(mesh));
  EXPECT_EQ(terrain.ground_triangle_count(), 1u);
  EXPECT_EQ(terrain.mesh().triangles.size(), 3u);
  // Straight under the wall's top edge: the floor, not the wall.
  const GroundHit hit = terrain.ground_at(0.25, 0.5);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.triangle, 0);
  EXPECT_EQ(hit.height, 0.0);
  EXPECT_EQ(hit.normal, Vec3(0, 1, 0));
  EXPECT_EQ(terrain.bounds_max().y, 2.0);
}

TEST(TerrainQuery, SmoothNormalsInterpolateVertexNormals) {
  BumpsParams p;
  p.size = 4.0;
  p.cell = 0.1;
  TerrainOptions smooth;
  smooth.smooth_normals = true;
  const Terrain terrain(make_bumps_terrain(p), smooth);
  const Terrain faceted(make_bumps_terrain(p));
  // At a grid vertex the interpolated normal is that vertex's (analytic) normal.
  for (int i = -5; i <= 5; ++i) {
    const double x = 0.3 + 0.1 * i, z = -0.7 + 0.1 * i;
    // Vertices are at -2 + k * 0.1; snap to the stored coordinates.
    const Vec3* vertex = nullptr;
    for (const Vec3& v : terrain.mesh().vertices)
      if (std::abs(v.x - x) < 1e-9 && std::abs(v.z - z) < 1e-9) vertex = &v;
    ASSERT_NE(vertex, nullptr);
    const GroundHit hit = terrain.ground_at(vertex->x, vertex->z);
    ASSERT_TRUE(hit.hit);
    const Vec3 expected = bumps_normal(p, vertex->x, vertex->z);
    EXPECT_NEAR(glm::length(hit.normal - expected), 0.0, 1e-9);
    EXPECT_NEAR(hit.height, vertex->y, 1e-12);
  }
  // Between vertices: unit, facing up, close to the analytic normal; faceted differs more.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.9, 1.9);
  double smooth_error = 0.0, faceted_error = 0.0;
  for (int i = 0; i < 500; ++i) {
    const double x = u(rng), z = u(rng);
    const GroundHit s = terrain.ground_at(x, z), f = faceted.ground_at(x, z);
    ASSERT_TRUE(s.hit && f.hit);
    EXPECT_NEAR(glm::length(s.normal), 1.0, 1e-12);
    EXPECT_GT(s.normal.y, 0.0);
    EXPECT_EQ(s.height, f.height);
    const Vec3 exact = bumps_normal(p, x, z);
    smooth_error = std::max(smooth_error, angle_between(s.normal, exact));
    faceted_error = std::max(faceted_error, angle_between(f.normal, exact));
  }
  EXPECT_LT(smooth_error, 0.01);
  EXPECT_LT(smooth_error, faceted_error);
}

TEST(TerrainQuery, SmoothNormalsWithoutVertexNormalsUseFaceNormals) {
  TerrainOptions smooth;
  smooth.smooth_normals = true;
  const Terrain terrain(plane_mesh(0.1, 0.0, 0.0), smooth);
  EXPECT_NEAR(glm::length(terrain.ground_at(1, 1).normal - glm::normalize(Vec3(-0.1, 1, 0))), 0.0,
              1e-12);
}

std::vector<std::array<double, 2>> random_points(std::size_t count, double range, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-range, range);
  std::vector<std::array<double, 2>> points(count);
  for (auto& p : points) p = {u(rng), u(rng)};
  return points;
}

// A mesh with its ground twice (an exporter's doubled faces): of surfaces at the same height the
// first triangle in the mesh answers, at every point and whatever the tiles, in a span query or
// one by one; a copy a hair higher (1e-9 m, far below a float's resolution there) wins where it
// lies, being the topmost.
TEST(TerrainQuery, CoincidentSurfacesAnswerTheFirstTriangleWhateverTheTiles) {
  const TerrainMesh first = plane_mesh(0.1, -0.2, 0.3, 5.0, 8);
  TerrainMesh mesh = first;
  append_mesh(mesh, first);                                      // the same triangles again
  append_mesh(mesh, plane_mesh(0.1, -0.2, 0.3 + 1e-9, 1.0, 1));  // a hair higher, in the middle
  const int copies = static_cast<int>(first.triangles.size());
  const auto points = random_points(3000, 4.9, 21);
  std::vector<GroundHit> reference;
  for (const std::size_t per_tile : {std::size_t{0}, std::size_t{1}, std::size_t{7}}) {
    TerrainOptions options;
    options.scene_tile_triangles = per_tile;
    const Terrain terrain(TerrainMesh(mesh), options);
    std::vector<GroundHit> span(points.size());
    terrain.ground_at(points, span);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const auto [x, z] = points[i];
      const GroundHit single = terrain.ground_at(x, z);
      expect_same(span[i], single, "span");
      ASSERT_TRUE(single.hit) << x << ", " << z;
      const bool in_middle = std::abs(x) < 1.0 - 1e-6 && std::abs(z) < 1.0 - 1e-6;
      const bool off_middle = std::abs(x) > 1.0 + 1e-6 || std::abs(z) > 1.0 + 1e-6;
      if (in_middle) {
        EXPECT_GE(single.triangle, 2 * copies) << x << ", " << z;
      }
      if (off_middle) {
        EXPECT_LT(single.triangle, copies) << x << ", " << z;
      }
      if (reference.size() < points.size())
        reference.push_back(single);
      else
        expect_same(single, reference[i], "tiles");
    }
  }
}

TEST(TerrainSpan, EqualsSingleQueries) {
  BumpsParams bumps;
  bumps.size = 10.0;
  bumps.cell = 0.05;
  StairsParams stairs;
  stairs.axis = TerrainAxis::kNegX;
  // Points beyond the edges (misses) and a NaN.
  auto points = random_points(2003, 11.0, 4);
  points[17] = {std::nan(""), 0.0};
  points[18] = {0.0, std::numeric_limits<double>::infinity()};
  // Then a walk crossing the risers, some exactly.
  for (int i = 0; i < 600; ++i) points.push_back({-6.0 + 0.02 * i, 0.3 + 0.001 * (i % 4)});
  for (int k = 0; k < 10; ++k) points.push_back({-(0.5 + 0.3 * k), 0.1 * k});
  for (const bool use_stairs : {false, true}) {
    TerrainOptions options;
    options.smooth_normals = true;
    const Terrain terrain(use_stairs ? make_stairs_terrain(stairs) : make_bumps_terrain(bumps),
                          options);
    std::vector<GroundHit> span(points.size());
    terrain.ground_at(points, span);
    int hits = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const GroundHit single = terrain.ground_at(points[i][0], points[i][1]);
      expect_same(span[i], single, use_stairs ? "stairs" : "bumps");
      hits += single.hit;
    }
    EXPECT_GT(hits, use_stairs ? 2100 : 700);
    EXPECT_LT(hits, static_cast<int>(points.size()));
  }
}

// A planted foot queries the same point frame after frame: the span query searches such a run
// once and copies the answer. Runs of every length, a run on a step edge, misses, a NaN, and 0.0
// next to -0.0 (not the same bits: searched apart) give what single queries give.
TEST(TerrainSpan, RepeatedPointsAnswerAsSingleQueries) {
  StairsParams stairs;
  stairs.axis = TerrainAxis::kNegX;
  const Terrain terrain(make_stairs_terrain(stairs));
  const auto distinct = random_points(300, 11.0, 9);
  std::vector<std::array<double, 2>> points;
  for (std::size_t i = 0; i < distinct.size(); ++i)
    for (std::size_t r = 0; r <= i % 37; ++r) points.push_back(distinct[i]);
  for (int r = 0; r < 20; ++r) points.push_back({-0.5, 0.25});  // exactly on a riser's top edge
  for (int r = 0; r < 5; ++r) points.push_back({std::nan(""), 0.0});
  points.push_back({0.0, 1.0});
  points.push_back({-0.0, 1.0});
  points.push_back({-0.0, 1.0});
  std::vector<GroundHit> span(points.size());
  terrain.ground_at(points, span);
  for (std::size_t i = 0; i < points.size(); ++i)
    expect_same(span[i], terrain.ground_at(points[i][0], points[i][1]), "repeated");
}

// The span query answers a point well inside the triangle that answered the point before it
// without a search when no other triangle overlaps that one: a walk that goes from the open
// floor under a table top (a floor triangle covered there) and over its edge, slowly enough
// that neighbouring points share a triangle, and a walk over big, uncovered stairs treads, give
// what single queries give.
TEST(TerrainSpan, CoherentWalksUnderAndBesideAnOverlapAnswerAsSingleQueries) {
  TerrainMesh floor = plane_mesh(0.0, 0.0, 0.0, 5.0, 1);
  const TerrainMesh table = plane_mesh(0.0, 0.0, 1.0, 2.0, 1);
  append_mesh(floor, table);
  StairsParams stairs;
  std::vector<std::array<double, 2>> walk;
  for (int i = 0; i <= 900; ++i) walk.push_back({-4.5 + 0.01 * i, -0.7 + 0.001 * (i % 7)});
  for (int i = 0; i <= 400; ++i) walk.push_back({0.3, 0.01 * i});  // over the stairs' risers
  for (const bool use_stairs : {false, true}) {
    const Terrain terrain(use_stairs ? make_stairs_terrain(stairs) : floor);
    std::vector<GroundHit> span(walk.size());
    terrain.ground_at(walk, span);
    int on_table = 0;
    for (std::size_t i = 0; i < walk.size(); ++i) {
      const GroundHit single = terrain.ground_at(walk[i][0], walk[i][1]);
      expect_same(span[i], single, use_stairs ? "stairs walk" : "table walk");
      on_table += !use_stairs && single.height == 1.0;
    }
    if (!use_stairs) {
      EXPECT_GT(on_table, 300);  // the walk does cross the table
    }
  }
}

TEST(TerrainSpan, EmptyAndMismatchedSpans) {
  const Terrain terrain(plane_mesh(0.0, 0.0, 0.0));
  std::vector<std::array<double, 2>> none;
  std::vector<GroundHit> out;
  terrain.ground_at(none, out);  // no-op
  std::vector<std::array<double, 2>> one = {{0.5, 0.5}};
  EXPECT_THROW(terrain.ground_at(one, out), std::invalid_argument);
  out.resize(1);
  terrain.ground_at(one, out);
  EXPECT_TRUE(out[0].hit);
}

TEST(TerrainThreads, SameAnswerOnEveryThread) {
  BumpsParams p;
  p.cell = 0.2;
  const Terrain terrain(make_bumps_terrain(p));
  const auto points = random_points(4000, 10.0, 5);
  std::vector<GroundHit> reference(points.size());
  for (std::size_t i = 0; i < points.size(); ++i)
    reference[i] = terrain.ground_at(points[i][0], points[i][1]);
  std::vector<std::vector<GroundHit>> results(4, std::vector<GroundHit>(points.size()));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        if (t % 2 == 0) {
          terrain.ground_at(points, results[t]);
        } else {
          for (std::size_t i = 0; i < points.size(); ++i)
            results[t][i] = terrain.ground_at(points[i][0], points[i][1]);
        }
      }
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t)
    for (std::size_t i = 0; i < points.size(); ++i)
      expect_same(results[t][i], reference[i], "thread");
}

// Threads whose first queries lie in different tiles build those tiles' scenes at the same
// time: every answer is the one of a terrain queried on one thread.
TEST(TerrainThreads, TilesBuiltAtOnceAnswerAsOnOneThread) {
  BumpsParams p;
  p.cell = 0.1;
  const TerrainMesh mesh = make_bumps_terrain(p);
  const auto points = random_points(6000, 10.0, 11);
  const Terrain serial(mesh);
  std::vector<GroundHit> reference(points.size());
  serial.ground_at(points, reference);
  const Terrain terrain(mesh);
  constexpr int kThreads = 4;
  std::vector<std::vector<GroundHit>> results(kThreads, std::vector<GroundHit>(points.size()));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {  // each from its own quarter of the points on
      const std::size_t start = points.size() * static_cast<std::size_t>(t) / kThreads;
      for (std::size_t k = 0; k < points.size(); ++k) {
        const std::size_t i = (start + k) % points.size();
        results[t][i] = terrain.ground_at(points[i][0], points[i][1]);
      }
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t)
    for (std::size_t i = 0; i < points.size(); ++i)
      expect_same(results[t][i], reference[i], "thread");
}

// Errors come in the order: vertices, normals, triangles (whatever comes later in the mesh).
TEST(TerrainMeshValidation, ErrorsInTheOrderVerticesNormalsTriangles) {
  auto error_of = [](TerrainMesh mesh) {
    try {
      const Terrain terrain(std::move(mesh));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  TerrainMesh mesh = plane_mesh(0, 0, 0, 1, 2);
  mesh.triangles[0][1] = 99;
  EXPECT_NE(error_of(mesh).find("triangle 0 uses vertex 99"), std::string::npos);
  mesh.vertex_normals.assign(mesh.vertices.size(), Vec3(0, 1, 0));
  mesh.vertex_normals.back().x = std::nan("");
  EXPECT_NE(error_of(mesh).find("vertex normal"), std::string::npos) << error_of(mesh);
  mesh.vertices.back().z = std::numeric_limits<double>::infinity();
  const std::string vertex = error_of(mesh);
  EXPECT_NE(vertex.find("vertex " + std::to_string(mesh.vertices.size() - 1) + " is not finite"),
            std::string::npos)
      << vertex;
}

TEST(TerrainMeshValidation, RejectsBadMeshes) {
  EXPECT_THROW(Terrain(TerrainMesh{}), std::invalid_argument);

  TerrainMesh out_of_range = plane_mesh(0, 0, 0, 1, 1);
  out_of_range.triangles[1][2] = 4;  // 4 vertices: 0..3
  EXPECT_THROW(Terrain(std::move(out_of_range)), std::invalid_argument);

  TerrainMesh nan_vertex = plane_mesh(0, 0, 0, 1, 1);
  nan_vertex.vertices[2].y = std::nan("");
  EXPECT_THROW(Terrain(std::move(nan_vertex)), std::invalid_argument);

  TerrainMesh inf_vertex = plane_mesh(0, 0, 0, 1, 1);
  inf_vertex.vertices[0].x = std::numeric_limits<double>::infinity();
  EXPECT_THROW(Terrain(std::move(inf_vertex)), std::invalid_argument);

  TerrainMesh wrong_normals = plane_mesh(0, 0, 0, 1, 1);
  wrong_normals.vertex_normals.assign(3, Vec3(0, 1, 0));
  EXPECT_THROW(Terrain(std::move(wrong_normals)), std::invalid_argument);

  TerrainMesh nan_normal = plane_mesh(0, 0, 0, 1, 1);
  nan_normal.vertex_normals.assign(4, Vec3(0, 1, 0));
  nan_normal.vertex_normals[1].z = std::nan("");
  EXPECT_THROW(Terrain(std::move(nan_normal)), std::invalid_argument);

  TerrainMesh only_walls;
  only_walls.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  only_walls.triangles = {{0, 1, 2}, {3, 4, 5}};
  EXPECT_THROW(Terrain(std::move(only_walls)), std::invalid_argument);
}

TEST(TerrainMeshValidation, KeepsTheMeshAndBounds) {
  const Terrain terrain(plane_mesh(0.0, 0.5, 1.0, 2.0, 2));
  EXPECT_EQ(terrain.mesh().triangles.size(), 8u);
  EXPECT_EQ(terrain.ground_triangle_count(), 8u);
  EXPECT_EQ(terrain.bounds_min(), Vec3(-2.0, 0.0, -2.0));
  EXPECT_EQ(terrain.bounds_max(), Vec3(2.0, 2.0, 2.0));
}

TEST(TerrainCrop, SameGroundInsideTheRectangle) {
  BumpsParams p;
  p.cell = 0.1;
  const TerrainMesh full_mesh = make_bumps_terrain(p);
  std::vector<std::uint32_t> original;
  TerrainMesh cropped = crop_terrain_mesh(full_mesh, -1.0, 2.0, 1.5, 6.0, &original);
  ASSERT_EQ(original.size(), cropped.triangles.size());
  EXPECT_LT(cropped.triangles.size(), full_mesh.triangles.size() / 10);
  EXPECT_EQ(cropped.vertex_normals.size(), cropped.vertices.size());
  TerrainOptions smooth;
  smooth.smooth_normals = true;
  const Terrain full(TerrainMesh(full_mesh), smooth);
  const Terrain part(std::move(cropped), smooth);
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> ux(-1.0, 1.5), uz(2.0, 6.0);
  for (int i = 0; i < 2000; ++i) {
    const double x = ux(rng), z = uz(rng);
    const GroundHit a = full.ground_at(x, z), b = part.ground_at(x, z);
    ASSERT_TRUE(a.hit && b.hit);
    EXPECT_NEAR(a.height, b.height, 1e-12);
    EXPECT_NEAR(glm::length(a.normal - b.normal), 0.0, 1e-12);
    EXPECT_EQ(a.triangle, static_cast<int>(original[b.triangle]));
  }
  // Nothing there: an empty mesh.
  EXPECT_TRUE(crop_terrain_mesh(full_mesh, 50.0, 50.0, 60.0, 60.0).triangles.empty());
}

}  // namespace
}  // namespace ikfix::core

namespace ikfix::core {
namespace {

// 10 m of bumps on 5 cm cells, for the ground bounds' tests.
BumpsParams bound_test_bumps() {
  BumpsParams bumps;
  bumps.size = 10.0;
  bumps.cell = 0.05;
  return bumps;
}

// The ground bounds' test terrains: stairs rising along -x, 10 m of 5 cm bumps, the slope and a
// tilted plane.
std::vector<TerrainMesh> bound_test_meshes() {
  StairsParams stairs;
  stairs.axis = TerrainAxis::kNegX;
  return {make_stairs_terrain(stairs), make_bumps_terrain(bound_test_bumps()),
          make_slope_terrain(SlopeParams{}), plane_mesh(0.3, -0.2, 1.0)};
}

// Random points over 11 m (beyond the 10 m terrains' edges) and points on the stairs' risers.
std::vector<std::array<double, 2>> bound_test_points(unsigned seed) {
  auto points = random_points(20000, 11.0, seed);
  for (int k = 0; k < 10; ++k) points.push_back({-(0.5 + 0.3 * k), 0.1 * k});
  return points;
}

// The bumps read as the part within 2 m of the origin: beyond it a query throws.
std::unique_ptr<Terrain> bound_test_bumps_part() {
  const TerrainMesh whole = make_bumps_terrain(bound_test_bumps());
  TerrainOptions options;
  options.crop = TerrainCrop{Vec3(-5.0, -1.0, -5.0), Vec3(5.0, 1.0, 5.0), -2.0, -2.0, 2.0, 2.0};
  for (const Vec3& v : whole.vertices) {
    options.crop->whole_min = glm::min(options.crop->whole_min, v);
    options.crop->whole_max = glm::max(options.crop->whole_max, v);
  }
  return std::make_unique<Terrain>(crop_terrain_mesh(whole, -2.0, -2.0, 2.0, 2.0), options);
}

// Terrain::ground_ceiling bounds every answer of ground_at (random points, points on the stairs'
// risers, beyond the edges), is -infinity off the terrain, +infinity where a crop's query
// would throw, and is the ground's own height over flat cells (where it lets callers skip the
// most points).
TEST(TerrainCeiling, BoundsEveryAnswerAndIsTheHeightOfFlatGround) {
  const auto points = bound_test_points(5);
  for (const TerrainMesh& mesh : bound_test_meshes()) {
    const Terrain terrain(mesh);
    std::vector<Vec3> on_ground;
    std::vector<double> ceiling;
    for (const auto& [x, z] : points) {
      const GroundHit hit = terrain.ground_at(x, z);
      const double bound = terrain.ground_ceiling(x, z);
      if (hit.hit) {
        ASSERT_LE(hit.height, bound) << x << ", " << z;
        on_ground.push_back(Vec3(x, hit.height, z));
        ceiling.push_back(bound);
      } else if (std::abs(x) > 10.0 || std::abs(z) > 10.0) {
        EXPECT_EQ(bound, -std::numeric_limits<double>::infinity()) << x << ", " << z;
      }
    }
    std::vector<char> above(on_ground.size());
    terrain.above_ground_ceiling(on_ground, above);
    for (std::size_t i = 0; i < on_ground.size(); ++i)
      EXPECT_EQ(above[i] != 0, on_ground[i].y >= ceiling[i]);
  }
  const Terrain flat(plane_mesh(0.0, 0.0, 0.15));
  EXPECT_EQ(flat.ground_ceiling(1.234, -5.6), 0.15);
  std::vector<char> above(2);
  flat.above_ground_ceiling(std::vector<Vec3>{Vec3(1.0, 0.15, 1.0), Vec3(1.0, 0.1499, 1.0)}, above);
  EXPECT_EQ(above, (std::vector<char>{1, 0}));
  StairsParams up_z;  // risers across z from 0.5 on, every 0.3 m
  const Terrain steps(make_stairs_terrain(up_z));
  EXPECT_EQ(steps.ground_ceiling(0.3, -3.0), 0.0);  // before the first riser: not the top step
  EXPECT_EQ(steps.ground_ceiling(0.3, 1.25), steps.ground_at(0.3, 1.25).height);  // third tread
  // A part read for a clip: beyond what it holds a query throws, so the bound cannot tell.
  const auto part_ptr = bound_test_bumps_part();
  const Terrain& part = *part_ptr;
  EXPECT_EQ(part.ground_ceiling(3.0, 0.0), std::numeric_limits<double>::infinity());
  EXPECT_GE(part.ground_ceiling(0.5, 0.5), part.ground_at(0.5, 0.5).height);
  EXPECT_LT(part.ground_ceiling(0.5, 0.5), std::numeric_limits<double>::infinity());
}

// Terrain::ground_floor bounds every answer of ground_at from below (random points, points on
// the stairs' risers), is +infinity off the terrain and -infinity where a crop's query would
// throw, and is the ground's own height over flat cells (where plant placement proves a foot
// level without a query).
TEST(TerrainFloor, BoundsEveryAnswerFromBelowAndIsTheHeightOfFlatGround) {
  const auto points = bound_test_points(7);
  for (const TerrainMesh& mesh : bound_test_meshes()) {
    const Terrain terrain(mesh);
    for (const auto& [x, z] : points) {
      const GroundHit hit = terrain.ground_at(x, z);
      const double floor = terrain.ground_floor(x, z);
      if (hit.hit) {
        ASSERT_GE(hit.height, floor) << x << ", " << z;
        ASSERT_LE(floor, terrain.ground_ceiling(x, z)) << x << ", " << z;
      } else if (std::abs(x) > 10.0 || std::abs(z) > 10.0) {
        EXPECT_EQ(floor, std::numeric_limits<double>::infinity()) << x << ", " << z;
      }
    }
  }
  const Terrain flat(plane_mesh(0.0, 0.0, 0.15));
  EXPECT_EQ(flat.ground_floor(1.234, -5.6), 0.15);
  StairsParams up_z;  // risers across z from 0.5 on, every 0.3 m
  const Terrain steps(make_stairs_terrain(up_z));
  EXPECT_EQ(steps.ground_floor(0.3, -3.0), 0.0);  // before the first riser
  EXPECT_EQ(steps.ground_floor(0.3, 1.25), steps.ground_at(0.3, 1.25).height);  // third tread
  EXPECT_LT(steps.ground_floor(0.3, 0.5), steps.ground_at(0.3, 0.5).height);    // on the riser
  const auto part_ptr = bound_test_bumps_part();
  const Terrain& part = *part_ptr;
  EXPECT_EQ(part.ground_floor(3.0, 0.0), -std::numeric_limits<double>::infinity());
  EXPECT_LE(part.ground_floor(0.5, 0.5), part.ground_at(0.5, 0.5).height);
  EXPECT_GT(part.ground_floor(0.5, 0.5), -std::numeric_limits<double>::infinity());
}

// The ceiling's cells divide the scene tiles and are found a block at a time from a tile's
// triangles: whatever the tile size (one tile for the whole mesh, a triangle or two per tile,
// the default), every answer lies at or under its cell's bound, each bound is the same in
// whichever order the cells are first asked, and flat ground gets its own height.
TEST(TerrainCeiling, SameBoundsWhateverTheTilesAndTheOrderOfAsks) {
  BumpsParams bumps;
  bumps.size = 6.0;
  bumps.cell = 0.07;
  const TerrainMesh mesh = make_bumps_terrain(bumps);
  const auto points = random_points(4000, 3.5, 17);
  for (const std::size_t per_tile : {std::size_t{0}, std::size_t{2}, std::size_t{256}}) {
    TerrainOptions options;
    options.scene_tile_triangles = per_tile;
    const Terrain forward(mesh, options), backward(mesh, options);
    std::vector<double> later(points.size());
    for (std::size_t i = points.size(); i-- > 0;)
      later[i] = backward.ground_ceiling(points[i][0], points[i][1]);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const auto [x, z] = points[i];
      const double bound = forward.ground_ceiling(x, z);
      EXPECT_EQ(std::memcmp(&bound, &later[i], sizeof bound), 0)
          << per_tile << ": " << x << ", " << z;
      const GroundHit hit = forward.ground_at(x, z);
      if (hit.hit) {
        ASSERT_LE(hit.height, bound) << per_tile << ": " << x << ", " << z;
      } else if (std::abs(x) > 3.0 || std::abs(z) > 3.0) {
        EXPECT_EQ(bound, -std::numeric_limits<double>::infinity()) << x << ", " << z;
      }
    }
    TerrainOptions flat_options;
    flat_options.scene_tile_triangles = per_tile;
    const Terrain flat(plane_mesh(0.0, 0.0, -0.25, 10.0, 16), flat_options);
    for (const auto& [x, z] : random_points(200, 9.9, 3))
      EXPECT_EQ(flat.ground_ceiling(x, z), -0.25);
  }
}

}  // namespace
}  // namespace ikfix::core
