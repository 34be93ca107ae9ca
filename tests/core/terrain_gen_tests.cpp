#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "core/terrain.hpp"
#include "core/terrain_gen.hpp"

namespace ikfix::core {
namespace {

constexpr TerrainAxis kAxes[] = {TerrainAxis::kPosX, TerrainAxis::kNegX, TerrainAxis::kPosZ,
                                 TerrainAxis::kNegZ};

// World (x, z) at `along` metres along the axis and `across` metres beside it.
std::array<double, 2> at(TerrainAxis axis, double along, double across) {
  const Vec3 d = axis_direction(axis);
  const Vec3 side(d.z, 0.0, -d.x);
  return {along * d.x + across * side.x, along * d.z + across * side.z};
}

Vec3 face_normal(const TerrainMesh& mesh, std::size_t t) {
  const auto& tri = mesh.triangles[t];
  const Vec3& a = mesh.vertices[tri[0]];
  return glm::normalize(glm::cross(mesh.vertices[tri[1]] - a, mesh.vertices[tri[2]] - a));
}

TEST(TerrainGenAxis, ParsesAndPrints) {
  for (const TerrainAxis axis : kAxes) {
    EXPECT_EQ(parse_terrain_axis(to_string(axis)), axis);
    const Vec3 d = axis_direction(axis);
    EXPECT_EQ(along_axis(axis, d.x * 3.0, d.z * 3.0), 3.0);
  }
  EXPECT_EQ(parse_terrain_axis("z"), TerrainAxis::kPosZ);
  EXPECT_EQ(parse_terrain_axis("x"), TerrainAxis::kPosX);
  EXPECT_FALSE(parse_terrain_axis("+y").has_value());
  EXPECT_FALSE(parse_terrain_axis("").has_value());
}

TEST(TerrainGenStairs, HeightsMatchTheStepFunctionOnEveryAxis) {
  std::mt19937 rng(7);
  for (const TerrainAxis axis : kAxes) {
    StairsParams p;
    p.axis = axis;
    p.step_height = 0.17;
    p.step_depth = 0.28;
    p.steps = 12;
    p.start = 0.5;
    const Terrain terrain(make_stairs_terrain(p));
    std::uniform_real_distribution<double> along(-9.9, 9.9), across(-9.9, 9.9);
    for (int i = 0; i < 3000; ++i) {
      const double s = along(rng), c = across(rng);
      const auto [x, z] = at(axis, s, c);
      const GroundHit hit = terrain.ground_at(x, z);
      ASSERT_TRUE(hit.hit) << to_string(axis) << " along " << s;
      // Float resolution of the ray: skip the 1e-5 m around each riser.
      const double from_start = s - p.start;
      const double phase = from_start / p.step_depth - std::round(from_start / p.step_depth);
      if (std::abs(phase * p.step_depth) < 1e-5 && from_start > -1e-5 &&
          from_start < p.steps * p.step_depth)
        continue;
      EXPECT_NEAR(hit.height, stairs_height(p, s), 1e-12) << to_string(axis) << " along " << s;
      EXPECT_EQ(hit.normal, Vec3(0, 1, 0));
    }
    // Just either side of every riser, near the middle and near the side edges.
    for (int k = 1; k <= p.steps; ++k) {
      const double edge = p.start + (k - 1) * p.step_depth;
      for (const double c : {0.0, -9.99, 9.99}) {
        const auto up = at(axis, edge + 1e-5, c), down = at(axis, edge - 1e-5, c);
        const auto on = at(axis, edge, c);
        EXPECT_NEAR(terrain.ground_at(up[0], up[1]).height, k * p.step_height, 1e-12);
        EXPECT_NEAR(terrain.ground_at(down[0], down[1]).height, (k - 1) * p.step_height, 1e-12);
        // Exactly on the edge: the upper step, whichever way the stairs run.
        EXPECT_NEAR(terrain.ground_at(on[0], on[1]).height, k * p.step_height, 1e-12)
            << to_string(axis) << " riser " << k << " across " << c;
      }
    }
  }
}

TEST(TerrainGenStairs, AnalyticStepFunction) {
  StairsParams p;  // 10 steps of 0.15 x 0.3 from 0.5
  EXPECT_EQ(stairs_height(p, -5.0), 0.0);
  EXPECT_EQ(stairs_height(p, 0.4999), 0.0);
  EXPECT_EQ(stairs_height(p, 0.5), 0.15);  // on the riser: the upper side
  EXPECT_EQ(stairs_height(p, 0.79), 0.15);
  EXPECT_NEAR(stairs_height(p, 0.81), 0.30, 1e-15);
  EXPECT_NEAR(stairs_height(p, 100.0), 1.5, 1e-15);
  EXPECT_NEAR(stairs_height(p, 0.5 + 9 * 0.3 + 1e-9), 1.5, 1e-15);
}

TEST(TerrainGenStairs, LayoutLandingsRisersAndWinding) {
  StairsParams p;
  p.steps = 40;  // top at 0.5 + 39 * 0.3 = 12.2 > size / 2: the landing extends past it
  const TerrainMesh mesh = make_stairs_terrain(p);
  const Terrain terrain{TerrainMesh(mesh)};
  EXPECT_NEAR(terrain.bounds_min().z, -10.0, 1e-12);
  EXPECT_NEAR(terrain.bounds_max().z, 12.2 + 2.0, 1e-12);
  EXPECT_NEAR(terrain.bounds_max().y, 40 * 0.15, 1e-12);
  EXPECT_NEAR(terrain.bounds_min().x, -10.0, 1e-12);
  EXPECT_NEAR(terrain.bounds_max().x, 10.0, 1e-12);
  int risers = 0, treads = 0;
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const Vec3 n = face_normal(mesh, t);
    if (std::abs(n.y) < 1e-12) {
      ++risers;
      EXPECT_NEAR(n.z, -1.0, 1e-12) << "risers face the walker coming from -z";
    } else {
      ++treads;
      EXPECT_NEAR(n.y, 1.0, 1e-12) << "treads face up (counter-clockwise from above)";
    }
  }
  EXPECT_EQ(risers, 2 * 40);
  EXPECT_EQ(treads, 2 * 41);
  EXPECT_EQ(terrain.ground_triangle_count(), 2u * 41u);
}

TEST(TerrainGenStairs, StartBeyondHalfSizeAndNarrowWidth) {
  StairsParams p;
  p.start = -12.0;  // before the default extent: the terrain grows to keep a landing
  p.width = 1.5;
  p.steps = 2;
  const Terrain terrain(make_stairs_terrain(p));
  EXPECT_NEAR(terrain.bounds_min().z, -14.0, 1e-12);
  EXPECT_NEAR(terrain.bounds_max().x, 0.75, 1e-12);
  EXPECT_NEAR(terrain.ground_at(0.0, -13.0).height, 0.0, 1e-12);
  EXPECT_NEAR(terrain.ground_at(0.0, 0.0).height, 0.3, 1e-12);
  EXPECT_FALSE(terrain.ground_at(1.0, 0.0).hit);
}

TEST(TerrainGenSlope, HeightsAndNormalsMatchThePlane) {
  for (const TerrainAxis axis : kAxes) {
    for (const double angle : {10.0, -25.0}) {
      SlopeParams p;
      p.axis = axis;
      p.angle_deg = angle;
      p.start = 1.0;
      p.length = 5.0;
      const Terrain terrain(make_slope_terrain(p));
      const double tan_a = std::tan(angle * kPi / 180.0);
      for (double s = -9.9; s < 9.9; s += 0.0731) {
        const auto [x, z] = at(axis, s, 0.37);
        const GroundHit hit = terrain.ground_at(x, z);
        ASSERT_TRUE(hit.hit);
        const double expected = s <= 1.0 ? 0.0 : s >= 6.0 ? 5.0 * tan_a : (s - 1.0) * tan_a;
        EXPECT_NEAR(hit.height, expected, 1e-9) << to_string(axis) << " " << s;
        EXPECT_NEAR(slope_height(p, s), expected, 1e-12);
        if (s > 1.001 && s < 5.999) {
          const Vec3 d = axis_direction(axis);
          const Vec3 n = glm::normalize(Vec3(-tan_a * d.x, 1.0, -tan_a * d.z));
          EXPECT_NEAR(glm::length(hit.normal - n), 0.0, 1e-12);
        }
      }
    }
  }
}

TEST(TerrainGenSlope, ZeroLengthRunsToTheEdge) {
  SlopeParams p;  // 10 degrees from 0.5 m, to the edge at 10 m
  const Terrain terrain(make_slope_terrain(p));
  EXPECT_NEAR(terrain.bounds_max().z, 10.0, 1e-12);
  EXPECT_NEAR(terrain.ground_at(0.0, 9.5).height, 9.0 * std::tan(10.0 * kPi / 180.0), 1e-9);
  EXPECT_EQ(make_slope_terrain(p).triangles.size(), 4u);
}

TEST(TerrainGenCliff, RaiseAndDrop) {
  for (const double height : {0.8, -1.5}) {
    CliffParams p;
    p.height = height;
    p.axis = TerrainAxis::kPosX;
    const Terrain terrain(make_cliff_terrain(p));
    EXPECT_NEAR(terrain.ground_at(1.9, 3.0).height, 0.0, 1e-12);
    EXPECT_NEAR(terrain.ground_at(2.1, 3.0).height, height, 1e-12);
    EXPECT_NEAR(terrain.ground_at(2.0, 3.0).height, std::max(0.0, height), 1e-12);
    EXPECT_EQ(cliff_height(p, 2.0), std::max(0.0, height));
    EXPECT_EQ(terrain.ground_triangle_count(), 4u);
  }
}

TEST(TerrainGenBumps, GridHeightsNormalsAndSize) {
  BumpsParams p;  // 20 m, 0.1 m cells
  const TerrainMesh mesh = make_bumps_terrain(p);
  EXPECT_EQ(mesh.triangles.size(), 2u * 200u * 200u);
  ASSERT_EQ(mesh.vertex_normals.size(), mesh.vertices.size());
  for (std::size_t i = 0; i < mesh.vertices.size(); i += 97) {
    const Vec3& v = mesh.vertices[i];
    EXPECT_EQ(v.y, bumps_height(p, v.x, v.z));
    EXPECT_NEAR(glm::length(mesh.vertex_normals[i]), 1.0, 1e-15);
    EXPECT_GE(v.y, 0.0);
    EXPECT_LE(v.y, p.amplitude);
  }
  EXPECT_EQ(bumps_height(p, 0.0, 0.0), 0.0);
  EXPECT_NEAR(bumps_height(p, 1.0, 1.0), p.amplitude, 1e-15);  // a peak
  EXPECT_EQ(bumps_normal(p, 0.0, 0.0), Vec3(0, 1, 0));
  for (std::size_t t = 0; t < mesh.triangles.size(); t += 101)
    EXPECT_GT(face_normal(mesh, t).y, 0.9) << "counter-clockwise from above";

  // Inside a cell the flat triangle is within the curvature bound of the analytic surface:
  // |y''| <= A/2 (2 pi / L)^2 per axis, error <= max|y''| * cell^2 / 4 (both axes, generous).
  const Terrain terrain{TerrainMesh(mesh)};
  const double bound = 0.5 * p.amplitude * std::pow(2 * kPi / p.wavelength, 2) * 0.01 / 4.0;
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-9.99, 9.99);
  for (int i = 0; i < 2000; ++i) {
    const double x = u(rng), z = u(rng);
    EXPECT_NEAR(terrain.ground_at(x, z).height, bumps_height(p, x, z), bound);
  }
  EXPECT_NEAR(terrain.bounds_min().x, -10.0, 1e-12);
  EXPECT_EQ(terrain.bounds_max().x, 10.0);
  EXPECT_EQ(terrain.bounds_max().z, 10.0);
}

