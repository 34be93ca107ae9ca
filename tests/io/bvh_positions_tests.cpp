// BVH files written the way Blender's exporter writes them (issue 19 row 11): position channels
// on every joint holding its whole local translation (the OFFSET at rest). The reader finds the
// convention from the values, reads them as the translation, and the writer keeps it.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>

#include "io/bvh/bvh.hpp"
#include "io/clip_facts.hpp"
#include "io/clip_io.hpp"
#include "io/file_util.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace {

namespace bvh = ikfix::io::bvh;
using ikfix::core::Vec3;

// `d` rewritten as Blender exports it: every joint gets X, Y, Z position channels before its
// rotation channels, holding its whole local translation (OFFSET plus the file's own position
// values); the root's OFFSET becomes its translation on frame 0 (the rest head).
std::string blender_style(const bvh::Document& d) {
  std::ostringstream out;
  out.precision(17);
  std::vector<std::vector<int>> children(d.joints.size());
  for (int j = 0; j < d.joint_count(); ++j)
    if (d.joints[j].parent >= 0) children[d.joints[j].parent].push_back(j);
  auto translation = [&](int j, int f) {
    const bvh::Joint& joint = d.joints[j];
    Vec3 t = joint.offset;
    for (std::size_t n = 0; n < joint.channels.size(); ++n)
      if (bvh::is_position(joint.channels[n]))
        t[bvh::axis_of(joint.channels[n])] += d.value(f, joint.first_value + static_cast<int>(n));
    return t;
  };
  std::function<void(int, const std::string&)> write = [&](int j, const std::string& pad) {
    const bvh::Joint& joint = d.joints[j];
    const Vec3 offset = joint.parent < 0 ? translation(j, 0) : joint.offset;
    out << pad << (joint.parent < 0 ? "ROOT " : "JOINT ") << joint.name << "\n" << pad << "{\n";
    out << pad << "  OFFSET " << offset.x << " " << offset.y << " " << offset.z << "\n";
    int rotations = 0;
    for (bvh::ChannelKind k : joint.channels) rotations += bvh::is_rotation(k);
    out << pad << "  CHANNELS " << 3 + rotations << " Xposition Yposition Zposition";
    for (bvh::ChannelKind k : joint.channels)
      if (bvh::is_rotation(k)) out << " " << bvh::channel_name(k);
    out << "\n";
    for (int c : children[j]) write(c, pad + "  ");
    if (joint.end_site)
      out << pad << "  End Site\n"
          << pad << "  {\n"
          << pad << "    OFFSET " << joint.end_site->x << " " << joint.end_site->y << " "
          << joint.end_site->z << "\n"
          << pad << "  }\n";
    out << pad << "}\n";
  };
  out << "HIERARCHY\n";
  for (int j = 0; j < d.joint_count(); ++j)
    if (d.joints[j].parent < 0) write(j, "");
  out << "MOTION\nFrames: " << d.frame_count << "\nFrame Time: " << d.frame_time << "\n";
  for (int f = 0; f < d.frame_count; ++f) {
    // Values in hierarchy order (depth first, as written above): the file order of joints.
    for (int j = 0; j < d.joint_count(); ++j) {
      const bvh::Joint& joint = d.joints[j];
      const Vec3 t = translation(j, f);
      out << (j ? " " : "") << t.x << " " << t.y << " " << t.z;
      for (std::size_t n = 0; n < joint.channels.size(); ++n)
        if (bvh::is_rotation(joint.channels[n]))
          out << " " << d.value(f, joint.first_value + static_cast<int>(n));
    }
    out << "\n";
  }
  return out.str();
}

struct Pair {
  std::filesystem::path standard, blender;
};

Pair walk_pair() {
  Pair p;
  p.standard = ikfix::test::source_dir() / "data" / "clips" / "walk.bvh";
  p.blender = ikfix::test::scratch_path("walk_blender_style.bvh");
  ikfix::io::write_file_atomic(p.blender, blender_style(bvh::read_file(p.standard)));
  return p;
}

