// Automatic bone mapping on small synthetic skeletons: name parsing (prefixes, namespaces,
// sides, accents, helpers), structure deciding roles, chains of different lengths, 2-bone legs,
// control bones, missing roles and the leg rig handed to the foot stage.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/retarget/body_parts.hpp"
#include "core/retarget/bone_map.hpp"
#include "core/retarget/joint_names.hpp"
#include "retarget_test_rigs.hpp"

namespace {

using namespace ikfix::core;
using ikfix::test::anonymous;
using ikfix::test::humanoid;
using ikfix::test::Joint;
using ikfix::test::mixamo;
using ikfix::test::Rig;
using ikfix::test::unreal;

// Target joint name paired with a source joint name, "" when unmapped.
std::string partner(const BoneMap& map, const Rig& src, const Rig& tgt,
                    const std::string& source_name) {
  const int p = map.pair_of_source(src.skeleton.find(source_name));
  return p < 0 ? "" : tgt.skeleton.names[map.pairs[p].target];
}

const BonePair* pair_with_role(const BoneMap& map, const std::string& role) {
  for (const auto& p : map.pairs)
    if (p.role == role) return &p;
  return nullptr;
}

TEST(JointNames, PrefixesNamespacesAndSeparatorsGiveOneKey) {
  const std::string key = parse_joint_name("LeftUpLeg").key;
  for (const char* n : {"mixamorig:LeftUpLeg", "Armature|LeftUpLeg", "DEF-Left_Up_Leg",
                        "Character1_LeftUpLeg", "x:left_up_leg", "Left Up Leg"})
    EXPECT_EQ(parse_joint_name(n).key, key) << n;
  EXPECT_EQ(parse_joint_name("Bip01 L Thigh").key, parse_joint_name("L_Thigh").key);
  EXPECT_NE(parse_joint_name("DEF-spine.001").key, parse_joint_name("DEF-spine.003").key);
  EXPECT_EQ(parse_joint_name("DEF-spine.001").key, parse_joint_name("spine.001").key);
  EXPECT_EQ(parse_joint_name("t\xC3\xAAte").key, "tete");  // tête
  EXPECT_TRUE(parse_joint_name("t\xC3\xAAte").can_mean(PartKind::Head));
}

TEST(JointNames, SidesInEveryConvention) {
  for (const char* n : {"LeftFoot", "L_Foot", "foot_l", "foot.L", "lFoot", "LThumb", "Bip01 L Foot",
                        "pied gauche", "leg_joint_L_1", "Skeleton_arm_joint_L__4_", "lhand"})
    EXPECT_EQ(parse_joint_name(n).side, 0) << n;
  for (const char* n : {"RightFoot", "R_Foot", "foot_r", "foot.R", "rFoot", "RThumb", "pied droit",
                        "bras droite", "Skeleton_arm_joint_R__2_", "rhand"})
    EXPECT_EQ(parse_joint_name(n).side, 1) << n;
  for (const char* n : {"Hips", "LowerBack", "Head", "leg", "ring_01"})
    EXPECT_EQ(parse_joint_name(n).side, -1) << n;
}

TEST(JointNames, HelpersAndEndMarkers) {
  for (const char* n : {"HipsCtrl", "LeftFootIK", "LeftHeelRoll", "LeftKneeCtrl",
                        "LeftFootRollCtrl", "arme gauche", "pagne avant", "MCH-thigh_ik.L",
                        "hand_ik_target_l", "upperarm_twist_01_l", "skirt_back_02", "Hair_L_1"})
    EXPECT_TRUE(parse_joint_name(n).helper) << n;
  for (const char* n :
       {"Hips", "LeftFoot", "pied gauche.001", "Spine1", "LeftToeBase", "main gauche", "torse"})
    EXPECT_FALSE(parse_joint_name(n).helper) << n;
  EXPECT_TRUE(parse_joint_name("HeadTop_End").end_marker);
  EXPECT_TRUE(parse_joint_name("pied gauche_end").end_marker);
  EXPECT_TRUE(parse_joint_name("Bip01 L Toe0Nub").end_marker);
  EXPECT_FALSE(parse_joint_name("LeftFoot").end_marker);
}

TEST(JointNames, WordsCanMeanSeveralParts) {
  const auto shoulder = parse_joint_name("LeftShoulder");
  EXPECT_TRUE(shoulder.can_mean(PartKind::Clavicle));
  EXPECT_TRUE(shoulder.can_mean(PartKind::UpperArm));
  EXPECT_TRUE(parse_joint_name("LeftHip").can_mean(PartKind::Thigh));
  EXPECT_TRUE(parse_joint_name("LeftToeBase").can_mean(PartKind::Toe));
  EXPECT_TRUE(parse_joint_name("calf_l").can_mean(PartKind::Shin));
  EXPECT_TRUE(parse_joint_name("LHipJoint").can_mean(PartKind::HipSocket));
  EXPECT_TRUE(parse_joint_name("LeftHandIndex1").can_mean(PartKind::Index));
  EXPECT_TRUE(parse_joint_name("lThumb1").can_mean(PartKind::Thumb));
  EXPECT_TRUE(parse_joint_name("Skeleton_arm_joint_L__4_").can_mean(PartKind::UpperArm));
}

TEST(AutoMap, MixamoToUnrealPairsEveryRole) {
  const Rig src(humanoid(mixamo));
  const Rig tgt(humanoid(unreal));
  const BoneMap map = auto_map(src.rest, tgt.rest);
  EXPECT_TRUE(map.missing_roles.empty());
  EXPECT_EQ(map.pairs.size(), src.skeleton.names.size());
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:Hips"), "pelvis");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:Spine2"), "spine_03");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftShoulder"), "clavicle_l");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftArm"), "upperarm_l");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:RightForeArm"), "lowerarm_r");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftUpLeg"), "thigh_l");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:RightLeg"), "calf_r");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftToeBase"), "ball_l");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftHandThumb1"), "thumb_01_l");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:RightHandIndex2"), "index_02_r");
  const BonePair* thigh = pair_with_role(map, "left_thigh");
  ASSERT_NE(thigh, nullptr);
  EXPECT_EQ(thigh->provenance, MapProvenance::RoleSynonym);
  EXPECT_EQ(pair_with_role(map, "head")->provenance, MapProvenance::ExactName);
  EXPECT_EQ(pair_with_role(map, "chest")->target, tgt.skeleton.find("spine_03"));
  EXPECT_EQ(pair_with_role(map, "left_index2")->target, tgt.skeleton.find("index_02_l"));
  EXPECT_TRUE(map.unmapped_source.empty());
  EXPECT_TRUE(map.unmapped_target.empty());
  EXPECT_TRUE(map.excluded_target.empty());
}

