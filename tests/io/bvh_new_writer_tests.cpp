// The from-scratch BVH writer: whatever the skeleton's rest rotations, scales and axes, the file
// read back puts every joint and end site where forward kinematics of the input does, at every
// frame; its zero pose is the input's rest pose; what BVH cannot store is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/fk.hpp"
#include "io/bvh/bvh.hpp"
#include "io/clip_io.hpp"
#include "io/error.hpp"
#include "test_data.hpp"

namespace {

namespace bvh = ikfix::io::bvh;
using ikfix::core::Clip;
using ikfix::core::Quat;
using ikfix::core::Skeleton;
using ikfix::core::Transform;
using ikfix::core::Vec3;
using ikfix::io::InputError;

Quat random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  return glm::normalize(Quat(n(rng), n(rng), n(rng), n(rng)));
}

Vec3 random_vec(std::mt19937& rng, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return Vec3(u(rng), u(rng), u(rng));
}

// A branching skeleton with arbitrary rest rotations (like an FBX or glTF rig) and a clip that
// rotates every joint and moves the root and one inner joint.
struct Rig {
  Skeleton skeleton;
  Clip clip;
};
Rig random_rig(unsigned seed, int frames = 12) {
  std::mt19937 rng(seed);
  Rig r;
  const int parents[] = {-1, 0, 1, 2, 0, 4, 5, 0, 7, 8, 8};
  for (int j = 0; j < 11; ++j) {
    r.skeleton.names.push_back("joint " + std::to_string(j));
    r.skeleton.parents.push_back(parents[j]);
    Transform t;
    t.translation = j == 0 ? Vec3(0.3, 90.0, -2.0) : random_vec(rng, 30.0);
    t.rotation = random_rotation(rng);
    r.skeleton.rest.push_back(t);
    r.skeleton.end_sites.emplace_back(std::nullopt);
  }
  r.skeleton.end_sites[3] = Vec3(0.0, 12.0, 1.0);  // one leaf with a site, the others without
  r.clip.fps = 24.0;
  r.clip.frame_count = frames;
  r.clip.joint_count = 11;
  for (int f = 0; f < frames; ++f)
    for (int j = 0; j < 11; ++j) {
      Transform t = r.skeleton.rest[j];
      t.rotation = random_rotation(rng);
      if (j == 0 || j == 5) t.translation += random_vec(rng, 10.0);
      r.clip.locals.push_back(t);
    }
  return r;
}

struct World {
  std::vector<Vec3> points;  // joints, then end sites of leaves (in skeleton order)
  std::vector<Quat> rotations;
};

World world_of(const Skeleton& s, std::span<const Transform> locals, const Transform& top) {
  std::vector<Transform> world(s.joint_count());
  ikfix::core::forward_kinematics(s, locals, top, world);
  World w;
  for (const auto& t : world) {
    w.points.push_back(t.translation);
    w.rotations.push_back(t.rotation);
  }
  for (int j = 0; j < s.joint_count(); ++j)
    if (s.children(j).empty() && s.end_sites[j])
      w.points.push_back(ikfix::core::transform_point(world[j], *s.end_sites[j]));
  return w;
}

double extent(const World& w) {
  Vec3 lo(1e300), hi(-1e300);
  for (const Vec3& p : w.points) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  return glm::length(hi - lo);
}

