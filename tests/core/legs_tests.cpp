#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/fk.hpp"
#include "core/joint_tree.hpp"
#include "core/legs.hpp"

namespace ikfix::core {
namespace {

// Builds a skeleton from world rest positions (metres, Y up, toes toward +Z, character's left
// toward +X); local rest offsets are derived from the parent's position, rotations identity.
class SkeletonBuilder {
 public:
  int add(const std::string& name, const std::string& parent, const Vec3& world) {
    const int p = parent.empty() ? -1 : skeleton_.find(parent);
    EXPECT_TRUE(parent.empty() || p >= 0) << "test setup: no parent " << parent;
    Transform local;
    local.translation = p < 0 ? world : world - world_[p];
    skeleton_.names.push_back(name);
    skeleton_.parents.push_back(p);
    skeleton_.rest.push_back(local);
    skeleton_.end_sites.push_back(std::nullopt);
    world_.push_back(world);
    return skeleton_.joint_count() - 1;
  }
  const Skeleton& skeleton() const { return skeleton_; }
  int operator[](const std::string& name) const { return skeleton_.find(name); }

 private:
  Skeleton skeleton_;
  std::vector<Vec3> world_;
};

// Legs found on the rest pose (identity clip transform).
LegDetection detect(const Skeleton& s) {
  EXPECT_EQ(s.validate(), "");
  return detect_legs_at_rest(s, Transform{});
}

// Names of one side's chain, in the order pelvis-side first.
struct SideNames {
  std::string hip_joint;  // optional extra joint between pelvis and thigh (CMU "LHipJoint")
  std::string thigh, shin, foot, toe;  // toe optional
  std::string clavicle, upper_arm, forearm, hand;
};

struct BipedNames {
  std::string root;  // optional joint above the pelvis
  Vec3 root_pos{0.0};
  std::string pelvis;
  std::vector<std::string> spine;  // pelvis upward; the last one carries arms and head
  std::string head;
  SideNames side[2];  // [0] left (+X), [1] right (-X)
};

// A standing adult, T-pose arms, 0.45 m thighs and 0.42 m shins, knees slightly forward.
SkeletonBuilder make_biped(const BipedNames& n) {
  SkeletonBuilder b;
  if (!n.root.empty()) b.add(n.root, "", n.root_pos);
  b.add(n.pelvis, n.root, Vec3(0, 1.0, 0));
  std::string top = n.pelvis;
  for (std::size_t i = 0; i < n.spine.size(); ++i) {
    b.add(n.spine[i], top, Vec3(0, 1.12 + 0.13 * static_cast<double>(i), 0));
    top = n.spine[i];
  }
  const double chest_y = 1.12 + 0.13 * static_cast<double>(n.spine.size() - 1);
  if (!n.head.empty()) b.add(n.head, top, Vec3(0, chest_y + 0.25, 0));
  for (int s = 0; s < 2; ++s) {
    const double x = s == 0 ? 1.0 : -1.0;
    const SideNames& side = n.side[s];
    std::string parent = n.pelvis;
    if (!side.hip_joint.empty()) {
      b.add(side.hip_joint, parent, Vec3(0.04 * x, 0.98, 0));
      parent = side.hip_joint;
    }
    b.add(side.thigh, parent, Vec3(0.1 * x, 0.95, 0));
    b.add(side.shin, side.thigh, Vec3(0.1 * x, 0.5, 0.03));
    b.add(side.foot, side.shin, Vec3(0.1 * x, 0.08, 0));
    if (!side.toe.empty()) b.add(side.toe, side.foot, Vec3(0.1 * x, 0.02, 0.13));
    if (!side.upper_arm.empty()) {
      std::string arm_parent = top;
      if (!side.clavicle.empty()) {
        b.add(side.clavicle, top, Vec3(0.05 * x, chest_y + 0.05, 0));
        arm_parent = side.clavicle;
      }
      b.add(side.upper_arm, arm_parent, Vec3(0.18 * x, chest_y + 0.05, 0));
      b.add(side.forearm, side.upper_arm, Vec3(0.45 * x, chest_y + 0.05, 0));
      b.add(side.hand, side.forearm, Vec3(0.7 * x, chest_y + 0.05, 0));
    }
  }
  return b;
}

void expect_leg(const LegDetection& d, const SkeletonBuilder& b, int side, const std::string& thigh,
                const std::string& shin, const std::string& foot, const std::string& toe) {
  ASSERT_TRUE(d.rig.has_value()) << d.error;
  const Leg& leg = d.rig->legs[side];
  const Skeleton& s = b.skeleton();
  auto name = [&](int j) { return j < 0 ? std::string("(none)") : s.names[j]; };
  EXPECT_EQ(name(leg.hip), thigh) << kLegSideNames[side];
  EXPECT_EQ(name(leg.knee), shin) << kLegSideNames[side];
  EXPECT_EQ(name(leg.ankle), foot) << kLegSideNames[side];
  EXPECT_EQ(name(leg.toe), toe.empty() ? "(none)" : toe) << kLegSideNames[side];
}

void expect_pelvis(const LegDetection& d, const SkeletonBuilder& b, const std::string& pelvis) {
  ASSERT_TRUE(d.rig.has_value()) << d.error;
  ASSERT_GE(d.rig->pelvis, 0);
  EXPECT_EQ(b.skeleton().names[d.rig->pelvis], pelvis);
  EXPECT_TRUE(d.error.empty()) << d.error;
}

// --- naming conventions ---------------------------------------------------------------------

TEST(LegsByName, Cmu) {
  BipedNames n;
  n.pelvis = "Hips";
  n.spine = {"LowerBack", "Spine", "Spine1"};
  n.head = "Neck";
  n.side[0] = {"LHipJoint",    "LeftUpLeg", "LeftLeg",     "LeftFoot", "LeftToeBase",
               "LeftShoulder", "LeftArm",   "LeftForeArm", "LeftHand"};
  n.side[1] = {"RHipJoint",     "RightUpLeg", "RightLeg",     "RightFoot", "RightToeBase",
               "RightShoulder", "RightArm",   "RightForeArm", "RightHand"};
  const SkeletonBuilder b = make_biped(n);
  const LegDetection d = detect(b.skeleton());
  expect_leg(d, b, 0, "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase");
  expect_leg(d, b, 1, "RightUpLeg", "RightLeg", "RightFoot", "RightToeBase");
  expect_pelvis(d, b, "Hips");
  EXPECT_EQ(d.rig->method, "names");
}

TEST(LegsByName, ThreeDsMaxStyle) {
  BipedNames n;
  n.pelvis = "Hips";
  n.spine = {"Chest", "Chest2"};
  n.head = "Head";
  n.side[0] = {"",           "LeftHip",      "LeftKnee",  "LeftAnkle", "LeftToe",
               "LeftCollar", "LeftShoulder", "LeftElbow", "LeftWrist"};
  n.side[1] = {"",          "RightHip",    "RightKnee",     "RightAnkle",
               "RightToe",  "RightCollar", "RightShoulder", "RightElbow",
               "RightWrist"};
  const SkeletonBuilder b = make_biped(n);
  const LegDetection d = detect(b.skeleton());
  expect_leg(d, b, 0, "LeftHip", "LeftKnee", "LeftAnkle", "LeftToe");
  expect_leg(d, b, 1, "RightHip", "RightKnee", "RightAnkle", "RightToe");
  expect_pelvis(d, b, "Hips");
}

TEST(LegsByName, ThreeDsMaxBiped) {
  BipedNames n;
  n.root = "Bip01";
  n.root_pos = Vec3(0, 1.0, 0);
  n.pelvis = "Bip01 Pelvis";
  n.spine = {"Bip01 Spine", "Bip01 Spine1"};
  n.head = "Bip01 Head";
  n.side[0] = {"",
               "Bip01 L Thigh",
               "Bip01 L Calf",
               "Bip01 L Foot",
               "Bip01 L Toe0",
               "Bip01 L Clavicle",
               "Bip01 L UpperArm",
               "Bip01 L Forearm",
               "Bip01 L Hand"};
  n.side[1] = {"",
               "Bip01 R Thigh",
               "Bip01 R Calf",
               "Bip01 R Foot",
               "Bip01 R Toe0",
               "Bip01 R Clavicle",
               "Bip01 R UpperArm",
               "Bip01 R Forearm",
               "Bip01 R Hand"};
  const SkeletonBuilder b = make_biped(n);
  const LegDetection d = detect(b.skeleton());
  expect_leg(d, b, 0, "Bip01 L Thigh", "Bip01 L Calf", "Bip01 L Foot", "Bip01 L Toe0");
  expect_leg(d, b, 1, "Bip01 R Thigh", "Bip01 R Calf", "Bip01 R Foot", "Bip01 R Toe0");
  expect_pelvis(d, b, "Bip01 Pelvis");
}

TEST(LegsByName, SecondLifeWithoutToes) {
  BipedNames n;
  n.pelvis = "hip";
  n.spine = {"abdomen", "chest"};
  n.head = "neck";
  n.side[0] = {"", "lThigh", "lShin", "lFoot", "", "lCollar", "lShldr", "lForeArm", "lHand"};
  n.side[1] = {"", "rThigh", "rShin", "rFoot", "", "rCollar", "rShldr", "rForeArm", "rHand"};
  const SkeletonBuilder b = make_biped(n);
  const LegDetection d = detect(b.skeleton());
  expect_leg(d, b, 0, "lThigh", "lShin", "lFoot", "");
  expect_leg(d, b, 1, "rThigh", "rShin", "rFoot", "");
  expect_pelvis(d, b, "hip");
}

TEST(LegsByName, Mixamo) {
  BipedNames n;
  n.pelvis = "mixamorig:Hips";
  n.spine = {"mixamorig:Spine", "mixamorig:Spine1", "mixamorig:Spine2"};
  n.head = "mixamorig:Neck";
  n.side[0] = {"",
               "mixamorig:LeftUpLeg",
               "mixamorig:LeftLeg",
               "mixamorig:LeftFoot",
               "mixamorig:LeftToeBase",
               "mixamorig:LeftShoulder",
               "mixamorig:LeftArm",
               "mixamorig:LeftForeArm",
               "mixamorig:LeftHand"};
  n.side[1] = {"",
               "mixamorig:RightUpLeg",
               "mixamorig:RightLeg",
               "mixamorig:RightFoot",
               "mixamorig:RightToeBase",
               "mixamorig:RightShoulder",
               "mixamorig:RightArm",
               "mixamorig:RightForeArm",
               "mixamorig:RightHand"};
  SkeletonBuilder b = make_biped(n);
  // Mixamo's toe end joint must not be taken for the toe.
  b.add("mixamorig:LeftToe_End", "mixamorig:LeftToeBase", Vec3(0.1, 0.02, 0.2));
  b.add("mixamorig:RightToe_End", "mixamorig:RightToeBase", Vec3(-0.1, 0.02, 0.2));
  const LegDetection d = detect(b.skeleton());
  expect_leg(d, b, 0, "mixamorig:LeftUpLeg", "mixamorig:LeftLeg", "mixamorig:LeftFoot",
             "mixamorig:LeftToeBase");
  expect_leg(d, b, 1, "mixamorig:RightUpLeg", "mixamorig:RightLeg", "mixamorig:RightFoot",
             "mixamorig:RightToeBase");
  expect_pelvis(d, b, "mixamorig:Hips");
}

BipedNames unreal_names() {
  BipedNames n;
  n.pelvis = "pelvis";
  n.spine = {"spine_01", "spine_02", "spine_03"};
  n.head = "neck_01";
  n.side[0] = {"",           "thigh_l",    "calf_l",     "foot_l", "ball_l",
               "clavicle_l", "upperarm_l", "lowerarm_l", "hand_l"};
  n.side[1] = {"",           "thigh_r",    "calf_r",     "foot_r", "ball_r",
               "clavicle_r", "upperarm_r", "lowerarm_r", "hand_r"};
  return n;
}

TEST(LegsByName, Unreal) {
  SkeletonBuilder b = make_biped(unreal_names());
  // Twist bones hang off the thigh and calf; they are not the knee or the ankle.
  b.add("thigh_twist_01_l", "thigh_l", Vec3(0.1, 0.75, 0.01));
  b.add("calf_twist_01_l", "calf_l", Vec3(0.1, 0.3, 0.01));
  b.add("thigh_twist_01_r", "thigh_r", Vec3(-0.1, 0.75, 0.01));
  b.add("calf_twist_01_r", "calf_r", Vec3(-0.1, 0.3, 0.01));
  const LegDetection d = detect(b.skeleton());
  expect_leg(d, b, 0, "thigh_l", "calf_l", "foot_l", "ball_l");
  expect_leg(d, b, 1, "thigh_r", "calf_r", "foot_r", "ball_r");
  expect_pelvis(d, b, "pelvis");
}

// BUG (core/legs.cpp:107-112, check_biped): every joint outside the two legs is tested against
// the knee height, including the pelvis's own ancestors. The Unreal mannequin's "root" sits on
// the floor under the pelvis (0,0,0), so a standard UE skeleton is rejected with "joint 'root'
// (not part of the legs) reaches below the knees in the rest pose: looks like a quadruped".
// (Its ik_foot_root / ik_foot_l / ik_foot_r helper joints would trip the same check.)
TEST(LegsByName, UnrealWithRootOnTheFloor) {
  BipedNames n = unreal_names();
  n.root = "root";
  n.root_pos = Vec3(0.0);
  const SkeletonBuilder b = make_biped(n);
  const LegDetection d = detect(b.skeleton());
  expect_leg(d, b, 0, "thigh_l", "calf_l", "foot_l", "ball_l");
  expect_leg(d, b, 1, "thigh_r", "calf_r", "foot_r", "ball_r");
  expect_pelvis(d, b, "pelvis");
}

// Blender's barbarian: the armature object sits at hip height and also holds IK control
// bones placed beside the legs, each with a child at its tail reaching the floor. A control's
// segment from the armature node is a placement, not a bone: the rig is still a biped.
TEST(LegsByName, ArmatureHoldingIkControlChainsIsStillABiped) {
  BipedNames n = unreal_names();
  n.root = "Armature";
  n.root_pos = Vec3(0, 1.1, 0);
  SkeletonBuilder b = make_biped(n);
  for (const char* side : {"l", "r"}) {
    const double x = std::string(side) == "l" ? 0.1 : -0.1;
    const std::string control = std::string("foot_ik_") + side;
    b.add(control, "Armature", Vec3(x, 0.6, -0.4));
    b.add(control + "_end", control, Vec3(x, 0.0, -0.4));
  }
  const LegDetection d = detect(b.skeleton());
  expect_leg(d, b, 0, "thigh_l", "calf_l", "foot_l", "ball_l");
  expect_leg(d, b, 1, "thigh_r", "calf_r", "foot_r", "ball_r");
  expect_pelvis(d, b, "pelvis");
}

// Kenney's Maya rig: foot controls under the root (LeftFootCtrl > LeftHeelRoll > LeftToeRoll >
// LeftFootIK), each a foot long, on the floor beside the feet. Their names say they are
// controls: not limbs.
TEST(LegsByName, FootControlChainsUnderTheRootAreNotLimbs) {
  BipedNames n = unreal_names();
  n.root = "Root";
  SkeletonBuilder b = make_biped(n);
  for (const char* side : {"Left", "Right"}) {
    const double x = std::string(side) == "Left" ? 0.1 : -0.1;
    const std::string s = side;
    b.add(s + "FootCtrl", "Root", Vec3(x, 0.08, 0));
    b.add(s + "HeelRoll", s + "FootCtrl", Vec3(x, 0.0, -0.2));
    b.add(s + "ToeRoll", s + "HeelRoll", Vec3(x, 0.0, 0.1));
    b.add(s + "FootIK", s + "ToeRoll", Vec3(x, 0.08, -0.1));
  }
  const LegDetection d = detect(b.skeleton());
  expect_leg(d, b, 0, "thigh_l", "calf_l", "foot_l", "ball_l");
  expect_pelvis(d, b, "pelvis");
}

TEST(LegsByName, UnityHumanoid) {
  BipedNames n;
  n.pelvis = "Hips";
  n.spine = {"Spine", "Chest", "UpperChest"};
  n.head = "Head";
  n.side[0] = {"",         "LeftUpperLeg", "LeftLowerLeg", "LeftFoot",
               "LeftToes", "LeftShoulder", "LeftUpperArm", "LeftLowerArm",
               "LeftHand"};
  n.side[1] = {"",          "RightUpperLeg", "RightLowerLeg", "RightFoot",
               "RightToes", "RightShoulder", "RightUpperArm", "RightLowerArm",
               "RightHand"};
  const SkeletonBuilder b = make_biped(n);
  const LegDetection d = detect(b.skeleton());
  expect_leg(d, b, 0, "LeftUpperLeg", "LeftLowerLeg", "LeftFoot", "LeftToes");
  expect_leg(d, b, 1, "RightUpperLeg", "RightLowerLeg", "RightFoot", "RightToes");
  expect_pelvis(d, b, "Hips");
}

TEST(LegsByName, Smpl) {
  // SMPL: L_Hip is the thigh joint; both L_Ankle and L_Foot read as "foot": the ankle must be
  // the one right below the knee.
  BipedNames n;
  n.pelvis = "Pelvis";
  n.spine = {"Spine1", "Spine2", "Spine3"};
  n.head = "Neck";
  n.side[0] = {"",         "L_Hip",      "L_Knee",  "L_Ankle", "L_Foot",
               "L_Collar", "L_Shoulder", "L_Elbow", "L_Wrist"};
  n.side[1] = {"",         "R_Hip",      "R_Knee",  "R_Ankle", "R_Foot",
               "R_Collar", "R_Shoulder", "R_Elbow", "R_Wrist"};
  const SkeletonBuilder b = make_biped(n);
  const LegDetection d = detect(b.skeleton());
  ASSERT_TRUE(d.rig.has_value()) << d.error;
  for (int side = 0; side < 2; ++side) {
    const std::string p = side == 0 ? "L_" : "R_";
    const Leg& leg = d.rig->legs[side];
    EXPECT_EQ(leg.hip, b[p + "Hip"]);
    EXPECT_EQ(leg.knee, b[p + "Knee"]);
    EXPECT_EQ(leg.ankle, b[p + "Ankle"]);
    // L_Foot (SMPL's ball joint) is not recognised as the toe: toe stays optional/-1.
    EXPECT_TRUE(leg.toe == -1 || leg.toe == b[p + "Foot"]);
  }
  expect_pelvis(d, b, "Pelvis");
}

TEST(LegsByName, BlenderRigify) {
  BipedNames n;
  n.pelvis = "DEF-spine";
  n.spine = {"DEF-spine.001", "DEF-spine.002", "DEF-spine.003"};
  n.head = "DEF-spine.004";
  n.side[0] = {"DEF-pelvis.L",   "DEF-thigh.L",     "DEF-shin.L",    "DEF-foot.L", "DEF-toe.L",
               "DEF-shoulder.L", "DEF-upper_arm.L", "DEF-forearm.L", "DEF-hand.L"};
  n.side[1] = {"DEF-pelvis.R",   "DEF-thigh.R",     "DEF-shin.R",    "DEF-foot.R", "DEF-toe.R",
               "DEF-shoulder.R", "DEF-upper_arm.R", "DEF-forearm.R", "DEF-hand.R"};
  SkeletonBuilder b = make_biped(n);
  // Rigify's split twist segments ("DEF-thigh.L.001") are not joints of their own role.
  b.add("DEF-thigh.L.001", "DEF-thigh.L", Vec3(0.1, 0.72, 0.015));
  b.add("DEF-thigh.R.001", "DEF-thigh.R", Vec3(-0.1, 0.72, 0.015));
  const LegDetection d = detect(b.skeleton());
  expect_leg(d, b, 0, "DEF-thigh.L", "DEF-shin.L", "DEF-foot.L", "DEF-toe.L");
  expect_leg(d, b, 1, "DEF-thigh.R", "DEF-shin.R", "DEF-foot.R", "DEF-toe.R");
  expect_pelvis(d, b, "DEF-spine");
}

TEST(LegsByName, WorksWithoutRestPositions) {
  // No rest_world: names only, no biped check.
  BipedNames n = unreal_names();
  const SkeletonBuilder b = make_biped(n);
  LegDetectionInput input;
  input.skeleton = &b.skeleton();
  const LegDetection d = detect_legs(input);
  expect_leg(d, b, 0, "thigh_l", "calf_l", "foot_l", "ball_l");
  expect_pelvis(d, b, "pelvis");
}

// --- topology -------------------------------------------------------------------------------

// j1 pelvis, j2-j5 and j6-j9 two mirrored legs (hip, knee, ankle, toe), j10-j12 spine and head.
// `first_x` is the side of the first chain; `toe_z` where the toes point.
SkeletonBuilder unnamed_biped(double first_x, double toe_z) {
  SkeletonBuilder b;
  b.add("j1", "", Vec3(0, 1.0, 0));
  int k = 2;
  for (double x : {first_x, -first_x}) {
    const std::string hip = "j" + std::to_string(k), knee = "j" + std::to_string(k + 1);
    const std::string ankle = "j" + std::to_string(k + 2), toe = "j" + std::to_string(k + 3);
    b.add(hip, "j1", Vec3(0.1 * x, 0.95, 0));
    b.add(knee, hip, Vec3(0.1 * x, 0.5, 0.03 * toe_z));
    b.add(ankle, knee, Vec3(0.1 * x, 0.08, 0));
    b.add(toe, ankle, Vec3(0.1 * x, 0.0, 0.14 * toe_z));
    k += 4;
  }
  b.add("j10", "j1", Vec3(0, 1.25, 0));
  b.add("j11", "j10", Vec3(0, 1.5, 0));
  b.add("j12", "j11", Vec3(0, 1.7, 0));
  return b;
}

TEST(LegsByTopology, UnnamedBipedLeftIsPlusXWhenToesPointPlusZ) {
  for (double first_x : {1.0, -1.0}) {
    const SkeletonBuilder b = unnamed_biped(first_x, 1.0);
    const LegDetection d = detect(b.skeleton());
    ASSERT_TRUE(d.rig.has_value()) << d.error;
    EXPECT_EQ(d.rig->method, "topology");
    expect_pelvis(d, b, "j1");
    // The +X chain is j2.. when first_x = +1, j6.. otherwise.
    const bool first_is_left = first_x > 0;
    expect_leg(d, b, 0, first_is_left ? "j2" : "j6", first_is_left ? "j3" : "j7",
               first_is_left ? "j4" : "j8", first_is_left ? "j5" : "j9");
    expect_leg(d, b, 1, first_is_left ? "j6" : "j2", first_is_left ? "j7" : "j3",
               first_is_left ? "j8" : "j4", first_is_left ? "j9" : "j5");
  }
}

TEST(LegsByTopology, FacingMinusZSwapsTheSides) {
  // Toes toward -Z: the character faces -Z, so its left is -X.
  const SkeletonBuilder b = unnamed_biped(1.0, -1.0);
  const LegDetection d = detect(b.skeleton());
  ASSERT_TRUE(d.rig.has_value()) << d.error;
  expect_leg(d, b, 0, "j6", "j7", "j8", "j9");
  expect_leg(d, b, 1, "j2", "j3", "j4", "j5");
}

TEST(LegsByTopology, NeedsRestPositions) {
  const SkeletonBuilder b = unnamed_biped(1.0, 1.0);
  LegDetectionInput input;
  input.skeleton = &b.skeleton();  // no rest_world
  const LegDetection d = detect_legs(input);
  EXPECT_FALSE(d.rig.has_value());
  EXPECT_FALSE(d.error.empty());
}

// --- rejections -----------------------------------------------------------------------------

TEST(LegsReject, QuadrupedFoxLike) {
  // Fox-like: body horizontal along Z, hind legs from the hip, front legs ("arms") from the chest
  // down to the ground. Joint names say "Leg" and "Foot" but it does not stand on two legs.
  SkeletonBuilder b;
  b.add("b_Hip_01", "", Vec3(0, 0.6, -0.3));
  b.add("b_Spine01", "b_Hip_01", Vec3(0, 0.62, 0.0));
  b.add("b_Spine02", "b_Spine01", Vec3(0, 0.63, 0.2));
  b.add("b_Neck", "b_Spine02", Vec3(0, 0.75, 0.35));
  b.add("b_Head", "b_Neck", Vec3(0, 0.85, 0.45));
  for (const char* side : {"Left", "Right"}) {
    const double x = std::string(side) == "Left" ? 0.1 : -0.1;
    const std::string s = side;
    b.add("b_" + s + "UpperArm", "b_Spine02", Vec3(x, 0.55, 0.25));
    b.add("b_" + s + "ForeArm", "b_" + s + "UpperArm", Vec3(x, 0.3, 0.25));
    b.add("b_" + s + "Hand", "b_" + s + "ForeArm", Vec3(x, 0.04, 0.27));
    b.add("b_" + s + "Leg01", "b_Hip_01", Vec3(x, 0.55, -0.3));
    b.add("b_" + s + "Leg02", "b_" + s + "Leg01", Vec3(x, 0.35, -0.22));
    b.add("b_" + s + "Foot01", "b_" + s + "Leg02", Vec3(x, 0.15, -0.34));
    b.add("b_" + s + "Foot02", "b_" + s + "Foot01", Vec3(x, 0.02, -0.3));
  }
  b.add("b_Tail01", "b_Hip_01", Vec3(0, 0.58, -0.45));
  b.add("b_Tail02", "b_Tail01", Vec3(0, 0.5, -0.6));
  const LegDetection d = detect(b.skeleton());
  EXPECT_FALSE(d.rig.has_value());
  EXPECT_NE(d.error.find("no two legs found"), std::string::npos) << d.error;
  EXPECT_NE(d.error.find("quadruped"), std::string::npos) << d.error;
}

// A quadruped whose legs carry a Mixamo biped's names: hind legs (LeftUpLeg > LeftLeg > LeftFoot)
// under the hips, front paws (LeftArm > LeftForeArm > LeftHand) on the ground, hanging from a
// spine under the hips or, with `chest_under_root`, from a chest beside the hips under a root
// node (the front legs then join the body through that root, and still have two long bones).
SkeletonBuilder quadruped_with_humanoid_names(bool chest_under_root) {
  SkeletonBuilder b;
  std::string front = "Spine";
  if (chest_under_root) {
    b.add("Root", "", Vec3(0, 0.6, 0));
    b.add("Hips", "Root", Vec3(0, 0.6, -0.3));
    b.add("Chest", "Root", Vec3(0, 0.62, 0.2));
    front = "Chest";
  } else {
    b.add("Hips", "", Vec3(0, 0.6, -0.3));
    b.add("Spine", "Hips", Vec3(0, 0.62, 0.1));
  }
  for (const char* side : {"Left", "Right"}) {
    const double x = std::string(side) == "Left" ? 0.1 : -0.1;
    const std::string s = side;
    b.add(s + "UpLeg", "Hips", Vec3(x, 0.55, -0.3));
    b.add(s + "Leg", s + "UpLeg", Vec3(x, 0.3, -0.25));
    b.add(s + "Foot", s + "Leg", Vec3(x, 0.05, -0.3));
    b.add(s + "Arm", front, Vec3(x, 0.55, 0.15));
    b.add(s + "ForeArm", s + "Arm", Vec3(x, 0.3, 0.15));
    b.add(s + "Hand", s + "ForeArm", Vec3(x, 0.03, 0.16));
  }
  return b;
}

TEST(LegsReject, QuadrupedWithHumanoidNames) {
  for (bool chest_under_root : {false, true}) {
    const SkeletonBuilder b = quadruped_with_humanoid_names(chest_under_root);
    const LegDetection d = detect(b.skeleton());
    EXPECT_FALSE(d.rig.has_value()) << "chest under root: " << chest_under_root;
    EXPECT_NE(d.error.find("quadruped"), std::string::npos) << d.error;
    EXPECT_NE(d.error.find("Hand"), std::string::npos) << d.error;
  }
}

TEST(LegsReject, TwoBoneChainHangingFromThePelvisBelowTheKnees) {
  // A chain from the pelvis itself is a limb: both its bones count (unlike a control under an
  // armature node above the pelvis).
  SkeletonBuilder b = make_biped(unreal_names());
  b.add("tail_01", "pelvis", Vec3(0, 0.7, -0.3));
  b.add("tail_02", "tail_01", Vec3(0, 0.2, -0.4));
  const LegDetection d = detect(b.skeleton());
  EXPECT_FALSE(d.rig.has_value());
  EXPECT_NE(d.error.find("tail_02"), std::string::npos) << d.error;
}

TEST(LegsReject, OnlyArms) {
  SkeletonBuilder b;
  b.add("Hips", "", Vec3(0, 1.0, 0));
  b.add("Spine", "Hips", Vec3(0, 1.3, 0));
  b.add("Head", "Spine", Vec3(0, 1.6, 0));
  for (const char* side : {"Left", "Right"}) {
    const double x = std::string(side) == "Left" ? 1.0 : -1.0;
    const std::string s = side;
    b.add(s + "Shoulder", "Spine", Vec3(0.05 * x, 1.45, 0));
    b.add(s + "Arm", s + "Shoulder", Vec3(0.18 * x, 1.45, 0));
    b.add(s + "ForeArm", s + "Arm", Vec3(0.45 * x, 1.45, 0));
    b.add(s + "Hand", s + "ForeArm", Vec3(0.7 * x, 1.45, 0));
  }
  const LegDetection d = detect(b.skeleton());
  EXPECT_FALSE(d.rig.has_value());
  EXPECT_NE(d.error.find("no two legs found"), std::string::npos) << d.error;
}

TEST(LegsReject, OnlyArmsHangingDown) {
  // Arms down by the sides are two mirror chains hanging down, but the hips are below the
  // elbows, so they are not legs.
  SkeletonBuilder b;
  b.add("Hips", "", Vec3(0, 1.0, 0));
  b.add("Spine", "Hips", Vec3(0, 1.3, 0));
  b.add("Head", "Spine", Vec3(0, 1.6, 0));
  for (const char* side : {"Left", "Right"}) {
    const double x = std::string(side) == "Left" ? 1.0 : -1.0;
    const std::string s = side;
    b.add(s + "Shoulder", "Spine", Vec3(0.1 * x, 1.45, 0));
    b.add(s + "Arm", s + "Shoulder", Vec3(0.2 * x, 1.45, 0));
    b.add(s + "ForeArm", s + "Arm", Vec3(0.22 * x, 1.17, 0));
    b.add(s + "Hand", s + "ForeArm", Vec3(0.23 * x, 0.9, 0));
  }
  const LegDetection d = detect(b.skeleton());
  EXPECT_FALSE(d.rig.has_value());
  EXPECT_FALSE(d.error.empty());
}

TEST(LegsReject, LegsThatDoNotHangDown) {
  // Legs named properly but lying horizontally in the rest pose (a swimmer, a lying character).
  SkeletonBuilder b;
  b.add("Hips", "", Vec3(0, 0.2, 0));
  for (const char* side : {"Left", "Right"}) {
    const double x = std::string(side) == "Left" ? 0.1 : -0.1;
    const std::string s = side;
    b.add(s + "UpLeg", "Hips", Vec3(x, 0.2, -0.05));
    b.add(s + "Leg", s + "UpLeg", Vec3(x, 0.2, -0.5));
    b.add(s + "Foot", s + "Leg", Vec3(x, 0.2, -0.92));
  }
  const LegDetection d = detect(b.skeleton());
  EXPECT_FALSE(d.rig.has_value());
  EXPECT_NE(d.error.find("do not hang down"), std::string::npos) << d.error;
}

// --- legs_from_names ------------------------------------------------------------------------

SkeletonBuilder cmu_biped() {
  BipedNames n;
  n.pelvis = "Hips";
  n.spine = {"LowerBack", "Spine"};
  n.head = "Head";
  n.side[0] = {"LHipJoint", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase", "", "", "", ""};
  n.side[1] = {"RHipJoint", "RightUpLeg", "RightLeg", "RightFoot", "RightToeBase", "", "", "", ""};
  return make_biped(n);
}

TEST(LegsFromNames, ExplicitNamesFormTheRig) {
  const SkeletonBuilder b = cmu_biped();
  const LegDetection d =
      legs_from_names(b.skeleton(), {"LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase",
                                     "RightUpLeg", "RightLeg", "RightFoot", ""});
  expect_leg(d, b, 0, "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase");
  expect_leg(d, b, 1, "RightUpLeg", "RightLeg", "RightFoot", "");
  expect_pelvis(d, b, "Hips");
  EXPECT_EQ(d.rig->method, "user");
  // Any joints forming a chain are accepted, e.g. the CMU hip joint as the thigh.
  const LegDetection d2 = legs_from_names(
      b.skeleton(),
      {"LHipJoint", "LeftUpLeg", "LeftLeg", "", "RHipJoint", "RightUpLeg", "RightLeg", ""});
  expect_leg(d2, b, 0, "LHipJoint", "LeftUpLeg", "LeftLeg", "");
}

TEST(LegsFromNames, UnknownJointIsNamedInTheError) {
  const SkeletonBuilder b = cmu_biped();
  const LegDetection d = legs_from_names(b.skeleton(), {"LeftUpLeg", "LeftLeg", "LeftFoo", "",
                                                        "RightUpLeg", "RightLeg", "RightFoot", ""});
  EXPECT_FALSE(d.rig.has_value());
  EXPECT_NE(d.error.find("'LeftFoo'"), std::string::npos) << d.error;
  // Unknown optional toe too.
  const LegDetection t = legs_from_names(
      b.skeleton(),
      {"LeftUpLeg", "LeftLeg", "LeftFoot", "", "RightUpLeg", "RightLeg", "RightFoot", "RightToe"});
  EXPECT_FALSE(t.rig.has_value());
  EXPECT_NE(t.error.find("'RightToe'"), std::string::npos) << t.error;
  // Names are exact (no case folding).
  const LegDetection c = legs_from_names(b.skeleton(), {"leftupleg", "LeftLeg", "LeftFoot", "",
                                                        "RightUpLeg", "RightLeg", "RightFoot", ""});
  EXPECT_FALSE(c.rig.has_value());
  EXPECT_NE(c.error.find("'leftupleg'"), std::string::npos) << c.error;
}

TEST(LegsFromNames, MissingRequiredJoint) {
  const SkeletonBuilder b = cmu_biped();
  const LegDetection d = legs_from_names(
      b.skeleton(), {"LeftUpLeg", "", "LeftFoot", "", "RightUpLeg", "RightLeg", "RightFoot", ""});
  EXPECT_FALSE(d.rig.has_value());
  EXPECT_NE(d.error.find("left leg"), std::string::npos) << d.error;
  const LegDetection r = legs_from_names(
      b.skeleton(), {"LeftUpLeg", "LeftLeg", "LeftFoot", "", "RightUpLeg", "RightLeg", "", ""});
  EXPECT_FALSE(r.rig.has_value());
  EXPECT_NE(r.error.find("right leg"), std::string::npos) << r.error;
}

TEST(LegsFromNames, NotAChain) {
  const SkeletonBuilder b = cmu_biped();
  // Knee and ankle swapped.
  const LegDetection d = legs_from_names(b.skeleton(), {"LeftUpLeg", "LeftFoot", "LeftLeg", "",
                                                        "RightUpLeg", "RightLeg", "RightFoot", ""});
  EXPECT_FALSE(d.rig.has_value());
  EXPECT_NE(d.error.find("'LeftLeg' is not below 'LeftFoot'"), std::string::npos) << d.error;
  // A "knee" on the other leg.
  const LegDetection x = legs_from_names(b.skeleton(), {"LeftUpLeg", "RightLeg", "RightFoot", "",
                                                        "RightUpLeg", "RightLeg", "RightFoot", ""});
  EXPECT_FALSE(x.rig.has_value());
  EXPECT_NE(x.error.find("'RightLeg' is not below 'LeftUpLeg'"), std::string::npos) << x.error;
  // Toe not below the ankle.
  const LegDetection t =
      legs_from_names(b.skeleton(), {"LeftUpLeg", "LeftLeg", "LeftFoot", "RightToeBase",
                                     "RightUpLeg", "RightLeg", "RightFoot", ""});
  EXPECT_FALSE(t.rig.has_value());
  EXPECT_NE(t.error.find("'RightToeBase'"), std::string::npos) << t.error;
  // The same leg twice.
  const LegDetection o = legs_from_names(b.skeleton(), {"LeftUpLeg", "LeftLeg", "LeftFoot", "",
                                                        "LeftUpLeg", "LeftLeg", "LeftFoot", ""});
  EXPECT_FALSE(o.rig.has_value());
  EXPECT_NE(o.error.find("overlap"), std::string::npos) << o.error;
}

// --- scale: detection is O(n log n) in joints (issue 19 row 6) -------------------------------

// A biped (unnamed when `named` is false) with `extra` more joints: siblings under the root, or
// one chain hanging from the head. Built directly: SkeletonBuilder finds parents by name.
Skeleton biped_with_many_joints(int extra, bool nested, bool named) {
  Skeleton s;
  auto add = [&](std::string name, int parent, Vec3 offset) {
    s.names.push_back(std::move(name));
    s.parents.push_back(parent);
    Transform rest;
    rest.translation = offset;
    s.rest.push_back(rest);
    s.end_sites.push_back(std::nullopt);
    return s.joint_count() - 1;
  };
  const int hips = add(named ? "Hips" : "j0", -1, Vec3(0, 1.0, 0));
  const int head = add(named ? "Head" : "j1", hips, Vec3(0, 0.6, 0));
  const char* parts[4] = {"UpLeg", "Leg", "Foot", "ToeBase"};
  const Vec3 offsets[4] = {Vec3(0, -0.05, 0), Vec3(0, -0.45, 0.03), Vec3(0, -0.42, -0.03),
                           Vec3(0, -0.06, 0.13)};
  for (int side = 0; side < 2; ++side) {
    int parent = hips;
    for (int k = 0; k < 4; ++k) {
      Vec3 offset = offsets[k];
      if (k == 0) offset.x = side == 0 ? 0.1 : -0.1;
      const std::string name = named ? std::string(side == 0 ? "Left" : "Right") + parts[k]
                                     : "leg" + std::to_string(side * 4 + k);
      parent = add(name, parent, offset);
    }
  }
  int parent = head;
  for (int i = 0; i < extra; ++i) {
    const int j = add("x" + std::to_string(i), nested ? parent : hips,
                      nested ? Vec3(0, 1e-6, 0) : Vec3(0, 0.2, 0));
    if (nested) parent = j;
  }
  return s;
}

TEST(LegsScale, HundredThousandSiblingsAndAHundredThousandDeepChain) {
  // Each of these took minutes or never finished when detection was quadratic; ctest's timeout
  // bounds them now (their times are in tests/bench/README.md).
  for (bool nested : {false, true})
    for (bool named : {true, false}) {
      const Skeleton s = biped_with_many_joints(100000, nested, named);
      ASSERT_EQ(s.validate(), "");
      const LegDetection d = detect_legs_at_rest(s, Transform{});
      ASSERT_TRUE(d.rig.has_value()) << d.error << " nested " << nested << " named " << named;
      EXPECT_EQ(d.rig->method, named ? "names" : "topology");
      EXPECT_EQ(s.names[d.rig->pelvis], named ? "Hips" : "j0");
      EXPECT_EQ(s.names[d.rig->legs[0].ankle], named ? "LeftFoot" : "leg2");
      EXPECT_EQ(s.names[d.rig->legs[1].ankle], named ? "RightFoot" : "leg6");
    }
}

TEST(LegsByTopology, EqualChainsPairTheFirstTwoByIndex) {
  // Four identical unnamed legs under one pelvis: every pair drops as far; the first two win,
  // as the pairwise search found them.
  SkeletonBuilder b;
  b.add("p", "", Vec3(0, 1.0, 0));
  for (int k = 0; k < 4; ++k) {
    const double x = k % 2 == 0 ? 0.1 * (k + 1) : -0.1 * k;
    const std::string n = "c" + std::to_string(k);
    b.add(n + "a", "p", Vec3(x, 0.95, 0));
    b.add(n + "b", n + "a", Vec3(x, 0.5, 0.03));
    b.add(n + "c", n + "b", Vec3(x, 0.08, 0));
    b.add(n + "d", n + "c", Vec3(x, 0.02, 0.13));
  }
  const LegDetection d = detect_legs_at_rest(b.skeleton(), Transform{});
  // The quadruped check refuses the rig; what matters is which chains were paired.
  EXPECT_FALSE(d.rig.has_value());
  EXPECT_NE(d.error.find("c2"), std::string::npos) << d.error;
}

TEST(JointTree, AgreesWithTheSkeletonOnEveryPair) {
  Skeleton s;
  // A tree of 200 joints with two roots, parents drawn from a fixed sequence.
  unsigned state = 12345;
  for (int j = 0; j < 200; ++j) {
    state = state * 1103515245u + 12345u;
    s.names.push_back("j" + std::to_string(j));
    s.parents.push_back(j == 0 || j == 70 ? -1 : static_cast<int>((state >> 8) % j));
    s.rest.emplace_back();
    s.end_sites.push_back(std::nullopt);
  }
  const JointTree tree(s);
  for (int a = 0; a < s.joint_count(); ++a) {
    const std::vector<int> expected = s.children(a);
    const auto got = tree.children(a);
    EXPECT_EQ(std::vector<int>(got.begin(), got.end()), expected) << a;
    int depth = 0;
    for (int p = s.parents[a]; p >= 0; p = s.parents[p]) ++depth;
    EXPECT_EQ(tree.depth(a), depth);
    for (int b = 0; b < s.joint_count(); ++b)
      ASSERT_EQ(tree.is_ancestor(a, b), s.is_ancestor(a, b)) << a << " " << b;
  }
}

// --- normalized_joint_name ------------------------------------------------------------------

TEST(LegsNormalizedName, StripsNamespacesAndRigPrefixes) {
  EXPECT_EQ(normalized_joint_name("mixamorig:LeftLeg"), "leftleg");
  EXPECT_EQ(normalized_joint_name("Character1:LeftUpLeg"), "leftupleg");
  EXPECT_EQ(normalized_joint_name("scene:rig:LeftFoot"), "leftfoot");
  EXPECT_EQ(normalized_joint_name("mixamorig_LeftFoot"), "leftfoot");
  EXPECT_EQ(normalized_joint_name("mixamorigLeftFoot"), "leftfoot");
  EXPECT_EQ(normalized_joint_name("DEF-thigh.L"), "thigh.l");
  EXPECT_EQ(normalized_joint_name("DEF_shin.R"), "shin.r");
  EXPECT_EQ(normalized_joint_name("Bip01 L Thigh"), "l thigh");
  EXPECT_EQ(normalized_joint_name("Bip01_R_Calf"), "r_calf");
  EXPECT_EQ(normalized_joint_name("Bip001 L Foot"), "l foot");
  EXPECT_EQ(normalized_joint_name("b_LeftLeg01"), "leftleg01");
  EXPECT_EQ(normalized_joint_name("jnt_L_knee"), "l_knee");
  EXPECT_EQ(normalized_joint_name("thigh_l"), "thigh_l");
  EXPECT_EQ(normalized_joint_name("LeftUpLeg"), "leftupleg");
  EXPECT_EQ(normalized_joint_name(""), "");
  EXPECT_EQ(normalized_joint_name("j1"), "j1");
  // Only one prefix is stripped.
  EXPECT_EQ(normalized_joint_name("b_b_LeftLeg"), "b_leftleg");
}

}  // namespace
}  // namespace ikfix::core