TEST(AutoMap, AnonymousNamesMapByStructureAndRestPoseSides) {
  // Source named, target anonymous and facing -Z: its left is -X, and the map must know it.
  const Rig src(humanoid(mixamo));
  for (bool mirror : {false, true}) {
    SCOPED_TRACE(mirror ? "target faces -Z" : "target faces +Z");
    const Rig tgt(humanoid(anonymous(), mirror));
    const BoneMap map = auto_map(src.rest, tgt.rest);
    EXPECT_TRUE(map.missing_roles.empty());
    // Everything but the fingers, which have nothing telling thumb from index.
    EXPECT_EQ(map.pairs.size(), src.skeleton.names.size() - 6);
    for (const char* role : {"left_thigh", "left_upper_arm", "left_foot"}) {
      const BonePair* p = pair_with_role(map, role);
      ASSERT_NE(p, nullptr) << role;
      EXPECT_EQ(p->provenance, MapProvenance::Topology);
      EXPECT_LT(p->confidence, 0.75);  // structure, and the side from the rest pose
      // The target's left is +X when it faces +Z, -X when it faces -Z.
      const double x = tgt.rest.joint_world[p->target].x;
      EXPECT_GT(mirror ? -x : x, 0.0) << role;
    }
  }
}

TEST(AutoMap, ShoulderWithAnElbowChildIsTheUpperArm) {
  // 3ds Max / boxing naming: Collar = clavicle, Shoulder = upper arm, Hip = thigh.
  auto max_style = [](const std::string& slot) -> std::string {
    static const std::map<std::string, std::string> k = {
        {"clav", "Collar"},  {"upper", "Shoulder"}, {"lower", "Elbow"},     {"hand", "Wrist"},
        {"thumb1", "Thumb"}, {"index1", "Fingers"}, {"index2", "Fingers2"}, {"thigh", "Hip"},
        {"shin", "Knee"},    {"foot", "Ankle"},     {"toe", "Toe"}};
    if (slot == "hips") return "Hips";
    if (slot.rfind("spine", 0) == 0) return "Chest" + slot.substr(5);
    if (slot == "neck") return "Neck";
    if (slot == "head") return "Head";
    return (slot[0] == 'l' ? "Left" : "Right") + k.at(slot.substr(1));
  };
  const Rig src(humanoid(mixamo));
  const Rig tgt(humanoid(max_style));
  const BoneMap map = auto_map(src.rest, tgt.rest);
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftShoulder"), "LeftCollar");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftArm"), "LeftShoulder");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftForeArm"), "LeftElbow");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftUpLeg"), "LeftHip");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:RightFoot"), "RightAnkle");
}