// Writes, reads back and compares every joint (and the end sites the input has) at every frame.
// Returns the largest position error relative to the skeleton's size.
// `check_zero_pose`: the file's zero pose is the rest pose (not so for a joint whose translation
// is constant over the clip but off its rest: that constant becomes its OFFSET).
double round_trip_error(const Skeleton& skeleton, const Clip& clip,
                        const bvh::NewFileOptions& options, bool check_rotations = true,
                        bool check_zero_pose = true) {
  const bvh::NewFile file = bvh::write_new(skeleton, clip, options);
  const bvh::Document doc = bvh::parse(file.text, "written.bvh");
  const Skeleton back = bvh::skeleton(doc);
  const Clip back_clip = bvh::clip(doc);
  EXPECT_EQ(back.joint_count(), skeleton.joint_count());
  EXPECT_EQ(back_clip.frame_count, clip.frame_count);
  EXPECT_NEAR(back_clip.fps, clip.fps, 1e-9 * clip.fps);
  // Rest rotation of every joint in the Y-up world, to relate the joint frames.
  Transform up;
  up.rotation = options.up_rotation;
  const World rest = world_of(skeleton, skeleton.rest, up);
  const double size = extent(rest);
  double worst = 0.0;
  // The zero pose of the file is the input's rest pose, with the root at the origin (a root's
  // OFFSET is zero).
  if (check_zero_pose) {
    std::vector<Transform> zero = back.rest;
    const World w = world_of(back, zero, Transform{});
    const Vec3 root = rest.points[file.joints[0]];
    for (std::size_t k = 0; k < file.joints.size(); ++k)
      worst =
          std::max(worst, glm::length(w.points[k] - (rest.points[file.joints[k]] - root)) / size);
  }
  for (int f = 0; f < clip.frame_count; ++f) {
    const World in = world_of(skeleton, clip.frame(f), up);
    const World out = world_of(back, back_clip.frame(f), Transform{});
    for (std::size_t k = 0; k < file.joints.size(); ++k) {
      const int j = file.joints[k];
      EXPECT_EQ(back.names[k], file.names[j]);
      worst = std::max(worst, glm::length(out.points[k] - in.points[j]) / size);
      if (check_rotations) {
        // The file's joint frame is the input's turned by the constant rest world rotation.
        const Quat expected = in.rotations[j] * glm::conjugate(rest.rotations[j]);
        const double angle =
            ikfix::core::rotation_angle(glm::conjugate(expected) * out.rotations[k]);
        EXPECT_LT(angle, 1e-6) << "joint " << skeleton.names[j] << " frame " << f;
      }
    }
    // End sites: every leaf has one; the input's land where they were. BVH stores no scale: the
    // writer bakes the rest pose's, so where the clip's scale at a joint drifts from it (Blender's
    // 0.99999x keys) the site may move by that drift times its length, and no more.
    std::vector<Transform> world(back.joint_count()), world_in(skeleton.joint_count()),
        rest_in(skeleton.joint_count());
    ikfix::core::forward_kinematics(back, back_clip.frame(f), Transform{}, world);
    ikfix::core::forward_kinematics(skeleton, clip.frame(f), up, world_in);
    ikfix::core::forward_kinematics(skeleton, skeleton.rest, up, rest_in);
    for (std::size_t k = 0; k < file.joints.size(); ++k) {
      const int j = file.joints[k];
      if (!back.children(static_cast<int>(k)).empty()) continue;
      EXPECT_TRUE(back.end_sites[k].has_value()) << "every leaf has an End Site";
      if (!skeleton.end_sites[j] || !back.end_sites[k]) continue;
      const Vec3 site_out = ikfix::core::transform_point(world[k], *back.end_sites[k]);
      const Vec3 site_in = ikfix::core::transform_point(world_in[j], *skeleton.end_sites[j]);
      double drift = 0.0;
      for (int a = 0; a < 3; ++a)
        drift = std::max(drift, std::abs(world_in[j].scale[a] / rest_in[j].scale[a] - 1.0));
      drift *= glm::length(site_in - world_in[j].translation);
      worst = std::max(worst, std::max(0.0, glm::length(site_out - site_in) - drift) / size);
    }
  }
  return worst;
}

TEST(BvhNewWriter, RestRotationsAreBakedAndEveryJointLandsWhereItWas) {
  for (unsigned seed : {1u, 2u, 3u}) {
    const Rig rig = random_rig(seed);
    EXPECT_LT(round_trip_error(rig.skeleton, rig.clip, {}), 1e-6) << "seed " << seed;
  }
}

TEST(BvhNewWriter, ZyxOrderAndAZUpClipGiveTheSameWorld) {
  const Rig rig = random_rig(7);
  bvh::NewFileOptions o;
  o.rotation_axes = {2, 1, 0};
  o.up_rotation = ikfix::core::axis_angle(Vec3(1, 0, 0), -ikfix::core::kPi / 2);
  EXPECT_LT(round_trip_error(rig.skeleton, rig.clip, o), 1e-6);
  const std::string text = bvh::write_new(rig.skeleton, rig.clip, o).text;
  EXPECT_NE(text.find("CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation"),
            std::string::npos);
}

TEST(BvhNewWriter, ChannelsFollowWhatMoves) {
  const Rig rig = random_rig(4, 3);
  const bvh::NewFile file = bvh::write_new(rig.skeleton, rig.clip);
  const bvh::Document doc = bvh::parse(file.text, "written.bvh");
  for (int k = 0; k < doc.joint_count(); ++k) {
    const int j = file.joints[k];
    const bool moves = j == 0 || j == 5;
    EXPECT_EQ(doc.joints[k].channels.size(), moves ? 6u : 3u) << rig.skeleton.names[j];
  }
  EXPECT_NE(
      file.text.find("CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation"),
      std::string::npos);
}

