// io::load_character on the retargeting targets: rest-only FBX / GLB / BVH skeletons and a full
// character with takes. The same armature exported to several formats must give the same
// joints (controls included, "_end" leaves as end sites) at the same world positions.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/fk.hpp"
#include "io/clip_io.hpp"
#include "io/end_leaves.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace {

namespace fs = std::filesystem;
using ikfix::core::Transform;
using ikfix::core::Vec3;
using ikfix::io::LoadedClip;

fs::path retarget_dir() { return ikfix::test::shared_data_dir() / "retarget"; }

// World positions (metres, Y up) of every joint and end site at frame 0 (or in the rest pose),
// by name ("Head" and "Head/end").
std::map<std::string, Vec3> world_points(const LoadedClip& c, bool rest = false) {
  std::vector<Transform> world(c.skeleton.joint_count());
  ikfix::core::forward_kinematics(
      c.skeleton, rest ? std::span<const Transform>(c.skeleton.rest) : c.clip.frame(0),
      c.space.to_world(), world);
  std::map<std::string, Vec3> out;
  for (int j = 0; j < c.skeleton.joint_count(); ++j) {
    out[c.skeleton.names[j]] = world[j].translation;
    if (c.skeleton.end_sites[j])
      out[c.skeleton.names[j] + "/end"] =
          ikfix::core::transform_point(world[j], *c.skeleton.end_sites[j]);
  }
  return out;
}

// Largest distance between points both maps name, and how many they share.
std::pair<double, int> compare_points(const std::map<std::string, Vec3>& a,
                                      const std::map<std::string, Vec3>& b) {
  double worst = 0.0;
  int shared = 0;
  for (const auto& [name, p] : a)
    if (auto it = b.find(name); it != b.end()) {
      worst = std::max(worst, glm::length(p - it->second));
      ++shared;
    }
  return {worst, shared};
}

std::set<std::string> names_of(const LoadedClip& c) {
  return {c.skeleton.names.begin(), c.skeleton.names.end()};
}

void expect_rest_only(const LoadedClip& c) {
  EXPECT_EQ(c.take_index, -1);
  ASSERT_EQ(c.clip.frame_count, 1);
  ASSERT_EQ(c.clip.joint_count, c.skeleton.joint_count());
  for (int j = 0; j < c.skeleton.joint_count(); ++j) {
    EXPECT_EQ(c.clip.at(0, j).translation, c.skeleton.rest[j].translation) << c.skeleton.names[j];
    EXPECT_EQ(c.clip.at(0, j).rotation, c.skeleton.rest[j].rotation) << c.skeleton.names[j];
  }
  EXPECT_TRUE(c.skeleton.validate().empty()) << c.skeleton.validate();
}

TEST(EndLeaves, NamesFollowTheExportersConvention) {
  EXPECT_TRUE(ikfix::io::is_end_leaf_name("Head_end"));
  EXPECT_TRUE(ikfix::io::is_end_leaf_name("HeadTop_End"));
  EXPECT_FALSE(ikfix::io::is_end_leaf_name("_end"));
  EXPECT_FALSE(ikfix::io::is_end_leaf_name("Legend"));
  EXPECT_FALSE(ikfix::io::is_end_leaf_name("LeftFoot"));
}

TEST(EndLeaves, OnlyChildLeavesBecomeEndSites) {
  ikfix::core::Skeleton s;
  auto add = [&](const std::string& name, int parent, Vec3 t) {
    s.names.push_back(name);
    s.parents.push_back(parent);
    Transform r;
    r.translation = t;
    s.rest.push_back(r);
    s.end_sites.emplace_back(std::nullopt);
  };
  add("Hips", -1, Vec3(0, 1, 0));
  add("Spine", 0, Vec3(0, 0.2, 0));
  add("Spine_end", 1, Vec3(0, 0.3, 0));  // only child: folded
  add("Leg", 0, Vec3(0.1, 0, 0));
  add("Leg_end", 3, Vec3(0, -0.4, 0));  // a sibling below: kept
  add("Toe", 3, Vec3(0, -0.5, 0.1));
  const std::vector<int> kept = ikfix::io::fold_end_leaves(s);
  EXPECT_EQ(kept, (std::vector<int>{0, 1, 3, 4, 5}));
  ASSERT_EQ(s.joint_count(), 5);
  ASSERT_TRUE(s.end_sites[1].has_value());
  EXPECT_EQ(*s.end_sites[1], Vec3(0, 0.3, 0));
  EXPECT_EQ(s.parents, (std::vector<int>{-1, 0, 0, 2, 2}));
  EXPECT_TRUE(s.validate().empty());
}

TEST(LoadCharacter, KenneyRestFbxKnowsEveryBoneAndMatchesItsGlb) {
  IKFIX_REQUIRE_SHARED_DATA();
  const LoadedClip fbx = ikfix::io::load_character(retarget_dir() / "kenney_rest.fbx");
  const LoadedClip glb = ikfix::io::load_character(retarget_dir() / "kenney_rest.glb");
  for (const LoadedClip* c : {&fbx, &glb}) {
    SCOPED_TRACE(c->path.string());
    expect_rest_only(*c);
    const std::set<std::string> names = names_of(*c);
    for (const char* bone : {"HipsCtrl", "Hips", "LeftFootIK", "RightFootIK", "LeftHeelRoll",
                             "LeftKneeCtrl", "LeftUpLeg", "LeftToes", "RightHandIndex3", "Head"})
      EXPECT_TRUE(names.count(bone)) << bone;
    for (const std::string& n : names) EXPECT_FALSE(ikfix::io::is_end_leaf_name(n)) << n;
    const int head = c->skeleton.find("Head"), toes = c->skeleton.find("LeftToes");
    ASSERT_GE(head, 0);
    ASSERT_GE(toes, 0);
    EXPECT_TRUE(c->skeleton.end_sites[head].has_value());
    EXPECT_TRUE(c->skeleton.end_sites[toes].has_value());
    // README: the hips stand 1.238 m above the lowest rest joint.
    EXPECT_NEAR(world_points(*c)["Hips"].y - world_points(*c)["LeftToes/end"].y, 1.2, 0.1);
  }
  // 58 bones: 10 "_end" leaves fold away, the armature object "Root" stays as their ancestor.
  EXPECT_EQ(names_of(fbx), names_of(glb));
  const auto [worst, shared] = compare_points(world_points(fbx), world_points(glb));
  EXPECT_EQ(shared, static_cast<int>(world_points(glb).size()));
  EXPECT_LT(worst, 1e-4) << "same armature, two formats";
}

// The other rest-only targets: each armature reads the same from FBX and GLB (Blender exported
// both), and the BVH of the same character (deform bones only, in metres) agrees on the bones it
// has, measured from the hips.
TEST(LoadCharacter, RestOnlyTargetsAgreeAcrossFormats) {
  IKFIX_REQUIRE_SHARED_DATA();
  struct Case {
    const char* stem;
    const char* hips;
    int bvh_joints;
  };
  for (const Case& c : {Case{"kenney", "Hips", 32}, Case{"barbarian", "bassin", 15},
                        Case{"cesiumman", "Skeleton_torso_joint_1", 19}}) {
    SCOPED_TRACE(c.stem);
    const std::string stem = c.stem;
    const LoadedClip fbx = ikfix::io::load_character(retarget_dir() / (stem + "_rest.fbx"));
    const LoadedClip glb = ikfix::io::load_character(retarget_dir() / (stem + "_rest.glb"));
    ikfix::io::ClipLoadOptions metres;
    metres.metres_per_unit = 1.0;  // what the README says they are (the height guess is not asked)
    const LoadedClip bvh = ikfix::io::load_character(retarget_dir() / (stem + "_rest.bvh"), metres);
    expect_rest_only(fbx);
    expect_rest_only(glb);
    EXPECT_EQ(bvh.clip.frame_count, 1);
    EXPECT_EQ(fbx.unit_source, "file");
    EXPECT_EQ(glb.unit_source, "file");
    EXPECT_EQ(names_of(fbx), names_of(glb));
    EXPECT_EQ(bvh.skeleton.joint_count(), c.bvh_joints);
    const auto fbx_points = world_points(fbx), glb_points = world_points(glb);
    const auto [worst, shared] = compare_points(fbx_points, glb_points);
    EXPECT_EQ(shared, static_cast<int>(glb_points.size()));
    EXPECT_LT(worst, 1e-4);
    // Against the BVH: positions relative to the hips, for the joints both have.
    auto from_hips = [&](std::map<std::string, Vec3> points) {
      const Vec3 hips = points.at(c.hips);
      for (auto& [name, p] : points) p -= hips;
      return points;
    };
    std::map<std::string, Vec3> bvh_points;  // BVH names have '_' for spaces
    for (const auto& [name, p] : world_points(bvh)) bvh_points[name] = p;
    std::map<std::string, Vec3> fbx_named;
    for (const auto& [name, p] : fbx_points) {
      std::string safe = name;
      std::replace(safe.begin(), safe.end(), ' ', '_');
      fbx_named[safe] = p;
    }
    const auto [bvh_worst, bvh_shared] =
        compare_points(from_hips(fbx_named), from_hips(bvh_points));
    EXPECT_GE(bvh_shared, c.bvh_joints - 2);  // names with accents differ
    EXPECT_LT(bvh_worst, 1e-3);
  }
}

