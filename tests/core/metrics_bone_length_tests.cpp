// check's bone-length metric: a real bone that stretches is found; the pelvis moving away from
// the armature node above it (root motion in FBX/glTF files) is not a bone and is not counted; a
// zero-length segment's float noise is no change, its growth is.
#include <gtest/gtest.h>

#include "core/metrics.hpp"
#include "core/terrain_gen.hpp"
#include "retarget_test_rigs.hpp"

namespace ikfix::core {
namespace {

struct ArmatureRig {
  Skeleton skeleton;
  LegRig rig;
};

// The synthetic humanoid, its hips under an "Armature" node at the origin, as Blender and
// Maya export them.
// `zero_length_tip`: a leaf joint "Tip" 1e-7 m from its parent at rest (an FBX finger base at
// its hand's head, the gap a float rounding).
ArmatureRig armature_humanoid(bool zero_length_tip = false) {
  auto joints = test::humanoid(test::mixamo);
  if (zero_length_tip)
    joints.push_back(test::Joint{"Tip", joints.back().name, Vec3(1e-7, 0.0, 0.0), std::nullopt});
  joints.front().parent = "Armature";
  joints.insert(joints.begin(), test::Joint{"Armature", "", Vec3(0.0), std::nullopt});
  ArmatureRig a{test::build(joints), {}};
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

// Every frame is the rest pose with the hips walked `step` metres further along +Z per frame.
Clip walking_in_rest_pose(const Skeleton& skeleton, int pelvis, int frames, double step) {
  Clip clip;
  clip.fps = 30.0;
  clip.frame_count = frames;
  clip.joint_count = skeleton.joint_count();
  for (int f = 0; f < frames; ++f) {
    for (const Transform& t : skeleton.rest) clip.locals.push_back(t);
    clip.at(f, pelvis).translation.z += step * f;
  }
  return clip;
}

ClipMetrics measure(const ArmatureRig& a, const Clip& clip, const Terrain& ground) {
  MetricsInput in;
  in.skeleton = &a.skeleton;
  in.clip = &clip;
  in.rig = a.rig;
  in.terrain = &ground;
  return measure_clip(in);
}

TEST(MetricsBoneLength, RootMotionUnderAnArmatureNodeIsNotABoneChange) {
  const ArmatureRig a = armature_humanoid();
  const Clip clip =
      walking_in_rest_pose(a.skeleton, a.rig.pelvis, 20, 0.05);  // 1 m away by the end
  const Terrain ground(make_flat_terrain(FlatParams{.size = 40.0}));
  const ClipMetrics m = measure(a, clip, ground);
  EXPECT_LT(m.bone_length_change.value, 1e-12) << "worst: " << m.bone_length_change.point;
}

TEST(MetricsBoneLength, AStretchedShinIsStillFound) {
  const ArmatureRig a = armature_humanoid();
  Clip clip = walking_in_rest_pose(a.skeleton, a.rig.pelvis, 20, 0.05);
  const int ankle = a.rig.legs[1].ankle;
  clip.at(7, ankle).translation *= 1.1;  // the right shin 10% longer on frame 7
  const Terrain ground(make_flat_terrain(FlatParams{.size = 40.0}));
  const ClipMetrics m = measure(a, clip, ground);
  EXPECT_NEAR(m.bone_length_change.value, 0.1, 1e-9);
  EXPECT_EQ(m.bone_length_change.frame, 7);
  EXPECT_EQ(m.bone_length_change.point, "mixamorig:RightFoot");
}

TEST(MetricsBoneLength, AZeroLengthSegmentsFloatNoiseIsNoChange) {
  const ArmatureRig a = armature_humanoid(true);
  Clip clip = walking_in_rest_pose(a.skeleton, a.rig.pelvis, 20, 0.05);
  clip.at(3, a.skeleton.find("Tip")).translation = Vec3(6e-6, 0.0, 0.0);  // 60x its rest length
  const Terrain ground(make_flat_terrain(FlatParams{.size = 40.0}));
  const ClipMetrics m = measure(a, clip, ground);
  EXPECT_LT(m.bone_length_change.value, 0.01) << "worst: " << m.bone_length_change.point;
}

TEST(MetricsBoneLength, AZeroLengthSegmentThatGrowsIsFoundAgainstAMillimetre) {
  const ArmatureRig a = armature_humanoid(true);
  Clip clip = walking_in_rest_pose(a.skeleton, a.rig.pelvis, 20, 0.05);
  clip.at(4, a.skeleton.find("Tip")).translation = Vec3(0.0, 0.05, 0.0);
  const Terrain ground(make_flat_terrain(FlatParams{.size = 40.0}));
  const ClipMetrics m = measure(a, clip, ground);
  EXPECT_NEAR(m.bone_length_change.value, (0.05 - 1e-7) / 1e-3, 1e-6);
  EXPECT_EQ(m.bone_length_change.frame, 4);
  EXPECT_EQ(m.bone_length_change.point, "Tip");
}

}  // namespace
}  // namespace ikfix::core
