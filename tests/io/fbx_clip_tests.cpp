// FBX -> Skeleton + Clip: world transforms against Assimp on every animated corpus file, takes,
// frame rates, units and axes, and the inputs that must be refused.
#include <gtest/gtest.h>

#include <glm/gtc/matrix_transform.hpp>

#include "io/clip_io.hpp"
#include "io/error.hpp"
#include "io/fbx/fbx.hpp"
#include "io/fbx/patch.hpp"
#include "io/fbx_test_support.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace fbx = ikfix::io::fbx;
using ikfix::io::InputError;
using ikfix::io::LoadedClip;

namespace {

std::filesystem::path fbx_file(const std::string& name) {
  return ikfix::test::shared_data_dir() / "anim" / "fbx" / name;
}

std::string load_error(const std::filesystem::path& path,
                       const ikfix::io::ClipLoadOptions& options = {}) {
  try {
    ikfix::io::load_clip(path, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

struct Agreement {
  double max_position = 0;  // file units
  double max_rotation = 0;  // degrees
  double scene_size = 0;    // largest world position, file units
  int samples = 0;
};

// Our world transforms vs Assimp's at the frames where the comparison is like with like: for
// each joint, the frames where it and each animated ancestor either have an Assimp key or are
// constant (between keys Assimp interpolates linearly while FBX curves may be cubic).
Agreement compare_with_assimp(const std::filesystem::path& path, const std::string& take = "") {
  ikfix::io::ClipLoadOptions options;
  if (!take.empty()) options.take = take;
  const LoadedClip lc = ikfix::io::load_clip(path, options);
  ikfix::test::AssimpFbx assimp(path);
  EXPECT_NE(assimp.scene(), nullptr) << assimp.error();
  Agreement a;
  if (!assimp.scene()) return a;
  const aiAnimation* anim = assimp.animation(lc.take_name);
  EXPECT_NE(anim, nullptr) << "no Assimp animation for take " << lc.take_name;
  if (!anim) return a;
  const double ticks_per_frame = anim->mTicksPerSecond / lc.clip.fps;
  const int joints = lc.skeleton.joint_count();
  // Per joint: does it have a key at frame f (or need none)?
  std::vector<std::vector<char>> keyed(joints, std::vector<char>(lc.clip.frame_count, 1));
  for (int j = 0; j < joints; ++j) {
    for (unsigned c = 0; c < anim->mNumChannels; ++c) {
      const aiNodeAnim* ch = anim->mChannels[c];
      if (lc.skeleton.names[j] != ch->mNodeName.C_Str()) continue;
      bool constant = true;
      for (unsigned k = 1; k < ch->mNumRotationKeys; ++k)
        constant = constant && ch->mRotationKeys[k].mValue == ch->mRotationKeys[0].mValue;
      for (unsigned k = 1; k < ch->mNumPositionKeys; ++k)
        constant = constant && ch->mPositionKeys[k].mValue == ch->mPositionKeys[0].mValue;
      for (unsigned k = 1; k < ch->mNumScalingKeys; ++k)
        constant = constant && ch->mScalingKeys[k].mValue == ch->mScalingKeys[0].mValue;
      if (constant) break;
      for (int f = 0; f < lc.clip.frame_count; ++f) {
        bool hit = false;
        for (unsigned k = 0; k < ch->mNumRotationKeys && !hit; ++k)
          hit = std::abs(ch->mRotationKeys[k].mTime - f * ticks_per_frame) < 1e-6;
        keyed[j][f] = hit;
      }
    }
  }
  for (int f = 0; f < lc.clip.frame_count; ++f) {
    const auto ours = ikfix::test::file_world(lc, lc.clip, f);
    std::map<std::string, glm::dmat4> theirs;
    for (int j = 0; j < joints; ++j) {
      bool comparable = true;
      for (int p = j; p >= 0; p = lc.skeleton.parents[p]) comparable = comparable && keyed[p][f];
      if (!comparable) continue;
      if (theirs.empty()) theirs = assimp.world_at(anim, f * ticks_per_frame);
      const auto it = theirs.find(lc.skeleton.names[j]);
      if (it == theirs.end()) {
        ADD_FAILURE() << "Assimp has no node " << lc.skeleton.names[j];
        continue;
      }
      const glm::dvec3 p(it->second[3]);
      a.scene_size = std::max(a.scene_size, glm::length(p));
      a.max_position = std::max(a.max_position, glm::length(p - ours[j].translation));
      glm::dmat3 m(it->second);
      for (int c = 0; c < 3; ++c) m[c] = glm::normalize(m[c]);
      a.max_rotation =
          std::max(a.max_rotation, ikfix::test::angle_deg(glm::quat_cast(m), ours[j].rotation));
      ++a.samples;
    }
  }
  return a;
}

}  // namespace

TEST(FbxClip, WorldTransformsMatchAssimpOnEveryAnimatedFile) {
  IKFIX_REQUIRE_SHARED_DATA();
  // Takes without segment scale compensation under a scaled parent, which Assimp ignores (the
  // sausage's "deform" take; see InheritTypeRrsUnderNonUniformScaleIsFlagged).
  struct Case {
    const char* file;
    const char* take;
  };
  for (const Case c :
       {Case{"cmu_07_01_walk_skeleton.fbx", ""}, Case{"cmu_09_11_run_skeleton.fbx", ""},
        Case{"cmu_01_01_forward_jumps_skeleton.fbx", ""},
        Case{"cmu_55_01_dance_whirl_skeleton.fbx", ""}, Case{"kenney_character_maya_7700.fbx", ""},
        Case{"barbarian_blender_7400.fbx", ""}, Case{"blender_armature_anim_7400.fbx", ""},
        Case{"max_skin_zup_7500_ascii.fbx", ""},
        Case{"sausage_3takes_maya_7500_ascii.fbx", "wiggle"},
        Case{"sausage_3takes_maya_7500_ascii.fbx", "spin"}}) {
    SCOPED_TRACE(std::string(c.file) + " " + c.take);
    const Agreement a = compare_with_assimp(fbx_file(c.file), c.take);
    EXPECT_GT(a.samples, 0);
    EXPECT_LE(a.max_position, 5e-6 * a.scene_size + 1e-5) << "scene size " << a.scene_size;
    EXPECT_LE(a.max_rotation, 0.002);
    std::printf("  %-40s %-8s %6d samples: max |dp| %.3g (scene %.4g), max drot %.3g deg\n", c.file,
                c.take, a.samples, a.max_position, a.scene_size, a.max_rotation);
  }
}

TEST(FbxClip, TakesAreChosenByNameOrIndex) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto path = fbx_file("sausage_3takes_maya_7500_ascii.fbx");
  const LoadedClip first = ikfix::io::load_clip(path);
  EXPECT_EQ(first.format, "fbx");
  EXPECT_EQ(first.take_count, 3);
  EXPECT_EQ(first.take_index, 0);
  EXPECT_EQ(first.take_name, "wiggle");
  ikfix::io::ClipLoadOptions by_index;
  by_index.take = "1";
  const LoadedClip second = ikfix::io::load_clip(path, by_index);
  EXPECT_EQ(second.take_index, 1);
  ikfix::io::ClipLoadOptions by_name;
  by_name.take = second.take_name;
  EXPECT_EQ(ikfix::io::load_clip(path, by_name).take_index, 1);
  ikfix::io::ClipLoadOptions missing;
  missing.take = "nope";
  const std::string what = load_error(path, missing);
  EXPECT_NE(what.find("no take 'nope'"), std::string::npos) << what;
  EXPECT_NE(what.find("'wiggle'"), std::string::npos) << what;
}

TEST(FbxClip, FrameRateAndRangeComeFromTimeModeAndTheStack) {
  IKFIX_REQUIRE_SHARED_DATA();
  const LoadedClip walk = ikfix::io::load_clip(fbx_file("cmu_07_01_walk_skeleton.fbx"));
  EXPECT_EQ(walk.clip.fps, 120.0);
  EXPECT_EQ(walk.clip.frame_count, 317);  // LocalStop 2.633 s at 120 fps, both ends included
  const LoadedClip max = ikfix::io::load_clip(fbx_file("max_skin_zup_7500_ascii.fbx"));
  EXPECT_EQ(max.clip.fps, 30.0);
  EXPECT_EQ(max.up_axis, 'z');
  const LoadedClip sausage = ikfix::io::load_clip(fbx_file("sausage_3takes_maya_7500_ascii.fbx"));
  EXPECT_EQ(sausage.clip.fps, 24.0);
  EXPECT_EQ(fbx::frame_rate_of_time_mode(14, 59.0), 59.0);
  EXPECT_EQ(fbx::frame_rate_of_time_mode(0, -1.0), 0.0);
}

TEST(FbxClip, CmuSkeletonFilesStandOnTheFloorInMetres) {
  IKFIX_REQUIRE_SHARED_DATA();
  for (const char* name : {"cmu_07_01_walk_skeleton.fbx", "cmu_01_01_forward_jumps_skeleton.fbx",
                           "cmu_09_11_run_skeleton.fbx", "cmu_55_01_dance_whirl_skeleton.fbx"}) {
    SCOPED_TRACE(name);
    const LoadedClip lc = ikfix::io::load_clip(fbx_file(name));
    EXPECT_EQ(lc.unit_source, "guessed");
    EXPECT_NEAR(lc.space.metres_per_unit, 0.0254 / 0.45 / 100.0, 1e-12);
    EXPECT_NE(lc.unit_reason.find("x100"), std::string::npos) << lc.unit_reason;
    std::vector<ikfix::core::Transform> world(lc.skeleton.joint_count());
    const int hips = lc.skeleton.find("Hips");
    const int foot = lc.skeleton.find("LeftFoot");
    ASSERT_GE(hips, 0);
    ASSERT_GE(foot, 0);
    double lowest_foot = 1e9, hips_height = 0;
    for (int f = 0; f < lc.clip.frame_count; ++f) {
      ikfix::core::forward_kinematics(lc.skeleton, lc.clip.frame(f), lc.space.to_world(), world);
      lowest_foot = std::min(lowest_foot, world[foot].translation.y);
      hips_height = std::max(hips_height, world[hips].translation.y);
    }
    EXPECT_GT(lowest_foot, -0.05);
    EXPECT_LT(lowest_foot, 0.12);
    EXPECT_GT(hips_height, 0.85);
    EXPECT_LT(hips_height, 1.6);
  }
  // A file whose declared unit gives a plausible skeleton keeps it.
  const LoadedClip kenney = ikfix::io::load_clip(fbx_file("kenney_character_maya_7700.fbx"));
  EXPECT_EQ(kenney.unit_source, "file");
  EXPECT_EQ(kenney.unit_name, "cm");
  ikfix::io::ClipLoadOptions user;
  user.metres_per_unit = 0.5;
  EXPECT_EQ(ikfix::io::load_clip(fbx_file("kenney_character_maya_7700.fbx"), user).unit_source,
            "user");
}

TEST(FbxClip, InputsWithoutSkeletonOrAnimationAreRefused) {
  IKFIX_REQUIRE_SHARED_DATA();
  const std::string spider = load_error(fbx_file("spider_static_meshes.fbx"));
  EXPECT_NE(spider.find("spider_static_meshes.fbx: no skeleton"), std::string::npos) << spider;
  const std::string humanik = load_error(fbx_file("maya_humanik_character_7500_ascii.fbx"));
  EXPECT_NE(humanik.find("no animation"), std::string::npos) << humanik;
  const std::string rig = load_error(fbx_file("maya_humanik_rig_7400_binary.fbx"));
  EXPECT_NE(rig.find("no animation"), std::string::npos) << rig;
  for (const char* name :
       {"maya_humanik_rig_6100_binary.fbx", "maya_humanik_character_6100_ascii.fbx"}) {
    const std::string old =
        load_error(ikfix::test::shared_data_dir() / "anim" / "unsupported" / name);
    EXPECT_NE(old.find(name), std::string::npos) << old;
    EXPECT_NE(old.find("FBX 6.1 is not supported"), std::string::npos) << old;
  }
  EXPECT_TRUE(ikfix::io::is_supported_clip("a/b.FBX"));
}

TEST(FbxClip, PreRotationAndRotationOrderRoundTripThroughEuler) {
  // quat_to_euler inverts euler_to_quat for every order, and stays near the reference.
  const fbx::RotationOrder orders[] = {fbx::RotationOrder::xyz, fbx::RotationOrder::xzy,
                                       fbx::RotationOrder::yzx, fbx::RotationOrder::yxz,
                                       fbx::RotationOrder::zxy, fbx::RotationOrder::zyx};
  for (auto order : orders) {
    for (const glm::dvec3 deg :
         {glm::dvec3(10, 20, 30), glm::dvec3(-170, 80, 45), glm::dvec3(200, -30, 390)}) {
      const auto q = fbx::euler_to_quat(deg, order);
      const glm::dvec3 back = fbx::quat_to_euler(q, order, deg);
      EXPECT_LT(glm::length(back - deg), 1e-9) << static_cast<int>(order);
    }
  }
  // X applied first for XYZ: R = Rz * Ry * Rx.
  const auto q = fbx::euler_to_quat(glm::dvec3(90, 0, 90), fbx::RotationOrder::xyz);
  const glm::dvec3 y = q * glm::dvec3(0, 1, 0);  // X turns +Y to +Z, then Z leaves +Z alone
  EXPECT_NEAR(y.z, 1.0, 1e-12);
}

TEST(FbxClip, InheritTypeRrsUnderNonUniformScaleIsFlagged) {
  IKFIX_REQUIRE_SHARED_DATA();
  // "deform" scales joint1 along X only; joint2..4 use InheritType Rrs (segment scale
  // compensation). The core cannot express that: the joints are flagged and never written.
  ikfix::io::ClipLoadOptions deform;
  deform.take = "deform";
  const LoadedClip lc =
      ikfix::io::load_clip(fbx_file("sausage_3takes_maya_7500_ascii.fbx"), deform);
  ASSERT_FALSE(lc.warnings.empty());
  EXPECT_NE(lc.warnings[0].find("non-uniform scale from 'joint1'"), std::string::npos)
      << lc.warnings[0];
  std::vector<char> changed(lc.skeleton.joint_count(), 0);
  changed[lc.skeleton.find("joint3")] = 1;
  try {
    ikfix::io::save_clip(ikfix::test::scratch_path("deform_refused.fbx"), lc, lc.clip, changed);
    ADD_FAILURE() << "a joint under a non-uniform Rrs parent was written";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be fixed"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(ikfix::test::scratch_path("deform_refused.fbx")));
  // The other takes have uniform scales: nothing is flagged.
  EXPECT_TRUE(
      ikfix::io::load_clip(fbx_file("sausage_3takes_maya_7500_ascii.fbx")).warnings.empty());
}