TEST(BvhPositions, BlenderStyleFileReadsAsTheSameMotion) {
  const Pair p = walk_pair();
  EXPECT_EQ(bvh::read_file(p.standard).positions, bvh::PositionConvention::offset_plus_channels);
  EXPECT_EQ(bvh::read_file(p.blender).positions, bvh::PositionConvention::channels_only);
  const ikfix::io::LoadedClip a = ikfix::io::load_clip(p.standard);
  const ikfix::io::LoadedClip b = ikfix::io::load_clip(p.blender);
  EXPECT_EQ(ikfix::io::bvh_positions(a), "offset_plus_channels");
  EXPECT_EQ(ikfix::io::bvh_positions(b), "channels_only");
  ASSERT_EQ(a.clip.frame_count, b.clip.frame_count);
  ASSERT_EQ(a.clip.joint_count, b.clip.joint_count);
  // Every joint of every frame: the same local transform, bit for bit (the values were printed
  // with 17 digits), so no bone doubles.
  for (int f = 0; f < a.clip.frame_count; ++f)
    for (int j = 0; j < a.clip.joint_count; ++j) {
      ASSERT_EQ(a.clip.at(f, j).translation, b.clip.at(f, j).translation) << f << " " << j;
      ASSERT_EQ(a.clip.at(f, j).rotation, b.clip.at(f, j).rotation) << f << " " << j;
    }
  EXPECT_EQ(a.space.metres_per_unit, b.space.metres_per_unit);
}

TEST(BvhPositions, EditsAreWrittenBackInTheFilesConvention) {
  const Pair p = walk_pair();
  const ikfix::io::LoadedClip b = ikfix::io::load_clip(p.blender);
  // Unedited: the same bytes.
  const auto same = ikfix::test::scratch_path("walk_blender_same.bvh");
  ikfix::io::save_clip(same, b, b.clip, std::vector<char>(b.skeleton.joint_count(), 0));
  EXPECT_EQ(ikfix::io::read_file(same), ikfix::io::read_file(p.blender));
  // The hips lowered by 2 units and the left knee's translation kept: read back as written.
  ikfix::core::Clip edited = b.clip;
  std::vector<char> changed(b.skeleton.joint_count(), 0);
  const int hips = b.skeleton.find("Hips"), knee = b.skeleton.find("LeftLeg");
  changed[hips] = changed[knee] = 1;
  for (int f = 0; f < edited.frame_count; ++f) {
    edited.at(f, hips).translation.y -= 2.0;
    edited.at(f, knee).translation.z += 0.5;
  }
  const auto out = ikfix::test::scratch_path("walk_blender_edited.bvh");
  ikfix::io::save_clip(out, b, edited, changed);
  const bvh::Document written = bvh::read_file(out);
  EXPECT_EQ(written.positions, bvh::PositionConvention::channels_only);
  const ikfix::io::LoadedClip back = ikfix::io::load_clip(out);
  for (int f = 0; f < edited.frame_count; ++f)
    for (int j : {hips, knee}) {
      const Vec3 d = back.clip.at(f, j).translation - edited.at(f, j).translation;
      ASSERT_LT(glm::length(d), 1e-4) << f << " " << j;
    }
  // The knee's channels hold its whole translation: the OFFSET (0, -45, 0) moved by 0.5 in Z.
  const bvh::Joint& k = written.joints[knee];
  EXPECT_NEAR(written.value(0, k.first_value + 1), -45.0, 1e-4);
  EXPECT_NEAR(written.value(0, k.first_value + 2), 0.5, 1e-4);
}

TEST(BvhPositions, SmallPositionChannelsStayAddedToTheOffset) {
  // Non-root position channels holding small motions (not the OFFSET) are the BVH convention.
  const std::string text =
      "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition "
      "Zrotation Yrotation Xrotation\n  JOINT Spine\n  {\n    OFFSET 0 10 0\n    CHANNELS 6 "
      "Xposition Yposition Zposition Zrotation Yrotation Xrotation\n    End Site\n    {\n"
      "      OFFSET 0 10 0\n    }\n  }\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n"
      "0 90 0 0 0 0 0.5 0 0 0 0 0\n0 90 0 0 0 0 0 1 0 0 0 0\n";
  const bvh::Document d = bvh::parse(text, "small.bvh");
  EXPECT_EQ(d.positions, bvh::PositionConvention::offset_plus_channels);
  const ikfix::core::Clip c = bvh::clip(d);
  EXPECT_EQ(c.at(1, 1).translation, Vec3(0, 11, 0));
}

}  // namespace