// A chain 50,000 joints deep (as --max-joints allows) is written without recursing per level
// (which overflowed the stack) and in text that grows linearly with the joints (the indentation
// stops deepening), and reads back joint for joint.
TEST(BvhNewWriter, DeepChainIsWrittenAndReadBack) {
  constexpr int kJoints = 50000;
  Skeleton skeleton;
  for (int j = 0; j < kJoints; ++j) {
    skeleton.names.push_back("j" + std::to_string(j));
    skeleton.parents.push_back(j - 1);
    Transform rest;
    rest.translation = Vec3(0.0, 1.0, 0.0);
    skeleton.rest.push_back(rest);
    skeleton.end_sites.emplace_back(std::nullopt);
  }
  Clip clip;
  clip.fps = 30.0;
  clip.frame_count = 2;
  clip.joint_count = kJoints;
  for (int f = 0; f < clip.frame_count; ++f)
    clip.locals.insert(clip.locals.end(), skeleton.rest.begin(), skeleton.rest.end());
  clip.locals[kJoints].translation.x = 0.5;  // the root moves on frame 1
  const bvh::NewFile file = bvh::write_new(skeleton, clip);
  EXPECT_LT(file.text.size(), std::size_t{1000} * kJoints);
  const bvh::Document doc = bvh::parse(file.text, "deep.bvh");
  ASSERT_EQ(doc.joint_count(), kJoints);
  EXPECT_EQ(doc.frame_count, 2);
  for (int k = 0; k < kJoints; ++k) {
    ASSERT_EQ(file.joints[k], k);
    ASSERT_EQ(doc.joints[k].parent, k - 1);
    ASSERT_EQ(doc.joints[k].name, skeleton.names[k]);
  }
  EXPECT_NEAR(doc.joints[kJoints - 1].offset.y, 1.0, 1e-9);
  EXPECT_TRUE(doc.joints[kJoints - 1].end_site.has_value());
  EXPECT_NEAR(doc.value(1, 0) - doc.value(0, 0), 0.5, 1e-9);
}

TEST(BvhNewWriter, ConstantUniformScaleIsBakedIntoTheOffsets) {
  Rig rig = random_rig(5, 4);
  // A x100 group above the skeleton (CMU FBX) and a x0.5 joint inside it.
  for (int f = 0; f < rig.clip.frame_count; ++f) {
    rig.clip.at(f, 0).scale = Vec3(100.0);
    rig.clip.at(f, 4).scale = Vec3(0.5);
  }
  rig.skeleton.rest[0].scale = Vec3(100.0);
  rig.skeleton.rest[4].scale = Vec3(0.5);
  EXPECT_LT(round_trip_error(rig.skeleton, rig.clip, {}), 1e-6);
}