TEST(LoadCharacter, FullCharacterWithATakeKnowsTheSameBones) {
  IKFIX_REQUIRE_SHARED_DATA();
  const LoadedClip full = ikfix::io::load_character(ikfix::test::shared_data_dir() /
                                                    "anim/fbx/kenney_character_maya_7700.fbx");
  const LoadedClip rest = ikfix::io::load_character(retarget_dir() / "kenney_rest.fbx");
  EXPECT_EQ(full.take_name, "Take 001");
  EXPECT_EQ(full.take_index, 0);
  EXPECT_GT(full.clip.frame_count, 1);
  EXPECT_EQ(names_of(full), names_of(rest));
  // The rest pose is the skin's BindPose, not the Models' own transforms (saved mid-stride in
  // this Maya file): the same as the armature Blender exported from it, to 0.1 mm.
  const auto [worst, shared] = compare_points(world_points(full, true), world_points(rest, true));
  EXPECT_EQ(shared, static_cast<int>(world_points(rest).size()));
  EXPECT_LT(worst, 1e-4);
  // load_clip keeps only what deforms the mesh: the character has more.
  const LoadedClip clip = ikfix::io::load_clip(ikfix::test::shared_data_dir() /
                                               "anim/fbx/kenney_character_maya_7700.fbx");
  EXPECT_LT(clip.skeleton.joint_count(), full.skeleton.joint_count());
  for (const std::string& n : clip.skeleton.names) EXPECT_GE(full.skeleton.find(n), 0) << n;
  // A take that does not exist is an error naming the takes.
  ikfix::io::ClipLoadOptions bad;
  bad.take = "Walk";
  EXPECT_THROW(ikfix::io::load_character(
                   ikfix::test::shared_data_dir() / "anim/fbx/kenney_character_maya_7700.fbx", bad),
               ikfix::io::InputError);
}

// A skeleton-only glTF without a skin (nothing for Assimp to import): every node is a bone.
TEST(LoadCharacter, GltfWithoutSkinIsItsNodeTree) {
  const fs::path path = ikfix::test::scratch_path("noskin.gltf");
  ikfix::io::write_file_atomic(
      path, R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
    "nodes": [{"name": "Hips", "translation": [0, 1, 0], "children": [1, 3]},
              {"name": "Leg", "translation": [0.1, -0.5, 0], "rotation": [0, 0, -0.7071068, 0.7071068], "children": [2]},
              {"name": "Leg_end", "translation": [0.4, 0, 0]},
              {"name": "Spine", "translation": [0, 0.2, 0]}]})");
  const LoadedClip c = ikfix::io::load_character(path);
  fs::remove(path);
  EXPECT_EQ(c.skeleton.names, (std::vector<std::string>{"Hips", "Leg", "Spine"}));
  EXPECT_EQ(c.skeleton.parents, (std::vector<int>{-1, 0, 0}));
  expect_rest_only(c);
  ASSERT_TRUE(c.skeleton.end_sites[1].has_value());
  EXPECT_EQ(*c.skeleton.end_sites[1], Vec3(0.4, 0, 0));
  EXPECT_FALSE(c.skeleton.end_sites[2].has_value());
  // The leg's tip in the world: below the hips (the leg's rotation turns +X down).
  const auto points = world_points(c, true);
  EXPECT_NEAR(points.at("Leg/end").y, 0.1, 1e-6);
  EXPECT_EQ(c.space.metres_per_unit, 1.0);
}

TEST(LoadCharacter, RestOnlyCannotBePatched) {
  IKFIX_REQUIRE_SHARED_DATA();
  for (const char* f : {"kenney_rest.fbx", "kenney_rest.glb"}) {
    const LoadedClip c = ikfix::io::load_character(retarget_dir() / f);
    const std::vector<char> changed(c.skeleton.joint_count(), 1);
    EXPECT_THROW(
        ikfix::io::save_clip(ikfix::test::scratch_path("never_written.fbx"), c, c.clip, changed),
        ikfix::io::InputError);
  }
}

}  // namespace
