// The fix's steps and kernels, each called from outside on small inputs or the bundled walk.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/fix/clip_floor.hpp"
#include "core/fix/fix_parallel.hpp"
#include "core/fix/foot_targets.hpp"
#include "core/fix/heel_lift.hpp"
#include "core/fix/input_contacts.hpp"
#include "core/fix/pelvis_drop.hpp"
#include "core/fix/pivot_repair_step.hpp"
#include "core/fix/plan_passes.hpp"
#include "core/fix/sample_legs.hpp"
#include "core/fix/smooth.hpp"
#include "core/fix/swing_clearance.hpp"
#include "core/fk.hpp"
#include "core/legs.hpp"
#include "core/parallel.hpp"
#include "core/terrain_gen.hpp"
#include "io/clip_io.hpp"

namespace ikfix::core {
namespace {

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

io::LoadedClip bundled_walk() {
  return io::load_clip(std::string(IKFIX_SOURCE_DIR) + "/data/clips/walk.bvh");
}

TEST(ParallelReduceOrdered, CombinesTheRangesInOrderWhateverTheThreads) {
  // String concatenation does not commute: only range order gives the serial answer.
  auto run = [](const ParallelRunner* runner) {
    return parallel_reduce_ordered(
        runner, 3000, 1, std::string(),
        [](int begin, int end, std::string& s) {
          for (int i = begin; i < end; i += 500) s += std::to_string(i) + ",";
        },
        [](std::string& total, const std::string& range) { total += range; });
  };
  const std::string serial = run(nullptr);
  EXPECT_EQ(serial, "0,500,1000,1500,2000,2500,");
  ThreadPool pool(3);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(run(&pool), serial);
}

TEST(ForwardKinematicsFrames, TheSameBitsAsOneFrameAtATime) {
  const io::LoadedClip walk = bundled_walk();
  const LegRig rig = *detect_legs_at_rest(walk.skeleton, walk.space.to_world()).rig;
  const JointSubset subset = fix_subset(walk.skeleton, rig);
  const Transform to_world = walk.space.to_world();
  const int begin = 3, end = 10;  // an odd count: the last frame alone
  std::vector<Transform> ranged(static_cast<std::size_t>(end - begin) * subset.size());
  forward_kinematics_frames(subset, walk.clip, begin, end, to_world, ranged);
  std::vector<Transform> single(subset.size());
  for (int f = begin; f < end; ++f) {
    forward_kinematics(subset, walk.clip.frame(f), to_world, single);
    EXPECT_EQ(std::memcmp(single.data(), ranged.data() + (f - begin) * subset.size(),
                          single.size() * sizeof(Transform)),
              0)
        << f;
  }
}

TEST(ClipFloor, UserThenFileOriginThenTheLowFeet) {
  EXPECT_EQ(clip_floor({0.5, 0.5}, 1.0, 0.25).height_m, 0.25);
  EXPECT_STREQ(clip_floor({0.5, 0.5}, 1.0, 0.25).method, "user");
  const ClipFloor origin = clip_floor({0.05, 0.06, 0.04}, 1.0, std::nullopt);
  EXPECT_EQ(origin.height_m, 0.0);
  EXPECT_STREQ(origin.method, "file origin");
  const ClipFloor estimated = clip_floor({-0.3, -0.3, -0.2}, 1.0, std::nullopt);
  EXPECT_EQ(estimated.height_m, -0.3);
  EXPECT_STREQ(estimated.method, "estimated");
}

TEST(SwingClearance, LiftsSwingFramesOutOfTheGroundAndLeavesPlantsAlone) {
  const int n = 40;
  std::vector<char> planted(n, 0);
  for (int f = 0; f < 10; ++f) planted[f] = 1;
  std::vector<GroundHit> under(n, GroundHit{true, 0.0, Vec3(0, 1, 0), 0});
  for (int f = 20; f < 25; ++f) under[f].height = 0.1;  // a bump the swing toe would go into
  std::vector<Vec3> ankle(n, Vec3(0, 0.08, 0)), toe(n, Vec3(0.15, 0.02, 0));
  const std::vector<Vec3> ankle_before = ankle;
  const SwingClearanceJob job{planted, under, under, 0.0, 2.0, 0.05, 3};
  ASSERT_TRUE(job.validate());
  job.run(ankle, toe);
  for (int f = 20; f < 25; ++f) {
    EXPECT_GE(toe[f].y, 0.1 - 1e-12) << f;
    EXPECT_GE(ankle[f].y, 0.1 - 1e-12) << f;
  }
  for (int f = 0; f < 10 - 3; ++f) EXPECT_EQ(ankle[f], ankle_before[f]) << f;  // not in the lead
  for (int f = 1; f < n; ++f) EXPECT_LE(ankle[f].y - ankle[f - 1].y, 0.05 + 1e-12) << f;
}

TEST(HeelRiseAboutToe, OnlyWhileTheToeIsHeldAndWithinTheLimit) {
  const int n = 30;
  std::vector<Vec3> heel(n, Vec3(0, 0.0, 0)), toe(n, Vec3(0.15, 0.0, 0));
  std::vector<signed char> pivots(n, 1);
  for (int f = 0; f < 10; ++f) pivots[f] = 0;                                // the heel held first
  std::vector<GroundHit> under(n, GroundHit{true, 0.05, Vec3(0, 1, 0), 0});  // the heel is 5 cm low
  std::vector<double> angle;
  ASSERT_TRUE(heel_rise_about_toe(heel, toe, pivots, under, 0.0, 0.0, 0.5, 1.0, angle));
  for (int f = 0; f < 10; ++f) EXPECT_EQ(angle[f], 0.0) << f;
  for (int f = 15; f < n; ++f) {
    EXPECT_GT(angle[f], 0.3) << f;  // asin(0.05 / 0.15) ~ 0.34
    EXPECT_LE(angle[f], 0.5) << f;
  }
  std::vector<GroundHit> flat(n, GroundHit{true, 0.0, Vec3(0, 1, 0), 0});
  EXPECT_FALSE(heel_rise_about_toe(heel, toe, pivots, flat, 0.0, 0.0, 0.5, 1.0, angle));
}

TEST(FramesToRemake, EveryFrameFirstThenOnlyWhatChangedBitForBit) {
  const std::vector<Vec3> lock(6, Vec3(0.1, 0, 0.2));
  std::vector<Vec3> moved = lock;
  moved[2].x = 0.3;
  moved[4].z = -0.0;  // 0.0 -> -0.0 is a change of bits
  const std::vector<char> planted = {0, 1, 1, 1, 0, 0};
  EXPECT_EQ(frames_to_remake(true, moved, {}, nullptr, {}, planted, {}, false),
            std::vector<char>(6, 1));
  EXPECT_EQ(frames_to_remake(false, lock, lock, nullptr, {}, planted, planted, false),
            std::vector<char>(6, 0));
  std::vector<Vec3> lock_z0 = lock;
  lock_z0[4].z = 0.0;
  EXPECT_EQ(frames_to_remake(false, moved, lock_z0, nullptr, {}, planted, planted, false),
            (std::vector<char>{0, 0, 1, 0, 1, 0}));
  // Grown plants: frames whose weight changed, and with given clearance whose plant changed.
  const std::vector<double> old_weight = {0, 1, 1, 1, 0.5, 0};
  const std::vector<double> new_weight = {0.5, 1, 1, 1, 0.5, 0};
  const std::vector<char> grown = {0, 1, 1, 1, 1, 0};
  EXPECT_EQ(frames_to_remake(false, lock, lock, &new_weight, old_weight, grown, planted, false),
            (std::vector<char>{1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(frames_to_remake(false, lock, lock, &new_weight, old_weight, grown, planted, true),
            (std::vector<char>{1, 0, 0, 0, 1, 0}));
}

// The bundled walk over the stairs, sampled and with its input contacts, as the pipeline has it
// before the pass driver.
struct WalkOnStairs {
  io::LoadedClip walk = bundled_walk();
  Terrain terrain{make_stairs_terrain({})};
  FixInput in;
  LegSamples samples{JointSubset(walk.skeleton, std::vector<int>{0})};
  ContactSettings contact_settings;
  bool given[2] = {false, false};
  std::vector<double> level[2];
  std::vector<double> height[2][2];
  std::vector<Quat> ankle_rotation[2];
  std::vector<double> hip_height[2];
  double leg_length = 0, scale = 0;
  FixResult result;
  WalkOnStairs() {
    in.skeleton = &walk.skeleton;
    in.clip = &walk.clip;
    in.space = walk.space;
    in.rig = *detect_legs_at_rest(walk.skeleton, walk.space.to_world()).rig;
    in.terrain = &terrain;
    samples = sample_legs(walk.skeleton, walk.clip, in.rig, walk.space.to_world(),
                          in.settings.min_knee_angle, nullptr);
    leg_length = std::max(samples.leg_span[0][0], samples.leg_span[1][0]);
    scale = leg_length / in.settings.reference_leg_length;
    contact_settings = in.settings.contacts;
    contact_settings.height_threshold *= scale;
    contact_settings.speed_threshold *= scale;
    for (int l = 0; l < 2; ++l) {
      gather_ankle_rotation_and_hip_height(samples, in.rig.legs[l], walk.clip.frame_count,
                                           ankle_rotation[l], hip_height[l]);
      InputContacts c = input_contacts(samples.feet[l], walk.clip.fps, contact_settings, nullptr);
      result.planted[l] = c.planted;
      level[l] = {c.planted_level[0], c.planted_level[1]};
      height[l][0] = c.point_height[0];
      height[l][1] = c.point_height[1];
    }
  }
  PlanPassesInputs inputs() const {
    return {&in,
            walk.clip.frame_count,
            walk.clip.fps,
            0.0,
            scale,
            leg_length,
            &contact_settings,
            given,
            level,
            height,
            ankle_rotation,
            hip_height,
            samples.ankle_rotation_inverse,
            nullptr};
  }
};

TEST(FootTargets, OnlyTheFlaggedFramesAreMadeAsAWholeRunMakesThem) {
  const int frames = 6;
  FootTrack feet;
  std::vector<double> offset, weight, tilt, toe_ground;
  std::vector<Vec3> axis;
  std::vector<Quat> rotation, inverse, turn;
  for (int f = 0; f < frames; ++f) {
    feet.ankle.push_back(Vec3(0.1 * f, 0.08 + 0.01 * f, 0.02 * f));
    feet.toe.push_back(feet.ankle.back() + Vec3(0.02, -0.06, 0.14));
    offset.push_back(0.03 * f - 0.05);
    weight.push_back(f % 3 == 0 ? 0.0 : 0.5 + 0.1 * f);
    tilt.push_back(0.05 * f);
    axis.push_back(Vec3(1, 0, 0));
    turn.push_back(axis_angle(axis.back(), tilt.back()));
    rotation.push_back(axis_angle(Vec3(0, 1, 0), 0.2 * f));
    inverse.push_back(glm::inverse(rotation.back()));
    toe_ground.push_back(0.01 * f);
  }
  const FootTargetsJob job{&feet, offset, rotation, inverse,    true, weight,
                           tilt,  axis,   turn,     toe_ground, 0.02, 0.0};
  std::vector<Vec3> ankle, toe;
  std::vector<Quat> foot;
  job.run(ankle, foot, toe);
  // Outputs holding other values: only the flagged frames are written, as the whole run's.
  const std::vector<char> only = {0, 1, 0, 0, 1, 1};
  std::vector<Vec3> ankle_part(frames, Vec3(7.0)), toe_part(frames, Vec3(8.0));
  std::vector<Quat> foot_part(frames, Quat(0.5, 0.5, 0.5, 0.5));
  job.run(ankle_part, foot_part, toe_part, only);
  for (int f = 0; f < frames; ++f) {
    if (only[f]) {
      EXPECT_EQ(std::memcmp(&ankle_part[f], &ankle[f], sizeof(Vec3)), 0) << f;
      EXPECT_EQ(std::memcmp(&toe_part[f], &toe[f], sizeof(Vec3)), 0) << f;
      EXPECT_EQ(std::memcmp(&foot_part[f], &foot[f], sizeof(Quat)), 0) << f;
    } else {
      EXPECT_EQ(ankle_part[f], Vec3(7.0)) << f;
      EXPECT_EQ(toe_part[f], Vec3(8.0)) << f;
      EXPECT_EQ(foot_part[f], Quat(0.5, 0.5, 0.5, 0.5)) << f;
    }
  }
}

TEST(PlanPasses, PlantsOnlyGrowPivotsOnlyInPlantsAndTheSameInputsPlanTheSame) {
  WalkOnStairs a;
  const std::vector<char> input_plants[2] = {a.result.planted[0], a.result.planted[1]};
  FootTrack feet_a[2] = {a.samples.feet[0], a.samples.feet[1]};
  PlanPasses plan_a(a.inputs(), a.result, feet_a);
  plan_a.run();
  const int frames = a.walk.clip.frame_count;
  for (int l = 0; l < 2; ++l) {
    ASSERT_EQ(a.result.planted[l].size(), static_cast<std::size_t>(frames));
    ASSERT_EQ(plan_a.pivot[l].size(), static_cast<std::size_t>(frames));
    for (int f = 0; f < frames; ++f) {
      if (input_plants[l][f]) {
        EXPECT_TRUE(a.result.planted[l][f]) << l << " " << f;
      }
      EXPECT_EQ(plan_a.pivot[l][f] >= 0, a.result.planted[l][f] != 0) << l << " " << f;
    }
  }
  ASSERT_EQ(plan_a.body.size(), static_cast<std::size_t>(frames));
  EXPECT_GT(std::count(input_plants[0].begin(), input_plants[0].end(), 1), 0) << "the walk plants";
  // A second driver from the same inputs plans the same, bit for bit.
  WalkOnStairs b;
  FootTrack feet_b[2] = {b.samples.feet[0], b.samples.feet[1]};
  PlanPasses plan_b(b.inputs(), b.result, feet_b);
  plan_b.run();
  EXPECT_TRUE(same_bits(plan_a.body, plan_b.body));
  for (int l = 0; l < 2; ++l) {
    EXPECT_EQ(a.result.planted[l], b.result.planted[l]);
    EXPECT_TRUE(same_bits(a.result.ankle_target_ws[l], b.result.ankle_target_ws[l]));
    EXPECT_TRUE(same_bits(plan_a.toe_target_ws[l], plan_b.toe_target_ws[l]));
  }
}

TEST(PelvisDrop, JustEnoughForTheTargetsWithinTheLimitAndNotedWhereItBites) {
  WalkOnStairs w;
  const int frames = w.walk.clip.frame_count;
  std::vector<double> body(frames, 0.0);
  // Ankle targets straight below each hip: one leg length down reaches without a drop, one and
  // a half leg lengths down needs half a leg length, more than the limit.
  std::vector<Vec3> targets[2];
  for (int l = 0; l < 2; ++l)
    for (int f = 0; f < frames; ++f) {
      const Vec3 hip = w.samples.at(f, w.in.rig.legs[l].hip).translation;
      const double down = f < frames / 2 ? 0.5 * w.leg_length : 1.5 * w.leg_length;
      targets[l].push_back(hip - Vec3(0, down, 0));
    }
  const PelvisDropJob job{&w.samples, &w.in.rig,    body, {targets[0], targets[1]},
                          1.0,        w.leg_length, 0.35, 0.0,
                          2.0,        nullptr};
  ASSERT_TRUE(job.validate());
  FixDiagnostics diag;
  const std::vector<double> drop = job.run(diag);
  ASSERT_EQ(drop.size(), static_cast<std::size_t>(frames));
  EXPECT_EQ(drop[0], 0.0);
  EXPECT_NEAR(drop[frames - 1], 0.35 * w.leg_length, 1e-9);
  for (double d : drop) EXPECT_LE(d, 0.35 * w.leg_length + 1e-12);
  EXPECT_GT(diag.pelvis_limit_frames, 0);
  ASSERT_FALSE(diag.pelvis_limit.empty());
  EXPECT_EQ(diag.pelvis_limit.back().last, frames - 1);
  ASSERT_EQ(diag.warnings.size(), 1u);
}

// Mean absolute third difference per frame: jerk up to the frame rate's cube.
double mean_third_difference(const std::vector<double>& x) {
  double sum = 0;
  for (std::size_t i = 3; i < x.size(); ++i)
    sum += std::abs(x[i] - 3 * x[i - 1] + 3 * x[i - 2] - x[i - 3]);
  return sum / static_cast<double>(x.size() - 3);
}

TEST(PelvisDrop, PelvisFollowsARampUpTheStairsAndStillLetsEveryLegReach) {
  WalkOnStairs w;
  const int frames = w.walk.clip.frame_count;
  // The body's rise as step 4 makes it on stairs: one level per plant (a step every 18 frames,
  // 30 cm), smoothed a little; where a plant changes, one leg's target is out of reach.
  std::vector<double> stairs(frames), body(frames);
  for (int f = 0; f < frames; ++f) stairs[f] = 0.3 * (f / 18);
  gaussian_smooth(stairs, 3.6, body);
  std::vector<Vec3> targets[2];
  for (int l = 0; l < 2; ++l)
    for (int f = 0; f < frames; ++f) {
      const Vec3 hip = w.samples.at(f, w.in.rig.legs[l].hip).translation + Vec3(0, body[f], 0);
      const bool far = l == 0 && f % 18 <= 2;
      targets[l].push_back(hip - Vec3(0, (far ? 1.2 : 0.5) * w.leg_length, 0));
    }
  auto pelvis = [&](double trend_frames, std::vector<double>& rise) {
    const PelvisDropJob job{&w.samples, &w.in.rig,    body, {targets[0], targets[1]},
                            1.0,        w.leg_length, 0.35, trend_frames,
                            3.0,        nullptr};
    FixDiagnostics diag;
    const std::vector<double> drop = job.run(diag);
    rise.resize(frames);
    for (int f = 0; f < frames; ++f) {
      rise[f] = body[f] - drop[f];
      for (int l = 0; l < 2; ++l) {  // every leg reaches its target from the pelvis's height
        const Vec3 hip = w.samples.at(f, w.in.rig.legs[l].hip).translation + Vec3(0, rise[f], 0);
        EXPECT_LE(
            pelvis_drop_needed(hip, targets[l][f], leg_reach(w.samples, 1.0, w.leg_length, l, f)),
            1e-9)
            << "frame " << f << " leg " << l;
      }
    }
  };
  std::vector<double> stepped, ramp;
  pelvis(0.0, stepped);
  pelvis(6.0, ramp);
  // Following the staircase itself, the hips bob up at each plant; the trend smooths that away.
  EXPECT_LT(mean_third_difference(ramp), 0.5 * mean_third_difference(stepped));
}

}  // namespace
}  // namespace ikfix::core
