// Reading a BVH clip for some joints only (bvh::clip_of_joints, ClipLoadOptions::joints_to_read),
// as `ikfix run` does for the fix's joints: the joints read are the full read's bit for bit, the
// others are NaN, the fix on such a clip is the fix on the whole clip, and the writers refuse
// what would need an unread joint.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/fix/footfix.hpp"
#include "core/fk.hpp"
#include "core/legs.hpp"
#include "core/parallel.hpp"
#include "core/terrain_gen.hpp"
#include "io/bvh/bvh.hpp"
#include "io/clip_io.hpp"
#include "io/file_util.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace ikfix {
namespace {

bool same_bits(const core::Transform& a, const core::Transform& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

bool all_nan(const core::Transform& t) {
  for (int k = 0; k < 3; ++k)
    if (!std::isnan(t.translation[k]) || !std::isnan(t.scale[k])) return false;
  return std::isnan(t.rotation.w) && std::isnan(t.rotation.x) && std::isnan(t.rotation.y) &&
         std::isnan(t.rotation.z);
}

std::filesystem::path walk_path() {
  return test::shared_data_dir() / "anim/bvh/cmu_02_01_walk.bvh";
}

core::LegRig legs_of(const io::LoadedClip& clip) {
  return *core::detect_legs_at_rest(clip.skeleton, clip.space.to_world()).rig;
}

// The walk read whole, and read for the joints the fix reads.
struct WalkReads {
  io::LoadedClip full = io::load_clip(walk_path());
  core::LegRig rig = legs_of(full);
  std::vector<int> fix_joints = core::joints_fix_reads(full.skeleton, rig);
  io::LoadedClip partial = load_partial();

  io::LoadedClip load_partial() const {
    io::ClipLoadOptions options;
    options.joints_to_read = [this](const io::LoadedClip& read) {
      EXPECT_TRUE(read.clip.locals.empty()) << "called before the motion is read";
      EXPECT_EQ(read.skeleton.names, full.skeleton.names);
      return io::JointsToRead{fix_joints, {}};
    };
    return io::load_clip(walk_path(), options);
  }
};

// A hips root with position channels and two one-joint limbs (leg, arm), two frames; the root's
// offset along x is root_offset_x (text).
std::string three_joint_bvh(const std::string& root_offset_x) {
  return "HIERARCHY\nROOT hips\n{\n OFFSET " + root_offset_x +
         " 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
         " JOINT leg\n {\n  OFFSET 1 -2 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End "
         "Site\n  "
         "{\n   OFFSET 0 -3 0\n  }\n }\n"
         " JOINT arm\n {\n  OFFSET -1 2 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End "
         "Site\n  "
         "{\n   OFFSET 0 3 0\n  }\n }\n}\n"
         "MOTION\nFrames: 2\nFrame Time: 0.5\n"
         "1 2 3 10 20 30 40 50 60 70 80 90\n-1 -2 -3 0 0 0 -40 5 6 7 8 9\n";
}

TEST(BvhPartialRead, ReadJointsAreTheFullReadsBitForBitOthersNaN) {
  const std::string text = three_joint_bvh("0");
  const io::bvh::Document doc = io::bvh::parse(text, "three.bvh");
  const core::Clip whole = io::bvh::clip(doc);
  const std::vector<char> read = {1, 1, 0};
  const core::Clip some = io::bvh::clip_of_joints(doc, read);
  ASSERT_EQ(some.frame_count, 2);
  ASSERT_EQ(some.joint_count, 3);
  EXPECT_EQ(some.fps, whole.fps);
  for (int f = 0; f < 2; ++f) {
    EXPECT_TRUE(same_bits(some.at(f, 0), whole.at(f, 0))) << f;
    EXPECT_TRUE(same_bits(some.at(f, 1), whole.at(f, 1))) << f;
    EXPECT_TRUE(all_nan(some.at(f, 2))) << f;
  }
  EXPECT_TRUE(all_nan(io::bvh::unread_transform()));
  const std::vector<char> wrong_count = {1, 1};
  EXPECT_THROW(io::bvh::clip_of_joints(doc, wrong_count), std::invalid_argument);
}

// kJointTranslationOnly: the translation (position channels included) and scale are the whole
// read's bits, the rotation NaN; the rotation of a kJointRead joint beside it is untouched.
TEST(BvhPartialRead, TranslationOnlyJointsHoldTheWholeReadsTranslationAndNoRotation) {
  const std::string text = three_joint_bvh("0.5");
  const io::bvh::Document doc = io::bvh::parse(text, "three.bvh");
  const core::Clip whole = io::bvh::clip(doc);
  const std::vector<char> read = {io::kJointTranslationOnly, io::kJointRead,
                                  io::kJointTranslationOnly};
  const core::Clip some = io::bvh::clip_of_joints(doc, read);
  for (int f = 0; f < 2; ++f) {
    EXPECT_TRUE(same_bits(some.at(f, 1), whole.at(f, 1))) << f;
    for (int j : {0, 2}) {
      const core::Transform& t = some.at(f, j);
      const core::Transform& w = whole.at(f, j);
      EXPECT_EQ(std::memcmp(&t.translation, &w.translation, sizeof t.translation), 0) << f << j;
      EXPECT_EQ(std::memcmp(&t.scale, &w.scale, sizeof t.scale), 0) << f << j;
      EXPECT_TRUE(std::isnan(t.rotation.w) && std::isnan(t.rotation.x) &&
                  std::isnan(t.rotation.y) && std::isnan(t.rotation.z))
          << f << j;
    }
  }
  EXPECT_EQ(some.at(1, 0).translation, core::Vec3(-0.5, -2, -3));  // OFFSET + channels
  EXPECT_EQ(some.at(1, 2).translation, core::Vec3(-1, 2, 0));      // the OFFSET
}

TEST(BvhPartialRead, OnThreadsTheSameBits) {
  IKFIX_REQUIRE_SHARED_DATA();
  const io::bvh::Document doc = io::bvh::read_file(walk_path());
  std::vector<char> read(doc.joint_count(), 0);
  for (int j = 0; j < doc.joint_count(); j += 3) read[j] = 1;
  const core::Clip serial = io::bvh::clip_of_joints(doc, read);
  const core::ThreadPool pool(2);
  const core::Clip threaded = io::bvh::clip_of_joints(doc, read, &pool);
  const core::Clip whole = io::bvh::clip(doc, &pool);
  ASSERT_EQ(serial.locals.size(), threaded.locals.size());
  for (int f = 0; f < serial.frame_count; ++f)
    for (int j = 0; j < serial.joint_count; ++j) {
      EXPECT_TRUE(read[j] ? same_bits(threaded.at(f, j), whole.at(f, j))
                          : all_nan(threaded.at(f, j)))
          << "frame " << f << " joint " << j;
      ASSERT_TRUE(read[j] ? same_bits(serial.at(f, j), threaded.at(f, j))
                          : all_nan(serial.at(f, j)))
          << "frame " << f << " joint " << j;
    }
}

TEST(BvhPartialRead, LoadClipReadsTheJointsAskedForAndSaysWhich) {
  IKFIX_REQUIRE_SHARED_DATA();
  const WalkReads w;
  EXPECT_TRUE(w.full.all_joints_read());
  ASSERT_FALSE(w.partial.all_joints_read());
  // The walk's fix reads the legs and their ancestors only: 11 of 31 joints.
  EXPECT_EQ(w.fix_joints.size(), 11u);
  EXPECT_EQ(w.full.skeleton.joint_count(), 31);
  ASSERT_EQ(w.partial.joints_read.size(), 31u);
  for (int j = 0; j < 31; ++j) {
    const bool wanted =
        std::find(w.fix_joints.begin(), w.fix_joints.end(), j) != w.fix_joints.end();
    EXPECT_EQ(w.partial.joints_read[j] != 0, wanted) << j;
    for (int f = 0; f < w.full.clip.frame_count; ++f)
      ASSERT_TRUE(wanted ? same_bits(w.partial.clip.at(f, j), w.full.clip.at(f, j))
                         : all_nan(w.partial.clip.at(f, j)))
          << "frame " << f << " joint " << j;
  }
  // Everything but the motion is as the full read's.
  EXPECT_EQ(w.partial.space.metres_per_unit, w.full.space.metres_per_unit);
  EXPECT_EQ(w.partial.unit_name, w.full.unit_name);
  EXPECT_EQ(w.partial.warnings, w.full.warnings);

  // Translation-only joints are flagged so (a joint also read whole is read whole), their
  // translation the full read's.
  io::ClipLoadOptions leaves;
  const int head = w.full.skeleton.find("Head");
  ASSERT_GE(head, 0);
  leaves.joints_to_read = [&](const io::LoadedClip&) {
    return io::JointsToRead{w.fix_joints, {head, w.fix_joints.front()}};
  };
  const io::LoadedClip by_translation = io::load_clip(walk_path(), leaves);
  ASSERT_EQ(by_translation.joints_read.size(), 31u);
  EXPECT_EQ(by_translation.joints_read[head], io::kJointTranslationOnly);
  EXPECT_EQ(by_translation.joints_read[w.fix_joints.front()], io::kJointRead);
  for (int f = 0; f < w.full.clip.frame_count; ++f)
    ASSERT_EQ(by_translation.clip.at(f, head).translation, w.full.clip.at(f, head).translation);
  // Nor is such a joint written.
  std::vector<char> changed(31, 0);
  changed[head] = 1;
  const auto dir = ikfix::test::scratch_dir("partial_leaves");
  EXPECT_THROW(io::save_clip(dir / "out.bvh", by_translation, by_translation.clip, changed),
               std::logic_error);
  std::filesystem::remove_all(dir);

  // An empty list reads every joint; a joint out of range is refused.
  io::ClipLoadOptions all;
  all.joints_to_read = [](const io::LoadedClip&) { return io::JointsToRead{}; };
  EXPECT_TRUE(io::load_clip(walk_path(), all).all_joints_read());
  io::ClipLoadOptions bad;
  bad.joints_to_read = [](const io::LoadedClip&) { return io::JointsToRead{{31}, {}}; };
  EXPECT_THROW(io::load_clip(walk_path(), bad), std::invalid_argument);
  bad.joints_to_read = [](const io::LoadedClip&) { return io::JointsToRead{{0}, {-1}}; };
  EXPECT_THROW(io::load_clip(walk_path(), bad), std::invalid_argument);
  // load_takes (every take, every joint) ignores it.
  io::ClipLoadOptions some;
  some.joints_to_read = [&](const io::LoadedClip&) { return io::JointsToRead{w.fix_joints, {}}; };
  EXPECT_TRUE(io::load_takes(walk_path(), some).front().all_joints_read());
}

// The fix reads only joints_fix_reads: on the partly read clip (NaN elsewhere) it gives the
// whole clip's result bit for bit and changes none of the unread joints.
TEST(BvhPartialRead, FixOnThePartReadClipIsTheFixOnTheWholeClip) {
  IKFIX_REQUIRE_SHARED_DATA();
  const WalkReads w;
  core::BumpsParams bumps;
  bumps.cell = 0.2;
  const core::Terrain terrain(core::make_bumps_terrain(bumps));
  auto fix = [&](const io::LoadedClip& clip) {
    core::FixInput in;
    in.skeleton = &clip.skeleton;
    in.clip = &clip.clip;
    in.space = clip.space;
    in.rig = w.rig;
    in.terrain = &terrain;
    return core::fix_clip(in);
  };
  const core::FixResult whole = fix(w.full);
  const core::FixResult part = fix(w.partial);
  ASSERT_EQ(whole.changed_joints, part.changed_joints);
  EXPECT_EQ(whole.diagnostics.legs[0].max_correction_m, part.diagnostics.legs[0].max_correction_m);
  EXPECT_EQ(whole.diagnostics.legs[1].unreachable_frames,
            part.diagnostics.legs[1].unreachable_frames);
  EXPECT_EQ(whole.diagnostics.max_bone_length_change, part.diagnostics.max_bone_length_change);
  int changed = 0;
  for (int j = 0; j < w.full.clip.joint_count; ++j) {
    if (!w.partial.joints_read[j]) {
      EXPECT_FALSE(part.changed_joints[j]) << j;
    }
    changed += part.changed_joints[j];
    for (int f = 0; f < w.full.clip.frame_count; ++f)
      ASSERT_TRUE(w.partial.joints_read[j] ? same_bits(part.clip.at(f, j), whole.clip.at(f, j))
                                           : all_nan(part.clip.at(f, j)))
          << "frame " << f << " joint " << j;
  }
  EXPECT_GT(changed, 0);

  // Written back: the same bytes as the whole clip's.
  const auto dir = ikfix::test::scratch_dir("partial_read");
  io::save_clip(dir / "whole.bvh", w.full, whole.clip, whole.changed_joints);
  io::save_clip(dir / "part.bvh", w.partial, part.clip, part.changed_joints);
  EXPECT_EQ(io::read_file(dir / "whole.bvh"), io::read_file(dir / "part.bvh"));
  std::filesystem::remove_all(dir);
}

TEST(BvhPartialRead, WritersRefuseWhatNeedsAnUnreadJoint) {
  IKFIX_REQUIRE_SHARED_DATA();
  const WalkReads w;
  const auto dir = ikfix::test::scratch_dir("partial_refuse");
  const int unread =
      static_cast<int>(std::find(w.partial.joints_read.begin(), w.partial.joints_read.end(), 0) -
                       w.partial.joints_read.begin());
  ASSERT_LT(unread, w.partial.skeleton.joint_count());
  std::vector<char> changed(w.partial.skeleton.joint_count(), 0);
  changed[unread] = 1;
  try {
    io::save_clip(dir / "out.bvh", w.partial, w.partial.clip, changed);
    ADD_FAILURE() << "wrote an unread joint";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find(w.partial.skeleton.names[unread]), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out.bvh"));
  // A conversion writes every joint.
  std::vector<char> none(w.partial.skeleton.joint_count(), 0);
  EXPECT_TRUE(io::save_converts(dir / "out.glb", w.partial));
  EXPECT_FALSE(io::save_converts(dir / "out.bvh", w.partial));
  EXPECT_THROW(io::save_clip(dir / "out.glb", w.partial, w.partial.clip, none), std::logic_error);
  const io::TakeEdit edit{&w.partial, &w.partial.clip, none};
  EXPECT_THROW(io::save_takes(dir / "out.glb", {&edit, 1}), std::logic_error);
  EXPECT_THROW(io::save_new_take(dir / "new.bvh", w.partial, w.partial.clip, none, "t", false),
               std::logic_error);
  // Unchanged read joints only: written, and the bytes of the input.
  io::save_clip(dir / "same.bvh", w.partial, w.partial.clip, none);
  EXPECT_EQ(io::read_file(dir / "same.bvh"), io::read_file(walk_path()));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix
