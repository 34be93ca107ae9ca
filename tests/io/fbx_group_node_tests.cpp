// Group nodes above a skeleton (issue 16 item 5): a CMU-style root group node that sits between
// the hips and the feet in the rest pose is no part of the trunk, so the legs are found.
#include <gtest/gtest.h>

#include "core/fk.hpp"
#include "core/legs_in_file.hpp"
#include "io/clip_facts.hpp"
#include "io/clip_io.hpp"
#include "io/file_util.hpp"
#include "io/synthetic_fbx.hpp"
#include "test_scratch.hpp"

namespace {

using ikfix::test::scratch_path;

TEST(FbxGroupNode, GroupNodeBetweenHipsAndFeetIsNotPartOfTheTrunk) {
  ikfix::test::SyntheticFbxOptions options;
  options.hips_height_m = 0.6;  // the group node (origin) below the knees, above the ankles
  const auto path = scratch_path("cartwheels_skeleton.fbx");
  ikfix::io::write_file_atomic(path, ikfix::test::synthetic_skeleton_fbx(options));
  const ikfix::io::LoadedClip lc = ikfix::io::load_clip(path);
  const auto& s = lc.skeleton;
  const int group = s.find(options.take);
  ASSERT_GE(group, 0);
  const std::vector<char> groups = ikfix::io::group_nodes(lc);
  ASSERT_EQ(groups.size(), static_cast<std::size_t>(s.joint_count()));
  EXPECT_EQ(groups[group], 1);
  EXPECT_EQ(groups[s.find("Hips")], 0);
  // The group node really lies between the hips and the ankles, below the knees, at rest.
  std::vector<ikfix::core::Transform> world(s.joint_count());
  ikfix::core::forward_kinematics(s, s.rest, lc.space.to_world(), world);
  const double group_y = world[group].translation.y;
  EXPECT_LT(group_y, world[s.find("LeftLeg")].translation.y);
  EXPECT_GT(group_y, world[s.find("LeftFoot")].translation.y + 0.1);

  const ikfix::core::LegDetection d =
      ikfix::core::detect_legs_at_rest(s, lc.space.to_world(), groups);
  ASSERT_TRUE(d.rig.has_value()) << d.error;
  EXPECT_EQ(s.names[d.rig->pelvis], "Hips");
  EXPECT_EQ(s.names[d.rig->legs[0].ankle], "LeftFoot");
  EXPECT_EQ(s.names[d.rig->legs[1].ankle], "RightFoot");
}

TEST(FbxGroupNode, AJointOfTheTrunkBetweenHipsAndFeetStillRefuses) {
  // The same layout with the group node made a bone: then it is a trunk joint hanging between
  // the "hips" and the "feet", and the chains are not legs.
  ikfix::test::SyntheticFbxOptions options;
  std::string text = ikfix::test::synthetic_skeleton_fbx(options);
  const std::string null_model = "\"Model::" + options.take + "\", \"Null\"";
  const auto at = text.find(null_model);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, null_model.size(), "\"Model::" + options.take + "\", \"LimbNode\"");
  const auto path = scratch_path("trunk_joint_low.fbx");
  ikfix::io::write_file_atomic(path, text);
  const ikfix::io::LoadedClip lc = ikfix::io::load_clip(path);
  const std::vector<char> groups = ikfix::io::group_nodes(lc);
  EXPECT_EQ(groups.at(lc.skeleton.find(options.take)), 0);
  const ikfix::core::LegDetection d =
      ikfix::core::detect_legs_at_rest(lc.skeleton, lc.space.to_world(), groups);
  EXPECT_FALSE(d.rig.has_value());
  EXPECT_NE(d.error.find("hangs between hips and feet"), std::string::npos) << d.error;
}

}  // namespace