TEST(AutoMap, ControlAndHelperBonesAreExcludedNeverMapped) {
  auto joints = humanoid(mixamo);
  // A control root above the hips, IK/roll controls under it, a weapon under the hand, a
  // loincloth on the hips, and Blender's parentless IK target and pole copies.
  joints.insert(joints.begin(), Joint{"HipsCtrl", "", Vec3(0, 0, 0), std::nullopt});
  joints[1].parent = "HipsCtrl";
  joints.push_back({"LeftFootCtrl", "HipsCtrl", Vec3(0.1, 0.0, 0), std::nullopt});
  joints.push_back({"LeftHeelRoll", "LeftFootCtrl", Vec3(0, 0, -0.05), std::nullopt});
  joints.push_back({"LeftFootIK", "LeftHeelRoll", Vec3(0, 0.07, 0.05), std::nullopt});
  joints.push_back({"LeftKneeCtrl", "HipsCtrl", Vec3(0.1, 0.5, 0.5), std::nullopt});
  joints.push_back({"arme gauche", "mixamorig:LeftHand", Vec3(0.1, 0, 0), Vec3(0, -1.5, 0)});
  joints.push_back({"pagne avant", "mixamorig:Hips", Vec3(0, -0.05, 0.1), Vec3(0, -0.6, 0)});
  joints.push_back({"pied gauche.001", "", Vec3(0.1, 0.05, 0), Vec3(0, 0, 0.2)});
  joints.push_back({"jambe gauche.001", "", Vec3(0.1, 0.5, 0.6), Vec3(0, 0.1, 0)});
  const Rig src(humanoid(mixamo));
  const Rig tgt(joints);
  const BoneMap map = auto_map(src.rest, tgt.rest);
  EXPECT_TRUE(map.missing_roles.empty());
  EXPECT_EQ(map.pairs.size(), src.skeleton.names.size());
  for (const char* helper :
       {"HipsCtrl", "LeftFootCtrl", "LeftHeelRoll", "LeftFootIK", "LeftKneeCtrl", "arme gauche",
        "pagne avant", "pied gauche.001", "jambe gauche.001"}) {
    const int j = tgt.skeleton.find(helper);
    EXPECT_LT(map.pair_of_target(j), 0) << helper;
    EXPECT_EQ(std::count(map.excluded_target.begin(), map.excluded_target.end(), j), 1) << helper;
    EXPECT_EQ(std::count(map.unmapped_target.begin(), map.unmapped_target.end(), j), 0) << helper;
  }
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:Hips"), "mixamorig:Hips");
}

