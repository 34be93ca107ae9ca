// Virtual joints at end sites (core/end_site_joints.hpp) and the 2-bone legs they make usable:
// leg detection on bone tails and the retarget target's tail legs (core/retarget/tail_legs.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/end_site_joints.hpp"
#include "core/fk.hpp"
#include "core/legs.hpp"
#include "core/retarget/tail_legs.hpp"
#include "retarget_test_rigs.hpp"

namespace ikfix::core {
namespace {

using test::Joint;

// Barbarian-like: thigh `jambe`, shin `pied` whose end site is the ankle; no foot joint.
std::vector<Joint> two_bone_biped() {
  return {
      {"bassin", "", Vec3(0, 1.0, 0), std::nullopt},
      {"torse", "bassin", Vec3(0, 0.3, 0), std::nullopt},
      {"t\xC3\xAAte", "torse", Vec3(0, 0.2, 0), Vec3(0, 0.2, 0)},
      {"bras gauche", "torse", Vec3(0.15, 0.1, 0), std::nullopt},
      {"main gauche", "bras gauche", Vec3(0.28, 0, 0), Vec3(0.3, 0, 0)},
      {"bras droit", "torse", Vec3(-0.15, 0.1, 0), std::nullopt},
      {"main droite", "bras droit", Vec3(-0.28, 0, 0), Vec3(-0.3, 0, 0)},
      {"jambe gauche", "bassin", Vec3(0.1, -0.05, 0), std::nullopt},
      {"pied gauche", "jambe gauche", Vec3(0, -0.45, 0.05), Vec3(0, -0.45, -0.05)},
      {"jambe droite", "bassin", Vec3(-0.1, -0.05, 0), std::nullopt},
      {"pied droit", "jambe droite", Vec3(0, -0.45, 0.05), Vec3(0, -0.45, -0.05)},
  };
}

// A few frames that rotate, translate and scale joints (a non-unit scale on the shin checks
// that the end site is in the owner's local space, as FK of the owner's children sees it).
Clip moving_clip(const Skeleton& s, int frames) {
  Clip c;
  c.frame_count = frames;
  c.joint_count = s.joint_count();
  for (int f = 0; f < frames; ++f)
    for (int j = 0; j < s.joint_count(); ++j) {
      Transform t = s.rest[j];
      t.rotation =
          axis_angle(glm::normalize(Vec3(0.3 * j, 1.0, 0.2 * f + 0.1)), 0.1 * (j + 1) + 0.05 * f);
      if (s.parents[j] < 0) t.translation += Vec3(0.1 * f, 0.02 * f, -0.03 * f);
      if (s.names[j] == "pied gauche") t.scale = Vec3(1.25);
      c.locals.push_back(t);
    }
  return c;
}

std::vector<Transform> fk(const Skeleton& s, std::span<const Transform> locals,
                          const Transform& to_world) {
  std::vector<Transform> world(s.joint_count());
  forward_kinematics(s, locals, to_world, world);
  return world;
}

TEST(EndSiteJoints, FkOfOriginalJointsUnchangedAndVirtualJointOnTheEndSite) {
  const Skeleton s = test::build(two_bone_biped());
  const EndSiteJoints aug = add_end_site_joints(s, leaves_with_end_sites(s));
  ASSERT_EQ(aug.skeleton.validate(), "");
  // Every leaf with an end site: head, both hands, both shins.
  ASSERT_EQ(aug.owners.size(), 5u);
  EXPECT_EQ(aug.original_count, s.joint_count());
  EXPECT_EQ(aug.skeleton.joint_count(), s.joint_count() + 5);
  const int left_ankle = aug.original_count + 3;
  EXPECT_EQ(aug.owners[3], s.find("pied gauche"));
  EXPECT_EQ(aug.skeleton.names[left_ankle], "pied gauche_ankle");
  EXPECT_TRUE(aug.skeleton.end_sites[s.find("pied gauche")].has_value());  // the owner keeps it

  ClipSpace space;
  space.metres_per_unit = 0.01;
  space.to_world_rotation = axis_angle(Vec3(1, 0, 0), -kPi / 2);  // Z up -> Y up
  space.world_offset = Vec3(1, 2, 3);
  const Clip clip = moving_clip(s, 4);
  const Clip with = with_end_site_joints(clip, aug);
  ASSERT_EQ(with.joint_count, aug.skeleton.joint_count());
  for (int f = 0; f < clip.frame_count; ++f) {
    const auto a = fk(s, clip.frame(f), space.to_world());
    const auto b = fk(aug.skeleton, with.frame(f), space.to_world());
    for (int j = 0; j < s.joint_count(); ++j) {
      EXPECT_EQ(a[j].translation, b[j].translation) << s.names[j] << " frame " << f;
      EXPECT_EQ(a[j].rotation, b[j].rotation) << s.names[j] << " frame " << f;
    }
    for (std::size_t v = 0; v < aug.owners.size(); ++v) {
      const int owner = aug.owners[v];
      const Vec3 site = transform_point(a[owner], *s.end_sites[owner]);
      const Vec3 joint = b[aug.original_count + static_cast<int>(v)].translation;
      EXPECT_LT(glm::length(site - joint), 1e-12) << s.names[owner] << " frame " << f;
    }
  }
}

TEST(EndSiteJoints, StripGivesBackTheOriginalClipAndFlags) {
  const Skeleton s = test::build(two_bone_biped());
  const std::vector<int> owners = {s.find("pied gauche"), s.find("pied droit"), s.find("torse")};
  const EndSiteJoints aug = add_end_site_joints(s, owners);
  EXPECT_EQ(aug.owners.size(), 2u);  // torse has no end site: skipped
  const Clip clip = moving_clip(s, 3);
  Clip with = with_end_site_joints(clip, aug);
  with.at(1, aug.original_count).rotation =
      axis_angle(Vec3(0, 1, 0), 0.5);  // the fix turned a virtual ankle
  const Clip back = without_end_site_joints(with, aug);
  ASSERT_EQ(back.joint_count, clip.joint_count);
  ASSERT_EQ(back.frame_count, clip.frame_count);
  EXPECT_EQ(back.fps, clip.fps);
  for (std::size_t i = 0; i < clip.locals.size(); ++i) {
    EXPECT_EQ(back.locals[i].translation, clip.locals[i].translation);
    EXPECT_EQ(back.locals[i].rotation, clip.locals[i].rotation);
    EXPECT_EQ(back.locals[i].scale, clip.locals[i].scale);
  }
  std::vector<char> flags(aug.skeleton.joint_count(), 0);
  flags[s.find("jambe gauche")] = 1;
  flags[aug.original_count + 1] = 1;
  const std::vector<char> cut = without_end_site_joints(flags, aug);
  ASSERT_EQ(cut.size(), static_cast<std::size_t>(s.joint_count()));
  for (int j = 0; j < s.joint_count(); ++j) EXPECT_EQ(cut[j], j == s.find("jambe gauche") ? 1 : 0);
}

TEST(EndSiteJoints, NameClashGetsANumber) {
  std::vector<Joint> j = two_bone_biped();
  j.push_back({"pied gauche_ankle", "bassin", Vec3(0, 0.1, 0), std::nullopt});
  const Skeleton s = test::build(j);
  const EndSiteJoints aug = add_end_site_joints(s, std::vector<int>{s.find("pied gauche")});
  EXPECT_EQ(aug.skeleton.names.back(), "pied gauche_ankle2");
}

TEST(EndSiteJoints, OnlyTailsHangingDownAreAnkleCandidates) {
  std::vector<Joint> j = two_bone_biped();
  // A Blender IK target: a root-level bone lying flat by the foot (its tail points forward).
  j.push_back({"pied gauche.001", "", Vec3(0.1, 0.05, 0), Vec3(0, 0, 0.3)});
  const Skeleton s = test::build(j);
  const auto world = fk(s, s.rest, Transform{});
  std::vector<std::string> names;
  for (int k : hanging_end_sites(s, world)) names.push_back(s.names[k]);
  // The head points up and the hands sideways: only the shins hang.
  EXPECT_EQ(names, (std::vector<std::string>{"pied gauche", "pied droit"}));
}

LegDetection detect(const Skeleton& s) { return detect_legs_at_rest(s, Transform{}); }

TEST(EndSiteJoints, TwoBoneLegsFoundOnVirtualAnklesAndKeptAlone) {
  const Skeleton s = test::build(two_bone_biped());
  EXPECT_FALSE(detect(s).rig.has_value());  // no ankle joints: nothing to find
  const EndSiteJoints all = add_end_site_joints(s, leaves_with_end_sites(s));
  const LegDetection found = detect(all.skeleton);
  ASSERT_TRUE(found.rig.has_value()) << found.error;
  LegRig rig = *found.rig;
  const EndSiteJoints kept = keep_leg_end_site_joints(all, rig);
  ASSERT_EQ(kept.owners.size(), 2u);
  EXPECT_EQ(kept.skeleton.joint_count(), s.joint_count() + 2);
  const char* names[2][3] = {{"jambe gauche", "pied gauche", "pied gauche_ankle"},
                             {"jambe droite", "pied droit", "pied droit_ankle"}};
  for (int side = 0; side < 2; ++side) {
    EXPECT_EQ(kept.skeleton.names[rig.legs[side].hip], names[side][0]);
    EXPECT_EQ(kept.skeleton.names[rig.legs[side].knee], names[side][1]);
    EXPECT_EQ(kept.skeleton.names[rig.legs[side].ankle], names[side][2]);
    EXPECT_TRUE(kept.is_virtual(rig.legs[side].ankle));
    EXPECT_EQ(rig.legs[side].toe, -1);
  }
  EXPECT_EQ(kept.skeleton.names[rig.pelvis], "bassin");
}

TEST(EndSiteJoints, TwoBoneQuadrupedStillRefused) {
  // Four 2-bone legs ending in end sites under a horizontal spine: not a biped.
  std::vector<Joint> j = {
      {"pelvis", "", Vec3(0, 1.0, 0), std::nullopt},
      {"spine", "pelvis", Vec3(0, 0, 0.5), std::nullopt},
      {"chest", "spine", Vec3(0, 0, 0.5), std::nullopt},
      {"head", "chest", Vec3(0, 0.2, 0.3), Vec3(0, 0, 0.2)},
  };
  for (const char* hip_parent : {"pelvis", "chest"})
    for (double x : {0.2, -0.2}) {
      const std::string n = std::string(hip_parent) + (x > 0 ? "_a" : "_b");
      j.push_back({n + "_upper", hip_parent, Vec3(x, -0.05, 0), std::nullopt});
      j.push_back({n + "_lower", n + "_upper", Vec3(0, -0.45, 0.02), Vec3(0, -0.45, -0.02)});
    }
  const Skeleton s = test::build(j);
  const EndSiteJoints all = add_end_site_joints(s, leaves_with_end_sites(s));
  const LegDetection found = detect(all.skeleton);
  EXPECT_FALSE(found.rig.has_value());
  EXPECT_NE(found.error.find("quadruped"), std::string::npos) << found.error;
}

TEST(TailLegs, RetargetTargetGetsVirtualAnkles) {
  const test::Rig src(test::humanoid(test::mixamo));
  const test::Rig tgt(two_bone_biped());
  const BoneMap map = auto_map(src.rest, tgt.rest);
  ASSERT_FALSE(target_leg_rig(map, tgt.skeleton).has_value());
  const auto tails = target_tail_legs(map, tgt.skeleton);
  ASSERT_TRUE(tails.has_value());
  const Skeleton& s = tails->joints.skeleton;
  EXPECT_EQ(s.joint_count(), tgt.skeleton.joint_count() + 2);
  EXPECT_EQ(s.names[tails->rig.legs[0].hip], "jambe gauche");
  EXPECT_EQ(s.names[tails->rig.legs[0].knee], "pied gauche");
  EXPECT_EQ(s.names[tails->rig.legs[0].ankle], "pied gauche_ankle");
  EXPECT_EQ(s.names[tails->rig.legs[1].ankle], "pied droit_ankle");
  EXPECT_EQ(s.names[tails->rig.pelvis], "bassin");
  // The virtual ankle is at the shin's end site in the rest pose.
  const auto world = fk(s, s.rest, Transform{});
  const int shin = tails->rig.legs[0].knee;
  EXPECT_LT(glm::length(world[tails->rig.legs[0].ankle].translation -
                        transform_point(world[shin], *s.end_sites[shin])),
            1e-12);
}

TEST(TailLegs, NoneWhenTheMapHasAnkleJoints) {
  const test::Rig src(test::humanoid(test::mixamo));
  const test::Rig tgt(test::humanoid(test::unreal));
  EXPECT_FALSE(target_tail_legs(auto_map(src.rest, tgt.rest), tgt.skeleton).has_value());
}

}  // namespace
}  // namespace ikfix::core
