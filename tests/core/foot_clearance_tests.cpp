// Step 5c (foot_clearance.hpp) and the planned foot it poses (output_foot.hpp), on a synthetic
// biped standing still and generated terrains: a step riser ahead of the toes, a slope rising
// under them, a slope rising behind the heel.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/fix/foot_clearance.hpp"
#include "core/fix/output_foot.hpp"
#include "core/fix/sample_legs.hpp"
#include "core/fk.hpp"
#include "core/foot_model.hpp"
#include "core/parallel.hpp"
#include "core/terrain_gen.hpp"

namespace ikfix::core {
namespace {

constexpr int kFrames = 60;

// Pelvis, then per leg hip, knee, ankle, toe (with an end site); metres, Y up, standing on y = 0
// with the feet pointing +Z: ankle 8 cm up, ball 12 cm ahead of it at 2 cm, toe tip 6 cm further.
struct Biped {
  Skeleton skeleton;
  LegRig rig;
  Clip clip;
  explicit Biped(int frames = kFrames) {
    auto add = [&](const char* name, int parent, Vec3 offset) {
      skeleton.names.push_back(name);
      skeleton.parents.push_back(parent);
      skeleton.rest.push_back(Transform{offset, identity_quat(), Vec3(1.0)});
      skeleton.end_sites.push_back(std::nullopt);
      return static_cast<int>(skeleton.names.size()) - 1;
    };
    rig.pelvis = add("Hips", -1, Vec3(0, 0.95, 0));
    for (int l = 0; l < 2; ++l) {
      const double side = l == 0 ? 0.1 : -0.1;
      Leg& leg = rig.legs[l];
      leg.hip = add(l == 0 ? "LeftUpLeg" : "RightUpLeg", rig.pelvis, Vec3(side, 0, 0));
      leg.knee = add(l == 0 ? "LeftLeg" : "RightLeg", leg.hip, Vec3(0, -0.45, 0));
      leg.ankle = add(l == 0 ? "LeftFoot" : "RightFoot", leg.knee, Vec3(0, -0.42, 0));
      leg.toe = add(l == 0 ? "LeftToe" : "RightToe", leg.ankle, Vec3(0, -0.06, 0.12));
      skeleton.end_sites[leg.toe] = Vec3(0, 0, 0.06);
    }
    clip.fps = 30;
    clip.frame_count = frames;
    clip.joint_count = skeleton.joint_count();
    clip.locals.resize(static_cast<std::size_t>(frames) * clip.joint_count);
    for (int f = 0; f < frames; ++f)
      std::copy(skeleton.rest.begin(), skeleton.rest.end(), clip.frame(f).begin());
  }
};

// Everything the step reads for the left leg of `biped`, the foot as the input has it.
struct LeftFoot {
  const Biped& biped;
  LegSamples samples;
  FootModel model;
  OutputFoot foot;
  std::vector<Vec3> ankle_target, toe_target;
  std::vector<Quat> rotation;
  explicit LeftFoot(const Biped& b)
      : biped(b),
        samples(sample_legs(b.skeleton, b.clip, b.rig, Transform{}, 0.4, nullptr)),
        model(build_foot_model(b.skeleton, b.rig.legs[0], Transform{})),
        foot(&model, nullptr, &samples, &b.clip, &b.skeleton, Transform{}) {
    for (int f = 0; f < b.clip.frame_count; ++f) {
      ankle_target.push_back(samples.at(f, b.rig.legs[0].ankle).translation);
      toe_target.push_back(samples.at(f, b.rig.legs[0].toe).translation);
      rotation.push_back(samples.at(f, b.rig.legs[0].ankle).rotation);
    }
  }
  FootClearanceJob job(const Terrain& terrain, std::span<const char> planted,
                       const ParallelRunner* runner = nullptr) const {
    return FootClearanceJob{&foot, &terrain, 0.0,  planted, rotation, true,  0.87,
                            1.0,   1.5,      0.04, 3,       0.05,     runner};
  }
  // The deepest point under the terrain straight above it over every frame (metres).
  double deepest(const Terrain& terrain, const ToeBend& bend) const {
    double worst = 0;
    std::vector<Vec3> points;
    for (int f = 0; f < biped.clip.frame_count; ++f) {
      PlannedFoot p{ankle_target[f], rotation[f], Vec3(1, 0, 0), 0.0};
      if (!bend.angle.empty())
        p = PlannedFoot{ankle_target[f], rotation[f], bend.axis[f], bend.angle[f]};
      foot.pose(f, p, points);
      for (const Vec3& q : points) {
        const GroundHit g = terrain.ground_at(q.x, q.z);
        if (g.hit) worst = std::max(worst, g.height - q.y);
      }
    }
    return worst;
  }
};

TEST(OutputFoot, UnchangedTargetsPoseTheInputFoot) {
  const Biped biped;
  const LeftFoot left(biped);
  std::vector<Transform> world(biped.skeleton.joint_count());
  forward_kinematics(biped.skeleton, biped.clip.frame(0), Transform{}, world);
  std::vector<Vec3> expected, posed;
  pose_foot_points(left.model, nullptr, world, expected);
  left.foot.pose(0, PlannedFoot{left.ankle_target[0], left.rotation[0], Vec3(1, 0, 0), 0.0}, posed);
  ASSERT_EQ(posed.size(), expected.size());
  ASSERT_EQ(posed.size(), 4u);  // ankle, heel, ball, toe tip
  for (std::size_t i = 0; i < posed.size(); ++i)
    EXPECT_LT(glm::length(posed[i] - expected[i]), 1e-12) << i;
  // A bend turns the tip about the ball and nothing else.
  left.foot.pose(0, PlannedFoot{left.ankle_target[0], left.rotation[0], Vec3(-1, 0, 0), 0.5},
                 posed);
  EXPECT_LT(glm::length(posed[2] - expected[2]), 1e-12);
  EXPECT_NEAR(posed[3].y, expected[2].y + 0.06 * std::sin(0.5), 1e-12);
}

TEST(FootClearance, ASwingToeTipInsideARiserClearsTheTread) {
  const Biped biped;
  LeftFoot left(biped);
  // The riser 15 cm ahead of the ankle: the ball (12 cm) is before it, the tip (18 cm) inside.
  const Terrain stairs(make_stairs_terrain(StairsParams{0.15, 0.3, 3, 0.15}));
  const std::vector<char> swing(kFrames, 0);
  ToeBend bend;
  ASSERT_GT(left.deepest(stairs, bend), 0.1);
  const FootClearanceJob job = left.job(stairs, swing);
  ASSERT_TRUE(job.validate());
  const FootClearance done = job.run(left.ankle_target, left.toe_target, bend);
  EXPECT_LE(left.deepest(stairs, bend), 1e-9);
  // No bend of 50 degrees or less takes the tip out of the riser: the swing foot rises instead,
  // its toes as they were, by what the tip lacks (the tread at 15 cm, the tip at 2 cm).
  EXPECT_EQ(done.bent_frames, 0);
  EXPECT_EQ(done.lifted_frames, kFrames);
  EXPECT_NEAR(done.max_lift_m, 0.13, 1e-9);
}

// A foot wholly above the ground: nothing bends or rises, a bend given stays as it was bit for
// bit, and a bend not made yet is made (zero angles, the toe's axes) as when a point is under.
TEST(FootClearance, AFootAboveTheGroundKeepsItsBendOrGetsItsAxes) {
  const Biped biped;
  LeftFoot left(biped);
  FlatParams low;
  low.height = -0.2;
  const Terrain below(make_flat_terrain(low));
  const std::vector<char> planted(kFrames, 1);
  const FootClearanceJob job = left.job(below, planted);
  ToeBend fresh;
  const FootClearance none = job.run(left.ankle_target, left.toe_target, fresh);
  EXPECT_EQ(none.bent_frames, 0);
  EXPECT_EQ(none.lifted_frames, 0);
  ASSERT_EQ(fresh.angle.size(), static_cast<std::size_t>(kFrames));
  ASSERT_EQ(fresh.axis.size(), static_cast<std::size_t>(kFrames));
  for (int f = 0; f < kFrames; ++f) {
    EXPECT_EQ(fresh.angle[f], 0.0);
    EXPECT_LT(glm::length(fresh.axis[f] - Vec3(-1, 0, 0)), 1e-12) << f;  // toe along +z
  }
  ToeBend given;
  given.angle.assign(kFrames, 0.1);
  given.axis.assign(kFrames, Vec3(0, 0, 1));
  const ToeBend before = given;
  job.run(left.ankle_target, left.toe_target, given);
  EXPECT_EQ(given.angle, before.angle);
  EXPECT_EQ(given.axis, before.axis);
}

TEST(FootClearance, PlantedToesBendUpASlopeWithoutMovingTheFoot) {
  const Biped biped;
  LeftFoot left(biped);
  // The ground rises at 20 degrees from 10 cm ahead of the ankle: above the tip (18 cm ahead,
  // 2 cm up), below the ball (12 cm ahead, 2 cm up).
  const Terrain slope(make_slope_terrain(SlopeParams{20.0, 0.10}));
  const std::vector<char> planted(kFrames, 1);
  const std::vector<Vec3> ankle_before = left.ankle_target;
  ToeBend bend;
  ASSERT_GT(left.deepest(slope, bend), 0.005);
  const FootClearance done = left.job(slope, planted).run(left.ankle_target, left.toe_target, bend);
  EXPECT_EQ(done.bent_frames, kFrames);
  EXPECT_EQ(done.lifted_frames, 0);
  EXPECT_EQ(left.ankle_target, ankle_before);
  EXPECT_LE(left.deepest(slope, bend), 1e-9);
}

TEST(FootClearance, APlantedHeelUnderTheGroundRaisesTheWholePlantByOneAmount) {
  const Biped biped;
  LeftFoot left(biped);
  // Planted from frame 20 to 39; on frame 30 the foot dips 5 cm, its heel (2 cm up) 3 cm into
  // the ground: the whole plant rises by those 3 cm, not that frame alone.
  std::vector<char> planted(kFrames, 0);
  for (int f = 20; f < 40; ++f) planted[f] = 1;
  left.ankle_target[30].y -= 0.05;
  const Terrain flat(make_flat_terrain(FlatParams{20.0, 0.0}));
  ToeBend bend;
  const FootClearance done = left.job(flat, planted).run(left.ankle_target, left.toe_target, bend);
  EXPECT_GT(done.lifted_frames, 0);
  EXPECT_NEAR(done.max_lift_m, 0.03, 1e-12);
  for (int f = 21; f < 40; ++f)
    if (f != 30) {
      EXPECT_EQ(left.ankle_target[f].y, left.ankle_target[20].y) << f;
    }
  EXPECT_LE(left.deepest(flat, bend), 1e-9);
  for (int f = 1; f < kFrames; ++f)
    if (!planted[f] || !planted[f - 1]) {
      EXPECT_LE(std::abs(left.ankle_target[f].y - left.ankle_target[f - 1].y), 0.04 + 1e-12) << f;
    }
}

TEST(FootClearance, TheSameBitsWhateverTheThreads) {
  // Long enough for the per-frame loops to be split over the pool's threads.
  const int frames = 2000;
  const Biped biped(frames);
  const Terrain stairs(make_stairs_terrain(StairsParams{0.15, 0.3, 3, 0.15}));
  std::vector<char> planted(frames, 0);
  for (int f = 0; f < frames; ++f) planted[f] = (f / 40) % 2;
  ThreadPool pool(3);
  std::vector<Vec3> ankles[2];
  std::vector<double> bends[2];
  for (int run = 0; run < 2; ++run) {
    LeftFoot left(biped);
    for (int f = 0; f < frames; ++f) left.ankle_target[f].z += 0.0001 * (f % 300);  // walks on
    ToeBend bend;
    left.job(stairs, planted, run == 0 ? nullptr : &pool)
        .run(left.ankle_target, left.toe_target, bend);
    ankles[run] = left.ankle_target;
    bends[run] = bend.angle;
  }
  EXPECT_EQ(std::memcmp(ankles[0].data(), ankles[1].data(), ankles[0].size() * sizeof(Vec3)), 0);
  EXPECT_EQ(bends[0], bends[1]);
}

}  // namespace
}  // namespace ikfix::core