// root_at_first_branch: a group node and a moving control above the pelvis fold into it; the
// pelvis is the ROOT, and every joint written lands where it was.
TEST(BvhNewWriter, RootChainFoldsIntoThePelvis) {
  Rig rig = random_rig(8, 10);
  // Joint 0 branches in random_rig; put a x100 group and a moving control above it.
  Skeleton s;
  s.names = {"Group", "Control"};
  s.parents = {-1, 0};
  Transform group, control;
  group.scale = Vec3(100.0);
  group.rotation = ikfix::core::axis_angle(Vec3(1, 0, 0), -ikfix::core::kPi / 2);
  control.translation = Vec3(0.0, 0.0, 1.5);
  s.rest = {group, control};
  s.end_sites = {std::nullopt, std::nullopt};
  for (int j = 0; j < rig.skeleton.joint_count(); ++j) {
    s.names.push_back(rig.skeleton.names[j]);
    s.parents.push_back(rig.skeleton.parents[j] < 0 ? 1 : rig.skeleton.parents[j] + 2);
    s.rest.push_back(rig.skeleton.rest[j]);
    s.end_sites.push_back(rig.skeleton.end_sites[j]);
  }
  Clip c;
  c.fps = rig.clip.fps;
  c.frame_count = rig.clip.frame_count;
  c.joint_count = s.joint_count();
  for (int f = 0; f < c.frame_count; ++f) {
    c.locals.push_back(group);
    Transform moving = control;
    moving.translation.x += 0.01 * f;
    c.locals.push_back(moving);
    for (int j = 0; j < rig.clip.joint_count; ++j) c.locals.push_back(rig.clip.at(f, j));
  }
  bvh::NewFileOptions o;
  o.root_at_first_branch = true;
  const bvh::NewFile file = bvh::write_new(s, c, o);
  ASSERT_EQ(file.joints.size(), static_cast<std::size_t>(s.joint_count() - 2));
  EXPECT_EQ(file.joints.front(), 2);
  EXPECT_EQ(file.text.find("Group"), std::string::npos);
  EXPECT_NE(file.text.find("ROOT joint_0"), std::string::npos);
  const bvh::Document doc = bvh::parse(file.text, "folded.bvh");
  const Skeleton back = bvh::skeleton(doc);
  const Clip back_clip = bvh::clip(doc);
  std::vector<Transform> in(s.joint_count()), out(back.joint_count());
  double worst = 0.0;
  for (int f = 0; f < c.frame_count; ++f) {
    ikfix::core::forward_kinematics(s, c.frame(f), Transform{}, in);
    ikfix::core::forward_kinematics(back, back_clip.frame(f), Transform{}, out);
    for (std::size_t k = 0; k < file.joints.size(); ++k)
      worst = std::max(worst, glm::length(out[k].translation - in[file.joints[k]].translation));
  }
  EXPECT_LT(worst, 1e-6 * 100.0 * 200.0);  // the group's x100 on a ~200-unit rig
  // Only the ROOT has position channels left (the moving control folded into it).
  for (int k = 1; k < doc.joint_count(); ++k)
    EXPECT_EQ(doc.joints[k].channels.size(), file.joints[k] == 2 + 5 ? 6u : 3u)
        << doc.joints[k].name;
}

TEST(BvhNewWriter, RefusesWhatBvhCannotStore) {
  Rig rig = random_rig(6, 3);
  rig.clip.at(1, 2).scale = Vec3(1.0, 2.0, 1.0);
  try {
    bvh::write_new(rig.skeleton, rig.clip, {"clip.fbx"});
    FAIL() << "non-uniform scale accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("clip.fbx"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("joint 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("non-uniform"), std::string::npos) << e.what();
  }
  rig.clip.at(1, 2).scale = Vec3(2.0);
  try {
    bvh::write_new(rig.skeleton, rig.clip, {"clip.fbx"});
    FAIL() << "animated scale accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("animated scale"), std::string::npos) << e.what();
  }
  rig.clip.at(1, 2).scale = Vec3(1.0);
  rig.clip.at(2, 3).rotation.x = std::nan("");
  EXPECT_THROW(bvh::write_new(rig.skeleton, rig.clip, {"clip.fbx"}), InputError);
}

TEST(BvhNewWriter, NamesAreMadeSafeDeterministically) {
  const std::vector<std::string> names = {
      "arme droite", "t\xC3\xAAte",     "pagne arri\xC3\xA8re", "",    "Hips",
      "Hips",        "mixamorig:Spine", "\xE6\x89\x8B",         "a{b}"};
  const std::vector<std::string> safe = bvh::bvh_safe_names(names);
  EXPECT_EQ(safe, (std::vector<std::string>{"arme_droite", "tete", "pagne_arriere", "joint_3",
                                            "Hips", "Hips_2", "mixamorig:Spine", "_", "a_b_"}));
  EXPECT_EQ(bvh::bvh_safe_names(names), safe);
}

// Real clips of every format, converted: FK of the BVH equals FK of the clip as loaded.
TEST(BvhNewWriter, RealClipsOfEveryFormatConvertExactly) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto anim = ikfix::test::shared_data_dir() / "anim";
  for (const char* name :
       {"bvh/cmu_02_01_walk.bvh", "fbx/kenney_character_maya_7700.fbx",
        "fbx/cmu_07_01_walk_skeleton.fbx", "fbx/max_skin_zup_7500_ascii.fbx",
        "fbx/barbarian_blender_7400.fbx", "gltf/CesiumMan.glb", "gltf/Fox.glb"}) {
    SCOPED_TRACE(name);
    const ikfix::io::LoadedClip clip = ikfix::io::load_clip(anim / name);
    bvh::NewFileOptions o;
    o.source_name = name;
    o.up_rotation = clip.space.to_world_rotation;
    EXPECT_LT(round_trip_error(clip.skeleton, clip.clip, o, true, false), 1e-6);
  }
}

}  // namespace