TEST(AutoMap, SpineChainsOfDifferentLengthsKeepTopsTogether) {
  const Rig three(humanoid(mixamo, false, 3));
  const Rig two(humanoid(unreal, false, 2));
  const Rig one(humanoid(unreal, false, 1));
  const BoneMap to_two = auto_map(three.rest, two.rest);
  EXPECT_EQ(partner(to_two, three, two, "mixamorig:Spine2"), "spine_02");  // tops
  EXPECT_EQ(partner(to_two, three, two, "mixamorig:Neck"), "neck_01");
  const BoneMap to_one = auto_map(three.rest, one.rest);
  EXPECT_EQ(partner(to_one, three, one, "mixamorig:Spine2"), "spine_01");
  EXPECT_EQ(partner(to_one, three, one, "mixamorig:Spine"), "");
  EXPECT_EQ(partner(to_one, three, one, "mixamorig:Spine1"), "");
  // Below the tops, the 2-chain's spine_01 (midway) takes exactly one of Spine / Spine1.
  int lower_pairs = 0;
  for (const char* n : {"mixamorig:Spine", "mixamorig:Spine1"})
    lower_pairs += !partner(to_two, three, two, n).empty();
  EXPECT_EQ(lower_pairs, 1);
}

TEST(AutoMap, TwoBoneLegEndsAtTheAnkle) {
  // Barbarian-style: thigh `jambe`, shin `pied` whose End Site is the ankle; no foot, no toe.
  std::vector<Joint> j = {
      {"bassin", "", Vec3(0, 1.0, 0), std::nullopt},
      {"torse", "bassin", Vec3(0, 0.3, 0), std::nullopt},
      {"t\xC3\xAAte", "torse", Vec3(0, 0.2, 0), Vec3(0, 0.2, 0)},
      {"bras gauche", "torse", Vec3(0.15, 0.1, 0), std::nullopt},
      {"main gauche", "bras gauche", Vec3(0.28, 0, 0), std::nullopt},
      {"arme gauche", "main gauche", Vec3(0.5, 0, 0), Vec3(0, 0, 1)},
      {"bras droit", "torse", Vec3(-0.15, 0.1, 0), std::nullopt},
      {"main droite", "bras droit", Vec3(-0.28, 0, 0), Vec3(-0.5, 0, 0)},
      {"jambe gauche", "bassin", Vec3(0.1, -0.05, 0), std::nullopt},
      {"pied gauche", "jambe gauche", Vec3(0, -0.45, 0.05), Vec3(0, -0.45, -0.05)},
      {"jambe droite", "bassin", Vec3(-0.1, -0.05, 0), std::nullopt},
      {"pied droit", "jambe droite", Vec3(0, -0.45, 0.05), Vec3(0, -0.45, -0.05)},
  };
  const Rig src(humanoid(mixamo));
  const Rig tgt(j);
  const BoneMap map = auto_map(src.rest, tgt.rest);
  EXPECT_TRUE(map.missing_roles.empty());
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftUpLeg"), "jambe gauche");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftLeg"), "pied gauche");
  const int foot = map.pair_of_source(src.skeleton.find("mixamorig:LeftFoot"));
  ASSERT_GE(foot, 0);
  EXPECT_TRUE(map.pairs[foot].target_end_site);
  EXPECT_EQ(tgt.skeleton.names[map.pairs[foot].target], "pied gauche");
  EXPECT_EQ(map.pairs[foot].role, "left_foot");
  // pair_of_target finds the shin pair, not the end-site pair.
  EXPECT_EQ(map.pairs[map.pair_of_target(tgt.skeleton.find("pied gauche"))].role, "left_shin");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftArm"), "bras gauche");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftForeArm"), "main gauche");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftHand"), "");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:RightForeArm"), "main droite");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:Head"), "t\xC3\xAAte");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:Spine2"), "torse");
  EXPECT_EQ(partner(map, src, tgt, "mixamorig:LeftToeBase"), "");
  // The foot stage needs ankle joints: none here.
  EXPECT_FALSE(target_leg_rig(map, tgt.skeleton).has_value());
}

