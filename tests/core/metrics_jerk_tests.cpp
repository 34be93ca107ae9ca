// check's jerk: the per-frame third difference of a path, and the largest single-frame jerk of
// the pelvis and each ankle with its frame and leg.
#include <gtest/gtest.h>

#include "core/metrics.hpp"
#include "core/terrain_gen.hpp"
#include "retarget_test_rigs.hpp"

namespace ikfix::core {
namespace {

TEST(MetricsJerk, ACubicPathHasItsConstantThirdDerivativeOnEveryInnerFrame) {
  const double fps = 30.0;
  std::vector<Vec3> path;
  for (int f = 0; f < 12; ++f) {
    const double t = f / fps;
    path.push_back(Vec3(0.0, 2.0 * t * t * t, 0.0));  // jerk 12 m/s^3
  }
  const std::vector<double> jerk = jerk_per_frame(path, fps);
  ASSERT_EQ(jerk.size(), path.size());
  for (int f : {0, 1, 10, 11}) EXPECT_EQ(jerk[f], 0.0) << f;
  for (int f = 2; f < 10; ++f) EXPECT_NEAR(jerk[f], 12.0, 1e-6) << f;
}

TEST(MetricsJerk, APathTooShortHasNoJerk) {
  const std::vector<double> jerk = jerk_per_frame({Vec3(0), Vec3(1), Vec3(0), Vec3(1)}, 30.0);
  for (double j : jerk) EXPECT_EQ(j, 0.0);
}

struct Rig {
  Skeleton skeleton;
  LegRig rig;
};

Rig humanoid() {
  Rig a{test::build(test::humanoid(test::mixamo)), {}};
  a.rig.pelvis = a.skeleton.find("mixamorig:Hips");
  for (int l = 0; l < 2; ++l) {
    const std::string side = l == 0 ? "Left" : "Right";
    a.rig.legs[l] = Leg{a.skeleton.find("mixamorig:" + side + "UpLeg"),
                        a.skeleton.find("mixamorig:" + side + "Leg"),
                        a.skeleton.find("mixamorig:" + side + "Foot"),
                        a.skeleton.find("mixamorig:" + side + "ToeBase")};
  }
  return a;
}

TEST(MetricsJerk, APopNamesItsFrameAndLegAndTheMeanStaysSmall) {
  const Rig a = humanoid();
  Clip clip;
  clip.fps = 30.0;
  clip.frame_count = 40;
  clip.joint_count = a.skeleton.joint_count();
  for (int f = 0; f < clip.frame_count; ++f)
    for (const Transform& t : a.skeleton.rest) clip.locals.push_back(t);
  // The whole body steps 1 cm up from frame 20 on; the right ankle alone 2 cm more from frame
  // 30 on (its local offset under the knee, so only that ankle jumps).
  const int right_ankle = a.rig.legs[1].ankle;
  for (int f = 20; f < clip.frame_count; ++f) clip.at(f, a.rig.pelvis).translation.y += 0.01;
  for (int f = 30; f < clip.frame_count; ++f) clip.at(f, right_ankle).translation.y += 0.02;
  const Terrain ground(make_flat_terrain(FlatParams{.size = 40.0}));
  MetricsInput in;
  in.skeleton = &a.skeleton;
  in.clip = &clip;
  in.rig = a.rig;
  in.terrain = &ground;
  const ClipMetrics m = measure_clip(in);
  // A step of h between frames s-1 and s: the central third difference is h fps^3 / 2 on each
  // of frames s-2 .. s+1, and the first of them is named.
  const double fps3 = 30.0 * 30.0 * 30.0;
  EXPECT_NEAR(m.pelvis_jerk_max.value, 0.5 * 0.01 * fps3, 1e-6);
  EXPECT_EQ(m.pelvis_jerk_max.frame, 18);
  EXPECT_EQ(m.pelvis_jerk_max.point, "pelvis");
  EXPECT_NEAR(m.foot_jerk_max.value, 0.5 * 0.02 * fps3, 1e-6);
  EXPECT_EQ(m.foot_jerk_max.frame, 28);
  EXPECT_EQ(m.foot_jerk_max.leg, 1);
  EXPECT_EQ(m.foot_jerk_max.point, "ankle");
  EXPECT_NEAR(m.legs[0].foot_jerk_max.value, 0.5 * 0.01 * fps3, 1e-6);
  EXPECT_EQ(m.legs[0].foot_jerk_max.frame, 18);
  EXPECT_EQ(m.legs[0].foot_jerk_max.leg, 0);
  // The mean: 4 frames of jerk among 36.
  EXPECT_NEAR(m.pelvis_jerk_mean, 4 * 0.5 * 0.01 * fps3 / 36.0, 1e-6);
}

}  // namespace
}  // namespace ikfix::core