TEST(TerrainGenFlat, TwoTrianglesAtHeight) {
  FlatParams p;
  p.size = 6.0;
  p.height = -0.25;
  const Terrain terrain(make_flat_terrain(p));
  EXPECT_EQ(terrain.mesh().triangles.size(), 2u);
  EXPECT_EQ(terrain.ground_at(2.9, -2.9).height, -0.25);
  EXPECT_FALSE(terrain.ground_at(3.1, 0.0).hit);
  EXPECT_GT(face_normal(terrain.mesh(), 0).y, 0.0);
  EXPECT_GT(face_normal(terrain.mesh(), 1).y, 0.0);
}

template <typename F>
std::string error_of(F&& make) {
  try {
    make();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TerrainGenValidation, RejectsInvalidParametersWithOneLineMessages) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::string> messages;
  auto stairs = [](auto change) {
    StairsParams p;
    change(p);
    return [p] { make_stairs_terrain(p); };
  };
  messages.push_back(error_of(stairs([](StairsParams& p) { p.step_height = -0.15; })));
  messages.push_back(error_of(stairs([](StairsParams& p) { p.step_height = 0.0; })));
  messages.push_back(error_of(stairs([](StairsParams& p) { p.step_depth = 0.0; })));
  messages.push_back(error_of(stairs([](StairsParams& p) { p.steps = 0; })));
  messages.push_back(error_of(stairs([&](StairsParams& p) { p.start = nan; })));
  messages.push_back(error_of(stairs([](StairsParams& p) { p.width = -1.0; })));
  messages.push_back(error_of(stairs([](StairsParams& p) { p.size = 0.0; })));
  messages.push_back(error_of([] { make_slope_terrain(SlopeParams{.angle_deg = 0.0}); }));
  messages.push_back(error_of([] { make_slope_terrain(SlopeParams{.angle_deg = 90.0}); }));
  messages.push_back(error_of([] {
    SlopeParams p;
    p.length = -1.0;
    make_slope_terrain(p);
  }));
  messages.push_back(error_of([] { make_bumps_terrain(BumpsParams{.amplitude = 0.0}); }));
  messages.push_back(error_of([] { make_bumps_terrain(BumpsParams{.wavelength = -2.0}); }));
  messages.push_back(error_of([] {
    BumpsParams p;
    p.cell = 0.001;  // 20000^2 cells: too many triangles
    make_bumps_terrain(p);
  }));
  messages.push_back(error_of([] { make_cliff_terrain(CliffParams{.height = 0.0}); }));
  messages.push_back(error_of([&] { make_cliff_terrain(CliffParams{.height = nan}); }));
  messages.push_back(error_of([] { make_flat_terrain(FlatParams{.size = -3.0}); }));
  for (const std::string& m : messages) {
    EXPECT_NE(m, "(no error)");
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_NE(m.find("got"), std::string::npos) << m;
  }
  EXPECT_NE(messages[0].find("step height"), std::string::npos) << messages[0];
  EXPECT_NE(messages[3].find("steps"), std::string::npos) << messages[3];
}

}  // namespace
}  // namespace ikfix::core