TEST(AutoMap, TargetLegRigFromTheMap) {
  const Rig src(humanoid(anonymous()));
  const Rig tgt(humanoid(unreal));
  const BoneMap map = auto_map(src.rest, tgt.rest);
  const auto rig = target_leg_rig(map, tgt.skeleton);
  ASSERT_TRUE(rig.has_value());
  EXPECT_EQ(rig->pelvis, tgt.skeleton.find("pelvis"));
  EXPECT_EQ(rig->legs[0].hip, tgt.skeleton.find("thigh_l"));
  EXPECT_EQ(rig->legs[0].knee, tgt.skeleton.find("calf_l"));
  EXPECT_EQ(rig->legs[1].ankle, tgt.skeleton.find("foot_r"));
  EXPECT_EQ(rig->legs[1].toe, tgt.skeleton.find("ball_r"));
}

TEST(AutoMap, NoLegsMeansMissingRolesNotACrash) {
  const Rig src(humanoid(mixamo));
  const Rig arm({{"Root", "", Vec3(0), std::nullopt},
                 {"Arm", "Root", Vec3(1, 0, 0), std::nullopt},
                 {"Hand", "Arm", Vec3(1, 0, 0), Vec3(0.2, 0, 0)}});
  const BoneMap map = auto_map(src.rest, arm.rest);
  EXPECT_TRUE(map.pairs.empty());
  EXPECT_EQ(map.missing_roles, required_roles());
  EXPECT_EQ(map.unmapped_target.size(), 3u);
  EXPECT_EQ(map.unmapped_source.size(), src.skeleton.names.size());
  // A rest pose of the wrong size is no rest pose.
  RestPose broken = arm.rest;
  broken.joint_world.pop_back();
  EXPECT_EQ(auto_map(src.rest, broken).missing_roles, required_roles());
}

TEST(AutoMap, AQuadrupedIsNotABiped) {
  // Hind legs from the pelvis, front legs from the chest, both reaching the ground.
  std::vector<Joint> j = {{"root", "", Vec3(0, 0.6, 0), std::nullopt},
                          {"spine", "root", Vec3(0, 0, 0.4), std::nullopt},
                          {"neck", "spine", Vec3(0, 0.1, 0.3), std::nullopt},
                          {"head", "neck", Vec3(0, 0.1, 0.1), Vec3(0, 0, 0.2)}};
  for (const char* part : {"root", "spine"})
    for (double x : {0.1, -0.1}) {
      const std::string n = std::string(part) + (x > 0 ? "_a" : "_b");
      j.push_back({n + "1", part, Vec3(x, -0.05, 0), std::nullopt});
      j.push_back({n + "2", n + "1", Vec3(0, -0.27, 0.02), std::nullopt});
      j.push_back({n + "3", n + "2", Vec3(0, -0.26, -0.02), Vec3(0, -0.02, 0.06)});
    }
  const Rig src(humanoid(mixamo));
  const Rig fox(j);
  const BoneMap map = auto_map(src.rest, fox.rest);
  EXPECT_EQ(map.missing_roles, required_roles());
  EXPECT_TRUE(map.pairs.empty());
}

TEST(AutoMap, IdentityMapsEveryJointToItself) {
  for (auto naming : {std::function<std::string(const std::string&)>(mixamo), anonymous()}) {
    const Rig rig(humanoid(naming));
    const BoneMap map = auto_map(rig.rest, rig.rest);
    EXPECT_EQ(map.pairs.size(), rig.skeleton.names.size());
    for (const auto& p : map.pairs) EXPECT_EQ(p.source, p.target) << p.role;
  }
}

}  // namespace
