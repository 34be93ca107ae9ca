// check's bone-length metric: a real bone that stretches is found; the pelvis moving away from
// the armature node above it (root motion in FBX/glTF files) is not a bone and is not counted; a
// zero-length segment's float noise is no change, its growth is.
#include <gtest/gtest.h>

#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

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

// The clip's non-finite count: each transform with an infinite or NaN number counts once,
// whichever of its ten numbers it is (an odd frame count: the last frame's FK alone).
TEST(MetricsBoneLength, EachTransformWithANonFiniteNumberCountsOnce) {
  const ArmatureRig a = armature_humanoid();
  Clip clip = walking_in_rest_pose(a.skeleton, a.rig.pelvis, 21, 0.05);
  const int head = a.skeleton.find("mixamorig:Head");
  ASSERT_GE(head, 0);
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  clip.at(3, head).translation.y = nan;
  clip.at(5, head).scale.z = inf;
  clip.at(5, head).rotation.x = nan;  // the same transform: counted once
  clip.at(9, head).rotation.w = -inf;
  clip.at(20, head).translation.x = 1e308;  // large, finite
  const Terrain ground(make_flat_terrain(FlatParams{.size = 40.0}));
  EXPECT_EQ(measure(a, clip, ground).non_finite, 3);
  EXPECT_EQ(measure(a, walking_in_rest_pose(a.skeleton, a.rig.pelvis, 21, 0.05), ground).non_finite,
            0);
}

// measure() with `rotation_not_read` flags (and a visitor, when given).
ClipMetrics measure_flagged(const ArmatureRig& a, const Clip& clip, const Terrain& ground,
                            const std::vector<char>& rotation_not_read,
                            MetricsInput::WorldVisitor with_world = nullptr) {
  MetricsInput in;
  in.skeleton = &a.skeleton;
  in.clip = &clip;
  in.rig = a.rig;
  in.terrain = &ground;
  in.rotation_not_read = rotation_not_read;
  in.with_world = std::move(with_world);
  return measure_clip(in);
}

// A leaf read for its translation only (MetricsInput::rotation_not_read: a NaN rotation its
// reader knows to be finite) is measured by its translation as if its rotation were there: the
// same bone length change, its rotation not counted as non-finite, its translation still.
TEST(MetricsBoneLength, ALeafWithoutItsRotationIsMeasuredByItsTranslation) {
  const ArmatureRig a = armature_humanoid(true);
  const int tip = a.skeleton.find("Tip");
  Clip clip = walking_in_rest_pose(a.skeleton, a.rig.pelvis, 21, 0.05);
  clip.at(4, tip).translation = Vec3(0.0, 0.05, 0.0);
  const Terrain ground(make_flat_terrain(FlatParams{.size = 40.0}));
  const ClipMetrics whole = measure(a, clip, ground);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int f = 0; f < clip.frame_count; ++f) clip.at(f, tip).rotation = Quat(nan, nan, nan, nan);
  std::vector<char> flags(a.skeleton.joint_count(), 0);
  flags[tip] = 1;
  const ClipMetrics part = measure_flagged(a, clip, ground, flags);
  EXPECT_EQ(part.non_finite, 0);
  EXPECT_EQ(part.bone_length_change.value, whole.bone_length_change.value);
  EXPECT_EQ(part.bone_length_change.frame, 4);
  EXPECT_EQ(part.bone_length_change.point, "Tip");
  EXPECT_EQ(part.penetration.value, whole.penetration.value);
  EXPECT_EQ(part.rotation_speed.value, whole.rotation_speed.value);
  EXPECT_EQ(part.legs[0].frames_in_contact, whole.legs[0].frames_in_contact);
  // Unflagged, each of those rotations is a non-finite transform; a flagged one's translation
  // and scale still count.
  EXPECT_EQ(measure(a, clip, ground).non_finite, 21);
  clip.at(6, tip).translation.x = nan;
  clip.at(8, tip).scale.z = std::numeric_limits<double>::infinity();
  EXPECT_EQ(measure_flagged(a, clip, ground, flags).non_finite, 2);
}

// Only a leaf the measures do not follow may go without its rotation, and not when a visitor
// asks for every joint's world transform: anything else is the caller's bug.
TEST(MetricsBoneLength, OnlyAnUnfollowedLeafMayGoWithoutItsRotation) {
  const ArmatureRig a = armature_humanoid(true);
  const Clip clip = walking_in_rest_pose(a.skeleton, a.rig.pelvis, 5, 0.05);
  const Terrain ground(make_flat_terrain(FlatParams{.size = 40.0}));
  const auto flag = [&](int j) {
    std::vector<char> flags(a.skeleton.joint_count(), 0);
    flags[j] = 1;
    return flags;
  };
  const int tip = a.skeleton.find("Tip");
  EXPECT_NO_THROW(measure_flagged(a, clip, ground, flag(tip)));
  EXPECT_THROW(measure_flagged(a, clip, ground, flag(a.skeleton.parents[tip])), std::logic_error);
  EXPECT_THROW(measure_flagged(a, clip, ground, flag(a.rig.legs[0].ankle)), std::logic_error);
  EXPECT_THROW(measure_flagged(a, clip, ground, std::vector<char>(3, 0)), std::logic_error);
  const auto visitor = [](int, std::span<const Transform>) {};
  EXPECT_THROW(measure_flagged(a, clip, ground, flag(tip), visitor), std::logic_error);
  EXPECT_NO_THROW(measure_flagged(a, clip, ground, flag(tip), nullptr));
}

// The fastest leg-joint turn is the one every frame's angle gives (frames whose bound shows they
// cannot be the worst are skipped): turns of every size, a half turn and near ties included.
TEST(MetricsRotationSpeed, TheWorstIsTheOneEveryFrameGives) {
  const ArmatureRig a = armature_humanoid();
  Clip clip = walking_in_rest_pose(a.skeleton, a.rig.pelvis, 40, 0.05);
  const double steps[] = {0.02, 0.5, 0.1, 0.5000001, 0.3, 3.1, 0.2, 3.1000002, 0.01, 1.0};
  double angle[2] = {0, 0};
  for (int f = 1; f < clip.frame_count; ++f)
    for (int l = 0; l < 2; ++l) {
      angle[l] += steps[(f * (l + 3)) % 10] * (f % 3 == 0 ? -1.0 : 1.0);
      const Leg& leg = a.rig.legs[l];
      clip.at(f, f % 2 ? leg.knee : leg.hip).rotation = axis_angle(Vec3(1, 0, 0), angle[l]);
      clip.at(f, leg.ankle).rotation = axis_angle(Vec3(0, 0, 1), 0.3 * angle[l] * l);
    }
  Worst every;
  for (int l = 0; l < 2; ++l)
    for (int j : {a.rig.legs[l].hip, a.rig.legs[l].knee, a.rig.legs[l].ankle})
      for (int f = 1; f < clip.frame_count; ++f) {
        const Quat d = glm::inverse(clip.at(f - 1, j).rotation) * clip.at(f, j).rotation;
        every.offer(rotation_angle(d) * clip.fps, f, l, a.skeleton.names[j]);
      }
  const Terrain ground(make_flat_terrain(FlatParams{.size = 40.0}));
  const Worst got = measure(a, clip, ground).rotation_speed;
  EXPECT_GT(every.value, 60.0);
  EXPECT_EQ(got.value, every.value);
  EXPECT_EQ(got.frame, every.frame);
  EXPECT_EQ(got.leg, every.leg);
  EXPECT_EQ(got.point, every.point);
}

}  // namespace
}  // namespace ikfix::core
