// Plant placement (core/fix/plant_placement.hpp) on the bundled walk: nothing moves on flat
// ground; a plant whose toe tip would sink into a riser placed just behind it moves back by the
// least distance that clears it, the same on each of its frames, eased in before; with no room
// to move it is reported blocked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/fix/contacts.hpp"
#include "core/fix/fix_settings.hpp"
#include "core/fix/input_contacts.hpp"
#include "core/fix/plant_placement.hpp"
#include "core/foot_model.hpp"
#include "core/legs.hpp"
#include "core/terrain_gen.hpp"
#include "io/clip_io.hpp"

namespace ikfix::core {
namespace {

struct WalkPlants {
  io::LoadedClip walk = io::load_clip(std::string(IKFIX_SOURCE_DIR) + "/data/clips/walk.bvh");
  LegRig rig = *detect_legs_at_rest(walk.skeleton, walk.space.to_world()).rig;
  LegSamples samples = sample_legs(walk.skeleton, walk.clip, rig, walk.space.to_world(),
                                   FixSettings{}.min_knee_angle, nullptr);
  FootModel foot = build_foot_model(walk.skeleton, rig.legs[0], walk.space.to_world());
  InputContacts contacts;
  WalkPlants() {
    ContactSettings settings = FixSettings{}.contacts;
    const double scale = samples.leg_span[0][0] / FixSettings{}.reference_leg_length;
    settings.height_threshold *= scale;
    settings.speed_threshold *= scale;
    contacts = input_contacts(samples.feet[0], walk.clip.fps, settings, nullptr);
  }
  PlantPlacementJob job(const Terrain& terrain) const {
    PlantPlacementJob j;
    j.terrain = &terrain;
    j.samples = &samples;
    j.feet = &samples.feet[0];
    j.foot = &foot;
    j.planted = contacts.planted;
    j.floor = 0.0;
    j.ankle_level = contacts.planted_level[0];
    j.toe_level = contacts.planted_level[1];
    j.max_foot_tilt = FixSettings{}.max_foot_tilt;
    j.ease_frames = 9;
    return j;
  }
  // The toe tip of the left foot on frame f, world metres.
  Vec3 tip(int f) const {
    const RigidFootPoint& p = foot.points.back();
    EXPECT_EQ(p.kind, FootPointKind::ToeTip);
    return pose_rigid_point(p, samples.at(f, p.joint));
  }
};

// Stairs rising along the axis the plant's foot points along, the first riser `behind_tip`
// metres behind its toe tip (between the ball and the tip).
Terrain riser_under_tip(const WalkPlants& w, const Interval& plant, double behind_tip) {
  const Vec3 along = w.samples.feet[0].toe[plant.first] - w.samples.feet[0].ankle[plant.first];
  StairsParams stairs;
  stairs.steps = 3;
  double tip_along = 0;
  double tip_most = -1e300;  // the tip's farthest reach along the axis over the plant
  const bool along_x = std::abs(along.x) > std::abs(along.z);
  const double sign = (along_x ? along.x : along.z) > 0 ? 1.0 : -1.0;
  stairs.axis = along_x ? (sign > 0 ? TerrainAxis::kPosX : TerrainAxis::kNegX)
                        : (sign > 0 ? TerrainAxis::kPosZ : TerrainAxis::kNegZ);
  for (int f = plant.first; f <= plant.last; ++f) {
    const Vec3 t = w.tip(f);
    tip_along = sign * (along_x ? t.x : t.z);
    tip_most = std::max(tip_most, tip_along);
  }
  stairs.start = tip_most - behind_tip;
  return Terrain(make_stairs_terrain(stairs));
}

// The first plant of the left foot that lasts at least 5 frames and is not at the clip's start.
Interval some_plant(const WalkPlants& w) {
  for (const Interval& p : contact_intervals(w.contacts.planted))
    if (p.first > 10 && p.last - p.first >= 4) return p;
  ADD_FAILURE() << "no plant";
  return {};
}

TEST(PlantPlacement, NothingMovesOnFlatGround) {
  const WalkPlants w;
  const Terrain flat(make_flat_terrain({}));
  const PlantPlacement placed = w.job(flat).run();
  EXPECT_TRUE(placed.plants.empty());
  EXPECT_TRUE(placed.offset_ws.empty());
  EXPECT_TRUE(placed.blocked_excess_m.empty());
}

// no_plant_can_move: true only where the ground's heights and the clip floor lie within the
// tolerance of each other on a terrain held whole.
TEST(PlantPlacement, NoPlantCanMoveOnlyOnLevelGroundNearTheFloor) {
  const double tolerance = FixSettings{}.plant_block_depth;
  const Terrain flat(make_flat_terrain({}));
  EXPECT_TRUE(no_plant_can_move(flat, 0.0, tolerance));
  EXPECT_TRUE(no_plant_can_move(flat, 0.5 * tolerance, tolerance));
  // A query that misses counts as the floor: a floor away from the ground may make an excess.
  EXPECT_FALSE(no_plant_can_move(flat, 2.0 * tolerance, tolerance));
  EXPECT_FALSE(no_plant_can_move(flat, -2.0 * tolerance, tolerance));
  EXPECT_FALSE(no_plant_can_move(flat, std::nan(""), tolerance));
  FlatParams raised;
  raised.height = 0.25;
  EXPECT_TRUE(no_plant_can_move(Terrain(make_flat_terrain(raised)), 0.25, tolerance));
  EXPECT_FALSE(no_plant_can_move(Terrain(make_flat_terrain(raised)), 0.0, tolerance));
  StairsParams step;
  step.steps = 1;
  step.step_height = 2.0 * tolerance;
  EXPECT_FALSE(no_plant_can_move(Terrain(make_stairs_terrain(step)), 0.0, tolerance));
  SlopeParams slope;
  slope.angle_deg = 1.0;
  EXPECT_FALSE(no_plant_can_move(Terrain(make_slope_terrain(slope)), 0.0, tolerance));
  // A part read for the clip: a query past it would throw, which the caller must see.
  const TerrainMesh whole = make_flat_terrain({});
  TerrainOptions part;
  part.crop = TerrainCrop{Vec3(-10, 0, -10), Vec3(10, 0, 10), -2.0, -2.0, 2.0, 2.0};
  const Terrain cropped(crop_terrain_mesh(whole, -2.0, -2.0, 2.0, 2.0), part);
  EXPECT_FALSE(no_plant_can_move(cropped, 0.0, tolerance));
}

// What no_plant_can_move relies on: every ground answer lies within the mesh's vertex heights,
// at edges and on steep faces too.
TEST(PlantPlacement, GroundAnswersLieWithinTheVertexHeights) {
  BumpsParams bumps;
  bumps.size = 4.0;
  bumps.cell = 0.37;
  SlopeParams steep;
  steep.angle_deg = 75.0;
  const Terrain bumpy(make_bumps_terrain(bumps)), ramp(make_slope_terrain(steep));
  for (const Terrain* terrain : {&bumpy, &ramp}) {
    std::vector<std::array<double, 2>> xz;
    for (int i = -60; i <= 60; ++i)
      for (int k = -60; k <= 60; ++k) xz.push_back({i * 0.0371, k * 0.0371});
    std::vector<GroundHit> hits(xz.size());
    terrain->ground_at(xz, hits);
    for (const GroundHit& h : hits) {
      if (!h.hit) continue;
      EXPECT_GE(h.height, terrain->bounds_min().y);
      EXPECT_LE(h.height, terrain->bounds_max().y);
    }
  }
}

// Where no_plant_can_move holds, the placement moves and blocks nothing, even with a riser
// (lower than the tolerance) under the toe tip; where a plant moves, it does not hold.
TEST(PlantPlacement, NoPlantCanMoveAgreesWithThePlacement) {
  const WalkPlants w;
  const Interval plant = some_plant(w);
  for (const double height : {0.5, 0.9, 2.0, 6.0}) {
    StairsParams stairs;
    stairs.steps = 1;
    stairs.step_height = height * FixSettings{}.plant_block_depth;
    const Vec3 along = w.samples.feet[0].toe[plant.first] - w.samples.feet[0].ankle[plant.first];
    const bool along_x = std::abs(along.x) > std::abs(along.z);
    const double sign = (along_x ? along.x : along.z) > 0 ? 1.0 : -1.0;
    stairs.axis = along_x ? (sign > 0 ? TerrainAxis::kPosX : TerrainAxis::kNegX)
                          : (sign > 0 ? TerrainAxis::kPosZ : TerrainAxis::kNegZ);
    const Vec3 tip = w.tip(plant.last);
    stairs.start = sign * (along_x ? tip.x : tip.z) - 0.03;
    const Terrain terrain(make_stairs_terrain(stairs));
    const PlantPlacementJob job = w.job(terrain);
    const PlantPlacement placed = job.run();
    const bool skip = no_plant_can_move(terrain, job.floor, job.tolerance_m);
    EXPECT_EQ(skip, height <= 1.0) << height;
    if (skip) {
      EXPECT_TRUE(placed.plants.empty()) << height;
      EXPECT_TRUE(placed.offset_ws.empty()) << height;
    }
    if (height > 2.0) {
      EXPECT_FALSE(placed.plants.empty()) << height;
    }
  }
}

TEST(PlantPlacement, APlantWithItsTipInARiserMovesBackByTheLeastThatFits) {
  const WalkPlants w;
  const Interval plant = some_plant(w);
  const Terrain stairs = riser_under_tip(w, plant, 0.03);
  const PlantPlacementJob job = w.job(stairs);
  const PlantPlacement placed = job.run();
  const auto it = std::find_if(placed.plants.begin(), placed.plants.end(),
                               [&](const PlacedPlant& p) { return p.first == plant.first; });
  ASSERT_NE(it, placed.plants.end());
  EXPECT_FALSE(it->blocked);
  EXPECT_TRUE(it->backwards);
  EXPECT_GT(it->excess_m, job.tolerance_m);
  const double move = glm::length(it->move_ws);
  // At least the 3 cm the tip reaches past the riser plus the margin, at most a search step
  // (and the bisection's precision) more: the least move.
  EXPECT_GE(move, 0.03 + job.margin_m - 0.001);
  EXPECT_LE(move, 0.03 + job.margin_m + 0.011);
  EXPECT_EQ(it->move_ws.y, 0.0);
  // Against the foot's direction.
  const Vec3 along = w.samples.feet[0].toe[plant.first] - w.samples.feet[0].ankle[plant.first];
  EXPECT_LT(glm::dot(it->move_ws, along), 0.0);
  // The same move on every frame of the plant (it never slides), eased in over the swing before
  // it: no frame jumps by more than the quintic ease's steepest step (1.875 / (window + 1) of
  // the change).
  ASSERT_EQ(placed.offset_ws.size(), static_cast<std::size_t>(w.walk.clip.frame_count));
  for (int f = plant.first; f <= plant.last; ++f) EXPECT_EQ(placed.offset_ws[f], it->move_ws) << f;
  int swing_first = 0;
  for (const Interval& p : contact_intervals(w.contacts.planted))
    if (p.last < plant.first) swing_first = p.last + 1;
  const int window = std::min(job.ease_frames, plant.first - swing_first);
  const double change =
      glm::length(placed.offset_ws[plant.first] - placed.offset_ws[std::max(0, swing_first - 1)]);
  EXPECT_GT(window, 0);
  for (int f = swing_first + 1; f <= plant.first; ++f)
    EXPECT_LE(glm::length(placed.offset_ws[f] - placed.offset_ws[f - 1]),
              change * 1.875 / (window + 1) + 1e-12)
        << f;
}

// The plan sets every plant of a leg on the leg's planted level: a plant standing lower than
// that in the input is raised on flat ground too. That raise is no sign of a foot held by its
// toes on a step edge: the plant still moves back where it fits (cmu_01_03 on the stairs, its
// plant 1.1 cm under the leg's level, was reported blocked with its toe tip 3.2 cm in a riser).
TEST(PlantPlacement, APlantThePlanRaisesStillMovesBack) {
  const WalkPlants w;
  const Interval plant = some_plant(w);
  const Terrain stairs = riser_under_tip(w, plant, 0.03);
  PlantPlacementJob job = w.job(stairs);
  job.ankle_level += 0.02;  // the leg's levels 2 cm above this plant's: raised by the plan
  job.toe_level += 0.02;
  const PlantPlacement placed = job.run();
  const auto it = std::find_if(placed.plants.begin(), placed.plants.end(),
                               [&](const PlacedPlant& p) { return p.first == plant.first; });
  ASSERT_NE(it, placed.plants.end());
  EXPECT_FALSE(it->blocked);
  EXPECT_TRUE(it->backwards);
  const double move = glm::length(it->move_ws);
  EXPECT_GE(move, 0.03 + job.margin_m - 0.001);
  EXPECT_LE(move, 0.03 + job.margin_m + 0.011);
}

// A foot pointing down the stairs with its ankle just over the step behind it (the first riser
// 2 mm in front of the ankle on every frame of the plant, cut to its first frames, heel down)
// and its ball on the step below: which
// step the plan stands it on turns on where its lock holds the ankle within millimetres, and on
// the lower one the heel is inside the riser (boxing_toes on the stairs: 8.9 mm on a planted
// frame). The plant moves forwards, down onto the lower step, by at least what the heel lies
// past the riser.
TEST(PlantPlacement, APlantStraddlingAStepEdgeMovesWhollyOntoOneStep) {
  const WalkPlants w;
  Interval plant = some_plant(w);
  std::vector<char> planted = w.contacts.planted;
  for (int f = plant.first + 3; f <= plant.last; ++f) planted[f] = 0;
  plant.last = plant.first + 2;
  const Vec3 along = w.samples.feet[0].toe[plant.first] - w.samples.feet[0].ankle[plant.first];
  const bool along_x = std::abs(along.x) > std::abs(along.z);
  const double sign = (along_x ? along.x : along.z) > 0 ? 1.0 : -1.0;
  StairsParams stairs;
  stairs.steps = 3;
  // Rising backwards, against the foot: coordinates along the stairs' axis are -sign times the
  // foot's.
  stairs.axis = along_x ? (sign > 0 ? TerrainAxis::kNegX : TerrainAxis::kPosX)
                        : (sign > 0 ? TerrainAxis::kNegZ : TerrainAxis::kPosZ);
  auto back = [&](const Vec3& p) { return -sign * (along_x ? p.x : p.z); };
  double ankle_least = 1e300, heel_most = -1e300;
  for (int f = plant.first; f <= plant.last; ++f) {
    ankle_least = std::min(ankle_least, back(w.samples.feet[0].ankle[f]));
    for (const RigidFootPoint& p : w.foot.points)
      if (p.kind == FootPointKind::Heel)
        heel_most = std::max(heel_most, back(pose_rigid_point(p, w.samples.at(f, p.joint))));
  }
  stairs.start = ankle_least - 0.002;
  const Terrain terrain(make_stairs_terrain(stairs));
  PlantPlacementJob job = w.job(terrain);
  job.planted = planted;
  const PlantPlacement placed = job.run();
  const auto it = std::find_if(placed.plants.begin(), placed.plants.end(),
                               [&](const PlacedPlant& p) { return p.first == plant.first; });
  ASSERT_NE(it, placed.plants.end());
  EXPECT_FALSE(it->blocked);
  EXPECT_FALSE(it->backwards);
  EXPECT_GT(glm::dot(it->move_ws, along), 0.0);
  EXPECT_GE(glm::length(it->move_ws), heel_most - stairs.start);
}

// A swing foot that stood beyond where a forward move puts its plant (a run cycle's foot sweeps
// past its plant and back before it lands; Kenney's on the stairs, its knee snapping straight at
// 37 rad/s) is not pushed farther: the move is eased in only after the last such frame.
TEST(PlantPlacement, AForwardMoveEasesInOnlyAfterTheSwingFootLastStoodBeyondIt) {
  const WalkPlants w;
  Interval plant = some_plant(w);
  std::vector<char> planted = w.contacts.planted;
  for (int f = plant.first + 3; f <= plant.last; ++f) planted[f] = 0;
  const Vec3 along = w.samples.feet[0].toe[plant.first] - w.samples.feet[0].ankle[plant.first];
  const bool along_x = std::abs(along.x) > std::abs(along.z);
  const double sign = (along_x ? along.x : along.z) > 0 ? 1.0 : -1.0;
  StairsParams stairs;
  stairs.steps = 3;
  stairs.axis = along_x ? (sign > 0 ? TerrainAxis::kNegX : TerrainAxis::kPosX)
                        : (sign > 0 ? TerrainAxis::kNegZ : TerrainAxis::kPosZ);
  double ankle_least = 1e300;
  for (int f = plant.first; f <= plant.first + 2; ++f)
    ankle_least = std::min(ankle_least, -sign * (along_x ? w.samples.feet[0].ankle[f].x
                                                         : w.samples.feet[0].ankle[f].z));
  stairs.start = ankle_least - 0.002;
  const Terrain terrain(make_stairs_terrain(stairs));
  PlantPlacementJob job = w.job(terrain);
  job.planted = planted;
  const PlantPlacement plain = job.run();
  const auto it = std::find_if(plain.plants.begin(), plain.plants.end(),
                               [&](const PlacedPlant& p) { return p.first == plant.first; });
  ASSERT_NE(it, plain.plants.end());
  ASSERT_FALSE(it->backwards);
  const int beyond = plant.first - 3;  // within the 9 frames the move is eased over
  const Vec3 before = plain.offset_ws[plant.first - job.ease_frames - 1];
  ASSERT_NE(plain.offset_ws[beyond], before);
  // The same input with its swing foot 5 cm beyond the moved plant on that frame.
  FootTrack swept = w.samples.feet[0];
  swept.ankle[beyond] =
      swept.ankle[plant.first] + it->move_ws * (1.0 + 0.05 / glm::length(it->move_ws));
  job.feet = &swept;
  const PlantPlacement placed = job.run();
  ASSERT_EQ(placed.plants.size(), plain.plants.size());
  for (int f = plant.first - job.ease_frames; f <= beyond; ++f)
    EXPECT_EQ(placed.offset_ws[f], before) << f;
  EXPECT_NE(placed.offset_ws[beyond + 1], before);
  for (int f = plant.first; f <= plant.first + 2; ++f) EXPECT_EQ(placed.offset_ws[f], it->move_ws);
}

TEST(PlantPlacement, APlantWithNoRoomToMoveIsBlocked) {
  const WalkPlants w;
  const Interval plant = some_plant(w);
  const Terrain stairs = riser_under_tip(w, plant, 0.03);
  PlantPlacementJob job = w.job(stairs);
  job.max_move_m = 0.02;  // less than the tip's 3 cm into the riser
  const PlantPlacement placed = job.run();
  const auto it = std::find_if(placed.plants.begin(), placed.plants.end(),
                               [&](const PlacedPlant& p) { return p.first == plant.first; });
  ASSERT_NE(it, placed.plants.end());
  EXPECT_TRUE(it->blocked);
  EXPECT_EQ(it->move_ws, Vec3(0.0));
  ASSERT_EQ(placed.blocked_excess_m.size(), static_cast<std::size_t>(w.walk.clip.frame_count));
  double deepest = 0;
  for (int f = plant.first; f <= plant.last; ++f)
    deepest = std::max(deepest, placed.blocked_excess_m[f]);
  EXPECT_NEAR(deepest, it->excess_m, 1e-12);
  // Reported as unreachable frames with reason "blocked".
  LegDiagnostics leg;
  report_plant_placement(placed, leg);
  ASSERT_FALSE(leg.unreachable.empty());
  EXPECT_EQ(leg.unreachable[0].reason, "blocked");
  EXPECT_GT(leg.unreachable_frames, 0);
  EXPECT_GE(leg.max_shortfall_m, deepest - 1e-12);
}

// A skinned foot whose mesh reaches past its toe tip (a shoe's toe cap): with the riser just
// beyond the tip, the rigid points fit where they are, but the front vertex, 4 cm further along
// the toe, cuts the riser; given the sole's vertices (sole_ws), the plant moves back until the
// vertex is out.
TEST(PlantPlacement, APlantWhoseSkinnedToeCutsARiserMovesBack) {
  const WalkPlants w;
  const Interval plant = some_plant(w);
  const Terrain stairs = riser_under_tip(w, plant, -0.01);  // 1 cm beyond the tip's reach
  const RigidFootPoint& tip = w.foot.points.back();
  ASSERT_EQ(tip.kind, FootPointKind::ToeTip);
  Skin skin;
  SkinnedVertex front;
  front.joint[0] = tip.joint;
  front.weight[0] = 1.0;
  front.local[0] = tip.offset_ls * (1.0 + 0.04 / w.foot.toe_length_m);
  skin.vertices.push_back(front);
  FootModel foot = w.foot;
  foot.sole_vertices = {0};
  const int frames = w.walk.clip.frame_count;
  std::vector<Vec3> sole_ws(frames);
  std::vector<Transform> world(w.walk.skeleton.joint_count());
  for (int f = 0; f < frames; ++f) {
    world[tip.joint] = w.samples.at(f, tip.joint);
    sole_ws[f] = skinned_position(front, world);
  }
  PlantPlacementJob job = w.job(stairs);
  job.foot = &foot;
  const auto find = [&](const PlantPlacement& placed) {
    return std::find_if(placed.plants.begin(), placed.plants.end(),
                        [&](const PlacedPlant& p) { return p.first == plant.first; });
  };
  const PlantPlacement rigid_only = job.run();
  EXPECT_EQ(find(rigid_only), rigid_only.plants.end()) << "the rigid points alone fit";
  job.sole_ws = sole_ws;
  const PlantPlacement placed = job.run();
  const auto it = find(placed);
  ASSERT_NE(it, placed.plants.end());
  EXPECT_FALSE(it->blocked);
  EXPECT_TRUE(it->backwards);
  // The vertex reaches about 3 cm into the riser (4 cm past the tip, the riser 1 cm beyond it,
  // less what the toe's slope takes off along the ground): moved back that, at most 5 cm.
  const double move = glm::length(it->move_ws);
  EXPECT_GT(move, 0.015 + job.margin_m);
  EXPECT_LT(move, 0.05 + job.margin_m);
  for (int f = plant.first; f <= plant.last; ++f) EXPECT_EQ(placed.offset_ws[f], it->move_ws) << f;
}

}  // namespace
}  // namespace ikfix::core
