#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "core/metrics.hpp"
#include "core/view/report_view.hpp"

namespace ikfix::core {
namespace {

// pelvis (0) -> left hip (1) -> knee (2) -> ankle (3) -> toe (4, end site 10 cm forward),
// pelvis -> right hip (5) -> knee (6) -> ankle (7) -> toe (8), in metres, Y up.
Skeleton legs_skeleton() {
  Skeleton s;
  s.names = {"Hips", "LHip", "LKnee", "LAnkle", "LToe", "RHip", "RKnee", "RAnkle", "RToe"};
  s.parents = {-1, 0, 1, 2, 3, 0, 5, 6, 7};
  s.rest.resize(9);
  s.rest[1].translation = {0.1, 0, 0};
  s.rest[5].translation = {-0.1, 0, 0};
  for (int hip : {1, 5}) {
    s.rest[hip + 1].translation = {0, -0.45, 0};
    s.rest[hip + 2].translation = {0, -0.45, 0};
    s.rest[hip + 3].translation = {0, -0.05, 0.1};
  }
  s.end_sites.assign(9, std::nullopt);
  s.end_sites[4] = Vec3(0, 0, 0.1);
  s.end_sites[8] = Vec3(0, 0, 0.1);
  return s;
}

LegRig legs_rig() {
  LegRig rig;
  rig.pelvis = 0;
  rig.legs[0] = {1, 2, 3, 4};
  rig.legs[1] = {5, 6, 7, 8};
  return rig;
}

// `frames` frames of the rest pose with the pelvis at `height` moving `step` m per frame along z.
Clip walking(const Skeleton& s, int frames, double height, double step) {
  Clip c;
  c.fps = 30;
  c.frame_count = frames;
  c.joint_count = s.joint_count();
  c.locals.resize(static_cast<std::size_t>(frames) * s.joint_count());
  for (int f = 0; f < frames; ++f)
    for (int j = 0; j < s.joint_count(); ++j) c.at(f, j) = s.rest[j];
  for (int f = 0; f < frames; ++f) c.at(f, 0).translation = {0, height, step * f};
  return c;
}

Terrain flat_ground(double y) {
  TerrainMesh m;
  m.vertices = {{-10, y, -10}, {10, y, -10}, {10, y, 10}, {-10, y, 10}};
  m.triangles = {{0, 2, 1}, {0, 3, 2}};
  return Terrain(m);
}

TEST(ReportView, PositionsAreWorldMetresOfJointsThenFootTips) {
  Skeleton s = legs_skeleton();
  ClipSpace space;
  space.metres_per_unit = 0.01;  // the clip in cm
  Clip c = walking(s, 2, 1.0, 0);
  for (auto& t : c.locals) t.translation *= 100.0;
  for (auto& tip : s.end_sites)
    if (tip) *tip *= 100.0;
  const ViewPositions p = view_positions(s, c, space, {4});
  ASSERT_EQ(p.point_count, 10);
  EXPECT_NEAR(p.at(1, 0).y, 1.0, 1e-12);        // pelvis 100 cm up
  EXPECT_NEAR(p.at(1, 3).y, 1.0 - 0.9, 1e-12);  // left ankle, two 45 cm bones below
  EXPECT_NEAR(p.at(1, 9).z, 0.2, 1e-12);        // the tip: toe 10 cm + end site 10 cm forward
  EXPECT_NEAR(p.at(1, 9).y, 1.0 - 0.95, 1e-12);
}

TEST(ReportView, NoBoneIsDrawnToThePelvisFromTheGroupNodesAboveIt) {
  Skeleton s = legs_skeleton();
  // "Take" -> "Group" -> Hips: the group nodes an FBX export puts above the pelvis.
  s.names.insert(s.names.begin(), {"Take", "Group"});
  for (int& p : s.parents) p += 2;
  s.parents.insert(s.parents.begin(), {-1, 0});
  s.parents[2] = 1;
  s.rest.insert(s.rest.begin(), 2, Transform{});
  s.end_sites.insert(s.end_sites.begin(), 2, std::nullopt);
  const std::vector<int> parents = view_parents(s, 2);
  EXPECT_EQ(parents[0], -1);
  EXPECT_EQ(parents[1], -1);
  EXPECT_EQ(parents[2], -1);  // Hips
  EXPECT_EQ(parents[3], 2);   // LHip still hangs from Hips
  EXPECT_EQ(parents[10], 9);  // RToe from RAnkle
}

TEST(ReportView, SeriesMeasureTheFootAboveTheGroundBeforeAndAfter) {
  const Skeleton s = legs_skeleton();
  const Terrain ground = flat_ground(0.0);
  const Clip before = walking(s, 5, 1.05, 0.0);  // toes 10 cm above the ground
  const Clip after = walking(s, 5, 0.95, 0.0);   // toes on it
  std::vector<char> planted(5, 1);
  std::vector<Vec3> targets(5, Vec3(0.1, 0.06, 0.0));  // 1 cm above the fixed left ankle
  ReportViewInput in;
  in.skeleton = &s;
  in.before = &before;
  in.after = &after;
  in.rig = legs_rig();
  in.terrain = &ground;
  in.planted[0] = &planted;
  in.ankle_target_ws[0] = &targets;
  const ReportView view = build_report_view(in);
  const FootSeries& left = view.series.feet[0];
  ASSERT_EQ(left.lowest_before_m.size(), 5u);
  EXPECT_NEAR(*left.lowest_before_m[2], 0.10, 1e-12);
  EXPECT_NEAR(*left.lowest_after_m[2], 0.0, 1e-12);
  EXPECT_NEAR(view.series.pelvis_change_m[2], -0.10, 1e-12);
  EXPECT_NEAR(left.knee_after_deg[2], 180.0, 1e-6);  // straight legs
  EXPECT_NEAR(*left.pivot_slide_after_mps[2], 0.0, 1e-12);
  EXPECT_NEAR(*left.shortfall_m[2], 0.01, 1e-12);
  // The right leg has no contacts given: no slide, no shortfall.
  EXPECT_FALSE(view.series.feet[1].pivot_slide_after_mps[2].has_value());
  EXPECT_FALSE(view.series.feet[1].shortfall_m[2].has_value());
  EXPECT_EQ(view.feet[0].tip, 9);
  EXPECT_EQ(view.parents[9], 4);  // the tip hangs from its toe
}

TEST(ReportView, PivotSlideIsTheSlowerFootPointOverPlantedNeighbours) {
  const Skeleton s = legs_skeleton();
  const Terrain ground = flat_ground(0.0);
  const Clip moving = walking(s, 4, 0.95, 0.01);  // 1 cm per frame at 30 fps: 0.3 m/s
  std::vector<char> planted = {1, 1, 1, 0};
  ReportViewInput in;
  in.skeleton = &s;
  in.before = &moving;
  in.after = &moving;
  in.rig = legs_rig();
  in.terrain = &ground;
  in.planted[0] = &planted;
  const ReportView view = build_report_view(in);
  const FootSeries& left = view.series.feet[0];
  EXPECT_NEAR(*left.pivot_slide_after_mps[1], 0.3, 1e-9);  // central
  EXPECT_NEAR(*left.pivot_slide_after_mps[2], 0.3, 1e-9);  // one-sided: frame 3 is not planted
  EXPECT_FALSE(left.pivot_slide_after_mps[3].has_value());
}

TEST(ReportView, NoGroundBelowGivesNoHeight) {
  const Skeleton s = legs_skeleton();
  const Terrain ground = flat_ground(0.0);
  Clip away = walking(s, 2, 1.0, 0.0);
  away.at(1, 0).translation = {50, 1.0, 0};  // off the 20 m terrain
  ReportViewInput in;
  in.skeleton = &s;
  in.before = &away;
  in.after = &away;
  in.rig = legs_rig();
  in.terrain = &ground;
  const ReportView view = build_report_view(in);
  EXPECT_TRUE(view.series.feet[0].lowest_after_m[0].has_value());
  EXPECT_FALSE(view.series.feet[0].lowest_after_m[1].has_value());
}

TEST(ReportView, TerrainIsCroppedToTheFootprintOrResampledWhenLarge) {
  TerrainMesh big;  // 100 x 100 quads over 100 m
  for (int i = 0; i <= 100; ++i)
    for (int k = 0; k <= 100; ++k) big.vertices.emplace_back(i - 50.0, 0.0, k - 50.0);
  for (std::uint32_t i = 0; i < 100; ++i)
    for (std::uint32_t k = 0; k < 100; ++k) {
      const std::uint32_t a = i * 101 + k;
      big.triangles.push_back({a, a + 1, a + 102});
      big.triangles.push_back({a, a + 102, a + 101});
    }
  const Terrain terrain(big);
  ViewPositions p;
  p.frame_count = 1;
  p.point_count = 2;
  p.positions = {{0, 1, 0}, {2, 1, 3}};
  const TerrainMesh crop = view_terrain(terrain, p, p, 1.0, 100000);
  EXPECT_LT(crop.triangles.size(), 100u);  // x in [-1, 3], z in [-1, 4]: a few cells
  EXPECT_GE(crop.triangles.size(), 40u);
  for (const Vec3& v : crop.vertices) EXPECT_TRUE(v.x >= -2 && v.x <= 4 && v.z >= -2 && v.z <= 5);
  const TerrainMesh grid = view_terrain(terrain, p, p, 1.0, 18);
  EXPECT_LE(grid.triangles.size(), 18u);
  EXPECT_GT(grid.triangles.size(), 0u);
  for (const Vec3& v : grid.vertices) EXPECT_NEAR(v.y, 0.0, 1e-9);
}

// A walk whose joints bend and turn from frame to frame (so every coordinate moves).
Clip bending(const Skeleton& s, int frames) {
  Clip c = walking(s, frames, 0.97, 0.013);
  for (int f = 0; f < frames; ++f)
    for (int j = 1; j < s.joint_count(); ++j)
      c.at(f, j).rotation =
          glm::angleAxis(0.1 * std::sin(0.3 * f + j), glm::normalize(Vec3(1, j, 0.5)));
  return c;
}

TEST(ReportView, PositionsFromTheMetricsWorldTransformsAreThoseOfFk) {
  const Skeleton s = legs_skeleton();
  const Terrain ground = flat_ground(0.0);
  const Clip before = bending(s, 40), after = walking(s, 40, 0.95, 0.01);
  ClipSpace space;
  space.world_offset = Vec3(0.25, 0, -1);
  std::optional<ViewPositions> given[2];
  const std::vector<int> tips = view_tip_owners(s, legs_rig());
  for (int k = 0; k < 2; ++k) {
    const Clip& clip = k == 0 ? before : after;
    MetricsInput m;
    m.skeleton = &s;
    m.clip = &clip;
    m.space = space;
    m.rig = legs_rig();
    m.terrain = &ground;
    given[k] = sized_view_positions(s, 40, tips);
    std::vector<int> calls(40, 0);
    m.with_world = [&](int frame, std::span<const Transform> world_ws) {
      ASSERT_EQ(world_ws.size(), static_cast<std::size_t>(s.joint_count()));
      ++calls[frame];
      put_view_row(s, world_ws, tips, frame, *given[k]);
    };
    measure_clip(m);
    EXPECT_EQ(calls, std::vector<int>(40, 1));  // once per frame
  }
  ReportViewInput in;
  in.skeleton = &s;
  in.before = &before;
  in.after = &after;
  in.space = space;
  in.rig = legs_rig();
  in.terrain = &ground;
  const ReportView computed = build_report_view(in);
  in.before_positions = given[0];
  in.after_positions = given[1];
  const ReportView reused = build_report_view(in);
  ASSERT_EQ(reused.before.positions.size(), computed.before.positions.size());
  // Bit for bit: the page is the same whichever way the positions were found.
  for (std::size_t i = 0; i < computed.before.positions.size(); ++i) {
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(std::bit_cast<std::uint64_t>(reused.before.positions[i][a]),
                std::bit_cast<std::uint64_t>(computed.before.positions[i][a]));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(reused.after.positions[i][a]),
                std::bit_cast<std::uint64_t>(computed.after.positions[i][a]));
    }
  }
  EXPECT_EQ(reused.series.feet[0].lowest_before_m, computed.series.feet[0].lowest_before_m);
  EXPECT_EQ(reused.series.feet[1].knee_before_deg, computed.series.feet[1].knee_before_deg);
  // Positions of another clip length are not used.
  in.before_positions = given[0];
  in.before_positions->frame_count = 39;
  in.before_positions->positions.resize(39u * in.before_positions->point_count);
  const ReportView fallback = build_report_view(in);
  EXPECT_EQ(fallback.before.positions, computed.before.positions);
  // A clip moved away to be fixed in place (empty): the positions stand for it.
  const Clip moved_away;
  in.before = &moved_away;
  in.before_positions = given[0];
  const ReportView in_place = build_report_view(in);
  EXPECT_EQ(in_place.before.positions, computed.before.positions);
}

