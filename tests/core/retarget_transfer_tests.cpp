// The motion transfer of retargeting on the shared retarget pairs, with the bone maps of
// pairs.json written out by hand (auto-mapping has its own tests): identity, rest-pose
// handling (A-pose, arms-down), limb shape, and the feet after the foot stage.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/fix/foot_contacts.hpp"
#include "core/fix/footfix.hpp"
#include "core/fk.hpp"
#include "core/metrics.hpp"
#include "core/retarget/retarget_pipeline.hpp"
#include "core/terrain_gen.hpp"
#include "io/clip_io.hpp"
#include "tests/retarget_test_util.hpp"
#include "tests/test_data.hpp"

namespace ikfix {
namespace {

using test::NamedPair;

std::filesystem::path anim(const std::string& rel) {
  return test::shared_data_dir() / "anim" / rel;
}
std::filesystem::path retarget_file(const std::string& rel) {
  return test::shared_data_dir() / "retarget" / rel;
}

// Role of a CMU (cgspeed) joint name.
std::string cmu_role(const std::string& cmu_name) {
  static const std::map<std::string, std::string> roles = [] {
    std::map<std::string, std::string> m;
    for (const NamedPair& p : test::cmu_identity_pairs()) m[p.source] = p.role;
    return m;
  }();
  const auto it = roles.find(cmu_name);
  return it == roles.end() ? "unknown" : it->second;
}

// pairs.json entries with the source's CMU role (or the target's, when the target is CMU).
std::vector<NamedPair> pairs_by_cmu_source(
    const std::vector<std::pair<std::string, std::string>>& names) {
  std::vector<NamedPair> out;
  for (const auto& [s, t] : names) out.push_back({s, t, cmu_role(s)});
  return out;
}
std::vector<NamedPair> pairs_by_cmu_target(
    const std::vector<std::pair<std::string, std::string>>& names) {
  std::vector<NamedPair> out;
  for (const auto& [s, t] : names) out.push_back({s, t, cmu_role(t)});
  return out;
}

struct Retargeted {
  io::LoadedClip source, target;
  core::BoneMap map;
  core::RetargetPipelineResult result;
};

Retargeted run(const std::filesystem::path& source, const std::filesystem::path& target,
               const std::vector<NamedPair>& pairs, bool fix_feet,
               io::ClipLoadOptions target_options = {}) {
  Retargeted r;
  r.source = io::load_clip(source);
  r.target = io::load_clip(target, target_options);
  r.map = test::map_from_names(r.source.skeleton, r.target.skeleton, pairs);
  core::RetargetPipelineInput in;
  in.transfer.source = &r.source.skeleton;
  in.transfer.source_clip = &r.source.clip;
  in.transfer.source_space = r.source.space;
  in.transfer.source_legs = test::legs_of(r.source);
  in.transfer.target = &r.target.skeleton;
  in.transfer.target_space = r.target.space;
  in.transfer.target_legs = test::legs_of(r.target);
  in.transfer.map = &r.map;
  in.fix_feet = fix_feet;
  r.result = core::retarget_and_fix(in);
  return r;
}

double degrees(double rad) { return rad * 180.0 / core::kPi; }

// The feet at the source's contacts, after the foot stage and for the transfer alone (the
// figures of the closing note's table come from the regression suite; this is for reading).
void print_feet(const char* pair, const core::RetargetPipelineResult& r) {
  const auto& feet = r.quality.feet;
  std::printf(
      "%s feet: slide %.4f/%.4f m/s float %.4f pen %.4f P %.3f R %.3f (naive: slide %.4f float "
      "%.4f)\n",
      pair, feet.slide_mean_mps, feet.slide_max_mps, feet.float_mean_m, feet.penetration_max_m,
      feet.contact_precision, feet.contact_recall, r.transfer_quality.feet.slide_mean_mps,
      r.transfer_quality.feet.float_mean_m);
}

TEST(RetargetTransfer, SkeletonOntoItselfReproducesEveryJoint) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto path = anim("bvh/cmu_02_01_walk.bvh");
  const Retargeted r = run(path, path, test::cmu_identity_pairs(), false);
  const core::Skeleton& sk = r.source.skeleton;
  const double leg = r.result.transfer.source_leg_length_m;
  EXPECT_NEAR(r.result.transfer.scale, 1.0, 1e-12);
  EXPECT_NEAR(r.result.transfer.ground_offset_m, 0.0, 1e-9);
  double worst = 0;
  std::vector<core::Transform> a(sk.joint_count()), b(sk.joint_count());
  for (int f = 0; f < r.source.clip.frame_count; ++f) {
    core::forward_kinematics(sk, r.source.clip.frame(f), r.source.space.to_world(), a);
    core::forward_kinematics(sk, r.result.clip.frame(f), r.target.space.to_world(), b);
    for (int j = 0; j < sk.joint_count(); ++j)
      worst = std::max(worst, glm::length(a[j].translation - b[j].translation));
  }
  EXPECT_LE(worst, 1e-5 * leg) << "worst joint error " << worst << " m";
  const auto& feet = r.result.transfer_quality.feet;
  std::printf("source feet: slide %.4f/%.4f m/s float %.4f/%.4f gap %.4f pen %.4f P %.3f R %.3f\n",
              feet.slide_mean_mps, feet.slide_max_mps, feet.float_mean_m, feet.float_max_m,
              feet.ground_gap_m, feet.penetration_max_m, feet.contact_precision,
              feet.contact_recall);
}

TEST(RetargetTransfer, ArmsDownRestDrivesLikeTPose) {  // P5
  IKFIX_REQUIRE_SHARED_DATA();
  const Retargeted r =
      run(anim("bvh/cmu_02_01_walk.bvh"), retarget_file("cmu_131_max_armsdown_rest.bvh"),
          pairs_by_cmu_source({{"Hips", "Hips"},
                               {"LHipJoint", "LHipJoint"},
                               {"RHipJoint", "RHipJoint"},
                               {"LeftUpLeg", "LeftHip"},
                               {"RightUpLeg", "RightHip"},
                               {"LeftLeg", "LeftKnee"},
                               {"RightLeg", "RightKnee"},
                               {"LeftFoot", "LeftAnkle"},
                               {"RightFoot", "RightAnkle"},
                               {"LeftToeBase", "LeftToe"},
                               {"RightToeBase", "RightToe"},
                               {"LowerBack", "lowerback"},
                               {"Spine", "Chest"},
                               {"Spine1", "Chest2"},
                               {"Neck", "lowerneck"},
                               {"Neck1", "Neck"},
                               {"Head", "Head"},
                               {"LeftShoulder", "LeftCollar"},
                               {"RightShoulder", "RightCollar"},
                               {"LeftArm", "LeftShoulder"},
                               {"RightArm", "RightShoulder"},
                               {"LeftForeArm", "LeftElbow"},
                               {"RightForeArm", "RightElbow"},
                               {"LeftHand", "LeftWrist"},
                               {"RightHand", "RightWrist"}}),
          false);
  const auto& q = r.result.transfer_quality;
  EXPECT_LE(degrees(q.direction_error_mean_rad), 1.0);
  EXPECT_LE(degrees(q.direction_error_max_rad), 3.0)
      << q.direction_worst_bone << " frame " << q.direction_worst_frame;
  ASSERT_EQ(q.chains.size(), 4u);
  for (const auto& c : q.chains)
    EXPECT_LE(c.mean, c.name.find("leg") != std::string::npos ? 0.02 : 0.07) << c.name;
  double max_alignment = 0;
  for (const auto& b : r.result.transfer.alignment)
    max_alignment = std::max(max_alignment, b.angle_rad);
  EXPECT_GT(degrees(max_alignment), 80.0)
      << "the arms-down upper arm must be turned up by ~90 degrees";
}

TEST(RetargetTransfer, APoseTargetWithAnonymousNames) {  // P2
  IKFIX_REQUIRE_SHARED_DATA();
  const Retargeted r = run(anim("bvh/cmu_02_01_walk.bvh"), retarget_file("cesiumman_rest.bvh"),
                           pairs_by_cmu_source({{"Hips", "Skeleton_torso_joint_1"},
                                                {"LowerBack", "Skeleton_torso_joint_2"},
                                                {"Spine1", "torso_joint_3"},
                                                {"Neck", "Skeleton_neck_joint_1"},
                                                {"Head", "Skeleton_neck_joint_2"},
                                                {"LeftArm", "Skeleton_arm_joint_L__4_"},
                                                {"LeftForeArm", "Skeleton_arm_joint_L__3_"},
                                                {"LeftHand", "Skeleton_arm_joint_L__2_"},
                                                {"RightArm", "Skeleton_arm_joint_R"},
                                                {"RightForeArm", "Skeleton_arm_joint_R__2_"},
                                                {"RightHand", "Skeleton_arm_joint_R__3_"},
                                                {"LeftUpLeg", "leg_joint_L_1"},
                                                {"LeftLeg", "leg_joint_L_2"},
                                                {"LeftFoot", "leg_joint_L_3"},
                                                {"LeftToeBase", "leg_joint_L_5"},
                                                {"RightUpLeg", "leg_joint_R_1"},
                                                {"RightLeg", "leg_joint_R_2"},
                                                {"RightFoot", "leg_joint_R_3"},
                                                {"RightToeBase", "leg_joint_R_5"}}),
                           true, io::ClipLoadOptions{1.0, std::nullopt, std::nullopt});
  const auto& q = r.result.transfer_quality;
  EXPECT_LE(degrees(q.direction_error_mean_rad), 1.0);
  EXPECT_LE(degrees(q.direction_error_max_rad), 3.0) << q.direction_worst_bone;
  for (const auto& c : q.chains)
    EXPECT_LE(c.mean, c.name.find("leg") != std::string::npos ? 0.02 : 0.07) << c.name;
  EXPECT_LE(r.result.quality.max_bone_length_change, 1e-5);
  print_feet("P2", r.result);
}

TEST(RetargetTransfer, BoxingOntoCmuKeepsLimbShape) {  // P6: cm -> CMU units, Hip = thigh
  IKFIX_REQUIRE_SHARED_DATA();
  const Retargeted r = run(anim("bvh/boxing_toes.bvh"), retarget_file("cmu_02_tpose_rest.bvh"),
                           pairs_by_cmu_target({{"Hips", "Hips"},
                                                {"Ab", "LowerBack"},
                                                {"Chest", "Spine1"},
                                                {"Neck", "Neck"},
                                                {"Head", "Head"},
                                                {"LeftCollar", "LeftShoulder"},
                                                {"RightCollar", "RightShoulder"},
                                                {"LeftShoulder", "LeftArm"},
                                                {"RightShoulder", "RightArm"},
                                                {"LeftElbow", "LeftForeArm"},
                                                {"RightElbow", "RightForeArm"},
                                                {"LeftWrist", "LeftHand"},
                                                {"RightWrist", "RightHand"},
                                                {"LeftHip", "LeftUpLeg"},
                                                {"RightHip", "RightUpLeg"},
                                                {"LeftKnee", "LeftLeg"},
                                                {"RightKnee", "RightLeg"},
                                                {"LeftAnkle", "LeftFoot"},
                                                {"RightAnkle", "RightFoot"},
                                                {"LeftToes", "LeftToeBase"},
                                                {"RightToes", "RightToeBase"}}),
                           true);
  // Hands reach where the source's are (arm_reach = 1): the elbows bend differently when the
  // arm proportions differ, so bone directions are not exact here (the goal on this pair is
  // the end-effector shape; exact directions are checked on P2 and P5).
  const auto& q = r.result.transfer_quality;
  EXPECT_LE(degrees(q.direction_error_mean_rad), 5.0)
      << "worst: " << q.direction_worst_bone << " frame " << q.direction_worst_frame << ", "
      << degrees(q.direction_error_max_rad) << " deg";
  for (const auto& c : q.chains)
    EXPECT_LE(c.mean, c.name.find("leg") != std::string::npos ? 0.02 : 0.07) << c.name;
  print_feet("P6", r.result);
}

TEST(RetargetTransfer, ScaleUpOntoKenney) {  // P1 (deform-bone BVH of the Kenney character)
  IKFIX_REQUIRE_SHARED_DATA();
  std::vector<std::pair<std::string, std::string>> names = {
      {"Hips", "Hips"},         {"LowerBack", "Spine"}, {"Spine", "Chest"},
      {"Spine1", "UpperChest"}, {"Neck", "Neck"},       {"Head", "Head"}};
  for (std::string side : {"Left", "Right"}) {
    for (std::string j :
         {"Shoulder", "Arm", "ForeArm", "Hand", "HandIndex1", "UpLeg", "Leg", "Foot"})
      names.push_back({side + j, side + j});
    names.push_back({side + "ToeBase", side + "Toes"});
    names.push_back({side.substr(0, 1) + "Thumb", side + "HandThumb1"});
  }
  const Retargeted r =
      run(anim("bvh/cmu_02_01_walk.bvh"), retarget_file("kenney_rest.bvh"),
          pairs_by_cmu_source(names), true, io::ClipLoadOptions{1.0, std::nullopt, std::nullopt});
  const auto& q = r.result.transfer_quality;
  EXPECT_NEAR(r.result.transfer.scale, 1.36, 0.02);
  EXPECT_LE(degrees(q.direction_error_mean_rad), 5.0)
      << "worst: " << q.direction_worst_bone << " frame " << q.direction_worst_frame << ", "
      << degrees(q.direction_error_max_rad) << " deg";
  for (const auto& c : q.chains)
    EXPECT_LE(c.mean, c.name.find("leg") != std::string::npos ? 0.02 : 0.07) << c.name;
  print_feet("P1", r.result);
}

// The foot stage with the source's contacts (given_plants_on_ground) and a swing clearance, on
// the transferred P1 clip: in every given plant the foot's lower point is on its level, and in
// every swing frame it is at least the clearance above it (the target's toe, which would sink
// below the floor as the heel rises, is lifted instead of dragged along the ground).
TEST(RetargetTransfer, GivenPlantsOnGroundAndSwingClearance) {
  IKFIX_REQUIRE_SHARED_DATA();
  std::vector<std::pair<std::string, std::string>> names = {
      {"Hips", "Hips"},         {"LowerBack", "Spine"}, {"Spine", "Chest"},
      {"Spine1", "UpperChest"}, {"Neck", "Neck"},       {"Head", "Head"}};
  for (std::string side : {"Left", "Right"}) {
    for (std::string j : {"Shoulder", "Arm", "ForeArm", "Hand", "UpLeg", "Leg", "Foot"})
      names.push_back({side + j, side + j});
    names.push_back({side + "ToeBase", side + "Toes"});
  }
  const Retargeted r =
      run(anim("bvh/cmu_02_01_walk.bvh"), retarget_file("kenney_rest.bvh"),
          pairs_by_cmu_source(names), false, io::ClipLoadOptions{1.0, std::nullopt, std::nullopt});
  const core::Clip& clip = r.result.transfer.clip;
  const int frames = clip.frame_count;
  core::FlatParams flat;
  flat.size = 400.0;
  const core::Terrain ground(core::make_flat_terrain(flat));
  constexpr double kClearance = 0.03;  // metres
  core::FixInput fi;
  fi.skeleton = &r.target.skeleton;
  fi.clip = &clip;
  fi.space = r.target.space;
  fi.rig = test::legs_of(r.target);
  fi.terrain = &ground;
  fi.settings.contacts_override =
      std::array<std::vector<char>, 2>{r.result.source_contacts[0], r.result.source_contacts[1]};
  fi.settings.given_plants_on_ground = true;
  fi.settings.swing_clearance = std::array<std::vector<double>, 2>{
      std::vector<double>(frames, kClearance), std::vector<double>(frames, kClearance)};
  const core::FixResult fixed = core::fix_clip(fi);

  std::vector<core::Transform> world(r.target.skeleton.joint_count());
  std::vector<core::Vec3> points[2][2];
  for (int f = 0; f < frames; ++f) {
    core::forward_kinematics(r.target.skeleton, fixed.clip.frame(f), r.target.space.to_world(),
                             world);
    for (int l = 0; l < 2; ++l) {
      points[l][0].push_back(world[fi.rig.legs[l].ankle].translation);
      points[l][1].push_back(world[fi.rig.legs[l].toe].translation);
    }
  }
  int plant_frames = 0, swing_frames = 0;
  for (int l = 0; l < 2; ++l) {
    const core::FootContacts c =
        core::detect_foot_contacts(ground, points[l][0], points[l][1], clip.fps, {});
    for (int f = 0; f < frames; ++f) {
      const double lower = std::min(c.height[0][f], c.height[1][f]);
      if (r.result.source_contacts[l][f]) {
        ++plant_frames;
        EXPECT_NEAR(lower, 0.0, 2e-3) << "leg " << l << " frame " << f;
      } else {
        ++swing_frames;
        EXPECT_GE(lower, kClearance - 2e-3) << "leg " << l << " frame " << f;
      }
    }
  }
  EXPECT_GT(plant_frames, frames / 2);
  EXPECT_GT(swing_frames, frames / 4);
}

// Kenney (P1, its FBX character file) stands on y = 0 at rest, its toe tip 5 mm up: the ground
// shift plants its ankles and balls as high as at rest, not at the CMU source's level scaled
// (its joints 5 cm above its floor, 7 cm in Kenney's lengths), and the foot stage keeps y = 0
// as the floor, so the planted feet touch the ground (mean ground gap 3.3 cm before this rule).
// A rest pose placed around its hips (P5's BVH, feet 0.85 m below y = 0) keeps the source's
// level, scaled.
TEST(RetargetTransfer, RestOnGroundTargetStandsAtItsRestHeight) {
  IKFIX_REQUIRE_SHARED_DATA();
  std::vector<std::pair<std::string, std::string>> names = {
      {"Hips", "Hips"},         {"LowerBack", "Spine"}, {"Spine", "Chest"},
      {"Spine1", "UpperChest"}, {"Neck", "Neck"},       {"Head", "Head"}};
  for (std::string side : {"Left", "Right"}) {
    for (std::string j : {"Shoulder", "Arm", "ForeArm", "Hand", "UpLeg", "Leg", "Foot"})
      names.push_back({side + j, side + j});
    names.push_back({side + "ToeBase", side + "Toes"});
  }
  Retargeted r;
  r.source = io::load_clip(anim("bvh/cmu_02_01_walk.bvh"));
  r.target = io::load_character(retarget_file("kenney_rest.fbx"));
  r.map = test::map_from_names(r.source.skeleton, r.target.skeleton, pairs_by_cmu_source(names));
  core::RetargetPipelineInput in;
  in.transfer.source = &r.source.skeleton;
  in.transfer.source_clip = &r.source.clip;
  in.transfer.source_space = r.source.space;
  in.transfer.source_legs = test::legs_of(r.source);
  in.transfer.target = &r.target.skeleton;
  in.transfer.target_space = r.target.space;
  in.transfer.target_legs = test::legs_of(r.target);
  in.transfer.map = &r.map;
  r.result = core::retarget_and_fix(in);
  const core::RetargetResult& t = r.result.transfer;
  EXPECT_TRUE(t.target_rest_on_ground);
  EXPECT_EQ(r.result.diagnostics.floor_method, "target rest");
  std::printf("Kenney ground level %.4f m, offset %.4f m\n", t.ground_level_m, t.ground_offset_m);
  core::FlatParams flat;
  flat.size = 400.0;
  const core::Terrain ground(core::make_flat_terrain(flat));
  core::MetricsInput mi;
  mi.skeleton = &r.target.skeleton;
  mi.clip = &r.result.clip;
  mi.space = r.target.space;
  mi.rig = test::legs_of(r.target);
  mi.terrain = &ground;
  EXPECT_LE(core::measure_clip(mi).mean_ground_gap_m, 0.01);

  const Retargeted p5 =
      run(anim("bvh/cmu_02_01_walk.bvh"), retarget_file("cmu_131_max_armsdown_rest.bvh"),
          pairs_by_cmu_source({{"Hips", "Hips"},
                               {"LeftUpLeg", "LeftHip"},
                               {"RightUpLeg", "RightHip"},
                               {"LeftLeg", "LeftKnee"},
                               {"RightLeg", "RightKnee"},
                               {"LeftFoot", "LeftAnkle"},
                               {"RightFoot", "RightAnkle"},
                               {"LeftToeBase", "LeftToe"},
                               {"RightToeBase", "RightToe"}}),
          false);
  EXPECT_FALSE(p5.result.transfer.target_rest_on_ground);
  EXPECT_GT(p5.result.transfer.ground_level_m, 0.02);  // the CMU source's 5 cm, scaled
}

}  // namespace
}  // namespace ikfix