namespace ikfix::core {
namespace {

// all_above_mesh: true only where every point stands at or above the highest vertex of a terrain
// held whole; then no point is under the ground (each answer there is at most its height).
TEST(FootClearance, AllAboveMeshOnlyAtOrAboveTheHighestVertex) {
  SlopeParams slope;
  slope.angle_deg = 20.0;
  const Terrain ramp(make_slope_terrain(slope));
  const double top = ramp.bounds_max().y;
  std::vector<Vec3> points = {Vec3(0.3, top, 0.2), Vec3(-4.0, top + 1.0, 3.0),
                              Vec3(4.0, top + 0.01, 4.5)};
  EXPECT_TRUE(all_above_mesh(ramp, points));
  std::vector<std::array<double, 2>> xz;
  for (const Vec3& p : points) xz.push_back({p.x, p.z});
  std::vector<GroundHit> hits(xz.size());
  ramp.ground_at(xz, hits);
  for (std::size_t i = 0; i < points.size(); ++i)
    EXPECT_TRUE(!hits[i].hit || hits[i].height <= points[i].y) << i;
  // One point a hair below the top (near the ramp's high end): the ceiling's cells must be
  // asked.
  points.push_back(Vec3(0.0, std::nextafter(top, -1.0), 9.9));
  EXPECT_FALSE(all_above_mesh(ramp, points));
  points.back().y = std::nan("");
  EXPECT_FALSE(all_above_mesh(ramp, points));
  // A part read for the clip: a query past it would throw, which the caller must see.
  const TerrainMesh whole = make_flat_terrain({});
  TerrainOptions part;
  part.crop = TerrainCrop{Vec3(-10, 0, -10), Vec3(10, 0, 10), -2.0, -2.0, 2.0, 2.0};
  const Terrain cropped(crop_terrain_mesh(whole, -2.0, -2.0, 2.0, 2.0), part);
  EXPECT_FALSE(all_above_mesh(cropped, std::vector<Vec3>{Vec3(0.0, 1.0, 0.0)}));
  EXPECT_TRUE(all_above_mesh(Terrain(make_flat_terrain({})),
                             std::vector<Vec3>{Vec3(0.0, 0.0, 0.0), Vec3(30.0, 0.5, 0.0)}));
}

}  // namespace
}  // namespace ikfix::core
