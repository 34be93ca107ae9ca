// fix_clip_in_place writes the fix over the input motion: what it flags as changed, what it
// leaves alone and how it blends a partial weight are checked against the input it overwrote,
// on a real clip over bumps (ground tilt, toe bends, pivot holds).
#include <gtest/gtest.h>

#include <cstring>
#include <optional>

#include "core/fix/footfix.hpp"
#include "core/fk.hpp"
#include "core/legs.hpp"
#include "core/terrain_gen.hpp"
#include "io/clip_io.hpp"
#include "test_data.hpp"

namespace ikfix {
namespace {

bool same_bits(const core::Transform& a, const core::Transform& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

struct Walk {
  io::LoadedClip clip;
  core::LegRig rig;
  std::optional<core::Terrain> terrain;

  Walk() : clip(io::load_clip(test::shared_data_dir() / "anim/bvh/cmu_02_01_walk.bvh")) {
    rig = *core::detect_legs_at_rest(clip.skeleton, clip.space.to_world()).rig;
    core::BumpsParams bumps;
    bumps.cell = 0.2;
    terrain.emplace(core::make_bumps_terrain(bumps));
  }

  core::FixInput input(double weight) const {
    core::FixInput in;
    in.skeleton = &clip.skeleton;
    in.space = clip.space;
    in.rig = rig;
    in.terrain = &*terrain;
    in.settings.weight = weight;
    return in;  // in.clip stays null: fix_clip_in_place does not read it
  }
};

TEST(FixInPlace, FlagsExactlyTheJointsItChangedAndMatchesFixClip) {
  IKFIX_REQUIRE_SHARED_DATA();
  const Walk walk;
  const core::Clip& input = walk.clip.clip;
  core::Clip motion = input;
  const core::FixResult fixed = core::fix_clip_in_place(walk.input(1.0), motion);
  EXPECT_TRUE(fixed.clip.locals.empty());

  int flagged = 0;
  for (int j = 0; j < input.joint_count; ++j) {
    bool differs = false;
    for (int f = 0; f < input.frame_count; ++f) {
      const core::Transform& a = input.at(f, j);
      const core::Transform& b = motion.at(f, j);
      if (a.translation != b.translation || a.rotation != b.rotation) differs = true;
      if (!fixed.changed_joints[j]) {
        EXPECT_TRUE(same_bits(a, b)) << "joint " << j << " frame " << f;
      }
    }
    EXPECT_EQ(fixed.changed_joints[j] != 0, differs) << "joint " << j;
    flagged += fixed.changed_joints[j];
  }
  EXPECT_GE(flagged, 7) << "the pelvis and both hips, knees and ankles are fixed";

  core::FixInput copying = walk.input(1.0);
  copying.clip = &input;
  const core::FixResult copied = core::fix_clip(copying);
  ASSERT_EQ(copied.clip.locals.size(), motion.locals.size());
  for (std::size_t i = 0; i < motion.locals.size(); ++i)
    ASSERT_TRUE(same_bits(copied.clip.locals[i], motion.locals[i])) << i;
  EXPECT_EQ(copied.changed_joints, fixed.changed_joints);
}

// changed_rotations says, key by key, whether the rotation kept the input's bits: a writer
// relies on a 0 to keep that key's text without re-encoding it.
TEST(FixInPlace, FlagsExactlyTheRotationsItChanged) {
  IKFIX_REQUIRE_SHARED_DATA();
  const Walk walk;
  const core::Clip& input = walk.clip.clip;
  core::Clip motion = input;
  const core::FixResult fixed = core::fix_clip_in_place(walk.input(1.0), motion);
  const int joints = input.joint_count;
  ASSERT_EQ(fixed.changed_rotations.size(), static_cast<std::size_t>(input.frame_count) * joints);
  int kept_in_flagged_joints = 0, changed = 0;
  for (int f = 0; f < input.frame_count; ++f)
    for (int j = 0; j < joints; ++j) {
      const bool same =
          std::memcmp(&input.at(f, j).rotation, &motion.at(f, j).rotation, sizeof(core::Quat)) == 0;
      const char flag = fixed.changed_rotations[static_cast<std::size_t>(f) * joints + j];
      ASSERT_EQ(flag != 0, !same) << "joint " << j << " frame " << f;
      if (flag) {
        ++changed;
        EXPECT_TRUE(fixed.changed_joints[j]) << "joint " << j;
      } else if (fixed.changed_joints[j]) {
        ++kept_in_flagged_joints;
      }
    }
  EXPECT_GT(changed, 0) << "the legs turn";
  EXPECT_GE(kept_in_flagged_joints, input.frame_count) << "the pelvis moves but keeps its rotation";
}

TEST(FixInPlace, PartialWeightMovesThePelvisByThatShareOfTheFullMove) {
  IKFIX_REQUIRE_SHARED_DATA();
  const Walk walk;
  const core::Clip& input = walk.clip.clip;
  core::Clip full = input, half = input;
  core::fix_clip_in_place(walk.input(1.0), full);
  core::fix_clip_in_place(walk.input(0.5), half);
  const int pelvis = walk.rig.pelvis;
  int moved = 0;
  for (int f = 0; f < input.frame_count; ++f) {
    const core::Vec3 in = input.at(f, pelvis).translation;
    const core::Vec3 expected = full.at(f, pelvis).translation == in
                                    ? in
                                    : in + (full.at(f, pelvis).translation - in) * 0.5;
    EXPECT_EQ(half.at(f, pelvis).translation, expected) << "frame " << f;
    moved += full.at(f, pelvis).translation != in;
  }
  EXPECT_GT(moved, input.frame_count / 2) << "over bumps the pelvis follows the ground";
}

}  // namespace
}  // namespace ikfix