TEST(ReportView, LowestFootPointComesFromTheMetricsWhenGiven) {
  const Skeleton s = legs_skeleton();
  const Terrain ground = flat_ground(0.0);
  const Clip clip = walking(s, 20, 1.0, 0.01);  // soles (ball, toe tip, heel) 5 cm up
  MetricsInput m;
  m.skeleton = &s;
  m.clip = &clip;
  m.rig = legs_rig();
  m.terrain = &ground;
  std::vector<double> lowest;
  m.lowest_above_out = &lowest;
  measure_clip(m);
  ASSERT_EQ(lowest.size(), 40u);  // two legs of 20 frames
  for (double h : lowest) EXPECT_NEAR(h, 0.05, 1e-12);
  ReportViewInput in;
  in.skeleton = &s;
  in.before = &clip;
  in.after = &clip;
  in.rig = legs_rig();
  in.terrain = &ground;
  std::vector<double> given = lowest;
  given[3] = 0.5;                                            // left leg, frame 3
  given[20 + 7] = std::numeric_limits<double>::quiet_NaN();  // right leg, frame 7: no ground
  in.before_lowest_above_m = &given;
  const ReportView view = build_report_view(in);
  EXPECT_EQ(*view.series.feet[0].lowest_before_m[3], 0.5);
  EXPECT_FALSE(view.series.feet[1].lowest_before_m[7].has_value());
  EXPECT_NEAR(*view.series.feet[1].lowest_before_m[6], 0.05, 1e-12);
  // Not given for `after`: the view's own points (ankle, ball, toe tip) against the terrain.
  EXPECT_NEAR(*view.series.feet[0].lowest_after_m[3], 0.05, 1e-12);
}

TEST(ReportView, KneeAngleIsTheInteriorAngle) {
  EXPECT_NEAR(knee_angle_deg({0, 1, 0}, {0, 0.5, 0}, {0, 0, 0}), 180.0, 1e-9);
  EXPECT_NEAR(knee_angle_deg({0, 1, 0}, {0, 0.5, 0}, {0, 0.5, 0.5}), 90.0, 1e-9);
}

}  // namespace
}  // namespace ikfix::core
